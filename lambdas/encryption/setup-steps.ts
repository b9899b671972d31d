/**
 * The steps of the workspace encryption setup workflow (`state-machines/workspace-encryption-setup.asl.json`).
 * Each step is one Lambda Task; its result is the step's report line, kept by the workflow under
 * `$.steps.<step>`. A step that finds the key unusable throws {@link EncryptionSetupStepError},
 * which the workflow does not retry; {@link EncryptionDependencyUnavailableError} (KMS or S3
 * throttled, failing or unreachable) is retried with backoff. Either way, once retries are spent,
 * the workflow's Catch names the step and `recordSetupFailure` writes the per-step report.
 *
 * Report lines use the spec's error-detail shape (`code`, `message`, `path` = step name) and reach
 * API clients of the workspace in `encryption_setup_failed`: messages say "the key", never its ARN.
 */
import {
  DecryptCommand,
  DescribeKeyCommand,
  EncryptCommand,
  GenerateDataKeyCommand,
  type KeyMetadata,
} from '@aws-sdk/client-kms';
import { DeleteObjectCommand, HeadObjectCommand, PutObjectCommand } from '@aws-sdk/client-s3';
import { z } from 'zod';
import {
  ENCRYPTION_STATES,
  getWorkspace,
  putWorkspaceEncryption,
  type WorkspaceEncryption,
} from '../accounts/workspaces.js';
import { kmsClient, s3Client } from '../core/aws-clients.js';
import { config } from '../core/config.js';
import type { ErrorDetail } from '../core/errors.js';
import { ID_PATTERN, nowSeconds } from '../core/ids.js';
import { parseCustomerKeyArn } from './key-arn.js';

/** The steps in order; the names are the workflow's state names and the report's `path`. */
export const SETUP_STEPS = ['DescribeKey', 'CheckKeyAccess', 'ApplyToMediaPrefix'] as const;
export type SetupStep = (typeof SETUP_STEPS)[number];

/** Error names the workflow's Retry and Catch match on. */
export const SETUP_ERROR_NAMES = {
  stepFailed: 'EncryptionSetupStepFailed',
  dependencyUnavailable: 'EncryptionDependencyUnavailable',
} as const;

export const STEP_PASSED = 'passed';
export const STEP_NOT_RUN = 'not_run';

/** Encryption context of every KMS call the setup makes; the setup functions' IAM requires `purpose`. */
export const SETUP_CHECK_PURPOSE = 'workspace-encryption-setup-check';

/** The step found the key unusable: `[code] message`, parsed back by {@link failureDetail}. */
export class EncryptionSetupStepError extends Error {
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(`[${code}] ${message}`, options);
    this.name = SETUP_ERROR_NAMES.stepFailed;
  }
}

/** KMS or S3 could not answer now: the workflow retries the step. */
export class EncryptionDependencyUnavailableError extends Error {
  constructor(code: string, message: string, options?: ErrorOptions) {
    super(`[${code}] ${message}`, options);
    this.name = SETUP_ERROR_NAMES.dependencyUnavailable;
  }
}

const reportLineSchema = z.object({
  code: z.string(),
  message: z.string(),
  path: z.string(),
});

/** The workflow's state: the execution input plus what the steps added. */
export const setupStateSchema = z.object({
  workspace_id: z.string().regex(ID_PATTERN),
  key_arn: z.string(),
  setup_id: z.string().regex(ID_PATTERN),
  steps: z.record(z.string(), reportLineSchema).default({}),
});
export type SetupState = z.infer<typeof setupStateSchema>;

export const failedSetupStateSchema = setupStateSchema.extend({
  failed_step: z.string(),
  failure: z.object({ Error: z.string(), Cause: z.string().optional() }),
});
export type FailedSetupState = z.infer<typeof failedSetupStateSchema>;

