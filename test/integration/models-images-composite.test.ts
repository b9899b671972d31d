/**
 * `POST /v3/models/images` over HTTP with the composite engine (`MEDIA_GENERATION_ENGINE=composite`: no
 * generative model; README, "Models: videos and images"): two stock presenters' photos, drawn by the
 * project so the test owns every pixel. Maya (the identity) is cut out and composed over Daniel's photo
 * (the scene) at his face: the result shows a face where his was, as wide as his, and its shape is Maya's by
 * the face comparison the consent review uses (its colour follows the scene's light, by design).
 */
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderLookPhoto } from '../../lambdas/catalog/render-portrait.js';
import { findStockLook } from '../../lambdas/catalog/stock-avatars.js';
import { findFaces } from '../../lambdas/engines/vision/face-landmarks.js';
import { compareFaces } from '../../lambdas/engines/vision/face-similarity.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

let api: TestStack;
let maya: Buffer;
let daniel: Buffer;

const photoOf = async (id: string) => {
  const look = findStockLook(id);
  if (!look) throw new Error(`stock look ${id} missing`);
  return sharp(await renderLookPhoto(look))
    .resize(960, 540)
    .jpeg({ quality: 92 })
    .toBuffer();
};
const inline = (bytes: Buffer) => ({
  type: 'base64',
  media_type: 'image/jpeg',
  data: bytes.toString('base64'),
});

beforeAll(async () => {
  api = await startTestStack({ environment: { MEDIA_GENERATION_ENGINE: 'composite' } });
  maya = await photoOf('maya-office');
  daniel = await photoOf('daniel-business');
}, 60_000);

afterAll(async () => {
  await api?.stop();
});

async function settled(id: string) {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const result = await api.call<{
      data: {
        status: string;
        failure_message: string | null;
        images: { image_url: string; width: number; height: number }[];
      };
    }>('GET', `/v3/models/images/${id}`);
    if (result.body.data.status !== 'pending') return result.body.data;
    if (Date.now() > deadline) throw new Error(`${id} still pending`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

const raw = async (bytes: Buffer) => {
  const { data, info } = await sharp(bytes).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height, channels: 3 as const };
};

describe('the composite identity remix', () => {
  it("places the identity's person at the scene's face, at its size", async () => {
    const created = await api.call<{ data: { generation_id: string } }>('POST', '/v3/models/images', {
      body: {
        model: 'service-image-1',
        identity_images: [inline(maya)],
        reference_images: [inline(daniel)],
        aspect_ratio: '16:9',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const generation = await settled(created.body.data.generation_id);
    expect(generation.failure_message).toBeNull();
    expect(generation.status).toBe('completed');
    const [made] = generation.images;
    expect([made?.width, made?.height]).toEqual([1280, 720]);
    const output = Buffer.from(await (await fetch(made?.image_url as string)).arrayBuffer());

    // Measured at the photos' own 960x540 (the canvas is exactly 4/3 of it, nothing cropped): face
    // detection misses small faces on larger pictures.
    const back = await sharp(output).resize(960, 540).png().toBuffer();
    const [sceneFace] = await findFaces(await raw(daniel));
    const faces = await findFaces(await raw(back));
    expect(sceneFace).toBeDefined();
    expect(faces.length).toBeGreaterThanOrEqual(1);
    const placed = faces[0]?.box;
    const centre = (box: { x: number; y: number; width: number; height: number }) => [
      box.x + box.width / 2,
      box.y + box.height / 2,
    ];
    const [sx, sy] = centre(sceneFace?.box as never) as [number, number];
    const [px, py] = centre(placed as never) as [number, number];
    expect(Math.hypot(px - sx, py - sy)).toBeLessThan(0.15 * (sceneFace?.box.width ?? 0));
    expect((placed?.width ?? 0) / (sceneFace?.box.width ?? 1)).toBeGreaterThan(0.8);
    expect((placed?.width ?? 0) / (sceneFace?.box.width ?? 1)).toBeLessThan(1.25);

    // Whose face it is: its shape is Maya's (the skin's colour is moved toward the scene's light, so
    // the comparison's colour term, which follows light, is not the measure here).
    const asMaya = await compareFaces(new Uint8Array(back), new Uint8Array(maya));
    const asDaniel = await compareFaces(new Uint8Array(back), new Uint8Array(daniel));
    expect(asMaya.geometryDistance).toBeDefined();
    expect(asMaya.geometryDistance as number).toBeLessThan(asDaniel.geometryDistance as number);
  }, 90_000);
});
