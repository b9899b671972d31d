import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { AdminUsageError, runAdminCommand } from '../../lib/admin/admin-commands.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

let api: TestStack;
beforeAll(async () => {
  api = await startTestStack();
});
afterAll(() => api.stop());

async function admin(...argv: string[]): Promise<Record<string, unknown>> {
  return (await runAdminCommand(argv)).output as Record<string, unknown>;
}

describe('admin CLI commands', () => {
  it('creates a workspace and a key that works against the API, shown once', async () => {
    const workspace = await admin(
      'workspace',
      'create',
      '--name',
      'Globex',
      '--plan',
      'enterprise',
      '--credits',
      '250',
    );
    expect(workspace).toMatchObject({
      name: 'Globex',
      plan: 'enterprise',
      included_credits: 250,
      remaining_credits: 250,
    });
    const created = await admin(
      'key',
      'create',
      String(workspace.workspace_id),
      '--name',
      'ci',
      '--scope-mode',
      'read_only',
    );
    expect(created.api_key).toMatch(/^vcs_/);
    const me = await api.call<{ data: { remaining_credits: number } }>('GET', '/v3/users/me', {
      key: String(created.api_key),
    });
    expect(me.status).toBe(200);
    expect(me.body.data.remaining_credits).toBe(250);
    // Read-only: writes are refused.
    const write = await api.call('POST', '/v3/folders', {
      key: String(created.api_key),
      body: { name: 'x' },
    });
    expect(errorOf(write).code).toBe('insufficient_api_key_scope');

    const listed = (await runAdminCommand(['key', 'list', String(workspace.workspace_id)])).output as Record<
      string,
      unknown
    >[];
    expect(listed).toHaveLength(1);
    expect(JSON.stringify(listed)).not.toContain(String(created.api_key));
  });

  it('creates custom keys with exactly the given scopes and expiry', async () => {
    const created = await admin(
      'key',
      'create',
      api.workspaceId,
      '--name',
      'uploader',
      '--scope-mode',
      'custom',
      '--scopes',
      'assets:write,folders:read',
      '--expires-in-days',
      '1',
    );
    expect(created).toMatchObject({ scope_mode: 'custom', scopes: ['assets:write', 'folders:read'] });
    expect(Number(created.expires_at)).toBeGreaterThan(Date.now() / 1000 + 86_000);
  });

  it('updates plan, billing, credits and rate limits', async () => {
    const workspace = await admin('workspace', 'create', '--name', 'Initech');
    const id = String(workspace.workspace_id);
    const updated = await admin(
      'workspace',
      'update',
      id,
      '--billing-type',
      'wallet',
      '--wallet-balance',
      '12.5',
      '--rate-limit',
      'read=5',
      '--rate-limit',
      'write=2',
    );
    expect(updated).toMatchObject({
      billing_type: 'wallet',
      wallet_balance: 12.5,
      rate_limits: { read: 5, write: 2 },
    });
    const all = (await runAdminCommand(['workspace', 'list'])).output as { workspace_id: string }[];
    expect(all.map((item) => item.workspace_id)).toContain(id);
  });

  it('sets whole credits only: a fraction would not read as the integer the reference gives', async () => {
    const workspace = await admin('workspace', 'create', '--name', 'Fractions');
    const id = String(workspace.workspace_id);
    await expect(
      runAdminCommand(['workspace', 'create', '--name', 'Half', '--credits', '2.5']),
    ).rejects.toThrow('--credits: must be a whole number of credits');
    await expect(runAdminCommand(['workspace', 'update', id, '--remaining-credits', '0.5'])).rejects.toThrow(
      '--remaining-credits: must be a whole number of credits',
    );
    expect(await admin('workspace', 'update', id, '--remaining-credits', '7')).toMatchObject({
      remaining_credits: 7,
    });
  });

  it('revokes a key: the API refuses it at once (cache disabled in tests)', async () => {
    const created = await admin('key', 'create', api.workspaceId, '--name', 'temporary');
    expect((await api.call('GET', '/v3/api_keys/self', { key: String(created.api_key) })).status).toBe(200);
    await admin('key', 'revoke', api.workspaceId, String(created.key_id));
    expect((await api.call('GET', '/v3/api_keys/self', { key: String(created.api_key) })).status).toBe(401);
  });

  it.each([
    [['workspace', 'create']],
    [['workspace', 'create', '--name', 'x', '--plan', 'platinum']],
    [['key', 'create', 'f'.repeat(32), '--name', 'x']],
    [['key', 'create', '00000000000000000000000000000001', '--name', 'x', '--scope-mode', 'custom']],
    [
      [
        'key',
        'create',
        '00000000000000000000000000000001',
        '--name',
        'x',
        '--scope-mode',
        'custom',
        '--scopes',
        'videos',
      ],
    ],
    [['workspace', 'update', '00000000000000000000000000000001']],
    [['teleport', 'now']],
  ])('refuses %j with a usage error', async (argv) => {
    await expect(runAdminCommand(argv)).rejects.toThrow(AdminUsageError);
  });
});

describe('the admin CLI binary', () => {
  const run = promisify(execFile);
  let dataDir: string;
  beforeAll(async () => {
    dataDir = await mkdtemp(join(tmpdir(), 'video-service-admin-'));
  });
  afterAll(() => rm(dataDir, { recursive: true, force: true }));

  it('works on a data directory when no local stack is running', async () => {
    const { stdout } = await run(
      process.execPath,
      ['--import', 'tsx', 'bin/admin.ts', 'workspace', 'create', '--name', 'Offline'],
      {
        env: { ...process.env, DATA_DIR: dataDir, TABLE_NAME: '' },
      },
    );
    expect(JSON.parse(stdout)).toMatchObject({ name: 'Offline', status: 'active' });
    const listed = await run(process.execPath, ['--import', 'tsx', 'bin/admin.ts', 'workspace', 'list'], {
      env: { ...process.env, DATA_DIR: dataDir, TABLE_NAME: '' },
    });
    expect((JSON.parse(listed.stdout) as { name: string }[]).map((workspace) => workspace.name)).toContain(
      'Offline',
    );
  });

  it('exits 2 with a message on a usage error', async () => {
    // Against a deployed stack's table (TABLE_NAME): the command is refused before any call, and the
    // process does not start a local stack of its own first (seconds of CPU).
    await expect(
      run(process.execPath, ['--import', 'tsx', 'bin/admin.ts', 'workspace', 'create'], {
        env: { ...process.env, DATA_DIR: dataDir, TABLE_NAME: 'admin-cli-usage-error' },
      }),
    ).rejects.toMatchObject({ code: 2, stderr: expect.stringContaining('--name is required') });
  });
});