/** The execution input `encryption set` starts the workflow with. */
export function setupInput(workspaceId: string, encryption: WorkspaceEncryption): SetupState {
  return { workspace_id: workspaceId, key_arn: encryption.key_arn, setup_id: encryption.setup_id, steps: {} };
}

function passed(step: SetupStep, message: string): ErrorDetail {
  return { code: STEP_PASSED, message, path: step };
}

const TRANSIENT_ERRORS = new Set([
  'ThrottlingException',
  'ThrottledException',
  'SlowDown',
  'ServiceUnavailable',
  'InternalError',
  'KMSInternalException',
  'DependencyTimeoutException',
  'KeyUnavailableException',
  'TimeoutError',
  'AbortError',
  'RequestTimeout',
]);

function errorName(error: unknown): string {
  return (error as { name?: string }).name ?? 'Error';
}

/** Throttling, 5xx and network failures: worth retrying. */
function isTransient(error: unknown): boolean {
  const { $metadata } = error as { $metadata?: { httpStatusCode?: number } };
  const status = $metadata?.httpStatusCode;
  // No HTTP status at all: the request never got an answer (refused, reset, timed out).
  return TRANSIENT_ERRORS.has(errorName(error)) || status === undefined || status >= 500;
}

/** A KMS error as the step's verdict. `operation` names the call for `<operation>_denied`. */
function kmsFailure(error: unknown, operation: string, action: string): Error {
  const name = errorName(error);
  switch (name) {
    case 'NotFoundException':
      return new EncryptionSetupStepError(
        'key_not_found',
        'KMS has no such key, or it is not visible to this service (a key of another account must allow this account in its key policy).',
        { cause: error },
      );
    case 'AccessDeniedException':
      return new EncryptionSetupStepError(
        `${operation}_denied`,
        `This service may not call ${action} on the key: its key policy (and, for a key of another account, this account's IAM) must allow it.`,
        { cause: error },
      );
    case 'DisabledException':
    case 'KMSInvalidStateException':
      return new EncryptionSetupStepError('key_not_enabled', `The key is not enabled (${action}: ${name}).`, {
        cause: error,
      });
    case 'InvalidKeyUsageException':
      return new EncryptionSetupStepError(
        'key_usage_unsupported',
        `The key cannot be used for ${action}: it must be a symmetric encryption key (ENCRYPT_DECRYPT).`,
        { cause: error },
      );
  }
  if (isTransient(error)) {
    return new EncryptionDependencyUnavailableError(
      'kms_unavailable',
      `KMS did not answer ${action} (${name}).`,
      {
        cause: error,
      },
    );
  }
  return new EncryptionSetupStepError('kms_error', `KMS refused ${action} (${name}).`, { cause: error });
}

async function kms<T>(operation: string, action: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw kmsFailure(error, operation, action);
  }
}

/** Step 1: the key exists, is enabled, symmetric, for encryption, customer managed and in this region. */
export async function describeKeyStep(state: SetupState): Promise<ErrorDetail> {
  const step: SetupStep = 'DescribeKey';
  let region: string;
  try {
    region = parseCustomerKeyArn(state.key_arn, config().region).region;
  } catch (error) {
    throw new EncryptionSetupStepError('invalid_key_arn', (error as Error).message, { cause: error });
  }
  const described = await kms('describe_key', 'kms:DescribeKey', () =>
    kmsClient().send(new DescribeKeyCommand({ KeyId: state.key_arn })),
  );
  const problem = keyMetadataProblem(described.KeyMetadata ?? {}, state.key_arn, region);
  if (problem) throw new EncryptionSetupStepError(problem.code, problem.message);
  return passed(
    step,
    `The key is enabled, symmetric (SYMMETRIC_DEFAULT, ENCRYPT_DECRYPT), customer managed, in ${region}.`,
  );
}

