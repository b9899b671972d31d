/**
 * `POST /v3/models/videos` and `GET /v3/models/videos/{video_id}` over HTTP, with the generation
 * engine's test double (a real grey MP4 of the asked frame, written where Nova Reel writes): the
 * contract's limits refused with `param`, the video made, fitted to the frame the resolution and aspect
 * ratio give, cut to its length and served; the credits charged per the spec (1080p at the 2k rate, 3×
 * 768p); `Idempotency-Key` replays; another workspace finds nothing. Without an engine the video fails
 * `engine_unavailable` with its credits back (models-engine-unavailable.test.ts); what Nova Reel itself
 * refuses is tested on its request bodies (test/unit/engines/model-video-engine.test.ts).
 */
import { writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWorkspace } from '../../lambdas/accounts/workspaces.js';
import { probeMedia } from '../../lambdas/engines/composition/probe.js';
import { png } from '../support/sample-media.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

interface ModelVideo {
  video_id: string;
  status: string;
  model: string;
  mode: string;
  aspect_ratio: string | null;
  resolution: string;
  duration: number | null;
  width: number | null;
  height: number | null;
  seed: number | null;
  video_url: string | null;
  failure_code: string | null;
  failure_message: string | null;
}

let api: TestStack;

beforeAll(async () => {
  api = await startTestStack({ environment: { MEDIA_GENERATION_ENGINE: 'test-double' } });
});

afterAll(async () => {
  await api?.stop();
});

const base = { mode: 'text_to_video', model: 'service-video-1', prompt: 'A lighthouse at dusk, waves below' };
const inlinePng = (width: number, height: number) => ({
  type: 'base64',
  media_type: 'image/png',
  data: png(width, height).toString('base64'),
});

const credits = async (workspaceId = api.workspaceId) =>
  (await getWorkspace(workspaceId, true))?.remaining_credits as number;

