import { readFileSync } from 'node:fs';
import path from 'node:path';
import { describe, expect, it } from 'vitest';
import {
  EncryptionDependencyUnavailableError,
  EncryptionSetupStepError,
  failureDetail,
  failureReport,
  keyMetadataProblem,
  SETUP_ERROR_NAMES,
  SETUP_STEPS,
} from '../../lambdas/encryption/setup-steps.js';
import { ENCRYPTION_SETUP_WORKFLOW, TASK_FUNCTIONS } from '../../lambdas/workflows/task-functions.js';
import { taskFunctionNames } from '../../lib/stack/workflow-state-machines.js';

const ROOT = path.resolve(import.meta.dirname, '../..');
const definitionText = readFileSync(
  path.join(ROOT, 'state-machines', `${ENCRYPTION_SETUP_WORKFLOW}.asl.json`),
  'utf8',
);
interface StateJson {
  Type: string;
  Next?: string;
  Catch?: { Next: string }[];
  Retry?: { ErrorEquals: string[] }[];
  Result?: unknown;
}
const definition = JSON.parse(definitionText) as { StartAt: string; States: Record<string, StateJson> };

/** What a Lambda function's error looks like to a Catch: `Cause` is the runtime's error document. */
function caught(error: Error) {
  return {
    Error: error.name,
    Cause: JSON.stringify({ errorType: error.name, errorMessage: error.message, trace: [] }),
  };
}

const WORKSPACE = '0123456789abcdef0123456789abcdef';
const SETUP = 'fedcba9876543210fedcba9876543210';
const ARN = 'arn:aws:kms:eu-west-1:111122223333:key/1234abcd-12ab-34cd-56ef-1234567890ab';

describe('the encryption setup workflow definition', () => {
  it('runs the setup steps in order, each with a Catch naming it for the report', () => {
    const order: string[] = [];
    let state: string | undefined = definition.StartAt;
    while (state && SETUP_STEPS.includes(state as never)) {
      order.push(state);
      const current: StateJson | undefined = definition.States[state];
      expect(current?.Type).toBe('Task');
      const catchTarget = current?.Catch?.[0]?.Next ?? '';
      expect(definition.States[catchTarget]).toMatchObject({
        Type: 'Pass',
        Result: state,
        Next: 'RecordFailure',
      });
      expect(current?.Retry?.[0]?.ErrorEquals).toContain(SETUP_ERROR_NAMES.dependencyUnavailable);
      expect(current?.Retry?.[0]?.ErrorEquals).not.toContain(SETUP_ERROR_NAMES.stepFailed);
      state = current?.Next;
    }
    expect(order).toEqual([...SETUP_STEPS]);
  });

  it('names only task functions of the registry, and all of the encryption setup ones', () => {
    const names = taskFunctionNames(definitionText);
    expect(names.every((name) => name in TASK_FUNCTIONS)).toBe(true);
    expect(names.sort()).toEqual(
      Object.keys(TASK_FUNCTIONS)
        .filter((name) => name.startsWith('Encryption'))
        .sort(),
    );
  });

  it('uses neither JSONata nor HeartbeatSeconds (it must run in aws-local-stepfunctions)', () => {
    expect(definitionText).not.toMatch(/JSONata|HeartbeatSeconds|"Assign"/);
  });
});

describe('setup report', () => {
  it('reads the code and message of a step error back out of the Lambda error document', () => {
    const detail = failureDetail(
      'DescribeKey',
      caught(new EncryptionSetupStepError('key_not_enabled', 'The key is Disabled.')),
    );
    expect(detail).toEqual({ code: 'key_not_enabled', message: 'The key is Disabled.', path: 'DescribeKey' });
  });

  it('says retries were exhausted for a dependency that stayed unavailable', () => {
    const detail = failureDetail(
      'CheckKeyAccess',
      caught(new EncryptionDependencyUnavailableError('kms_unavailable', 'KMS did not answer.')),
    );
    expect(detail.code).toBe('kms_unavailable');
    expect(detail.message).toMatch(/Retries were exhausted/);
  });

  it('names timeouts and never repeats the internals of unexpected errors', () => {
    expect(failureDetail('ApplyToMediaPrefix', { Error: 'States.Timeout', Cause: '' })).toMatchObject({
      code: 'step_timed_out',
    });
    const unexpected = failureDetail(
      'DescribeKey',
      caught(Object.assign(new Error('secret internals at /var/task'), { name: 'TypeError' })),
    );
    expect(unexpected).toEqual({
      code: 'step_error',
      message: 'The step failed unexpectedly (TypeError).',
      path: 'DescribeKey',
    });
    // A coded message only counts when it comes from the setup's own errors.
    expect(failureDetail('DescribeKey', caught(new Error('[key_not_found] forged'))).code).toBe('step_error');
  });

  it('reports every step: passed, the failed one, and the ones never run', () => {
    const report = failureReport({
      workspace_id: WORKSPACE,
      key_arn: ARN,
      setup_id: SETUP,
      steps: { DescribeKey: { code: 'passed', message: 'ok', path: 'DescribeKey' } },
      failed_step: 'CheckKeyAccess',
      failure: caught(new EncryptionSetupStepError('decrypt_denied', 'No kms:Decrypt.')),
    });
    expect(report).toEqual([
      { code: 'passed', message: 'ok', path: 'DescribeKey' },
      { code: 'decrypt_denied', message: 'No kms:Decrypt.', path: 'CheckKeyAccess' },
      { code: 'not_run', message: 'Not run: an earlier step failed.', path: 'ApplyToMediaPrefix' },
    ]);
  });
});

describe('keyMetadataProblem', () => {
  const good = {
    Arn: ARN,
    KeyState: 'Enabled' as const,
    KeySpec: 'SYMMETRIC_DEFAULT' as const,
    KeyUsage: 'ENCRYPT_DECRYPT' as const,
    KeyManager: 'CUSTOMER' as const,
  };

  it('accepts an enabled symmetric customer-managed encryption key of the region', () => {
    expect(keyMetadataProblem(good, ARN, 'eu-west-1')).toBeUndefined();
  });

  it.each([
    ['key_not_enabled', { KeyState: 'PendingDeletion' as const }],
    ['key_spec_unsupported', { KeySpec: 'HMAC_256' as const }],
    ['key_spec_unsupported', { KeySpec: 'RSA_2048' as const }],
    ['key_usage_unsupported', { KeyUsage: 'GENERATE_VERIFY_MAC' as const }],
    ['key_not_customer_managed', { KeyManager: 'AWS' as const }],
    ['key_mismatch', { Arn: ARN.replace('1234abcd-', '9999abcd-') }],
  ])('reports %s', (code, change) => {
    expect(keyMetadataProblem({ ...good, ...change }, ARN, 'eu-west-1')?.code).toBe(code);
  });

  it('reports a key of another region', () => {
    expect(keyMetadataProblem(good, ARN, 'us-east-1')?.code).toBe('key_region_mismatch');
  });
});
