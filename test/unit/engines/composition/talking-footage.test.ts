/**
 * A footage presenter (a digital twin) talks: a clip of our own stock look talking and swaying gently
 * (`../vision/talking-clip.ts`) becomes twin footage (`prepareTwinFootage`), and the real ffmpeg engine
 * plays it looped with its sprites driven by a viseme track. The face model measures the mouth on the
 * written frames: open on open visemes, closed at rest (where the recorded mouth, which keeps
 * flapping, is hidden by the `rest` sprite), and the footage itself moves.
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CompositionScene,
  PresenterAnimation,
  PresenterSprite,
} from '../../../../lambdas/engines/composition/composition-engine.js';
import { createFfmpegCompositionEngine } from '../../../../lambdas/engines/composition/ffmpeg-composition-engine.js';
import { VISEMES, type VisemeCue } from '../../../../lambdas/engines/speech/visemes.js';
import { findFaces, mouthOpening } from '../../../../lambdas/engines/vision/face-landmarks.js';
import { prepareTwinFootage, type TwinFootage } from '../../../../lambdas/engines/vision/twin-footage.js';
import { talkingClipMaker } from '../vision/talking-clip.js';
import { frameAt, meanDifference, scratchDir } from './media-fixtures.js';

const WIDTH = 640;
const HEIGHT = 360;
const FPS = 25;
const DURATION_MS = 6000;
/** Open wide during [1, 2) s and [3, 4) s, at rest otherwise. */
const VISEME_TRACK: VisemeCue[] = [
  { startMs: 0, endMs: 1000, viseme: VISEMES.rest },
  { startMs: 1000, endMs: 2000, viseme: VISEMES.open_wide },
  { startMs: 2000, endMs: 3000, viseme: VISEMES.rest },
  { startMs: 3000, endMs: 4000, viseme: VISEMES.open_wide },
  { startMs: 4000, endMs: DURATION_MS, viseme: VISEMES.rest },
];
const OPEN_TIMES = [1.2, 1.5, 1.8, 3.2, 3.5, 3.8];
/**
 * Every 0.24 s of the rest spans (not their edges): the recorded mouth (open 0.25 s in every 0.6 s) is
 * open in some of them. Each is a landmark search, the test's main cost.
 */
const REST_TIMES = [
  ...[0.1, 0.34, 0.58, 0.82],
  ...[2.1, 2.34, 2.58, 2.82],
  ...[4.1, 4.34, 4.58, 4.82, 5.06, 5.3, 5.54, 5.78],
];

let scratch: Awaited<ReturnType<typeof scratchDir>>;
let twin: TwinFootage;
let imagePath: string;
let animation: PresenterAnimation;

async function compose(name: string, scene: Partial<CompositionScene>): Promise<string> {
  const engine = createFfmpegCompositionEngine({ x264Crf: 12 });
  const workDir = path.join(scratch.dir, name);
  await mkdir(workDir);
  const started = performance.now();
  const result = await engine.compose({
    workDir,
    width: WIDTH,
    height: HEIGHT,
    fps: FPS,
    format: 'mp4',
    captions: [],
    burnCaptions: true,
    scenes: [
      {
        durationMs: DURATION_MS,
        background: { type: 'color', color: '#2a4d6e' },
        ...scene,
      },
    ],
  });
  console.log(
    `${name}: composed ${DURATION_MS / 1000} s at ${WIDTH}x${HEIGHT} in ${Math.round(performance.now() - started)} ms`,
  );
  expect(result.durationSeconds).toBeCloseTo(DURATION_MS / 1000, 1);
  return result.videoPath;
}

/** The mouth opening on the frames at `times` where the face model finds the face. */
async function openings(video: string, times: readonly number[]): Promise<number[]> {
  const result: number[] = [];
  for (const seconds of times) {
    const frame = await frameAt(video, seconds, scratch.dir);
    const faces = await findFaces({
      data: frame.data,
      width: frame.width,
      height: frame.height,
      channels: 3,
    });
    expect(faces.length, `faces at ${seconds} s`).toBeLessThanOrEqual(1);
    if (faces[0]) result.push(mouthOpening(faces[0]));
  }
  // The face model skips a frame now and then (our drawn face, small); most must be measured.
  console.log(`faces found on ${result.length} of ${times.length} frames`);
  expect(result.length).toBeGreaterThanOrEqual(Math.ceil(times.length * 0.7));
  return result;
}

