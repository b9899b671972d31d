import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, describe, expect, it } from 'vitest';
import { runAdminCommand } from '../../lib/admin/admin-commands.js';
import { startLocalStack } from '../../lib/local/local-stack.js';

const dataDir = await mkdtemp(join(tmpdir(), 'video-service-lifecycle-'));
afterAll(() => rm(dataDir, { recursive: true, force: true }));

async function get(baseUrl: string, path: string, key: string) {
  const response = await fetch(`${baseUrl}${path}`, { headers: { 'X-Api-Key': key } });
  return { status: response.status, body: (await response.json()) as { data: Record<string, unknown> } };
}

describe('the local stack on a data directory', () => {
  it('seeds a workspace and key once, and keeps data and the key across restarts', async () => {
    const first = await startLocalStack({ dataDir });
    const created = await fetch(`${first.baseUrl}/v3/folders`, {
      method: 'POST',
      headers: { 'X-Api-Key': first.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ name: 'Survives restarts' }),
    });
    const folderId = ((await created.json()) as { data: { folder_id: string } }).data.folder_id;
    const endpoint = await fetch(`${first.baseUrl}/v3/webhooks/endpoints`, {
      method: 'POST',
      headers: { 'X-Api-Key': first.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify({ url: 'https://hooks.example.com/restart' }),
    });
    expect(endpoint.status).toBe(201);
    await first.stop();

    const second = await startLocalStack({ dataDir });
    try {
      expect(second.apiKey).toBe(first.apiKey);
      expect(second.workspaceId).toBe(first.workspaceId);
      expect((await readFile(join(dataDir, 'dev-api-key.txt'), 'utf8')).trim()).toBe(first.apiKey);
      const folder = await get(second.baseUrl, `/v3/folders/${folderId}`, second.apiKey);
      expect(folder.status).toBe(200);
      expect(folder.body.data.name).toBe('Survives restarts');
      // Cursors and secrets still work: the KMS keys survived too.
      const list = await get(second.baseUrl, '/v3/webhooks/endpoints?limit=1', second.apiKey);
      expect(list.status).toBe(200);
    } finally {
      await second.stop();
    }
  });

  it('replaces a revoked development key on the next start', async () => {
    // Revocation must show at once here, so the authorizer's credential cache is off.
    const stack = await startLocalStack({ dataDir, environment: { AUTH_CACHE_TTL_SECONDS: '0' } });
    const keys = (await runAdminCommand(['key', 'list', stack.workspaceId])).output as { key_id: string }[];
    for (const key of keys) await runAdminCommand(['key', 'revoke', stack.workspaceId, key.key_id]);
    expect((await get(stack.baseUrl, '/v3/users/me', stack.apiKey)).status).toBe(401);
    await stack.stop();

    const restarted = await startLocalStack({ dataDir });
    try {
      expect(restarted.apiKey).not.toBe(stack.apiKey);
      expect((await get(restarted.baseUrl, '/v3/users/me', restarted.apiKey)).status).toBe(200);
    } finally {
      await restarted.stop();
    }
  });
});
