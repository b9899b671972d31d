/**
 * `Idempotency-Key` on creates: concurrent retries create one resource; the key is scoped to the
 * route and the workspace; records expire after their lifetime (24 h by default).
 */
import { randomUUID } from 'node:crypto';
import { setTimeout as sleep } from 'node:timers/promises';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type ApiResult, errorOf, startTestStack, type TestStack } from '../../support/test-stack.js';

interface Folder {
  folder_id: string;
  name: string;
}
type FolderResult = ApiResult<{ data: Folder }>;

const CONCURRENT_RETRIES = 25;
const newKey = () => `race-${randomUUID()}`;

function createFolder(
  api: TestStack,
  apiKey: string,
  idempotencyKey: string,
  name = 'Race',
): Promise<FolderResult> {
  return api.call<{ data: Folder }>('POST', '/v3/folders', {
    key: apiKey,
    body: { name },
    headers: { 'Idempotency-Key': idempotencyKey },
  });
}

async function folderIds(api: TestStack, apiKey: string): Promise<string[]> {
  const list = await api.call<{ data: Folder[]; has_more: boolean }>('GET', '/v3/folders?limit=100', {
    key: apiKey,
  });
  expect(list.status).toBe(200);
  expect(list.body.has_more).toBe(false);
  return list.body.data.map((folder) => folder.folder_id);
}

describe('Idempotency-Key', () => {
  let api: TestStack;
  beforeAll(async () => {
    api = await startTestStack();
  });
  afterAll(() => api.stop());

  it(`creates exactly one folder under ${CONCURRENT_RETRIES} concurrent requests sharing a key`, async () => {
    const { apiKey } = await api.newWorkspace();
    const key = newKey();
    const results = await Promise.all(
      Array.from({ length: CONCURRENT_RETRIES }, () => createFolder(api, apiKey, key)),
    );

    const created = results.filter((result) => result.status === 201);
    const inProgress = results.filter((result) => result.status === 409);
    const unexpected = results.filter((result) => result.status !== 201 && result.status !== 409);
    expect(unexpected.map((result) => [result.status, result.body])).toEqual([]);
    expect(created.length).toBeGreaterThanOrEqual(1);
    const ids = new Set(created.map((result) => result.body.data.folder_id));
    expect(ids.size).toBe(1);
    const [id] = [...ids];
    // Every success is the same response: the original or its replay.
    for (const result of created) expect(result.body).toEqual(created[0]?.body);
    for (const result of inProgress) {
      expect(errorOf(result)).toMatchObject({ code: 'request_in_progress', param: 'Idempotency-Key' });
    }

    expect(await folderIds(api, apiKey)).toEqual([id]);

    // Once the original has completed, a retry replays it.
    const retry = await createFolder(api, apiKey, key);
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(created[0]?.body);
    expect(await folderIds(api, apiKey)).toEqual([id]);
  });

  it('replays the original response even when the retry’s body differs slightly', async () => {
    const { apiKey } = await api.newWorkspace();
    const key = newKey();
    const first = await createFolder(api, apiKey, key, 'Original');
    expect(first.status).toBe(201);
    const retry = await createFolder(api, apiKey, key, 'Original (retry)');
    expect(retry.status).toBe(201);
    expect(retry.body).toEqual(first.body);
    expect(await folderIds(api, apiKey)).toEqual([first.body.data.folder_id]);
  });

  it('creates a new folder for every request without a key', async () => {
    const { apiKey } = await api.newWorkspace();
    const results = await Promise.all([createFolderWithoutKey(apiKey), createFolderWithoutKey(apiKey)]);
    expect(results.map((result) => result.status)).toEqual([201, 201]);
    expect(new Set(await folderIds(api, apiKey)).size).toBe(2);
  });

  function createFolderWithoutKey(apiKey: string) {
    return api.call<{ data: Folder }>('POST', '/v3/folders', { key: apiKey, body: { name: 'No key' } });
  }

  it('scopes the key to the route: the same key on POST /v3/webhooks/endpoints is independent', async () => {
    const { apiKey } = await api.newWorkspace();
    const key = newKey();
    const folder = await createFolder(api, apiKey, key);
    expect(folder.status).toBe(201);

    const endpoint = await api.call<{ data: { endpoint_id: string; url: string; secret: string } }>(
      'POST',
      '/v3/webhooks/endpoints',
      { key: apiKey, body: { url: 'https://hooks.example.com/idem' }, headers: { 'Idempotency-Key': key } },
    );
    expect(endpoint.status).toBe(201);
    expect(endpoint.body.data).toMatchObject({ url: 'https://hooks.example.com/idem' });
    expect(endpoint.body.data.secret).toMatch(/^whsec_/);
    expect(JSON.stringify(endpoint.body)).not.toContain(folder.body.data.folder_id);

    // Each route still replays its own original.
    const folderAgain = await createFolder(api, apiKey, key);
    expect(folderAgain.body).toEqual(folder.body);
    const endpointAgain = await api.call('POST', '/v3/webhooks/endpoints', {
      key: apiKey,
      body: { url: 'https://hooks.example.com/idem' },
      headers: { 'Idempotency-Key': key },
    });
    expect(endpointAgain.status).toBe(201);
    expect(endpointAgain.body).toEqual(endpoint.body);
    const endpoints = await api.call<{ data: unknown[] }>('GET', '/v3/webhooks/endpoints', { key: apiKey });
    expect(endpoints.body.data).toHaveLength(1);
  });

  it('scopes the key to the workspace: another workspace’s request with the same key is independent', async () => {
    const first = await api.newWorkspace();
    const second = await api.newWorkspace();
    const key = newKey();
    const mine = await createFolder(api, first.apiKey, key, 'Mine');
    const theirs = await createFolder(api, second.apiKey, key, 'Theirs');
    expect(mine.status).toBe(201);
    expect(theirs.status).toBe(201);
    expect(theirs.body.data.folder_id).not.toBe(mine.body.data.folder_id);
    expect(theirs.body.data.name).toBe('Theirs');
    expect(await folderIds(api, first.apiKey)).toEqual([mine.body.data.folder_id]);
    expect(await folderIds(api, second.apiKey)).toEqual([theirs.body.data.folder_id]);
  });

  it('shares the key between the keys of one workspace', async () => {
    const { workspaceId, apiKey } = await api.newWorkspace();
    const otherKey = await api.newKey(workspaceId, 'custom', ['folders:write']);
    const key = newKey();
    const first = await createFolder(api, apiKey, key);
    const second = await createFolder(api, otherKey, key);
    expect(second.status).toBe(201);
    expect(second.body).toEqual(first.body);
  });

  it('stores no record for a failed create: the key can be retried with a corrected body', async () => {
    const { apiKey } = await api.newWorkspace();
    const key = newKey();
    const failed = await api.call('POST', '/v3/folders', {
      key: apiKey,
      body: { name: 'Orphan', parent_id: 'f'.repeat(32) },
      headers: { 'Idempotency-Key': key },
    });
    expect(failed.status).toBe(400);
    expect(errorOf(failed).param).toBe('parent_id');
    const fixed = await createFolder(api, apiKey, key, 'Fixed');
    expect(fixed.status).toBe(201);
    expect(fixed.body.data.name).toBe('Fixed');
    expect(await folderIds(api, apiKey)).toEqual([fixed.body.data.folder_id]);
  });

  it.each([
    ['too long', 'k'.repeat(256)],
    ['with a space', 'two words'],
    ['with a slash', 'a/b'],
    ['empty', ''],
  ])('rejects a key that is %s with 400 naming Idempotency-Key, creating nothing', async (_label, key) => {
    const { apiKey } = await api.newWorkspace();
    const result = await createFolder(api, apiKey, key);
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param: 'Idempotency-Key' });
    expect(await folderIds(api, apiKey)).toEqual([]);
  });

  it('accepts a key of 255 characters from the whole allowed alphabet', async () => {
    const { apiKey } = await api.newWorkspace();
    const alphabet = 'ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789_-:.';
    const key = alphabet.repeat(4).slice(0, 255);
    const first = await createFolder(api, apiKey, key);
    expect(first.status).toBe(201);
    expect((await createFolder(api, apiKey, key)).body).toEqual(first.body);
  });
});

