/**
 * Photo presenters with the real face model (Human on the tfjs WASM backend). The test photos are the
 * project's own stock portraits (Apache-2.0 art, which the model finds as faces): flat on grey, and
 * composited onto a textured 1280×720 background. Each sprite is pasted on the photo and the model
 * measures the result: that is how a viewer would see the mouth open and the eyes close.
 */
import sharp from 'sharp';
import { beforeAll, describe, expect, it } from 'vitest';
import { renderPortrait } from '../../../../lambdas/catalog/render-portrait.js';
import { findStockLook } from '../../../../lambdas/catalog/stock-avatars.js';
import type { Viseme } from '../../../../lambdas/engines/speech/visemes.js';
import {
  eyeOpening,
  type FaceLandmarks,
  findFaces,
  mouthOpening,
  mouthWidth,
} from '../../../../lambdas/engines/vision/face-landmarks.js';
import {
  areaWeight,
  eyeArea,
  eyeGeometry,
  mouthArea,
  mouthGeometry,
  toLocal,
} from '../../../../lambdas/engines/vision/feature-warps.js';
import { type RawImage, visionRuntime } from '../../../../lambdas/engines/vision/human-runtime.js';
import {
  type PhotoPresenterResult,
  type PresenterSpriteName,
  preparePhotoPresenter,
} from '../../../../lambdas/engines/vision/photo-presenter.js';

type Animated = Extract<PhotoPresenterResult, { kind: 'animated' }>;

async function raw(png: Uint8Array | Buffer): Promise<RawImage> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data: new Uint8Array(data), width: info.width, height: info.height, channels: 4 };
}

async function theFace(png: Uint8Array | Buffer): Promise<FaceLandmarks> {
  const faces = await findFaces(await raw(png));
  expect(faces).toHaveLength(1);
  return faces[0] as FaceLandmarks;
}

function paste(result: Animated, name: PresenterSpriteName): Promise<Buffer> {
  const sprite = result.sprites[name];
  return sharp(result.image)
    .composite([{ input: Buffer.from(sprite.png), left: sprite.box.x, top: sprite.box.y }])
    .png()
    .toBuffer();
}

/** A stock portrait as a photo: flattened on grey. */
async function portraitPhoto(lookId: string): Promise<Buffer> {
  const look = findStockLook(lookId);
  if (!look) throw new Error(`no stock look ${lookId}`);
  return sharp(await renderPortrait(look))
    .flatten({ background: '#7f8a96' })
    .png()
    .toBuffer();
}

/** A 1280×720 background with stripes and grain, a landscape portrait (transparent around the figure) over it. */
async function texturedPhoto(lookId: string): Promise<Buffer> {
  const width = 1280;
  const height = 720;
  const background = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const stripe = Math.floor((x + y * 0.4) / 24) % 2 === 0 ? 20 : -20;
      const grain = ((x * 73 + y * 151) % 31) - 15;
      const at = (y * width + x) * 3;
      background[at] = 120 + stripe + grain;
      background[at + 1] = 135 + stripe + grain;
      background[at + 2] = 100 + grain;
    }
  }
  const look = findStockLook(lookId);
  if (!look) throw new Error(`no stock look ${lookId}`);
  const figure = await sharp(await renderPortrait(look))
    .resize({ width, height })
    .png()
    .toBuffer();
  return sharp(background, { raw: { width, height, channels: 3 } })
    .composite([{ input: figure, left: 0, top: 0 }])
    .png()
    .toBuffer();
}

const MOUTHS: readonly Viseme[] = [
  'rest',
  'closed',
  'open_small',
  'open_wide',
  'rounded',
  'spread',
  'lip_teeth',
];

interface Measured {
  mouthOpening: number;
  mouthWidth: number;
  eyeOpening: number;
}

async function measureSprites(photo: Buffer, label: string) {
  const started = performance.now();
  const result = await preparePhotoPresenter(photo);
  const elapsedMs = performance.now() - started;
  expect(result.kind === 'still' ? result.message : 'animated').toBe('animated');
  const animated = result as Animated;
  const original = await theFace(animated.image);
  const measured = {} as Record<PresenterSpriteName | 'photo', Measured>;
  const measure = (face: FaceLandmarks): Measured => ({
    mouthOpening: mouthOpening(face),
    mouthWidth: mouthWidth(face),
    eyeOpening: eyeOpening(face),
  });
  measured.photo = measure(original);
  for (const name of [...MOUTHS, 'blink'] as const)
    measured[name] = measure(await theFace(await paste(animated, name)));
  console.log(
    `${label}: prepared in ${elapsedMs.toFixed(0)} ms\n${Object.entries(measured)
      .map(
        ([name, value]) =>
          `  ${name.padEnd(10)} mouth ${value.mouthOpening.toFixed(3)}  width ${value.mouthWidth.toFixed(1)}  eyes ${value.eyeOpening.toFixed(3)}`,
      )
      .join('\n')}`,
  );
  return { animated, measured };
}