/** Why a described key cannot encrypt this workspace's media, or undefined when it can. */
export function keyMetadataProblem(
  metadata: Partial<KeyMetadata>,
  keyArn: string,
  region: string,
): { code: string; message: string } | undefined {
  if (metadata.Arn !== keyArn) {
    return { code: 'key_mismatch', message: 'KMS described a different key than the one set.' };
  }
  if (metadata.KeyState !== 'Enabled') {
    return {
      code: 'key_not_enabled',
      message: `The key is ${metadata.KeyState ?? 'in an unknown state'}, not Enabled.`,
    };
  }
  if (metadata.KeySpec !== 'SYMMETRIC_DEFAULT') {
    return {
      code: 'key_spec_unsupported',
      message: `The key spec is ${metadata.KeySpec ?? 'unknown'}; S3 encrypts only with SYMMETRIC_DEFAULT keys.`,
    };
  }
  if (metadata.KeyUsage !== 'ENCRYPT_DECRYPT') {
    return {
      code: 'key_usage_unsupported',
      message: `The key usage is ${metadata.KeyUsage ?? 'unknown'}; it must be ENCRYPT_DECRYPT.`,
    };
  }
  if (metadata.KeyManager !== 'CUSTOMER') {
    return {
      code: 'key_not_customer_managed',
      message: 'The key is managed by AWS, not by the customer; bring a customer-managed key.',
    };
  }
  if (metadata.Arn.split(':')[3] !== region) {
    return { code: 'key_region_mismatch', message: `The key is not in ${region}.` };
  }
  return undefined;
}

function sameBytes(a: Uint8Array | undefined, b: Uint8Array | undefined): boolean {
  return a !== undefined && b !== undefined && Buffer.from(a).equals(Buffer.from(b));
}

/**
 * Step 2: what S3 will ask KMS for, done by the service itself: a data key generated under the key
 * and decrypted again (SSE-KMS writes and reads), and an encrypt/decrypt round trip, all bound to
 * an encryption context naming this setup.
 */
export async function checkKeyAccessStep(state: SetupState): Promise<ErrorDetail> {
  const step: SetupStep = 'CheckKeyAccess';
  const context = {
    purpose: SETUP_CHECK_PURPOSE,
    workspace_id: state.workspace_id,
    setup_id: state.setup_id,
  };
  const client = kmsClient();
  const dataKey = await kms('generate_data_key', 'kms:GenerateDataKey', () =>
    client.send(
      new GenerateDataKeyCommand({ KeyId: state.key_arn, KeySpec: 'AES_256', EncryptionContext: context }),
    ),
  );
  const unwrapped = await kms('decrypt', 'kms:Decrypt', () =>
    client.send(
      new DecryptCommand({
        CiphertextBlob: dataKey.CiphertextBlob,
        EncryptionContext: context,
        KeyId: state.key_arn,
      }),
    ),
  );
  if (!sameBytes(unwrapped.Plaintext, dataKey.Plaintext)) {
    throw new EncryptionSetupStepError(
      'round_trip_mismatch',
      'A data key decrypted to different bytes than KMS generated.',
    );
  }
  const probe = crypto.getRandomValues(new Uint8Array(32));
  const sealed = await kms('encrypt', 'kms:Encrypt', () =>
    client.send(new EncryptCommand({ KeyId: state.key_arn, Plaintext: probe, EncryptionContext: context })),
  );
  const opened = await kms('decrypt', 'kms:Decrypt', () =>
    client.send(
      new DecryptCommand({
        CiphertextBlob: sealed.CiphertextBlob,
        EncryptionContext: context,
        KeyId: state.key_arn,
      }),
    ),
  );
  if (!sameBytes(opened.Plaintext, probe)) {
    throw new EncryptionSetupStepError(
      'round_trip_mismatch',
      'Encrypted test data decrypted to different bytes.',
    );
  }
  return passed(
    step,
    'The service generated and decrypted a data key and encrypted and decrypted test data with the key.',
  );
}

