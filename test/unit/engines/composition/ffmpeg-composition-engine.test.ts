import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CompositionRequest,
  CompositionResult,
} from '../../../../lambdas/engines/composition/composition-engine.js';
import { createFfmpegCompositionEngine } from '../../../../lambdas/engines/composition/ffmpeg-composition-engine.js';
import { probeMedia } from '../../../../lambdas/engines/composition/probe.js';
import {
  frameAt,
  meanColor,
  meanDifference,
  nearestColor,
  scratchDir,
  solidPng,
  toneWav,
} from './media-fixtures.js';

const WIDTH = 320;
const HEIGHT = 180;
const engine = createFfmpegCompositionEngine({ thumbnailAtMs: 500 });

let scratch: Awaited<ReturnType<typeof scratchDir>>;
const scratches: Awaited<ReturnType<typeof scratchDir>>[] = [];
let narrationPath: string;
let avatarPath: string;
/** Red scene (1.2 s, presenter and narration), then blue scene (0.8 s), one caption over both. */
let request: (workDir: string, overrides?: Partial<CompositionRequest>) => CompositionRequest;
let clean: CompositionResult;
let burned: CompositionResult;

/** Top-left corner: away from the presenter (bottom-centre) and the captions (bottom). */
const CORNER = { left: 4, top: 4, width: 40, height: 30 };
/** Where the two caption lines are drawn: bottom-centre. */
const CAPTION_BAND = { left: 110, top: 148, width: 100, height: 24 };

beforeAll(async () => {
  scratch = await scratchDir('engine');
  scratches.push(scratch);
  narrationPath = await toneWav(path.join(scratch.dir, 'narration.wav'), 1);
  avatarPath = await solidPng(path.join(scratch.dir, 'avatar.png'), 60, 90, '#00ff00');
  request = (workDir, overrides = {}) => ({
    workDir,
    width: WIDTH,
    height: HEIGHT,
    format: 'mp4',
    scenes: [
      {
        durationMs: 1200,
        background: { type: 'color', color: '#ff0000' },
        avatar: { imagePath: avatarPath, fit: 'contain' },
        narration: { path: narrationPath, volume: 1 },
      },
      { durationMs: 800, background: { type: 'color', color: '#0000ff' } },
    ],
    captions: [{ startMs: 0, endMs: 2000, text: 'HELLO WORLD\nCAPTIONS ARE HERE' }],
    burnCaptions: false,
    ...overrides,
  });
  const cleanDir = await scratchDir('clean');
  const burnedDir = await scratchDir('burned');
  scratches.push(cleanDir, burnedDir);
  [clean, burned] = await Promise.all([
    engine.compose(request(cleanDir.dir)),
    engine.compose(request(burnedDir.dir, { burnCaptions: true })),
  ]);
});

afterAll(async () => {
  await Promise.all(scratches.map((dir) => dir.remove()));
});

