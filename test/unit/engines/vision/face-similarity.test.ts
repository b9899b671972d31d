/**
 * Face comparison with the real face model, on our own stock looks as photos (`renderLookPhoto`):
 * the same look at other framings, offsets and scales must match; looks of other characters (other
 * gender, other complexion) must not. The table of similarities is printed.
 */
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderLookPhoto, renderPortrait } from '../../../../lambdas/catalog/render-portrait.js';
import { findStockLook } from '../../../../lambdas/catalog/stock-avatars.js';
import {
  bestFaceInVideo,
  compareFaces,
  compareSignatures,
  type FaceSignature,
  faceSignature,
  procrustesDistance,
  SAME_FACE_THRESHOLD,
} from '../../../../lambdas/engines/vision/face-similarity.js';
import { scratchDir } from '../composition/media-fixtures.js';
import { talkingClipMaker } from './talking-clip.js';

type Framing = 'full' | 'crop' | 'offset' | 'small';

/** The look's photo at a framing: whole, a centred 60 % crop, an offset crop, 40 % size as JPEG. */
async function framed(photo: Buffer, framing: Framing): Promise<Uint8Array> {
  const { width = 0, height = 0 } = await sharp(photo).metadata();
  const extract = (left: number, top: number, w: number, h: number) =>
    sharp(photo)
      .extract({
        left: Math.round(width * left),
        top: Math.round(height * top),
        width: Math.round(width * w),
        height: Math.round(height * h),
      })
      .png()
      .toBuffer();
  const bytes =
    framing === 'full'
      ? photo
      : framing === 'crop'
        ? await extract(0.2, 0.1, 0.6, 0.6)
        : framing === 'offset'
          ? await extract(0.28, 0.05, 0.5, 0.55)
          : await sharp(photo)
              .resize(Math.round(width * 0.4))
              .jpeg({ quality: 80 })
              .toBuffer();
  return new Uint8Array(bytes);
}

/** Framings the face model finds each look's face at (it misses a few drawn faces at some framings). */
const SAMPLES: Record<string, Framing[]> = {
  'maya-office': ['full', 'crop', 'offset', 'small'],
  'amara-presenter': ['full', 'crop', 'offset', 'small'],
  'lucas-studio': ['full', 'crop', 'offset', 'small'],
  'kenji-formal': ['full', 'crop', 'small'],
  'sofia-newsroom': ['full', 'small'],
  'daniel-casual': ['full', 'small'],
};

const signatures = new Map<string, FaceSignature>();
const photos = new Map<string, Buffer>();
let scratch: Awaited<ReturnType<typeof scratchDir>>;

beforeAll(async () => {
  scratch = await scratchDir('faces');
  for (const [lookId, framings] of Object.entries(SAMPLES)) {
    const look = findStockLook(lookId);
    if (!look) throw new Error(`no stock look ${lookId}`);
    const photo = await renderLookPhoto(look);
    photos.set(lookId, photo);
    for (const framing of framings) {
      const signature = await faceSignature(await framed(photo, framing));
      if ('code' in signature) throw new Error(`${lookId} ${framing}: ${signature.code}`);
      signatures.set(`${lookId}/${framing}`, signature);
    }
  }
}, 120_000);

afterAll(async () => {
  await scratch?.remove();
});

describe('procrustesDistance', () => {
  it('is 0 for a shape moved, turned and scaled, and grows with a change of shape', () => {
    const shape = [
      { x: -1, y: 0 },
      { x: 1, y: 0 },
      { x: 0, y: 1.5 },
      { x: 0, y: -0.5 },
    ];
    const turned = shape.map(({ x, y }) => ({
      x: 2 * (x * Math.cos(0.3) - y * Math.sin(0.3)),
      y: 2 * (x * Math.sin(0.3) + y * Math.cos(0.3)),
    }));
    // Both normalised the way signatures are: centred, unit RMS radius.
    const normalise = (points: { x: number; y: number }[]) => {
      const cx = points.reduce((s, p) => s + p.x, 0) / points.length;
      const cy = points.reduce((s, p) => s + p.y, 0) / points.length;
      const r = Math.sqrt(points.reduce((s, p) => s + (p.x - cx) ** 2 + (p.y - cy) ** 2, 0) / points.length);
      return points.map((p) => ({ x: (p.x - cx) / r, y: (p.y - cy) / r }));
    };
    expect(procrustesDistance(normalise(shape), normalise(turned))).toBeLessThan(1e-9);
    const wider = shape.map(({ x, y }) => ({ x: x * 1.3, y }));
    expect(procrustesDistance(normalise(shape), normalise(wider))).toBeGreaterThan(0.05);
  });
});