/**
 * Where the media-prefix check writes: a folder of the workspace's media prefix `workspaces/<id>/`
 * (see `lambdas/media/media-keys.ts`); the object is removed right after.
 */
export function encryptionCheckPrefix(workspaceId: string): string {
  return `workspaces/${workspaceId}/.encryption-check/`;
}

export function encryptionCheckObjectKey(workspaceId: string, setupId: string): string {
  return `${encryptionCheckPrefix(workspaceId)}${setupId}`;
}

function s3Failure(error: unknown, action: string): Error {
  const name = errorName(error);
  if (name === 'AccessDenied' || name === 'KMS.AccessDeniedException') {
    return new EncryptionSetupStepError(
      'media_write_denied',
      `S3 could not ${action} with the key: its key policy must let this service's roles use it through S3 (kms:GenerateDataKey).`,
      { cause: error },
    );
  }
  if (name === 'KMS.DisabledException' || name === 'KMS.KMSInvalidStateException') {
    return new EncryptionSetupStepError(
      'key_not_enabled',
      `S3 could not ${action}: the key is not enabled.`,
      {
        cause: error,
      },
    );
  }
  if (name === 'KMS.NotFoundException') {
    return new EncryptionSetupStepError('key_not_found', `S3 could not ${action}: KMS has no such key.`, {
      cause: error,
    });
  }
  if (isTransient(error)) {
    return new EncryptionDependencyUnavailableError(
      's3_unavailable',
      `S3 did not answer (${action}: ${name}).`,
      {
        cause: error,
      },
    );
  }
  return new EncryptionSetupStepError('media_write_failed', `S3 refused to ${action} (${name}).`, {
    cause: error,
  });
}

async function s3<T>(action: string, call: () => Promise<T>): Promise<T> {
  try {
    return await call();
  } catch (error) {
    throw s3Failure(error, action);
  }
}

export type ApplyOutcome = ErrorDetail & { outcome: 'activated' | 'superseded' };

/**
 * Step 3: S3 writes an object under the workspace's media prefix with the key and reports that key
 * back; then the key is recorded on the workspace and marked active, which is what every later
 * media write of the workspace reads (`encryptionForMediaWrite`). A setup that was superseded by a
 * newer `encryption set` (or cleared) meanwhile records nothing.
 */
export async function applyToMediaPrefixStep(state: SetupState): Promise<ApplyOutcome> {
  const step: SetupStep = 'ApplyToMediaPrefix';
  const bucket = config().bucketName;
  const key = encryptionCheckObjectKey(state.workspace_id, state.setup_id);
  await s3('write an object', () =>
    s3Client().send(
      new PutObjectCommand({
        Bucket: bucket,
        Key: key,
        Body: 'encryption setup check',
        ContentType: 'text/plain',
        ServerSideEncryption: 'aws:kms',
        SSEKMSKeyId: state.key_arn,
        BucketKeyEnabled: true,
      }),
    ),
  );
  const head = await s3('read the object back', () =>
    s3Client().send(new HeadObjectCommand({ Bucket: bucket, Key: key })),
  );
  await s3('delete the check object', () =>
    s3Client().send(new DeleteObjectCommand({ Bucket: bucket, Key: key })),
  );
  if (head.ServerSideEncryption !== 'aws:kms' || head.SSEKMSKeyId !== state.key_arn) {
    throw new EncryptionSetupStepError(
      'media_encryption_mismatch',
      `S3 stored the check object with ${head.ServerSideEncryption ?? 'no'} encryption${
        head.SSEKMSKeyId && head.SSEKMSKeyId !== state.key_arn ? ' under another key' : ''
      }, not with the key.`,
    );
  }
  const line = passed(step, "S3 encrypted a check object under the workspace's media prefix with the key.");
  const now = nowSeconds();
  const activated = await concludePendingSetup(state.workspace_id, state.setup_id, {
    state: ENCRYPTION_STATES.active,
    report: [...reportOf(state.steps), line],
    updated_at: now,
    activated_at: now,
  });
  return { ...line, outcome: activated ? 'activated' : 'superseded' };
}

