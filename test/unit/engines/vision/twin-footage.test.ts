/**
 * Twin footage with the real face model and ffmpeg. The source "recording" is our own stock look
 * talking (`talking-clip.ts`): a shaky camera for its first 2.5 s, then steady, 480×270, 7 s.
 */
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeMedia } from '../../../../lambdas/engines/composition/probe.js';
import { findFaces } from '../../../../lambdas/engines/vision/face-landmarks.js';
import {
  chooseWindow,
  type FootageSample,
  fillDropouts,
  patchShift,
  prepareTwinFootage,
  TWIN_FAILURE,
  type TwinFootage,
  TwinFootageError,
} from '../../../../lambdas/engines/vision/twin-footage.js';
import { ffmpeg, frameAt, meanDifference, scratchDir } from '../composition/media-fixtures.js';
import { talkingClipMaker } from './talking-clip.js';

const SHAKY_UNTIL_S = 2.5;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let makeClip: Awaited<ReturnType<typeof talkingClipMaker>>;

function talkingClip(file: string, seconds: number, shakeUntil: number): Promise<string> {
  return makeClip(file, { seconds, shakeUntil });
}

beforeAll(async () => {
  scratch = await scratchDir('twin');
  makeClip = await talkingClipMaker(scratch.dir);
}, 60_000);

afterAll(async () => {
  if (!process.env.KEEP_SCRATCH) await scratch?.remove();
});

describe('chooseWindow', () => {
  const still = (x: number, mouth = 0): FootageSample => ({
    usable: true,
    centre: { x, y: 0 },
    scale: 10,
    mouth,
  });
  it('takes the stretch with the least motion, and the closed mouth among equals', () => {
    const samples = [still(0), still(5), still(0), still(0), still(0, 0.3), still(0), still(0)];
    expect(chooseWindow(samples, 2, { mouthWeight: 0.1, startMouthWeight: 0.2 })).toMatchObject({
      first: 2,
      last: 4,
      motion: 0,
    });
    expect(chooseWindow(samples, 1, { mouthWeight: 0.1, startMouthWeight: 0.2 })).toMatchObject({
      first: 2,
      last: 3,
    });
  });
  it('fills a lone detector miss, not two', () => {
    const miss: FootageSample = { usable: false, reason: 'no_face' };
    const filled = fillDropouts([still(0), miss, still(2), miss, miss, still(0)]);
    expect(filled[1]).toEqual({ usable: true, centre: { x: 1, y: 0 }, scale: 10, mouth: 0 });
    expect(filled.slice(3, 5)).toEqual([miss, miss]);
  });
  it('never spans an unusable sample', () => {
    const samples: FootageSample[] = [still(0), { usable: false, reason: 'no_face' }, still(0), still(1)];
    expect(chooseWindow(samples, 1, { mouthWeight: 0, startMouthWeight: 0 })).toMatchObject({ first: 2 });
    expect(chooseWindow(samples, 2, { mouthWeight: 0, startMouthWeight: 0 })).toBeUndefined();
  });
});

describe('prepareTwinFootage', () => {
  let twin: TwinFootage;
  let workDir: string;

  beforeAll(async () => {
    const source = await talkingClip(path.join(scratch.dir, 'source.mp4'), 7, SHAKY_UNTIL_S);
    workDir = path.join(scratch.dir, 'twin');
    const started = performance.now();
    twin = await prepareTwinFootage(source, workDir);
    console.log(
      `twin footage of a 7 s 480×270 clip in ${Math.round(performance.now() - started)} ms: segment ${twin.segment.startMs}-${twin.segment.endMs} ms, motion ${twin.measures.motion.toFixed(4)}, mouth ${twin.measures.mouthOpening.toFixed(3)}, ${twin.measures.samples} samples`,
    );
  }, 120_000);

  it('chooses the steady part, 4 s of it, and plays it forward and back', () => {
    expect(twin.segment.startMs).toBeGreaterThanOrEqual(SHAKY_UNTIL_S * 1000 - 200);
    expect(twin.segment.endMs - twin.segment.startMs).toBe(4000);
    expect(twin.segment.endMs).toBeLessThanOrEqual(7000);
    expect(twin.width).toBe(480);
    expect(twin.height).toBe(270);
    // 100 frames forward, 99 back: 199 frames at 25 fps.
    expect(twin.durationMs).toBeGreaterThanOrEqual(7900);
    expect(twin.durationMs).toBeLessThanOrEqual(8000);
    expect(twin.measures.motion).toBeLessThan(0.08);
  });

  it('ends on the frame it starts with, so it loops without a jump', async () => {
    const whole = { left: 0, top: 0, width: 480, height: 270 };
    const first = await frameAt(twin.loopPath, 0, scratch.dir);
    const last = await frameAt(twin.loopPath, (twin.durationMs - 60) / 1000, scratch.dir);
    const middle = await frameAt(twin.loopPath, 2.1, scratch.dir);
    const seam = meanDifference(first, last, whole);
    const talking = meanDifference(first, middle, whole);
    console.log(`loop: first vs last frame ${seam.toFixed(3)}, first vs 2.1 s ${talking.toFixed(3)}`);
    expect(seam).toBeLessThan(0.5);
    // The footage is not a still: the mouth moves in it.
    expect(talking).toBeGreaterThan(seam);
  });

  it('finds the face on the reference frame and makes every sprite, rest included', async () => {
    const { data, info } = await sharp(Buffer.from(twin.previewPng))
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect([info.width, info.height]).toEqual([480, 270]);
    const faces = await findFaces({
      data,
      width: info.width,
      height: info.height,
      channels: info.channels as 3,
    });
    expect(faces).toHaveLength(1);
    expect(twin.faceBox.width).toBeGreaterThan(150);
    for (const name of ['rest', 'open_wide', 'closed', 'blink'] as const) {
      const sprite = twin.sprites[name];
      expect(sprite.png.length).toBeGreaterThan(100);
      expect(sprite.box.x + sprite.box.width).toBeLessThanOrEqual(480);
      expect(sprite.box.y + sprite.box.height).toBeLessThanOrEqual(270);
    }
    // The mouth sprites lie on the lower half of the face box.
    const mouth = twin.sprites.open_wide.box;
    expect(mouth.y).toBeGreaterThan(twin.faceBox.y + twin.faceBox.height / 2);
  });
});