beforeAll(async () => {
  scratch = await scratchDir('footage');
  const makeClip = await talkingClipMaker(scratch.dir);
  const source = await makeClip(path.join(scratch.dir, 'source.mp4'), { seconds: 6, shakeUntil: 1, sway: 8 });
  twin = await prepareTwinFootage(source, path.join(scratch.dir, 'twin'));
  imagePath = path.join(scratch.dir, 'reference.png');
  await writeFile(imagePath, twin.previewPng);
  const sprites: Partial<Record<string, PresenterSprite>> = {};
  for (const [name, sprite] of Object.entries(twin.sprites)) {
    const file = path.join(scratch.dir, `sprite-${name}.png`);
    await writeFile(file, sprite.png);
    sprites[name] = { imagePath: file, box: sprite.box };
  }
  const { blink: _blink, ...mouths } = sprites;
  // No blink: the eyes stay as recorded, so only the mouth is measured.
  animation = { mouths, visemes: VISEME_TRACK, blinkSeed: 7 };
}, 120_000);

afterAll(async () => {
  if (!process.env.KEEP_SCRATCH) await scratch?.remove();
});

describe('a footage presenter', () => {
  let talking: string;
  let recorded: string;

  beforeAll(async () => {
    talking = await compose('talking', {
      avatar: { imagePath, videoPath: twin.loopPath, fit: 'contain', animation, track: twin.track },
    });
    recorded = await compose('recorded', { avatar: { imagePath, videoPath: twin.loopPath, fit: 'contain' } });
  }, 120_000);

  it('opens its mouth on open visemes and keeps it closed at rest, whatever the recording does', async () => {
    const open = await openings(talking, OPEN_TIMES);
    const rest = await openings(talking, REST_TIMES);
    const own = await openings(recorded, REST_TIMES);
    const format = (values: number[]) => values.map((value) => value.toFixed(2)).join(' ');
    console.log(
      `open visemes: ${format(open)}\nrest: ${format(rest)}\nrecorded mouth at the same times: ${format(own)}`,
    );
    const median = (values: number[]) =>
      [...values].sort((a, b) => a - b)[Math.floor(values.length / 2)] ?? 0;
    // This drawn face's closed mouth smiles with its teeth (0.02 to 0.12); open is 0.15 and more.
    // The recording talks on its own: its mouth is open in several of the rest frames...
    expect(own.filter((value) => value > 0.15).length).toBeGreaterThanOrEqual(3);
    // ...which the rest sprite hides.
    expect(Math.max(...rest)).toBeLessThan(0.15);
    expect(median(rest)).toBeLessThan(0.11);
    expect(median(open)).toBeGreaterThan(0.18);
    expect(median(open)).toBeGreaterThan(2 * median(rest));
  }, 120_000);

  it('follows the swaying head: the track moves by a few pixels', () => {
    const xs = twin.track.offsets.map((offset) => offset.x);
    const ys = twin.track.offsets.map((offset) => offset.y);
    const range = Math.max(Math.max(...xs) - Math.min(...xs), Math.max(...ys) - Math.min(...ys));
    console.log(
      `track: ${twin.track.offsets.length} frames, x ${Math.min(...xs)}..${Math.max(...xs)}, y ${Math.min(...ys)}..${Math.max(...ys)}`,
    );
    expect(twin.track.offsets).toHaveLength(199);
    expect(twin.track.offsets[0]).toEqual({ x: 0, y: 0 });
    // The sway is 8 px of the 1920 px photo's 960 px crop: 4 px of the 480 px footage, each way.
    expect(range).toBeGreaterThanOrEqual(4);
    expect(range).toBeLessThanOrEqual(10);
  });

  it('moves: the recording plays (frames differ away from the mouth)', async () => {
    // The top of the frame (backdrop stripes and hair), far above the mouth.
    const region = { left: 0, top: 0, width: WIDTH, height: Math.round(HEIGHT * 0.3) };
    const a = await frameAt(talking, 0.5, scratch.dir);
    const b = await frameAt(talking, 2.5, scratch.dir);
    const difference = meanDifference(a, b, region);
    console.log(`top of the frame, 0.5 s vs 2.5 s: ${difference.toFixed(2)}`);
    expect(difference).toBeGreaterThan(2);
    const { width, height } = await sharp(imagePath).metadata();
    expect([width, height]).toEqual([twin.width, twin.height]);
  }, 60_000);
});
