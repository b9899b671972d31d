/**
 * Customer-managed workspace keys end to end on the local stack: keys created in the local KMS, set
 * with the admin CLI's commands, the setup workflow run by the Step Functions emulator with the
 * same ASL and task handlers as deployed, media written through the media store and the local S3's
 * encryption shim, and the spec's encryption errors through the API.
 */
import { execFile } from 'node:child_process';
import { createServer, type Server } from 'node:net';
import { promisify } from 'node:util';
import {
  CreateKeyCommand,
  DisableKeyCommand,
  EnableKeyCommand,
  KMSClient,
  ScheduleKeyDeletionCommand,
} from '@aws-sdk/client-kms';
import { GetObjectCommand, HeadObjectCommand, S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { resetAwsClients } from '../../lambdas/core/aws-clients.js';
import { config, resetConfig } from '../../lambdas/core/config.js';
import { clearKeyUsabilityCache } from '../../lambdas/encryption/key-usability.js';
import {
  beginEncryptionSetup,
  type EncryptionView,
  startEncryptionSetup,
} from '../../lambdas/encryption/workspace-encryption.js';
import {
  assertSameEncryptionDomain,
  encryptionForMediaWrite,
} from '../../lambdas/media/encryption-policy.js';
import { mediaKeys } from '../../lambdas/media/media-keys.js';
import { presignMediaUpload, putMediaObject } from '../../lambdas/media/media-store.js';
import { AdminUsageError, runAdminCommand } from '../../lib/admin/admin-commands.js';
import { LOCAL_REGION } from '../../lib/local/storage-emulators.js';
import { png } from '../support/sample-media.js';
import { type ApiResult, errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

/** How long a setup may take before a test gives up, and how often it is polled. */
const SETUP_DEADLINE_MS = 20_000;
const POLL_INTERVAL_MS = 20;

let api: TestStack;
let kms: KMSClient;
let s3: S3Client;

beforeAll(async () => {
  api = await startTestStack({
    // Every write asks KMS (no cached key state), and workflow retries take milliseconds.
    environment: { ENCRYPTION_KEY_CACHE_TTL_SECONDS: '0' },
    stepFunctionsTimeScale: 0.001,
  });
  // The stack set the region, credentials and AWS_ENDPOINT_URL_KMS / _S3 for this process.
  kms = new KMSClient({});
  s3 = new S3Client({ forcePathStyle: true });
});
afterAll(async () => {
  kms.destroy();
  s3.destroy();
  await api.stop();
});

async function createKey(
  keySpec: 'SYMMETRIC_DEFAULT' | 'HMAC_256' = 'SYMMETRIC_DEFAULT',
): Promise<{ id: string; arn: string }> {
  const created = await kms.send(
    new CreateKeyCommand({
      KeySpec: keySpec,
      KeyUsage: keySpec === 'HMAC_256' ? 'GENERATE_VERIFY_MAC' : 'ENCRYPT_DECRYPT',
    }),
  );
  return { id: created.KeyMetadata?.KeyId ?? '', arn: created.KeyMetadata?.Arn ?? '' };
}

async function admin(...argv: string[]): Promise<EncryptionView> {
  return (await runAdminCommand(argv)).output as EncryptionView;
}

/** Polls `encryption show` until the setup is no longer pending. */
async function settledEncryption(workspaceId: string): Promise<EncryptionView> {
  const deadline = Date.now() + SETUP_DEADLINE_MS;
  for (;;) {
    const view = await admin('encryption', 'show', workspaceId);
    if (view.state !== 'pending') return view;
    if (Date.now() > deadline)
      throw new Error(`Setup of ${workspaceId} still pending after ${SETUP_DEADLINE_MS} ms`);
    await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
  }
}

async function workspaceWithKey(
  keyArn: string,
): Promise<{ workspaceId: string; apiKey: string; view: EncryptionView }> {
  const workspace = await api.newWorkspace();
  const started = await admin('encryption', 'set', workspace.workspaceId, '--key-arn', keyArn);
  expect(started).toMatchObject({ state: 'pending', key_arn: keyArn, report: [] });
  return { ...workspace, view: await settledEncryption(workspace.workspaceId) };
}

async function rejection(promise: Promise<unknown>): Promise<Record<string, unknown>> {
  try {
    await promise;
  } catch (error) {
    return error as Record<string, unknown>;
  }
  throw new Error('Expected a rejection');
}

function directUpload(apiKey: string): Promise<ApiResult> {
  return api.call('POST', '/v3/assets/direct-uploads', {
    key: apiKey,
    body: { filename: 'logo.png', content_type: 'image/png', size_bytes: 128 },
  });
}

const objectKey = (workspaceId: string, name: string) => `workspaces/${workspaceId}/assets/${name}`;

async function headEncryption(key: string) {
  const head = await s3.send(new HeadObjectCommand({ Bucket: config().bucketName, Key: key }));
  return { ServerSideEncryption: head.ServerSideEncryption, SSEKMSKeyId: head.SSEKMSKeyId };
}

describe('a workspace with its own key', () => {
  it('activates the key through the setup workflow and writes media with it', async () => {
    const key = await createKey();
    const { workspaceId, apiKey, view } = await workspaceWithKey(key.arn);
    expect(view).toMatchObject({ state: 'active', key_arn: key.arn });
    expect(view.activated_at).toBeGreaterThan(0);
    expect(view.report?.map((line) => [line.path, line.code])).toEqual([
      ['DescribeKey', 'passed'],
      ['CheckKeyAccess', 'passed'],
      ['ApplyToMediaPrefix', 'passed'],
    ]);

    expect(await encryptionForMediaWrite(workspaceId)).toEqual({
      ServerSideEncryption: 'aws:kms',
      SSEKMSKeyId: key.arn,
      BucketKeyEnabled: true,
    });
    const stored = objectKey(workspaceId, 'written');
    await putMediaObject(workspaceId, stored, png(), 'image/png');
    expect(await headEncryption(stored)).toEqual({ ServerSideEncryption: 'aws:kms', SSEKMSKeyId: key.arn });
    const read = await s3.send(new GetObjectCommand({ Bucket: config().bucketName, Key: stored }));
    expect(
      Buffer.from(await (read.Body?.transformToByteArray() ?? Promise.resolve(new Uint8Array()))),
    ).toEqual(png());

    // A presigned upload: S3 signs the SSE parameters as headers, which the uploader must send.
    const presigned = await presignMediaUpload(
      await encryptionForMediaWrite(workspaceId),
      objectKey(workspaceId, 'presigned'),
      'image/png',
      png().length,
      60,
    );
    const put = await fetch(presigned.url, {
      method: 'PUT',
      body: png(),
      headers: {
        ...presigned.headers,
        'x-amz-server-side-encryption': 'aws:kms',
        'x-amz-server-side-encryption-aws-kms-key-id': key.arn,
        'x-amz-server-side-encryption-bucket-key-enabled': 'true',
      },
    });
    expect(put.status).toBe(200);
    expect(await headEncryption(objectKey(workspaceId, 'presigned'))).toEqual({
      ServerSideEncryption: 'aws:kms',
      SSEKMSKeyId: key.arn,
    });

    // Through the API: the multipart upload lands under the workspace's key.
    const multipart = new FormData();
    multipart.append('file', new Blob([png()], { type: 'image/png' }), 'logo.png');
    const uploaded = await fetch(`${api.baseUrl}/v3/assets`, {
      method: 'POST',
      headers: { 'X-Api-Key': apiKey },
      body: multipart,
    });
    expect(uploaded.status).toBe(201);
    const assetId = ((await uploaded.json()) as { data: { asset_id: string } }).data.asset_id;
    expect(await headEncryption(mediaKeys.asset(workspaceId, assetId))).toEqual({
      ServerSideEncryption: 'aws:kms',
      SSEKMSKeyId: key.arn,
    });

    // The setup's check object under the media prefix was removed again.
    await expect(
      s3.send(
        new HeadObjectCommand({
          Bucket: config().bucketName,
          Key: `workspaces/${workspaceId}/.encryption-check/${view.setup_id}`,
        }),
      ),
    ).rejects.toMatchObject({ name: 'NotFound' });
  });

  it('leaves workspaces without a key on the stack key', async () => {
    const { workspaceId } = await api.newWorkspace();
    expect(await admin('encryption', 'show', workspaceId)).toEqual({
      workspace_id: workspaceId,
      state: 'none',
      key_arn: null,
    });
    const stored = objectKey(workspaceId, 'stack');
    await putMediaObject(workspaceId, stored, png(), 'image/png');
    expect(await headEncryption(stored)).toEqual({
      ServerSideEncryption: 'aws:kms',
      SSEKMSKeyId: config().stackKeyId,
    });
  });

  it('refuses media writes with 403 encryption_disabled while the key is disabled or scheduled for deletion', async () => {
    const key = await createKey();
    const { workspaceId, apiKey } = await workspaceWithKey(key.arn);
    await kms.send(new DisableKeyCommand({ KeyId: key.id }));

    expect(await rejection(encryptionForMediaWrite(workspaceId))).toMatchObject({
      status: 403,
      code: 'encryption_disabled',
    });
    expect(
      await rejection(putMediaObject(workspaceId, objectKey(workspaceId, 'refused'), png(), 'image/png')),
    ).toMatchObject({ status: 403, code: 'encryption_disabled' });
    const response = await directUpload(apiKey);
    expect(response.status).toBe(403);
    expect(errorOf(response)).toMatchObject({ code: 'encryption_disabled', param: null });
    expect(errorOf(response).message).toMatch(/disabled/);
    expect(errorOf(response).message).not.toContain(key.arn);

    await kms.send(new EnableKeyCommand({ KeyId: key.id }));
    expect((await encryptionForMediaWrite(workspaceId)).SSEKMSKeyId).toBe(key.arn);

    await kms.send(new ScheduleKeyDeletionCommand({ KeyId: key.id, PendingWindowInDays: 7 }));
    expect(await rejection(encryptionForMediaWrite(workspaceId))).toMatchObject({
      status: 403,
      code: 'encryption_disabled',
      message: expect.stringMatching(/scheduled for deletion/),
    });
  });

  it("reuses a key's state for the configured time", async () => {
    const key = await createKey();
    const { workspaceId } = await workspaceWithKey(key.arn);
    process.env.ENCRYPTION_KEY_CACHE_TTL_SECONDS = '60';
    resetConfig();
    try {
      expect((await encryptionForMediaWrite(workspaceId)).SSEKMSKeyId).toBe(key.arn);
      await kms.send(new DisableKeyCommand({ KeyId: key.id }));
      // Within the TTL the cached answer stands (a disabled key takes effect within the TTL).
      expect((await encryptionForMediaWrite(workspaceId)).SSEKMSKeyId).toBe(key.arn);
      clearKeyUsabilityCache();
      expect(await rejection(encryptionForMediaWrite(workspaceId))).toMatchObject({
        code: 'encryption_disabled',
      });
    } finally {
      process.env.ENCRYPTION_KEY_CACHE_TTL_SECONDS = '0';
      resetConfig();
      clearKeyUsabilityCache();
    }
  });
});

describe('setting a key', () => {
  it.each([
    ['an alias ARN', `arn:aws:kms:${LOCAL_REGION}:000000000000:alias/media`],
    ['an alias name', 'alias/media'],
    ['a bare key id', '1234abcd-12ab-34cd-56ef-1234567890ab'],
    [
      'a key of another region',
      'arn:aws:kms:eu-west-3:000000000000:key/1234abcd-12ab-34cd-56ef-1234567890ab',
    ],
    ['a malformed account', `arn:aws:kms:${LOCAL_REGION}:0000:key/1234abcd-12ab-34cd-56ef-1234567890ab`],
  ])('refuses %s with invalid_encryption_key and changes nothing', async (_name, reference) => {
    const { workspaceId } = await api.newWorkspace();
    const error = await rejection(
      runAdminCommand(['encryption', 'set', workspaceId, '--key-arn', reference]),
    );
    expect(error).toBeInstanceOf(AdminUsageError);
    expect(error).toMatchObject({ code: 'invalid_encryption_key' });
    expect((await admin('encryption', 'show', workspaceId)).state).toBe('none');
  });

  it('prints the refusal and exits with status 2 from the command line', async () => {
    const { workspaceId } = await api.newWorkspace();
    const result = await promisify(execFile)(
      process.execPath,
      ['--import', 'tsx', 'bin/admin.ts', 'encryption', 'set', workspaceId, '--key-arn', 'alias/media'],
      { env: { ...process.env, ...api.stack.environment }, timeout: 30_000 },
    ).then(
      () => ({ code: 0, stderr: '' }),
      (error: { code: number; stderr: string }) => error,
    );
    expect(result.code).toBe(2);
    expect(result.stderr).toMatch(/aliases are not accepted/i);
  });

  it('refuses an unknown workspace', async () => {
    const key = await createKey();
    const error = await rejection(
      runAdminCommand(['encryption', 'set', '0123456789abcdef0123456789abcdef', '--key-arn', key.arn]),
    );
    expect(error).toBeInstanceOf(AdminUsageError);
    expect((error as unknown as Error).message).toMatch(/No workspace/);
  });

  it('answers 409 encryption_setup_pending while the setup has not finished', async () => {
    const key = await createKey();
    const { workspaceId, apiKey } = await api.newWorkspace();
    // `encryption set` records pending before it starts the workflow: observe that moment.
    const pending = await beginEncryptionSetup(workspaceId, key.arn);
    expect((await admin('encryption', 'show', workspaceId)).state).toBe('pending');
    expect(await rejection(encryptionForMediaWrite(workspaceId))).toMatchObject({
      status: 409,
      code: 'encryption_setup_pending',
    });
    const response = await directUpload(apiKey);
    expect(response.status).toBe(409);
    expect(errorOf(response).code).toBe('encryption_setup_pending');
    // Refused before anything was recorded.
    expect((await api.call<{ data: unknown[] }>('GET', '/v3/assets', { key: apiKey })).body.data).toEqual([]);

    await startEncryptionSetup(workspaceId, pending);
    expect(await settledEncryption(workspaceId)).toMatchObject({ state: 'active', key_arn: key.arn });
    expect((await encryptionForMediaWrite(workspaceId)).SSEKMSKeyId).toBe(key.arn);
  });

  it('lets only the latest setup record its outcome', async () => {
    const [first, second] = [await createKey(), await createKey()];
    const { workspaceId } = await api.newWorkspace();
    const superseded = await beginEncryptionSetup(workspaceId, first.arn);
    const latest = await beginEncryptionSetup(workspaceId, second.arn);
    await startEncryptionSetup(workspaceId, superseded);
    // The superseded execution ends without touching the workspace.
    const execution = await waitForExecution(superseded.execution_arn);
    expect(execution.status).toBe('SUCCEEDED');
    expect(JSON.parse(execution.output ?? '{}').steps.ApplyToMediaPrefix.outcome).toBe('superseded');
    expect(await admin('encryption', 'show', workspaceId)).toMatchObject({
      state: 'pending',
      key_arn: second.arn,
    });
    await startEncryptionSetup(workspaceId, latest);
    expect(await settledEncryption(workspaceId)).toMatchObject({ state: 'active', key_arn: second.arn });
  });

  it('clears back to the stack key; media written before stays under the customer key', async () => {
    const key = await createKey();
    const { workspaceId } = await workspaceWithKey(key.arn);
    const before = objectKey(workspaceId, 'before-clear');
    await putMediaObject(workspaceId, before, png(), 'image/png');

    const cleared = (await runAdminCommand(['encryption', 'clear', workspaceId])).output as Record<
      string,
      unknown
    >;
    expect(cleared).toMatchObject({ state: 'none', cleared: { state: 'active', key_arn: key.arn } });
    expect(String(cleared.note)).toMatch(/stays encrypted with the customer key/);
    expect((await admin('encryption', 'show', workspaceId)).state).toBe('none');

    const after = objectKey(workspaceId, 'after-clear');
    await putMediaObject(workspaceId, after, png(), 'image/png');
    expect((await headEncryption(after)).SSEKMSKeyId).toBe(config().stackKeyId);
    expect((await headEncryption(before)).SSEKMSKeyId).toBe(key.arn);
  });
});

describe('a failed setup', () => {
  it.each([
    ['an HMAC key', async () => (await createKey('HMAC_256')).arn, 'key_spec_unsupported'],
    [
      'a disabled key',
      async () => {
        const key = await createKey();
        await kms.send(new DisableKeyCommand({ KeyId: key.id }));
        return key.arn;
      },
      'key_not_enabled',
    ],
    [
      'a key that does not exist',
      async () => `arn:aws:kms:${LOCAL_REGION}:000000000000:key/00000000-0000-4000-8000-000000000000`,
      'key_not_found',
    ],
  ])(
    'records failed with a per-step report for %s, and writes get 409 encryption_setup_failed',
    async (_name, keyArn, code) => {
      const { workspaceId, apiKey, view } = await workspaceWithKey(await keyArn());
      expect(view.state).toBe('failed');
      expect(view.report).toEqual([
        { code, message: expect.any(String), path: 'DescribeKey' },
        { code: 'not_run', message: 'Not run: an earlier step failed.', path: 'CheckKeyAccess' },
        { code: 'not_run', message: 'Not run: an earlier step failed.', path: 'ApplyToMediaPrefix' },
      ]);

      const error = await rejection(encryptionForMediaWrite(workspaceId));
      expect(error).toMatchObject({ status: 409, code: 'encryption_setup_failed', errors: view.report });
      const response = await directUpload(apiKey);
      expect(response.status).toBe(409);
      const body = response.body as { error: { code: string; errors: unknown[]; doc_url: string } };
      expect(body.error).toMatchObject({ code: 'encryption_setup_failed', errors: view.report });
      expect(body.error.doc_url).toMatch(/#encryption_setup_failed$/);
    },
  );

  it('names the step KMS stopped answering in, once the retries are spent', async () => {
    const key = await createKey();
    const { workspaceId } = await api.newWorkspace();
    const view = await withKmsAt(await closedPort(), async () => {
      await admin('encryption', 'set', workspaceId, '--key-arn', key.arn);
      return settledEncryption(workspaceId);
    });
    expect(view.state).toBe('failed');
    expect(view.report?.[0]).toMatchObject({ path: 'DescribeKey', code: 'kms_unavailable' });
    expect(view.report?.[0]?.message).toMatch(/Retries were exhausted/);
  });

  it('is recorded by `encryption show` when the workflow ended without recording anything', async () => {
    const key = await createKey();
    const { workspaceId } = await api.newWorkspace();
    // Neither KMS nor DynamoDB answer the workflow: its failure recorder fails too, and so does the execution.
    const setup = await beginEncryptionSetup(workspaceId, key.arn);
    const execution = await withEndpoints(
      { AWS_ENDPOINT_URL_KMS: await closedPort(), AWS_ENDPOINT_URL_DYNAMODB: await closedPort() },
      async () => {
        await startEncryptionSetup(workspaceId, setup);
        return waitForExecution(setup.execution_arn);
      },
    );
    expect(execution.status).toBe('FAILED');
    expect(await admin('encryption', 'show', workspaceId)).toMatchObject({
      state: 'failed',
      report: [{ code: 'setup_interrupted', path: 'Workflow', message: expect.stringMatching(/FAILED/) }],
    });
  });
});

describe('when KMS cannot answer', () => {
  it('answers 503 encryption_temporarily_unavailable with Retry-After, for an unreachable KMS', async () => {
    const key = await createKey();
    const { workspaceId, apiKey } = await workspaceWithKey(key.arn);
    await withKmsAt(await closedPort(), async () => {
      expect(await rejection(encryptionForMediaWrite(workspaceId))).toMatchObject({
        status: 503,
        code: 'encryption_temporarily_unavailable',
        headers: { 'Retry-After': '5' },
      });
      const response = await directUpload(apiKey);
      expect(response.status).toBe(503);
      expect(response.headers.get('retry-after')).toBe('5');
      // Not an internal error: the client is told what happened and to retry.
      expect(errorOf(response)).toMatchObject({
        code: 'encryption_temporarily_unavailable',
        message: expect.stringMatching(/Retry/),
      });
    });
    // KMS back: writes go through again (nothing was cached from the failure).
    expect((await encryptionForMediaWrite(workspaceId)).SSEKMSKeyId).toBe(key.arn);
  });

  it('gives up after the configured deadline when KMS accepts connections but never answers', async () => {
    const key = await createKey();
    const { workspaceId } = await workspaceWithKey(key.arn);
    const silent = await silentServer();
    process.env.ENCRYPTION_KMS_TIMEOUT_MS = '300';
    resetConfig();
    try {
      await withKmsAt(silent.endpoint, async () => {
        const started = Date.now();
        expect(await rejection(encryptionForMediaWrite(workspaceId))).toMatchObject({
          status: 503,
          code: 'encryption_temporarily_unavailable',
        });
        expect(Date.now() - started).toBeLessThan(5_000);
      });
    } finally {
      delete process.env.ENCRYPTION_KMS_TIMEOUT_MS;
      resetConfig();
      await silent.stop();
    }
  });
});

describe('moving media between workspaces', () => {
  it('refuses transfers between workspaces under different keys with 409 encryption_cross_tree_transfer', async () => {
    const [first, second] = [await createKey(), await createKey()];
    const customer = await workspaceWithKey(first.arn);
    const sameKey = await workspaceWithKey(first.arn);
    const otherKey = await workspaceWithKey(second.arn);
    const stackA = await api.newWorkspace();
    const stackB = await api.newWorkspace();

    for (const [from, to] of [
      [customer.workspaceId, stackA.workspaceId],
      [stackA.workspaceId, customer.workspaceId],
      [customer.workspaceId, otherKey.workspaceId],
    ] as const) {
      expect(await rejection(assertSameEncryptionDomain(from, to))).toMatchObject({
        status: 409,
        code: 'encryption_cross_tree_transfer',
      });
    }
    await expect(assertSameEncryptionDomain(stackA.workspaceId, stackB.workspaceId)).resolves.toBeUndefined();
    await expect(
      assertSameEncryptionDomain(customer.workspaceId, customer.workspaceId),
    ).resolves.toBeUndefined();
    await expect(
      assertSameEncryptionDomain(customer.workspaceId, sameKey.workspaceId),
    ).resolves.toBeUndefined();
  });
});

// --- helpers that reach into the local stack's plumbing --------------------------------------------

async function waitForExecution(executionArn: string) {
  const { DescribeExecutionCommand, SFNClient } = await import('@aws-sdk/client-sfn');
  const client = new SFNClient({});
  const deadline = Date.now() + SETUP_DEADLINE_MS;
  try {
    for (;;) {
      const execution = await client.send(new DescribeExecutionCommand({ executionArn }));
      if (execution.status !== 'RUNNING') return execution;
      if (Date.now() > deadline)
        throw new Error(`${executionArn} still RUNNING after ${SETUP_DEADLINE_MS} ms`);
      await new Promise((resolve) => setTimeout(resolve, POLL_INTERVAL_MS));
    }
  } finally {
    client.destroy();
  }
}

/** A loopback port nothing listens on. */
async function closedPort(): Promise<string> {
  const server = createServer();
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  await new Promise<void>((resolve) => server.close(() => resolve()));
  return `http://127.0.0.1:${port}`;
}

/** A server that accepts connections and never answers. */
async function silentServer(): Promise<{ endpoint: string; stop(): Promise<void> }> {
  const sockets = new Set<import('node:net').Socket>();
  const server: Server = createServer((socket) => {
    sockets.add(socket);
    socket.on('close', () => sockets.delete(socket));
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as { port: number };
  return {
    endpoint: `http://127.0.0.1:${port}`,
    stop: () =>
      new Promise<void>((resolve) => {
        for (const socket of sockets) socket.destroy();
        server.close(() => resolve());
      }),
  };
}

/** Runs `body` with the service's SDK clients pointed at other endpoints, then restores them. */
async function withEndpoints<T>(endpoints: Record<string, string>, body: () => Promise<T>): Promise<T> {
  const saved = Object.fromEntries(Object.keys(endpoints).map((name) => [name, process.env[name]]));
  Object.assign(process.env, endpoints);
  resetAwsClients();
  clearKeyUsabilityCache();
  try {
    return await body();
  } finally {
    for (const [name, value] of Object.entries(saved)) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    resetAwsClients();
    clearKeyUsabilityCache();
  }
}

function withKmsAt<T>(endpoint: string, body: () => Promise<T>): Promise<T> {
  return withEndpoints({ AWS_ENDPOINT_URL_KMS: endpoint }, body);
}
