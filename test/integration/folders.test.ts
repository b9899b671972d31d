import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

let api: TestStack;
beforeAll(async () => {
  api = await startTestStack();
});
afterAll(() => api.stop());

interface FolderBody {
  data: {
    folder_id: string;
    name: string;
    parent_id: string | null;
    type: string;
    is_trash: boolean;
    created_at: number;
    updated_at: number;
    creator_username: string;
  };
}

describe('folders', () => {
  it('creates a folder with the reference shape and reads it back', async () => {
    const created = await api.call<FolderBody>('POST', '/v3/folders', { body: { name: 'Campaign Q4' } });
    expect(created.status).toBe(201);
    const folder = created.body.data;
    expect(folder).toMatchObject({ name: 'Campaign Q4', type: 'mixed', parent_id: null, is_trash: false });
    expect(folder.folder_id).toMatch(/^[0-9a-f]{32}$/);
    expect(Number.isInteger(folder.created_at)).toBe(true);
    expect(folder.creator_username).toBeTruthy();

    const read = await api.call<FolderBody>('GET', `/v3/folders/${folder.folder_id}`);
    expect(read.status).toBe(200);
    expect(read.body.data).toEqual(folder);
  });

  it('nests folders and inherits a typed parent’s type', async () => {
    const parent = await api.call<FolderBody>('POST', '/v3/folders', {
      body: { name: 'Videos', type: 'video' },
    });
    const child = await api.call<FolderBody>('POST', '/v3/folders', {
      body: { name: 'Drafts', parent_id: parent.body.data.folder_id },
    });
    expect(child.status).toBe(201);
    expect(child.body.data).toMatchObject({ parent_id: parent.body.data.folder_id, type: 'video' });

    const mismatch = await api.call('POST', '/v3/folders', {
      body: { name: 'Dubs', parent_id: parent.body.data.folder_id, type: 'video_translate' },
    });
    expect(mismatch.status).toBe(400);
    expect(errorOf(mismatch)).toMatchObject({ code: 'invalid_parameter', param: 'type' });
  });

  it.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: '   ' }, 'name'],
    [{ name: 'x'.repeat(257) }, 'name'],
    [{ name: 42 }, 'name'],
    [{ name: 'ok', type: 'asset' }, 'type'],
    [{ name: 'ok', type: 'podcast' }, 'type'],
    [{ name: 'ok', parent_id: 'f'.repeat(32) }, 'parent_id'],
    [{ name: 'ok', colour: 'blue' }, 'colour'],
  ])('rejects %j naming %s', async (body, param) => {
    const result = await api.call('POST', '/v3/folders', { body });
    expect(result.status).toBe(400);
    const error = errorOf(result);
    expect(error).toMatchObject({ code: 'invalid_parameter', param });
    expect(error.doc_url).toBe(`${api.baseUrl}/v3/docs/errors#invalid_parameter`);
  });

  it('explains why asset folders cannot be created', async () => {
    const result = await api.call('POST', '/v3/folders', { body: { name: 'Uploads', type: 'asset' } });
    expect(errorOf(result).message).toContain('created in the app');
  });

  it('accepts a name of exactly 256 characters, counting characters rather than UTF-16 units', async () => {
    expect((await api.call('POST', '/v3/folders', { body: { name: 'n'.repeat(256) } })).status).toBe(201);
    expect((await api.call('POST', '/v3/folders', { body: { name: '🎬'.repeat(256) } })).status).toBe(201);
    expect((await api.call('POST', '/v3/folders', { body: { name: '🎬'.repeat(257) } })).status).toBe(400);
  });

  it('answers 404 for unknown folders and for folders of another workspace', async () => {
    const mine = await api.call<FolderBody>('POST', '/v3/folders', { body: { name: 'Private' } });
    const other = await api.newWorkspace();
    const foreign = await api.call('GET', `/v3/folders/${mine.body.data.folder_id}`, { key: other.apiKey });
    expect(foreign.status).toBe(404);
    expect(errorOf(foreign).code).toBe('not_found');
    expect(JSON.stringify(foreign.body)).not.toContain('Private');
    expect((await api.call('GET', '/v3/folders/does-not-exist')).status).toBe(404);

    // Nor can another workspace nest under it.
    const nested = await api.call('POST', '/v3/folders', {
      key: other.apiKey,
      body: { name: 'Sneaky', parent_id: mine.body.data.folder_id },
    });
    expect(nested.status).toBe(400);
    expect(errorOf(nested).param).toBe('parent_id');
  });

  it('lists newest first with opaque, tamper-evident cursors', async () => {
    const { apiKey } = await api.newWorkspace();
    const names = ['one', 'two', 'three', 'four', 'five'];
    for (const name of names) await api.call('POST', '/v3/folders', { key: apiKey, body: { name } });

    const seen: string[] = [];
    let token: string | null = null;
    do {
      const query: string = token ? `?limit=2&token=${encodeURIComponent(token)}` : '?limit=2';
      const page = await api.call<{ data: { name: string }[]; has_more: boolean; next_token: string | null }>(
        'GET',
        `/v3/folders${query}`,
        { key: apiKey },
      );
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      expect(page.body.has_more).toBe(page.body.next_token !== null);
      seen.push(...page.body.data.map((folder) => folder.name));
      token = page.body.next_token;
    } while (token);
    expect(seen).toEqual([...names].reverse());

    const first = await api.call<{ next_token: string }>('GET', '/v3/folders?limit=2', { key: apiKey });
    // One character in the middle changed: every bit of it is data (the last character of base64 may
    // carry unused bits, so changing it may not change the cursor at all).
    const token0 = first.body.next_token;
    const middle = Math.floor(token0.length / 2);
    const tampered = `${token0.slice(0, middle)}${token0[middle] === 'A' ? 'B' : 'A'}${token0.slice(middle + 1)}`;
    const bad = await api.call('GET', `/v3/folders?limit=2&token=${encodeURIComponent(tampered)}`, {
      key: apiKey,
    });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toMatchObject({ code: 'invalid_parameter', param: 'token' });

    // A cursor of one workspace is useless in another.
    const elsewhere = await api.call(
      'GET',
      `/v3/folders?limit=2&token=${encodeURIComponent(first.body.next_token)}`,
    );
    expect(errorOf(elsewhere).param).toBe('token');
  });

  it('rejects out-of-range limits', async () => {
    const result = await api.call('GET', '/v3/folders?limit=101');
    expect(result.status).toBe(400);
    expect(errorOf(result).param).toBe('limit');
  });
});

