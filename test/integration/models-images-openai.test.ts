/**
 * `POST /v3/models/images` over HTTP with the OpenAI-compatible images engine (`MEDIA_GENERATION_ENGINE=
 * openai`) against a model server on loopback: each image is one `/images/edits` call carrying the
 * reference and the identity image as `image[]` PNGs, the PNG the server answers is stored and served at
 * its own size, and a model video on this engine fails `engine_unavailable` (it makes images only) with
 * its credits back.
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWorkspace } from '../../lambdas/accounts/workspaces.js';
import { renderLookPhoto } from '../../lambdas/catalog/render-portrait.js';
import { findStockLook } from '../../lambdas/catalog/stock-avatars.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { png } from '../support/sample-media.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

let api: TestStack;
let models: ModelServer;
let face: { type: string; media_type: string; data: string };

beforeAll(async () => {
  const answer = (
    await sharp({ create: { width: 1024, height: 1280, channels: 3, background: '#446688' } })
      .png()
      .toBuffer()
  ).toString('base64');
  models = await startModelServer(() => ({ json: { data: [{ b64_json: answer }] } }));
  api = await startTestStack({
    environment: {
      MEDIA_GENERATION_ENGINE: 'openai',
      MEDIA_GENERATION_BASE_URL: models.baseUrl,
      MEDIA_GENERATION_API_KEY: 'sk-local',
      MODEL_HOSTS_ALLOW_PRIVATE: 'true',
    },
  });
  const look = findStockLook('maya-office');
  if (!look) throw new Error('stock look missing');
  const photo = await sharp(await renderLookPhoto(look))
    .resize(480, 270)
    .jpeg()
    .toBuffer();
  face = { type: 'base64', media_type: 'image/jpeg', data: photo.toString('base64') };
}, 60_000);

afterAll(async () => {
  await api?.stop();
  await models?.close();
});

const credits = async () => (await getWorkspace(api.workspaceId, true))?.remaining_credits as number;

async function settled(path: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const result = await api.call<{ data: Record<string, unknown> }>('GET', path);
    if (['completed', 'failed'].includes(result.body.data.status as string)) return result.body.data;
    if (Date.now() > deadline) throw new Error(`${path} still ${String(result.body.data.status)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('image generations on an OpenAI-compatible images server', () => {
  it('sends the pictures to /images/edits and serves what the server made, at its size', async () => {
    const before = await credits();
    const reference = { type: 'base64', media_type: 'image/png', data: png(64, 80).toString('base64') };
    const created = await api.call<{ data: { generation_id: string } }>('POST', '/v3/models/images', {
      body: {
        model: 'service-image-1',
        identity_images: [face],
        reference_images: [reference],
        num_images: 2,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const generation = await settled(`/v3/models/images/${created.body.data.generation_id}`);
    expect(generation.failure_message).toBeNull();
    const images = generation.images as { image_url: string; width: number; height: number }[];
    expect(images.map(({ width, height }) => [width, height])).toEqual([
      [1024, 1280],
      [1024, 1280],
    ]);
    const served = await fetch(images[0]?.image_url as string);
    expect((await sharp(Buffer.from(await served.arrayBuffer())).metadata()).width).toBe(1024);
    const edits = models.requests.filter((request) => request.path === '/v1/images/edits');
    expect(edits).toHaveLength(2);
    const form = await models.form(edits[0]?.index);
    expect(form.getAll('image[]')).toHaveLength(2);
    // The reference's 4:5 proportions, about a megapixel in multiples of 16.
    expect(form.get('size')).toBe('912x1152');
    await expect.poll(() => credits(), { timeout: 10_000 }).toBe(before - 2);
  }, 60_000);

  it('fails a model video engine_unavailable: this engine makes images only', async () => {
    const before = await credits();
    const created = await api.call<{ data: { video_id: string } }>('POST', '/v3/models/videos', {
      body: { mode: 'text_to_video', model: 'service-video-1', prompt: 'A kite' },
    });
    expect(created.status).toBe(202);
    const video = await settled(`/v3/models/videos/${created.body.data.video_id}`);
    expect(video).toMatchObject({ status: 'failed', failure_code: 'engine_unavailable' });
    expect(video.failure_message).toMatch(/MEDIA_GENERATION_ENGINE=bedrock/);
    await expect.poll(() => credits(), { timeout: 10_000 }).toBe(before);
  }, 60_000);
});
