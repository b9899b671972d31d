import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { png, srt, wav } from '../support/sample-media.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

let api: TestStack;
beforeAll(async () => {
  api = await startTestStack();
});
afterAll(() => api.stop());

interface BatchItem {
  item_index: number;
  asset_id: string;
  upload_url: string;
  upload_headers: Record<string, string>;
}
interface BatchView {
  data: {
    batch_id: string;
    status: string;
    total_items: number;
    counts_by_status: Record<string, number>;
    items: { item_index: number; status: string; video_id: string; error: { message: string } | null }[];
    has_more: boolean;
    next_token: string | null;
  };
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

async function startBatch(
  files: { name: string; type: string; bytes: Buffer; checksum?: string }[],
  key?: string,
) {
  const result = await api.call<{ data: { batch_id: string; items: BatchItem[] } }>(
    'POST',
    '/v3/assets/direct-uploads/batches',
    {
      body: {
        title: 'Launch kit',
        files: files.map((file) => ({
          filename: file.name,
          content_type: file.type,
          size_bytes: file.bytes.length,
          ...(file.checksum ? { checksum_sha256: file.checksum } : {}),
        })),
      },
      ...(key ? { key } : {}),
    },
  );
  expect(result.status).toBe(201);
  return result.body.data;
}

async function put(item: BatchItem, bytes: Buffer) {
  const response = await fetch(item.upload_url, { method: 'PUT', body: bytes, headers: item.upload_headers });
  expect(response.status).toBe(200);
}

async function waitForBatch(batchId: string, predicate: (view: BatchView['data']) => boolean, key?: string) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const view = await api.call<BatchView>('GET', `/v3/assets/batches/${batchId}`, key ? { key } : {});
    if (predicate(view.body.data)) return view.body.data;
    if (Date.now() > deadline)
      throw new Error(`Batch ${batchId} did not settle: ${JSON.stringify(view.body)}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

describe('asset batches', () => {
  it('starts direct uploads in one batch and completes them all at once, asynchronously', async () => {
    const files = [
      { name: 'a.png', type: 'image/png', bytes: png() },
      { name: 'b.wav', type: 'audio/wav', bytes: wav() },
      { name: 'c.srt', type: 'application/x-subrip', bytes: srt(), checksum: 'c'.repeat(64) },
      { name: 'd.png', type: 'image/png', bytes: png(3, 3) },
    ];
    const batch = await startBatch(files);
    expect(batch.items.map((item) => item.item_index)).toEqual([0, 1, 2, 3]);
    // Three uploads arrive; the third has the wrong checksum; the fourth is never uploaded.
    for (const index of [0, 1, 2])
      await put(batch.items[index] as BatchItem, (files[index] as { bytes: Buffer }).bytes);

    const queued = await api.call<BatchView>('GET', `/v3/assets/batches/${batch.batch_id}`);
    expect(queued.body.data).toMatchObject({
      status: 'processing',
      total_items: 4,
      counts_by_status: { queued: 4 },
    });

    const accepted = await api.call<{ data: { batch_id: string } }>('POST', '/v3/assets/complete/batches', {
      body: { batch_id: batch.batch_id },
    });
    expect(accepted.status).toBe(202);
    expect(accepted.body.data.batch_id).toBe(batch.batch_id);

    const done = await waitForBatch(batch.batch_id, (view) => view.status !== 'processing');
    expect(done).toMatchObject({
      status: 'completed',
      counts_by_status: { completed: 2, failed: 2, queued: 0 },
    });
    expect(done.items.map((item) => item.status)).toEqual(['completed', 'completed', 'failed', 'failed']);
    expect(done.items[2]?.error?.message).toContain('SHA-256');
    expect(done.items[3]?.error?.message).toContain('Nothing was uploaded');
    expect(done.items.map((item) => item.video_id)).toEqual(batch.items.map((item) => item.asset_id));
  });

  it('closes a batch whose items are completed one by one', async () => {
    const bytes = png();
    const batch = await startBatch([{ name: 'one.png', type: 'image/png', bytes, checksum: sha256(bytes) }]);
    await put(batch.items[0] as BatchItem, bytes);
    await api.call('POST', `/v3/assets/${batch.items[0]?.asset_id}/complete`, { body: {} });
    const view = await api.call<BatchView>('GET', `/v3/assets/batches/${batch.batch_id}`);
    expect(view.body.data).toMatchObject({ status: 'completed', counts_by_status: { completed: 1 } });
  });

  it('pages the items of a batch', async () => {
    const files = Array.from({ length: 5 }, (_, index) => ({
      name: `${index}.png`,
      type: 'image/png',
      bytes: png(),
    }));
    const batch = await startBatch(files);
    const first = await api.call<BatchView>('GET', `/v3/assets/batches/${batch.batch_id}?limit=2`);
    expect(first.body.data.items.map((item) => item.item_index)).toEqual([0, 1]);
    expect(first.body.data.has_more).toBe(true);
    const second = await api.call<BatchView>(
      'GET',
      `/v3/assets/batches/${batch.batch_id}?limit=3&token=${encodeURIComponent(first.body.data.next_token ?? '')}`,
    );
    expect(second.body.data.items.map((item) => item.item_index)).toEqual([2, 3, 4]);
    expect(second.body.data.has_more).toBe(false);
  });

  it.each([
    [{ files: [] }, 'files'],
    [
      {
        files: Array.from({ length: 101 }, () => ({
          filename: 'a.png',
          content_type: 'image/png',
          size_bytes: 1,
        })),
      },
      'files',
    ],
    [
      {
        files: [
          { filename: 'a.png', content_type: 'image/png', size_bytes: 1 },
          { filename: 'b.exe', content_type: 'application/x-msdownload', size_bytes: 1 },
        ],
      },
      'files[1].content_type',
    ],
    [
      {
        files: [{ filename: 'a.png', content_type: 'image/png', size_bytes: 1 }],
        callback_url: 'http://10.0.0.1/cb',
      },
      'callback_url',
    ],
  ])('refuses %j naming %s, and creates nothing', async (body, param) => {
    const { apiKey } = await api.newWorkspace();
    const result = await api.call('POST', '/v3/assets/direct-uploads/batches', { body, key: apiKey });
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
    expect((await api.call<{ data: unknown[] }>('GET', '/v3/assets', { key: apiKey })).body.data).toEqual([]);
  });

  it('answers 404 batch_not_found for unknown batches and batches of other workspaces', async () => {
    const batch = await startBatch([{ name: 'x.png', type: 'image/png', bytes: png() }]);
    const other = await api.newWorkspace();
    for (const [method, path, body] of [
      ['GET', `/v3/assets/batches/${batch.batch_id}`, undefined],
      ['POST', '/v3/assets/complete/batches', { batch_id: batch.batch_id }],
    ] as const) {
      const result = await api.call(method, path, { key: other.apiKey, ...(body ? { body } : {}) });
      expect(result.status).toBe(404);
      expect(errorOf(result).code).toBe('batch_not_found');
    }
  });
});

describe('GET /v3/assets/statuses', () => {
  it('answers one entry per asset, expands batches, and reports unknown ids as not_found', async () => {
    const bytes = png();
    const batch = await startBatch([
      { name: 'p.png', type: 'image/png', bytes },
      { name: 'q.png', type: 'image/png', bytes },
    ]);
    await put(batch.items[0] as BatchItem, bytes);
    await api.call('POST', `/v3/assets/${batch.items[0]?.asset_id}/complete`, { body: {} });
    const unknown = 'f'.repeat(32);
    const result = await api.call<{
      data: { video_id: string | null; status: string; batch_id: string | null; item_index: number | null }[];
    }>(
      'GET',
      `/v3/assets/statuses?asset_ids=${batch.items[0]?.asset_id},${unknown}&batch_ids=${batch.batch_id}`,
    );
    expect(result.status).toBe(200);
    expect(result.body.data).toEqual([
      expect.objectContaining({
        video_id: batch.items[0]?.asset_id,
        status: 'completed',
        batch_id: batch.batch_id,
        item_index: 0,
      }),
      expect.objectContaining({ video_id: unknown, status: 'not_found' }),
      expect.objectContaining({ video_id: batch.items[0]?.asset_id, status: 'completed', item_index: 0 }),
      expect.objectContaining({ video_id: batch.items[1]?.asset_id, status: 'queued', item_index: 1 }),
    ]);
    // Another workspace sees none of it.
    const other = await api.newWorkspace();
    const foreign = await api.call<{ data: { status: string }[] }>(
      'GET',
      `/v3/assets/statuses?asset_ids=${batch.items[0]?.asset_id}`,
      {
        key: other.apiKey,
      },
    );
    expect(foreign.body.data.map((entry) => entry.status)).toEqual(['not_found']);
  });

  it('refuses more than 100 ids with the spec message', async () => {
    const ids = Array.from({ length: 101 }, (_, index) => index.toString(16).padStart(32, '0')).join(',');
    const result = await api.call('GET', `/v3/assets/statuses?asset_ids=${ids}`);
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({
      code: 'invalid_parameter',
      message: 'At most 100 ids per request.',
      param: 'asset_ids',
    });
  });

  it('needs at least one id', async () => {
    expect(errorOf(await api.call('GET', '/v3/assets/statuses')).param).toBe('asset_ids');
  });
});

describe('batches that lose members', () => {
  it('closes a batch when a pending member is deleted: the member counts as failed', async () => {
    const bytes = png();
    const batch = await startBatch([
      { name: 'keep.png', type: 'image/png', bytes },
      { name: 'drop.png', type: 'image/png', bytes },
    ]);
    expect((await api.call('DELETE', `/v3/assets/${batch.items[1]?.asset_id}`)).status).toBe(200);
    await put(batch.items[0] as BatchItem, bytes);
    await api.call('POST', '/v3/assets/complete/batches', { body: { batch_id: batch.batch_id } });
    const done = await waitForBatch(batch.batch_id, (view) => view.status !== 'processing');
    expect(done).toMatchObject({
      status: 'completed',
      counts_by_status: { completed: 1, failed: 1, queued: 0 },
    });
    // Completing again is harmless.
    expect(
      (await api.call('POST', '/v3/assets/complete/batches', { body: { batch_id: batch.batch_id } })).status,
    ).toBe(202);
  });
});