describe('Idempotency-Key on folder creation', () => {
  it('replays the first response for the same key even when the body differs slightly', async () => {
    const headers = { 'Idempotency-Key': 'create-folder:0001' };
    const first = await api.call<FolderBody>('POST', '/v3/folders', { body: { name: 'Once' }, headers });
    const again = await api.call<FolderBody>('POST', '/v3/folders', { body: { name: 'Once!' }, headers });
    expect(again.status).toBe(first.status);
    expect(again.body).toEqual(first.body);
    expect(again.headers.get('idempotent-replayed')).toBe('true');
  });

  it('keeps keys of different workspaces apart', async () => {
    const headers = { 'Idempotency-Key': 'shared-key' };
    const other = await api.newWorkspace();
    const mine = await api.call<FolderBody>('POST', '/v3/folders', { body: { name: 'Mine' }, headers });
    const theirs = await api.call<FolderBody>('POST', '/v3/folders', {
      body: { name: 'Theirs' },
      headers,
      key: other.apiKey,
    });
    expect(theirs.body.data.folder_id).not.toBe(mine.body.data.folder_id);
    expect(theirs.body.data.name).toBe('Theirs');
  });

  it('does not store failures: a corrected retry with the same key succeeds', async () => {
    const headers = { 'Idempotency-Key': 'fix-and-retry' };
    const bad = await api.call('POST', '/v3/folders', { body: { name: '' }, headers });
    expect(bad.status).toBe(400);
    const good = await api.call<FolderBody>('POST', '/v3/folders', { body: { name: 'Fixed' }, headers });
    expect(good.status).toBe(201);
    expect(good.body.data.name).toBe('Fixed');
  });

  it.each(['', 'has space', 'x'.repeat(256), 'with/slash'])('rejects the malformed key %j', async (key) => {
    const result = await api.call('POST', '/v3/folders', {
      body: { name: 'x' },
      headers: { 'Idempotency-Key': key },
    });
    expect(result.status).toBe(400);
    expect(errorOf(result).param).toBe('Idempotency-Key');
  });
});

describe('filtered folder lists', () => {
  it('finds the children of a folder however many other folders are newer', async () => {
    const { apiKey } = await api.newWorkspace();
    const parent = await api.call<FolderBody>('POST', '/v3/folders', {
      key: apiKey,
      body: { name: 'Parent' },
    });
    const parentId = parent.body.data.folder_id;
    const child = await api.call<FolderBody>('POST', '/v3/folders', {
      key: apiKey,
      body: { name: 'Child', parent_id: parentId },
    });
    for (let index = 0; index < 25; index++)
      await api.call('POST', '/v3/folders', { key: apiKey, body: { name: `noise ${index}` } });

    const page = await api.call<{ data: { folder_id: string }[]; has_more: boolean }>(
      'GET',
      `/v3/folders?parent_id=${parentId}&limit=1`,
      {
        key: apiKey,
      },
    );
    expect(page.body.data.map((folder) => folder.folder_id)).toEqual([child.body.data.folder_id]);
    expect(page.body.has_more).toBe(false);
  });

  it('never skips a match of a sparse type filter: it pages on until the end', async () => {
    const { apiKey } = await api.newWorkspace();
    const wanted = await api.call<FolderBody>('POST', '/v3/folders', {
      key: apiKey,
      body: { name: 'Dubs', type: 'video_translate' },
    });
    for (let index = 0; index < 30; index++)
      await api.call('POST', '/v3/folders', { key: apiKey, body: { name: `mixed ${index}` } });
    const found: string[] = [];
    let token: string | null = null;
    for (let pages = 0; pages < 50; pages++) {
      const query: string = `/v3/folders?type=video_translate&limit=1${token ? `&token=${encodeURIComponent(token)}` : ''}`;
      const page = await api.call<{ data: { folder_id: string }[]; next_token: string | null }>(
        'GET',
        query,
        { key: apiKey },
      );
      found.push(...page.body.data.map((folder) => folder.folder_id));
      token = page.body.next_token;
      if (!token) break;
    }
    expect(found).toEqual([wanted.body.data.folder_id]);
  });
});
