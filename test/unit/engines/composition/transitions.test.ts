/**
 * Transitions between scenes, rendered by the ffmpeg engine and measured: each frame's colour around
 * the boundary, the length of picture and sound, and when the next scene's narration starts.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeMonoPcm16 } from '../../../../lambdas/engines/composition/audio-decode.js';
import {
  CompositionError,
  type CompositionResult,
  type SceneTransition,
  TRANSITION_KINDS,
  type TransitionKind,
} from '../../../../lambdas/engines/composition/composition-engine.js';
import { createFfmpegCompositionEngine } from '../../../../lambdas/engines/composition/ffmpeg-composition-engine.js';
import { probeMedia } from '../../../../lambdas/engines/composition/probe.js';
import { ffmpeg, nearestColor, regionFrames, scratchDir, toneWav } from './media-fixtures.js';

const engine = createFfmpegCompositionEngine();
const WIDTH = 320;
const HEIGHT = 180;
const FPS = 10;
const SCENE_MS = 2000;
/** 6 frames at 10 fps: the last 3 of the red scene and the first 3 of the blue one. */
const TRANSITION_MS = 600;
const BOUNDARY_FRAME = (SCENE_MS * FPS) / 1000;
const TRANSITION_FRAMES = (TRANSITION_MS * FPS) / 1000;
const FIRST_MIXED = BOUNDARY_FRAME - TRANSITION_FRAMES / 2;
const LAST_MIXED = BOUNDARY_FRAME + TRANSITION_FRAMES / 2 - 1;
const WHOLE = { left: 0, top: 0, width: WIDTH, height: HEIGHT };

let scratch: Awaited<ReturnType<typeof scratchDir>>;
let tone: string;

/** Red for 2 s, then blue for 2 s with a tone (its narration) from its start. */
async function render(name: string, transition?: SceneTransition): Promise<CompositionResult> {
  const workDir = path.join(scratch.dir, name);
  await mkdir(workDir);
  return engine.compose({
    workDir,
    width: WIDTH,
    height: HEIGHT,
    fps: FPS,
    format: 'mp4',
    scenes: [
      { durationMs: SCENE_MS, background: { type: 'color', color: '#ff0000' } },
      {
        durationMs: SCENE_MS,
        background: { type: 'color', color: '#0000ff' },
        narration: { path: tone, volume: 1 },
      },
    ],
    captions: [],
    burnCaptions: false,
    ...(transition ? { transition } : {}),
  });
}

/** Every frame's pixels as [r, g, b] triples, whole frame. */
async function frames(result: CompositionResult): Promise<Buffer[]> {
  return regionFrames(result.videoPath, WHOLE, path.dirname(result.videoPath));
}

function mean(frame: Buffer, left = 0, width = WIDTH) {
  let [r, g, b, count] = [0, 0, 0, 0];
  for (let y = 0; y < HEIGHT; y++)
    for (let x = left; x < left + width; x++) {
      const offset = (y * WIDTH + x) * 3;
      r += frame[offset] ?? 0;
      g += frame[offset + 1] ?? 0;
      b += frame[offset + 2] ?? 0;
      count++;
    }
  return { r: r / count, g: g / count, b: b / count };
}

/** Share of the frame's pixels nearest to red and to blue. */
function shares(frame: Buffer) {
  let [red, blue] = [0, 0];
  for (let offset = 0; offset < frame.length; offset += 3) {
    const name = nearestColor({
      r: frame[offset] ?? 0,
      g: frame[offset + 1] ?? 0,
      b: frame[offset + 2] ?? 0,
    });
    if (name === 'red') red++;
    if (name === 'blue') blue++;
  }
  const total = frame.length / 3;
  return { red: red / total, blue: blue / total };
}

/** Whether every pixel of the frame is the colour (within what the encoder changes). */
function isPure(frame: Buffer, color: 'red' | 'blue'): boolean {
  const target = color === 'red' ? [255, 0, 0] : [0, 0, 255];
  for (let offset = 0; offset < frame.length; offset += 3)
    for (let channel = 0; channel < 3; channel++)
      if (Math.abs((frame[offset + channel] ?? 0) - (target[channel] ?? 0)) > 24) return false;
  return true;
}

