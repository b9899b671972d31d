/**
 * `POST /v3/models/images` and `GET /v3/models/images/{generation_id}` over HTTP, with the generation
 * engine's test double (real PNGs of the canvas asked for): the reference's fields refused with `param`,
 * every image made once the whole generation completes, at the canvas of the ratio asked for or of the
 * reference image's proportions, with seeds counting up from the first; one credit per image;
 * `Idempotency-Key` replays; another workspace finds nothing. Without an engine the generation fails
 * `engine_unavailable` with its credits back (models-engine-unavailable.test.ts).
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWorkspace } from '../../lambdas/accounts/workspaces.js';
import { renderLookPhoto } from '../../lambdas/catalog/render-portrait.js';
import { findStockLook } from '../../lambdas/catalog/stock-avatars.js';
import { png } from '../support/sample-media.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

interface Generation {
  generation_id: string;
  status: string;
  model: string;
  num_images: number;
  aspect_ratio: string | null;
  images: { image_id: string; image_url: string; width: number; height: number; seed: number }[];
  failure_code?: string;
  failure_message: string | null;
}

let api: TestStack;
/** A stock presenter's photo (one face, 480x270), and a picture of two faces. */
let face: { type: string; media_type: string; data: string };
let twoFaces: { type: string; media_type: string; data: string };

beforeAll(async () => {
  api = await startTestStack({ environment: { MEDIA_GENERATION_ENGINE: 'test-double' } });
  const look = findStockLook('maya-office');
  if (!look) throw new Error('stock look missing');
  const full = await sharp(await renderLookPhoto(look))
    .resize(960, 540)
    .toBuffer();
  const photo = await sharp(full).resize(480, 270).jpeg({ quality: 90 }).toBuffer();
  // Two faces at the size of one: the middle of the photo (her face), twice side by side.
  const middle = await sharp(full).extract({ left: 280, top: 0, width: 400, height: 540 }).jpeg().toBuffer();
  const pair = await sharp({ create: { width: 800, height: 540, channels: 3, background: '#808080' } })
    .composite([
      { input: middle, left: 0, top: 0 },
      { input: middle, left: 400, top: 0 },
    ])
    .jpeg({ quality: 90 })
    .toBuffer();
  face = { type: 'base64', media_type: 'image/jpeg', data: photo.toString('base64') };
  twoFaces = { type: 'base64', media_type: 'image/jpeg', data: pair.toString('base64') };
}, 60_000);

afterAll(async () => {
  await api?.stop();
});

const image = (width = 32, height = 32) => ({
  type: 'base64',
  media_type: 'image/png',
  data: png(width, height).toString('base64'),
});
const base = { model: 'service-image-1', identity_images: [image()], reference_images: [image(60, 90)] };
/** A body that can succeed: its identity image shows a face. */
const valid = () => ({ ...base, identity_images: [face] });

const credits = async (workspaceId = api.workspaceId) =>
  (await getWorkspace(workspaceId, true))?.remaining_credits as number;

async function create(body: Record<string, unknown>, headers: Record<string, string> = {}) {
  return api.call<{ data: { generation_id: string; status: string } }>('POST', '/v3/models/images', {
    body,
    headers,
  });
}