function expectTalking(animated: Animated, measured: Record<PresenterSpriteName | 'photo', Measured>): void {
  const { blink, rest } = animated.sprites;
  expect(blink.box.y + blink.box.height).toBeLessThan(rest.box.y);
  expect(measured.open_wide.mouthOpening).toBeGreaterThan(measured.open_small.mouthOpening + 0.05);
  expect(measured.open_small.mouthOpening).toBeGreaterThan(measured.closed.mouthOpening + 0.02);
  expect(measured.open_wide.mouthOpening).toBeGreaterThan(0.25);
  // The model's mesh moves a little with any re-encoded pixel; rest pastes the photo's own pixels.
  expect(Math.abs(measured.rest.mouthOpening - measured.photo.mouthOpening)).toBeLessThan(0.02);
  expect(measured.blink.eyeOpening).toBeLessThan(measured.photo.eyeOpening * 0.65);
  // The mouths leave the eyes alone. (The mesh's mouth does move when the eyes close: its points are
  // not independent, so the blink's own sprite is checked by its box, which stays above the mouth.)
  expect(Math.abs(measured.open_wide.eyeOpening - measured.photo.eyeOpening)).toBeLessThan(0.08);
}

describe('photo presenters on the face model', () => {
  beforeAll(async () => {
    await visionRuntime();
  });

  it('makes talking sprites for a portrait photo', async () => {
    const { animated, measured } = await measureSprites(
      await portraitPhoto('maya-office'),
      'maya-office 1920×1080',
    );
    expect(animated.width).toBe(1920);
    expect(animated.height).toBe(1080);
    expect(animated.face.score).toBeGreaterThan(0.9);
    expectTalking(animated, measured);
    // Rounded lips are narrower. (On the smaller face of the textured photo the mesh does not see it:
    // it keeps the corners where the drawn smile's creases are.)
    expect(measured.rounded.mouthWidth).toBeLessThan(measured.rest.mouthWidth * 0.93);
  });

  it('makes talking sprites for the portrait on a textured 1280×720 photo, fast once the model is loaded', async () => {
    const photo = await texturedPhoto('maya-office');
    const { animated, measured } = await measureSprites(photo, 'maya-office on 1280×720 texture');
    expect([animated.width, animated.height]).toEqual([1280, 720]);
    expectTalking(animated, measured);
    const started = performance.now();
    await preparePhotoPresenter(photo);
    expect(performance.now() - started).toBeLessThan(3000);
  });

  it('changes only the feature: transparent outside its area, no seam at its edge, rest changes nothing', async () => {
    const result = (await preparePhotoPresenter(await portraitPhoto('maya-office'))) as Animated;
    const photo = await raw(result.image);
    const face = await theFace(result.image);
    const rgba = { ...photo, channels: 4 as const };
    const mouthRegion = mouthArea(mouthGeometry(face, rgba));
    const eyeRegions = [face.rightEye, face.leftEye].map((eye) =>
      eyeArea(eyeGeometry(eye, face.lips.upperOuter[5] ?? { x: 0, y: 0 }, rgba)),
    );
    for (const [name, sprite] of Object.entries(result.sprites)) {
      const { data, info } = await sharp(Buffer.from(sprite.png)).raw().toBuffer({ resolveWithObject: true });
      expect([info.width, info.height, info.channels]).toEqual([sprite.box.width, sprite.box.height, 4]);
      expect(sprite.box.x + sprite.box.width).toBeLessThanOrEqual(result.width);
      expect(sprite.box.y + sprite.box.height).toBeLessThanOrEqual(result.height);
      const areas = name === 'blink' ? eyeRegions : [mouthRegion];
      const pasted = await raw(await paste(result, name as PresenterSpriteName));
      let ringDifference = 0;
      let ring = 0;
      let outside = 0;
      for (let y = 0; y < info.height; y++) {
        for (let x = 0; x < info.width; x++) {
          const point = { x: sprite.box.x + x + 0.5, y: sprite.box.y + y + 0.5 };
          const inArea = Math.max(...areas.map((area) => areaWeight(area, toLocal(area.frame, point))));
          if (inArea === 0) {
            outside++;
            expect(data[(y * info.width + x) * 4 + 3], `${name} at ${x},${y}`).toBe(0);
          }
          if (x === 0 || y === 0 || x === info.width - 1 || y === info.height - 1) {
            const at = ((sprite.box.y + y) * photo.width + sprite.box.x + x) * 4;
            for (let c = 0; c < 3; c++) {
              ringDifference += Math.abs((pasted.data[at + c] as number) - (photo.data[at + c] as number));
            }
            ring += 3;
          }
        }
      }
      if (name === 'blink') expect(outside).toBeGreaterThan(0);
      // At the sprite's edge the warp has faded out: pasting leaves no seam. (The closing lid's map
      // stretches the lid skin from where the warp starts, so the blink's edge moves by up to a pixel.)
      expect(ringDifference / ring, name).toBeLessThan(name === 'blink' ? 2.5 : 1);
    }
    const rest = await raw(await paste(result, 'rest'));
    let difference = 0;
    for (let at = 0; at < rest.data.length; at += 4) {
      for (let c = 0; c < 3; c++)
        difference += Math.abs((rest.data[at + c] as number) - (photo.data[at + c] as number));
    }
    expect(difference / (rest.width * rest.height * 3)).toBeLessThan(0.001);
  });

  it('closes a mouth that is open in the photo', async () => {
    const first = (await preparePhotoPresenter(await portraitPhoto('maya-office'))) as Animated;
    const openPhoto = await paste(first, 'open_wide');
    const result = await preparePhotoPresenter(openPhoto);
    expect(result.kind).toBe('animated');
    const animated = result as Animated;
    const photographed = mouthOpening(await theFace(animated.image));
    const closed = mouthOpening(await theFace(await paste(animated, 'closed')));
    const wider = mouthOpening(await theFace(await paste(animated, 'open_wide')));
    console.log(
      `open photo: mouth ${photographed.toFixed(3)}, closed ${closed.toFixed(3)}, open_wide ${wider.toFixed(3)}`,
    );
    expect(photographed).toBeGreaterThan(0.25);
    expect(closed).toBeLessThan(photographed / 2);
    expect(wider).toBeGreaterThan(photographed - 0.03);
  });

  it('keeps photos that cannot talk still, saying why', async () => {
    const plain = await sharp({ create: { width: 640, height: 480, channels: 3, background: '#5a7d9a' } })
      .png()
      .toBuffer();
    expect(await preparePhotoPresenter(plain)).toMatchObject({ kind: 'still', reason: 'no_face' });

    const portrait = await portraitPhoto('maya-studio');
    const twoPeople = await sharp({
      create: { width: 2160, height: 1080, channels: 3, background: '#7f8a96' },
    })
      .composite([
        { input: portrait, left: 0, top: 0 },
        { input: portrait, left: 1080, top: 0 },
      ])
      .png()
      .toBuffer();
    const several = await preparePhotoPresenter(twoPeople);
    expect(several).toMatchObject({ kind: 'still', reason: 'several_faces' });
    expect(several.kind === 'still' && several.message).toMatch(/one face/);

    const tiny = await sharp({ create: { width: 900, height: 900, channels: 3, background: '#7f8a96' } })
      .composite([{ input: await sharp(portrait).resize(160).png().toBuffer(), left: 300, top: 300 }])
      .png()
      .toBuffer();
    const small = await preparePhotoPresenter(tiny);
    expect(small).toMatchObject({ kind: 'still', reason: 'face_too_small' });
    expect(small.kind === 'still' && small.message).toMatch(/at least 72 px/);

    // The right eye cut by the photo's left edge. (A crop through the mouth from below leaves the
    // detector nothing it calls a face: that photo is `no_face`, still as well.)
    const cut = await sharp(portrait)
      .extract({ left: 490, top: 0, width: 590, height: 1080 })
      .png()
      .toBuffer();
    expect(await preparePhotoPresenter(cut)).toMatchObject({ kind: 'still', reason: 'face_cut_off' });
  });

  it('turns a photo upright by its EXIF orientation', async () => {
    const portrait = await portraitPhoto('maya-studio');
    // Stored turned a quarter to the left, with orientation 6 ("rotate 90° clockwise to view").
    const stored = await sharp(portrait)
      .rotate(-90)
      .jpeg({ quality: 92 })
      .withMetadata({ orientation: 6 })
      .toBuffer();
    expect((await sharp(stored).metadata()).orientation).toBe(6);
    const result = await preparePhotoPresenter(stored);
    expect(result.kind).toBe('animated');
    const animated = result as Animated;
    expect(animated.face.box.width).toBeGreaterThan(250);
    const upright = await theFace(animated.image);
    // Upright: the eyes above the mouth.
    expect((upright.rightEye.upper[4]?.y ?? 0) + 50).toBeLessThan(upright.lips.upperOuter[5]?.y ?? 0);
  });

  it('rejects bytes that are not a picture', async () => {
    await expect(preparePhotoPresenter(new TextEncoder().encode('not a picture'))).rejects.toMatchObject({
      failureCode: 'invalid_media',
    });
  });
});