/** When the sound first gets loud, in ms from the start. */
async function soundOnsetMs(video: string): Promise<number> {
  const rate = 48_000;
  const samples = await decodeMonoPcm16(video, { sampleRate: rate, workDir: path.dirname(video) });
  const index = samples.findIndex((sample) => Math.abs(sample) > 2000);
  if (index < 0) throw new Error('no sound');
  return (index * 1000) / rate;
}

beforeAll(async () => {
  scratch = await scratchDir('transitions');
  tone = await toneWav(path.join(scratch.dir, 'tone.wav'), 1);
});

afterAll(async () => {
  await scratch.remove();
});

describe('a fade between a red and a blue scene', () => {
  let cut: CompositionResult;
  let faded: CompositionResult;
  let cutFrames: Buffer[];
  let fadedFrames: Buffer[];

  beforeAll(async () => {
    [cut, faded] = await Promise.all([
      render('cut'),
      render('fade-only', { kind: TRANSITION_KINDS.fade, durationMs: TRANSITION_MS }),
    ]);
    [cutFrames, fadedFrames] = await Promise.all([frames(cut), frames(faded)]);
    // For a person to look at: the middle of the fade.
    await ffmpeg([
      '-i',
      faded.videoPath,
      '-vf',
      `select=eq(n\\,${BOUNDARY_FRAME})`,
      '-frames:v',
      '1',
      path.join(scratch.dir, 'fade-middle.png'),
    ]);
  });

  it('is pure red before, a mix of both during, and pure blue after, centred on the boundary', () => {
    for (let index = 0; index < FIRST_MIXED; index++)
      expect(isPure(fadedFrames[index] as Buffer, 'red'), `frame ${index}`).toBe(true);
    let previousBlue = -1;
    for (let index = FIRST_MIXED; index <= LAST_MIXED; index++) {
      const { r, b } = mean(fadedFrames[index] as Buffer);
      // Both scenes in every pixel, the blue one growing.
      expect(r, `frame ${index}`).toBeGreaterThan(20);
      expect(b, `frame ${index}`).toBeGreaterThan(20);
      expect(b, `frame ${index}`).toBeGreaterThan(previousBlue);
      previousBlue = b;
    }
    for (let index = LAST_MIXED + 1; index < fadedFrames.length; index++)
      expect(isPure(fadedFrames[index] as Buffer, 'blue'), `frame ${index}`).toBe(true);
  });

  it('keeps the length of the plan, in picture and in sound', async () => {
    for (const result of [cut, faded]) {
      expect(fadedFrames.length).toBe(cutFrames.length);
      expect(cutFrames.length).toBe((2 * SCENE_MS * FPS) / 1000);
      const info = await probeMedia(result.videoPath);
      const video = info.streams.find((stream) => stream.type === 'video');
      const audio = info.streams.find((stream) => stream.type === 'audio');
      expect(video?.durationSeconds).toBeCloseTo((2 * SCENE_MS) / 1000, 1);
      expect(Math.abs((audio?.durationSeconds ?? 0) - (video?.durationSeconds ?? 0))).toBeLessThanOrEqual(
        1 / FPS,
      );
    }
  });

  it('starts the blue scene’s narration exactly when the cut version does, at the boundary', async () => {
    const [withCut, withFade] = await Promise.all([
      soundOnsetMs(cut.videoPath),
      soundOnsetMs(faded.videoPath),
    ]);
    expect(Math.abs(withFade - withCut)).toBeLessThanOrEqual(20);
    expect(Math.abs(withFade - SCENE_MS)).toBeLessThanOrEqual(40);
  });

  it('cuts on one frame without a transition', () => {
    expect(isPure(cutFrames[BOUNDARY_FRAME - 1] as Buffer, 'red')).toBe(true);
    expect(isPure(cutFrames[BOUNDARY_FRAME] as Buffer, 'blue')).toBe(true);
  });
});