/**
 * Moves the workspace's pending setup `setupId` to its outcome. Returns false, writing nothing,
 * when the workspace no longer has that setup pending (set again, or cleared).
 */
export async function concludePendingSetup(
  workspaceId: string,
  setupId: string,
  outcome: Pick<WorkspaceEncryption, 'state' | 'report' | 'updated_at' | 'activated_at'>,
): Promise<boolean> {
  const current = (await getWorkspace(workspaceId, true))?.encryption;
  if (current?.state !== ENCRYPTION_STATES.pending || current.setup_id !== setupId) return false;
  return putWorkspaceEncryption(
    workspaceId,
    { ...current, ...outcome },
    { state: ENCRYPTION_STATES.pending, setup_id: setupId },
  );
}

/** Report lines of the steps that ran, in step order. */
function reportOf(steps: Record<string, ErrorDetail>): ErrorDetail[] {
  return SETUP_STEPS.flatMap((step) => {
    const line = steps[step];
    return line ? [{ code: line.code, message: line.message, path: step }] : [];
  });
}

const CODED_MESSAGE = /^\[([a-z0-9_]+)\] ([\s\S]*)$/;

/** The report line of a failed step, from the error the workflow caught. */
export function failureDetail(
  step: string,
  failure: { Error: string; Cause?: string | undefined },
): ErrorDetail {
  let errorMessage = '';
  try {
    errorMessage = String(
      (JSON.parse(failure.Cause ?? '{}') as { errorMessage?: unknown }).errorMessage ?? '',
    );
  } catch {
    // A Cause that is not a Lambda error document (States.Timeout, ...): only the error name is used.
  }
  const coded = CODED_MESSAGE.exec(errorMessage);
  if (
    coded &&
    (failure.Error === SETUP_ERROR_NAMES.stepFailed ||
      failure.Error === SETUP_ERROR_NAMES.dependencyUnavailable)
  ) {
    const suffix =
      failure.Error === SETUP_ERROR_NAMES.dependencyUnavailable
        ? ' Retries were exhausted; set the key again later.'
        : '';
    return { code: coded[1] ?? 'step_failed', message: `${coded[2] ?? ''}${suffix}`, path: step };
  }
  if (failure.Error === 'States.Timeout') {
    return { code: 'step_timed_out', message: 'The step did not finish in time.', path: step };
  }
  // Anything else is a fault of this service: say which, never its internals.
  return { code: 'step_error', message: `The step failed unexpectedly (${failure.Error}).`, path: step };
}

/** The whole report of a failed setup: passed steps, the failed one, and the steps never run. */
export function failureReport(state: FailedSetupState): ErrorDetail[] {
  const failed = failureDetail(state.failed_step, state.failure);
  const report: ErrorDetail[] = [];
  let reachedFailure = false;
  for (const step of SETUP_STEPS) {
    const line = state.steps[step];
    if (step === state.failed_step) {
      report.push(failed);
      reachedFailure = true;
    } else if (line && !reachedFailure) {
      report.push({ code: line.code, message: line.message, path: step });
    } else {
      report.push({ code: STEP_NOT_RUN, message: 'Not run: an earlier step failed.', path: step });
    }
  }
  if (!reachedFailure) report.push(failed);
  return report;
}

/** The workflow's Catch path: records `failed` with the report, unless the setup was superseded. */
export async function recordSetupFailure(
  state: FailedSetupState,
): Promise<{ outcome: 'failed' | 'superseded'; report: ErrorDetail[] }> {
  const report = failureReport(state);
  const recorded = await concludePendingSetup(state.workspace_id, state.setup_id, {
    state: ENCRYPTION_STATES.failed,
    report,
    updated_at: nowSeconds(),
  });
  return { outcome: recorded ? 'failed' : 'superseded', report };
}