describe('compareFaces on the stock looks', () => {
  it('matches a look with itself at every framing and tells other characters apart', () => {
    const keys = [...signatures.keys()];
    const lines: string[] = [];
    const same: number[] = [];
    const different: number[] = [];
    for (let i = 0; i < keys.length; i++) {
      for (let j = i + 1; j < keys.length; j++) {
        const a = keys[i] as string;
        const b = keys[j] as string;
        const result = compareSignatures(
          signatures.get(a) as FaceSignature,
          signatures.get(b) as FaceSignature,
        );
        const sameLook = a.split('/')[0] === b.split('/')[0];
        (sameLook ? same : different).push(result.similarity);
        lines.push(
          `${sameLook ? 'same' : 'diff'}  ${a.padEnd(24)} ${b.padEnd(24)} geometry ${result.geometryDistance.toFixed(4)}  colour ${result.colourDistance.toFixed(4)}  similarity ${result.similarity.toFixed(3)}`,
        );
      }
    }
    console.log(lines.join('\n'));
    console.log(
      `same look: ${same.length} pairs, lowest ${Math.min(...same).toFixed(3)}; other characters: ${different.length} pairs, highest ${Math.max(...different).toFixed(3)}; threshold ${SAME_FACE_THRESHOLD}`,
    );
    expect(Math.min(...same)).toBeGreaterThanOrEqual(SAME_FACE_THRESHOLD);
    expect(Math.max(...different)).toBeLessThan(SAME_FACE_THRESHOLD);
  });

  it('takes photo bytes and says which picture has no face or several', async () => {
    const maya = photos.get('maya-office') as Buffer;
    const same = await compareFaces(await framed(maya, 'crop'), await framed(maya, 'small'));
    expect(same.sameFace).toBe(true);
    const grey = new Uint8Array(
      await sharp({ create: { width: 320, height: 240, channels: 3, background: '#808080' } })
        .png()
        .toBuffer(),
    );
    expect(await compareFaces(maya, grey)).toMatchObject({
      similarity: 0,
      sameFace: false,
      reason: { picture: 'b', code: 'no_face' },
    });
    // Two people side by side (as the photo presenter's test makes a group photo).
    const studio = findStockLook('maya-studio');
    if (!studio) throw new Error('no stock look maya-studio');
    const portrait = await sharp(await renderPortrait(studio))
      .flatten({ background: '#7f8a96' })
      .png()
      .toBuffer();
    const pair = await sharp({ create: { width: 2160, height: 1080, channels: 3, background: '#7f8a96' } })
      .composite([
        { input: portrait, left: 0, top: 0 },
        { input: portrait, left: 1080, top: 0 },
      ])
      .png()
      .toBuffer();
    expect(await compareFaces(new Uint8Array(pair), maya)).toMatchObject({
      sameFace: false,
      reason: { picture: 'a', code: 'multiple_faces' },
    });
  }, 60_000);

  it('finds the person of a video (a consent recording) and no one else', async () => {
    const makeClip = await talkingClipMaker(scratch.dir);
    const video = await makeClip(path.join(scratch.dir, 'consent.mp4'), { seconds: 3, shakeUntil: 0 });
    const maya = await bestFaceInVideo(video, signatures.get('maya-office/full') as FaceSignature, {
      frames: 3,
    });
    const kenji = await bestFaceInVideo(video, signatures.get('kenji-formal/full') as FaceSignature, {
      frames: 3,
    });
    console.log(
      `consent video vs maya-office ${maya.similarity.toFixed(3)} (at ${maya.atSeconds?.toFixed(2)} s), vs kenji-formal ${kenji.similarity.toFixed(3)}`,
    );
    expect(maya.sameFace).toBe(true);
    expect(kenji.sameFace).toBe(false);
  }, 60_000);
});