describe('a WebM recording with sound', () => {
  it('becomes a silent mp4 loop', async () => {
    const clip = await talkingClip(path.join(scratch.dir, 'webm-source.mp4'), 3, 0);
    const webm = path.join(scratch.dir, 'recording.webm');
    await ffmpeg([
      ...['-i', clip, '-f', 'lavfi', '-i', 'sine=frequency=300:duration=3'],
      ...['-map', '0:v', '-map', '1:a', '-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8'],
      ...['-b:v', '0', '-crf', '36', '-c:a', 'libopus', webm],
    ]);
    const twin = await prepareTwinFootage(webm, path.join(scratch.dir, 'webm-twin'), { windowMs: 2000 });
    expect(twin.segment.endMs - twin.segment.startMs).toBe(2000);
    const info = await probeMedia(twin.loopPath);
    expect(info.streams.map((stream) => stream.type)).toEqual(['video']);
    expect(info.streams[0]?.codec).toBe('h264');
    expect(twin.durationMs).toBeGreaterThanOrEqual(3900);
    expect(twin.durationMs).toBeLessThanOrEqual(4000);
  }, 60_000);
});

describe('footage that cannot become a twin', () => {
  async function failureCode(source: string, workDir: string): Promise<string> {
    try {
      await prepareTwinFootage(source, path.join(scratch.dir, workDir));
    } catch (error) {
      expect(error).toBeInstanceOf(TwinFootageError);
      return (error as TwinFootageError).failureCode;
    }
    throw new Error('prepareTwinFootage accepted it');
  }

  it('refuses a video without a face', async () => {
    const bars = path.join(scratch.dir, 'bars.mp4');
    await ffmpeg([
      '-f',
      'lavfi',
      '-i',
      'testsrc=size=320x240:rate=25:duration=3',
      '-pix_fmt',
      'yuv420p',
      bars,
    ]);
    expect(await failureCode(bars, 'bars')).toBe(TWIN_FAILURE.noFace);
  }, 60_000);

  it('refuses a video that is too short', async () => {
    const short = await talkingClip(path.join(scratch.dir, 'short.mp4'), 1.5, 0);
    expect(await failureCode(short, 'short')).toBe(TWIN_FAILURE.tooShort);
  }, 60_000);

  it('refuses a video that shakes all along', async () => {
    const shaky = await talkingClip(path.join(scratch.dir, 'shaky.mp4'), 4, 10);
    expect(await failureCode(shaky, 'shaky')).toBe(TWIN_FAILURE.tooMuchMotion);
  }, 60_000);
});

describe('patchShift', () => {
  it('finds how far a textured patch moved, and 0 for a still one', () => {
    const width = 64;
    const height = 48;
    const texture = (dx: number, dy: number) => {
      const grey = new Uint8Array(width * height);
      for (let y = 0; y < height; y++)
        for (let x = 0; x < width; x++)
          grey[y * width + x] = ((x - dx) * 37 + (y - dy) * 91 + (((x - dx) * (y - dy)) % 13)) & 255;
      return grey;
    };
    const patch = { x: 16, y: 12, width: 32, height: 24 };
    expect(patchShift(texture(0, 0), texture(3, -2), width, patch, 5)).toEqual({ x: 3, y: -2 });
    expect(patchShift(texture(0, 0), texture(0, 0), width, patch, 5)).toEqual({ x: 0, y: 0 });
  });
});