describe('ffmpeg composition engine: mp4', () => {
  it('is named ffmpeg', () => {
    expect(engine.name).toBe('ffmpeg');
  });

  it('writes H.264 video and AAC audio at the requested size, as long as the scenes together', async () => {
    const info = await probeMedia(clean.videoPath);
    const video = info.streams.find((stream) => stream.type === 'video');
    const audio = info.streams.find((stream) => stream.type === 'audio');
    expect(video).toMatchObject({ codec: 'h264', width: WIDTH, height: HEIGHT });
    expect(audio?.codec).toBe('aac');
    expect(info.durationSeconds).toBeGreaterThan(2 * 0.95);
    expect(info.durationSeconds).toBeLessThan(2 * 1.05);
    expect(clean).toMatchObject({ width: WIDTH, height: HEIGHT });
    expect(clean.durationSeconds).toBeCloseTo(info.durationSeconds, 3);
    expect(path.dirname(clean.videoPath)).not.toBe(path.dirname(burned.videoPath));
  });

  it('plays the scenes in order: red first, then blue', async () => {
    const first = await frameAt(clean.videoPath, 0.6, scratch.dir);
    const second = await frameAt(clean.videoPath, 1.6, scratch.dir);
    expect(nearestColor(meanColor(first, CORNER))).toBe('red');
    expect(nearestColor(meanColor(second, CORNER))).toBe('blue');
  });

  it('shows the presenter bottom-centre over the background', async () => {
    const frame = await frameAt(clean.videoPath, 0.6, scratch.dir);
    // The 60x90 portrait is scaled to the frame height (120x180), so the centre is covered by it.
    expect(nearestColor(meanColor(frame, { left: 150, top: 60, width: 20, height: 40 }))).toBe('green');
    const sides = meanColor(frame, { left: 10, top: 60, width: 20, height: 40 });
    expect(nearestColor(sides)).toBe('red');
  });

  it('carries the narration as audio lasting the whole video', async () => {
    const audio = (await probeMedia(clean.videoPath)).streams.find((stream) => stream.type === 'audio');
    expect(audio?.durationSeconds).toBeGreaterThan(1.9);
    expect(audio?.durationSeconds).toBeLessThan(2.1);
  });

  it('writes a separate captioned video whose caption band differs from the clean one', async () => {
    expect(clean.captionedVideoPath).not.toBe(clean.videoPath);
    const plain = await frameAt(clean.videoPath, 1.6, scratch.dir);
    const captioned = await frameAt(clean.captionedVideoPath, 1.6, scratch.dir);
    expect(meanDifference(plain, captioned, CAPTION_BAND)).toBeGreaterThan(20);
    expect(meanDifference(plain, captioned, CORNER)).toBeLessThan(3);
  });

  it('burns the captions into the main video when asked, writing one video', async () => {
    expect(burned.captionedVideoPath).toBe(burned.videoPath);
    const plain = await frameAt(clean.videoPath, 1.6, scratch.dir);
    const captioned = await frameAt(burned.videoPath, 1.6, scratch.dir);
    expect(meanDifference(plain, captioned, CAPTION_BAND)).toBeGreaterThan(20);
  });

  it('writes a JPEG thumbnail of the video at full size', async () => {
    const metadata = await sharp(clean.thumbnailPath).metadata();
    expect(metadata).toMatchObject({ format: 'jpeg', width: WIDTH, height: HEIGHT });
    const { data, info } = await sharp(clean.thumbnailPath)
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    expect(nearestColor(meanColor({ data, width: info.width }, CORNER))).toBe('red');
  });

  it('writes an animated GIF preview', async () => {
    const metadata = await sharp(clean.gifPath, { pages: -1 }).metadata();
    expect(metadata.format).toBe('gif');
    expect(metadata.pages).toBeGreaterThan(1);
    expect(metadata.width).toBe(WIDTH);
  });

  it('joins 50 scenes of odd lengths in order without drifting', async () => {
    const dir = await scratchDir('fifty');
    try {
      // 333 ms is not a whole number of 40 ms frames: per-scene rounding would drift by 7 frames.
      const scenes = Array.from({ length: 50 }, (_, index) => ({
        durationMs: 333,
        background: { type: 'color' as const, color: index % 2 === 0 ? '#ff0000' : '#0000ff' },
      }));
      const result = await engine.compose({
        ...request(dir.dir),
        width: 64,
        height: 36,
        scenes,
        captions: [],
      });
      expect(result.durationSeconds).toBeGreaterThan(16.65 * 0.99);
      expect(result.durationSeconds).toBeLessThan(16.65 * 1.01);
      const region = { left: 8, top: 8, width: 16, height: 16 };
      // The middle of scene 42 (index 41, blue) and of scene 49 (index 48, red).
      expect(nearestColor(meanColor(await frameAt(result.videoPath, 41.5 * 0.333, dir.dir), region))).toBe(
        'blue',
      );
      expect(nearestColor(meanColor(await frameAt(result.videoPath, 48.5 * 0.333, dir.dir), region))).toBe(
        'red',
      );
    } finally {
      await dir.remove();
    }
  });

  it('writes WebM as VP9 and Opus', async () => {
    const dir = await scratchDir('webm');
    try {
      const result = await engine.compose(request(dir.dir, { format: 'webm', captions: [] }));
      expect(result.videoPath.endsWith('.webm')).toBe(true);
      // Without captions the captioned render would be identical: one file serves both.
      expect(result.captionedVideoPath).toBe(result.videoPath);
      const info = await probeMedia(result.videoPath);
      expect(info.streams.find((stream) => stream.type === 'video')?.codec).toMatch(/^vp[89]$/);
      expect(info.streams.find((stream) => stream.type === 'audio')?.codec).toMatch(/^(opus|vorbis)$/);
      expect(info.durationSeconds).toBeGreaterThan(2 * 0.95);
      expect(info.durationSeconds).toBeLessThan(2 * 1.05);
    } finally {
      await dir.remove();
    }
  });

  it('scales thumbnails of wide videos down and keeps portrait frames upright', async () => {
    const dir = await scratchDir('portrait');
    try {
      const small = createFfmpegCompositionEngine({ thumbnailMaxWidth: 90, gifWidth: 60 });
      const result = await small.compose({
        ...request(dir.dir),
        width: 180,
        height: 320,
        captions: [],
        scenes: [{ durationMs: 600, background: { type: 'color', color: '#00ff00' } }],
      });
      expect(result).toMatchObject({ width: 180, height: 320 });
      expect(await sharp(result.thumbnailPath).metadata()).toMatchObject({ width: 90, height: 160 });
      expect(await sharp(result.gifPath).metadata()).toMatchObject({ width: 60 });
    } finally {
      await dir.remove();
    }
  });
});