describe('every transition', () => {
  const kinds = Object.values(TRANSITION_KINDS).filter((kind) => kind !== TRANSITION_KINDS.cut);
  const rendered = new Map<TransitionKind, Buffer[]>();

  beforeAll(async () => {
    for (const kind of kinds)
      rendered.set(kind, await frames(await render(kind, { kind, durationMs: TRANSITION_MS })));
  });

  it('changes the picture only inside its frames, and shows both scenes or what lies between', () => {
    for (const kind of kinds) {
      const all = rendered.get(kind) as Buffer[];
      expect(all.length, kind).toBe((2 * SCENE_MS * FPS) / 1000);
      expect(isPure(all[FIRST_MIXED - 1] as Buffer, 'red'), kind).toBe(true);
      expect(isPure(all[LAST_MIXED + 1] as Buffer, 'blue'), kind).toBe(true);
      for (let index = FIRST_MIXED; index <= LAST_MIXED; index++) {
        const frame = all[index] as Buffer;
        expect(isPure(frame, 'red') || isPure(frame, 'blue'), `${kind} frame ${index}`).toBe(false);
      }
    }
  });

  it('draws each in its own way', () => {
    const middle = (kind: TransitionKind) => (rendered.get(kind) as Buffer[])[BOUNDARY_FRAME - 1] as Buffer;
    // Dissolve: some blocks already blue, the rest still red, few in between.
    const dissolve = shares(middle(TRANSITION_KINDS.dissolve));
    expect(dissolve.red).toBeGreaterThan(0.2);
    expect(dissolve.blue).toBeGreaterThan(0.2);
    // Dips: darkest (lightest) in the middle.
    const black = mean(middle(TRANSITION_KINDS.fadeblack));
    expect(Math.max(black.r, black.g, black.b)).toBeLessThan(110);
    const white = mean(middle(TRANSITION_KINDS.fadewhite));
    expect(Math.min(white.r, white.g, white.b)).toBeGreaterThan(140);
    // Wipe and slide: red on the left, blue on the right.
    for (const kind of [TRANSITION_KINDS.wipeleft, TRANSITION_KINDS.slideleft]) {
      expect(nearestColor(mean(middle(kind), 0, 40)), kind).toBe('red');
      expect(nearestColor(mean(middle(kind), WIDTH - 40, 40)), kind).toBe('blue');
    }
    // Circle: blue in the centre, red in the corners.
    const circle = middle(TRANSITION_KINDS.circleopen);
    expect(nearestColor(mean(circle, WIDTH / 2 - 10, 20))).not.toBe('red');
    const corner = circle.subarray(0, 3);
    expect(nearestColor({ r: corner[0] ?? 0, g: corner[1] ?? 0, b: corner[2] ?? 0 })).toBe('red');
  });
});

describe('three scenes', () => {
  it('take a transition at each boundary, the pixels’ order made once for both', async () => {
    const workDir = path.join(scratch.dir, 'three');
    await mkdir(workDir);
    const result = await engine.compose({
      workDir,
      width: WIDTH,
      height: HEIGHT,
      fps: FPS,
      format: 'mp4',
      scenes: ['#ff0000', '#0000ff', '#ff0000'].map((color) => ({
        durationMs: SCENE_MS,
        background: { type: 'color' as const, color },
      })),
      captions: [],
      burnCaptions: false,
      transition: { kind: TRANSITION_KINDS.dissolve, durationMs: TRANSITION_MS },
    });
    const all = await frames(result);
    expect(all.length).toBe((3 * SCENE_MS * FPS) / 1000);
    for (const boundary of [BOUNDARY_FRAME, 2 * BOUNDARY_FRAME]) {
      const { red, blue } = shares(all[boundary - 1] as Buffer);
      expect(red, `boundary at frame ${boundary}`).toBeGreaterThan(0.2);
      expect(blue, `boundary at frame ${boundary}`).toBeGreaterThan(0.2);
    }
    expect(isPure(all[BOUNDARY_FRAME + TRANSITION_FRAMES] as Buffer, 'blue')).toBe(true);
    expect(isPure(all[all.length - 1] as Buffer, 'red')).toBe(true);
  });
});

describe('a transition the engine cannot draw', () => {
  it('fails the composition with invalid_media, naming what it takes', async () => {
    for (const transition of [
      { kind: 'spin' as TransitionKind, durationMs: 500 },
      { kind: TRANSITION_KINDS.fade, durationMs: 6000 },
      { kind: TRANSITION_KINDS.fade, durationMs: 12.5 },
    ]) {
      const error = await render(`bad-${transition.kind}-${transition.durationMs}`, transition).catch(
        (caught: unknown) => caught,
      );
      expect(error).toBeInstanceOf(CompositionError);
      expect((error as CompositionError).failureCode).toBe('invalid_media');
      expect((error as CompositionError).message).toMatch(
        /transition (kind must be one of cut, fade|durationMs)/,
      );
    }
  });
});