describe('Idempotency record lifetime', () => {
  const TTL_SECONDS = 1;
  let api: TestStack;
  beforeAll(async () => {
    api = await startTestStack({ environment: { IDEMPOTENCY_TTL_SECONDS: String(TTL_SECONDS) } });
  });
  afterAll(() => api.stop());

  it('does not replay an expired record: the same key then creates a new folder', async () => {
    const { apiKey } = await api.newWorkspace();
    const key = newKey();
    const first = await createFolder(api, apiKey, key);
    const completedAt = Date.now();
    expect(first.status).toBe(201);
    const replay = await createFolder(api, apiKey, key);
    expect(replay.body).toEqual(first.body);

    // The record's expiry is rounded to whole seconds: it has surely passed TTL + 0.5 s after completion.
    await sleep(completedAt + (TTL_SECONDS + 0.5) * 1000 + 100 - Date.now());
    const afterExpiry = await createFolder(api, apiKey, key, 'After expiry');
    expect(afterExpiry.status).toBe(201);
    expect(afterExpiry.body.data.folder_id).not.toBe(first.body.data.folder_id);
    expect(afterExpiry.body.data.name).toBe('After expiry');
    expect((await folderIds(api, apiKey)).sort()).toEqual(
      [first.body.data.folder_id, afterExpiry.body.data.folder_id].sort(),
    );
  });
});