async function waitFor(id: string, key?: string): Promise<ModelVideo> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const result = await api.call<{ data: ModelVideo }>('GET', `/v3/models/videos/${id}`, key ? { key } : {});
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    if (['completed', 'failed', 'cancelled'].includes(result.body.data.status)) return result.body.data;
    if (Date.now() > deadline) throw new Error(`${id} still ${result.body.data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function create(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return api.call<{ data: { video_id: string; status: string } }>('POST', '/v3/models/videos', {
    body,
    headers,
  });
}

/** The served MP4's frame and length. */
async function served(url: string): Promise<{ width: number; height: number; seconds: number }> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  const file = join(tmpdir(), `model-video-${Date.now()}-${Math.random()}.mp4`);
  await writeFile(file, Buffer.from(await response.arrayBuffer()));
  const info = await probeMedia(file);
  const video = info.streams.find((stream) => stream.type === 'video');
  return { width: video?.width ?? 0, height: video?.height ?? 0, seconds: info.durationSeconds };
}

describe('POST /v3/models/videos: validation', () => {
  it.each([
    ['mode', { ...base, mode: 'sketch_to_video' }],
    ['mode', { model: base.model, prompt: base.prompt }],
    ['model', { ...base, model: 'some-other-model' }],
    ['prompt', { ...base, prompt: 'x'.repeat(5001) }],
    ['prompt', { ...base, prompt: '   ' }],
    ['duration', { ...base, duration: 4 }],
    ['duration', { ...base, duration: 16 }],
    ['duration', { ...base, duration: 5.5 }],
    ['resolution', { ...base, resolution: '720p' }],
    ['aspect_ratio', { ...base, aspect_ratio: '2:1' }],
    ['aspect_ratio', { ...base, aspect_ratio: 'adaptive' }],
    ['aspect_ratio', { ...base, resolution: '1080p', aspect_ratio: '4:3' }],
    ['aspect_ratio', { ...base, resolution: '2k', aspect_ratio: '1:1' }],
    ['prompt_enhancement', { ...base, prompt_enhancement: 'max' }],
    ['seed', { ...base, seed: -1 }],
    ['seed', { ...base, seed: 2_147_483_647 }],
    ['image', { ...base, mode: 'image_to_video' }],
    ['image', { ...base, image: inlinePng(16, 16) }],
    ['image.type', { ...base, mode: 'image_to_video', image: { type: 'ftp', url: 'x' } }],
    ['reference_images', { ...base, reference_images: [inlinePng(16, 16)] }],
    ['reference_images', { ...base, mode: 'reference_to_video' }],
    ['reference_images', { ...base, mode: 'reference_to_video', reference_audio: [inlinePng(2, 2)] }],
    [
      'reference_images',
      { ...base, mode: 'reference_to_video', reference_images: Array(10).fill(inlinePng(2, 2)) },
    ],
    [
      'reference_videos',
      { ...base, mode: 'reference_to_video', reference_videos: Array(4).fill(inlinePng(2, 2)) },
    ],
    [
      'reference_audio',
      { ...base, mode: 'reference_to_video', reference_audio: Array(4).fill(inlinePng(2, 2)) },
    ],
    [
      'reference_audio',
      {
        ...base,
        mode: 'reference_to_video',
        reference_images: Array(9).fill(inlinePng(2, 2)),
        reference_videos: Array(2).fill(inlinePng(2, 2)),
        reference_audio: Array(2).fill(inlinePng(2, 2)),
      },
    ],
    ['callback_url', { ...base, callback_url: 'http://127.0.0.1/hook' }],
    ['surprise', { ...base, surprise: true }],
  ])('refuses a bad %s with 400 naming it', async (param, body) => {
    const before = await credits();
    const result = await create(body);
    expect(result.status, JSON.stringify(result.body)).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
    expect(await credits()).toBe(before);
  });

  it('refuses a reference of the wrong kind, naming its index, and keeps nothing', async () => {
    const result = await create({
      ...base,
      mode: 'reference_to_video',
      reference_images: [inlinePng(8, 8)],
      reference_videos: [inlinePng(8, 8)],
    });
    expect(result.status, JSON.stringify(result.body)).toBe(400);
    expect(errorOf(result).param).toBe('reference_videos[0].data');
  });

  it('refuses 1080p and 2k above the plan with resolution_not_allowed', async () => {
    const free = await api.newWorkspace({ plan: 'free', included_credits: 100 });
    const result = await api.call('POST', '/v3/models/videos', {
      body: { ...base, resolution: '2k' },
      key: free.apiKey,
    });
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'resolution_not_allowed', param: 'resolution' });
  });

  it('refuses a workspace that cannot pay with 402 and creates nothing', async () => {
    const poor = await api.newWorkspace({ plan: 'pro', included_credits: 2 });
    const result = await api.call('POST', '/v3/models/videos', {
      body: { ...base, resolution: '1080p' },
      key: poor.apiKey,
    });
    expect(result.status).toBe(402);
    expect(errorOf(result).code).toBe('insufficient_credit');
    expect(await credits(poor.workspaceId)).toBe(2);
  });

  it('needs videos:write to create and videos:read to read', async () => {
    const reader = await api.newKey(api.workspaceId, 'custom', ['videos:read']);
    const refused = await api.call('POST', '/v3/models/videos', { body: base, key: reader });
    expect(refused.status).toBe(403);
    expect(errorOf(refused).code).toBe('insufficient_api_key_scope');
    const other = await api.newKey(api.workspaceId, 'custom', ['images:read']);
    const unread = await api.call('GET', '/v3/models/videos/0123456789abcdef0123456789abcdef', {
      key: other,
    });
    expect(unread.status).toBe(403);
  });
});

describe('POST /v3/models/videos: generation', () => {
  it('films a 1080p 16:9 video at 1890x1080, cut to its length, charged 3 credits per started 5 s', async () => {
    const before = await credits();
    const created = await create({ ...base, duration: 7, resolution: '1080p', seed: 42, callback_id: 'c-1' });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    expect(created.body.data.status).toBe('pending');
    const video = await waitFor(created.body.data.video_id);
    expect(video.failure_message).toBeNull();
    expect(video).toMatchObject({
      status: 'completed',
      model: 'service-video-1',
      mode: 'text_to_video',
      aspect_ratio: '16:9',
      resolution: '1080p',
      duration: 7,
      width: 1890,
      height: 1080,
      seed: 42,
    });
    const file = await served(video.video_url as string);
    expect(file).toMatchObject({ width: 1890, height: 1080 });
    expect(file.seconds).toBeCloseTo(7, 0);
    // 7 s is two started 5 s, at the 1080p (= 2k) rate: 3 × the 768p rate.
    await expect.poll(() => credits(), { timeout: 10_000 }).toBe(before - 6);
  }, 60_000);

  it('charges 768p (the default, 16:9: 1344x768) one credit per started 5 s, and 2k as 1080p', async () => {
    const before = await credits();
    const created = await create({ ...base, duration: 5 });
    expect(created.status).toBe(202);
    const video = await waitFor(created.body.data.video_id);
    expect(video).toMatchObject({ status: 'completed', resolution: '768p', width: 1344, height: 768 });
    await expect.poll(() => credits(), { timeout: 10_000 }).toBe(before - 1);
    const portrait = await create({ ...base, duration: 11, resolution: '2k', aspect_ratio: '9:16' });
    const tall = await waitFor(portrait.body.data.video_id);
    expect(tall).toMatchObject({ status: 'completed', width: 1440, height: 2520 });
    await expect.poll(() => credits(), { timeout: 10_000 }).toBe(before - 1 - 9);
  }, 60_000);

  it('animates a first frame, following its proportions (adaptive), whatever aspect_ratio says', async () => {
    const created = await create({
      ...base,
      mode: 'image_to_video',
      image: inlinePng(90, 160),
      aspect_ratio: '16:9',
      resolution: '480p',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const video = await waitFor(created.body.data.video_id);
    expect(video).toMatchObject({ status: 'completed', aspect_ratio: '9:16', width: 480, height: 840 });
  }, 60_000);

  it('films from references, adaptive to the first reference image', async () => {
    const created = await create({
      ...base,
      mode: 'reference_to_video',
      reference_images: [inlinePng(64, 64), inlinePng(32, 16)],
      resolution: '480p',
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const video = await waitFor(created.body.data.video_id);
    expect(video).toMatchObject({ status: 'completed', mode: 'reference_to_video', aspect_ratio: '1:1' });
    expect([video.width, video.height]).toEqual([480, 480]);
  }, 60_000);

  it('replays a create with the same Idempotency-Key: one video, one charge', async () => {
    const before = await credits();
    const headers = { 'Idempotency-Key': `model-video-${Date.now()}` };
    const first = await create({ ...base, duration: 6 }, headers);
    const again = await create({ ...base, duration: 6 }, headers);
    expect(first.status).toBe(202);
    expect(again.status).toBe(202);
    expect(again.body.data.video_id).toBe(first.body.data.video_id);
    await waitFor(first.body.data.video_id);
    await expect.poll(() => credits(), { timeout: 10_000 }).toBe(before - 2);
  }, 60_000);

  it("answers 404 for another workspace's video and for an unknown id", async () => {
    const created = await create(base);
    const other = await api.newWorkspace();
    const foreign = await api.call('GET', `/v3/models/videos/${created.body.data.video_id}`, {
      key: other.apiKey,
    });
    expect(foreign.status).toBe(404);
    expect(errorOf(foreign)).toMatchObject({ code: 'not_found', param: 'video_id' });
    const unknown = await api.call('GET', '/v3/models/videos/not-an-id');
    expect(unknown.status).toBe(404);
    await waitFor(created.body.data.video_id);
  }, 60_000);
});