async function waitFor(id: string): Promise<Generation> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const result = await api.call<{ data: Generation }>('GET', `/v3/models/images/${id}`);
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    if (result.body.data.status !== 'pending') return result.body.data;
    expect(result.body.data.images).toEqual([]);
    if (Date.now() > deadline) throw new Error(`${id} still pending`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('POST /v3/models/images: validation', () => {
  it.each([
    ['model', { ...base, model: 'other' }],
    ['model', { identity_images: base.identity_images, reference_images: base.reference_images }],
    ['mode', { ...base, mode: 'face_swap' }],
    ['identity_images', { ...base, identity_images: [] }],
    ['identity_images', { ...base, identity_images: Array(6).fill(image()) }],
    ['identity_images', { model: base.model, reference_images: base.reference_images }],
    ['identity_images[0].type', { ...base, identity_images: [{ type: 'ftp' }] }],
    ['reference_images', { ...base, reference_images: [] }],
    ['reference_images', { ...base, reference_images: [image(), image()] }],
    ['num_images', { ...base, num_images: 0 }],
    ['num_images', { ...base, num_images: 6 }],
    ['num_images', { ...base, num_images: 1.5 }],
    ['aspect_ratio', { ...base, aspect_ratio: '21:9' }],
    ['seed', { ...base, seed: -1 }],
    ['seed', { ...base, seed: 2_147_483_645, num_images: 3 }],
    ['prompt', { ...base, prompt: 'hello' }],
  ])('refuses a bad %s with 400 naming it', async (param, body) => {
    const before = await credits();
    const result = await create(body);
    expect(result.status, JSON.stringify(result.body)).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
    expect(await credits()).toBe(before);
  });

  it('refuses an identity image that is not an image, naming it', async () => {
    const result = await create({
      ...base,
      identity_images: [image(), { type: 'base64', media_type: 'audio/wav', data: 'UklGRg==' }],
    });
    expect(result.status).toBe(400);
    expect(errorOf(result).param).toMatch(/^identity_images\[1\]/);
  });

  it('needs images:write to create and images:read to read, and credits to pay', async () => {
    const reader = await api.newKey(api.workspaceId, 'custom', ['images:read']);
    const refused = await api.call('POST', '/v3/models/images', { body: base, key: reader });
    expect(refused.status).toBe(403);
    expect(errorOf(refused).code).toBe('insufficient_api_key_scope');
    const videos = await api.newKey(api.workspaceId, 'custom', ['videos:read']);
    const unread = await api.call('GET', '/v3/models/images/0123456789abcdef0123456789abcdef', {
      key: videos,
    });
    expect(unread.status).toBe(403);
    const poor = await api.newWorkspace({ included_credits: 2 });
    const broke = await api.call('POST', '/v3/models/images', {
      body: { ...base, num_images: 3 },
      key: poor.apiKey,
    });
    expect(broke.status).toBe(402);
    expect(errorOf(broke).code).toBe('insufficient_credit');
  });
});

describe('POST /v3/models/images: generation', () => {
  it('makes every image asked for, at the canvas of the ratio, seeds counting up, one credit each', async () => {
    const before = await credits();
    const created = await create({ ...valid(), num_images: 3, aspect_ratio: '4:5', seed: 100 });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    expect(created.body.data.status).toBe('pending');
    const generation = await waitFor(created.body.data.generation_id);
    expect(generation.failure_message).toBeNull();
    expect(generation).toMatchObject({ status: 'completed', model: 'service-image-1', num_images: 3 });
    expect(generation.images.map(({ width, height, seed }) => ({ width, height, seed }))).toEqual([
      { width: 896, height: 1120, seed: 100 },
      { width: 896, height: 1120, seed: 101 },
      { width: 896, height: 1120, seed: 102 },
    ]);
    expect(new Set(generation.images.map((made) => made.image_id)).size).toBe(3);
    for (const made of generation.images) {
      const response = await fetch(made.image_url);
      expect(response.status).toBe(200);
      const metadata = await sharp(Buffer.from(await response.arrayBuffer())).metadata();
      expect(metadata).toMatchObject({ format: 'png', width: 896, height: 1120 });
    }
    await expect.poll(() => credits(), { timeout: 10_000 }).toBe(before - 3);
  }, 60_000);

  it("follows the reference image's proportions when no ratio is given", async () => {
    const created = await create(valid());
    const generation = await waitFor(created.body.data.generation_id);
    expect(generation.status).toBe('completed');
    const [made] = generation.images;
    // 60x90 is 2:3: about a megapixel, sides multiples of 16.
    expect(made?.width).toBe(832);
    expect(made?.height).toBe(1248);
  }, 60_000);

  it('replays a create with the same Idempotency-Key: one generation, one charge', async () => {
    const before = await credits();
    const headers = { 'Idempotency-Key': `model-image-${Date.now()}` };
    const first = await create(valid(), headers);
    const again = await create(valid(), headers);
    expect(again.body.data.generation_id).toBe(first.body.data.generation_id);
    await waitFor(first.body.data.generation_id);
    await expect.poll(() => credits(), { timeout: 10_000 }).toBe(before - 1);
  }, 60_000);

  it("answers 404 for another workspace's generation and for an unknown id", async () => {
    const created = await create(valid());
    const other = await api.newWorkspace();
    const foreign = await api.call('GET', `/v3/models/images/${created.body.data.generation_id}`, {
      key: other.apiKey,
    });
    expect(foreign.status).toBe(404);
    expect(errorOf(foreign)).toMatchObject({ code: 'not_found', param: 'generation_id' });
    expect((await api.call('GET', '/v3/models/images/nope')).status).toBe(404);
    await waitFor(created.body.data.generation_id);
  }, 60_000);

  it.each([
    ['no_face_detected', () => [face, image(64, 64)], /No face was found in identity_images\[1\]/],
    ['multiple_faces_detected', () => [twoFaces], /identity_images\[0\] shows more than one face/],
  ])(
    'fails %s naming the identity image, and charges nothing',
    async (code, identity, message) => {
      const before = await credits();
      const created = await create({ ...base, identity_images: identity(), num_images: 2 });
      expect(created.status, JSON.stringify(created.body)).toBe(202);
      const generation = await waitFor(created.body.data.generation_id);
      expect(generation).toMatchObject({ status: 'failed', failure_code: code, images: [] });
      expect(generation.failure_message).toMatch(message);
      await expect.poll(() => credits(), { timeout: 10_000 }).toBe(before);
    },
    60_000,
  );
});
