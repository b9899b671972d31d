import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type {
  CompositionResult,
  CompositionScene,
} from '../../../../lambdas/engines/composition/composition-engine.js';
import { createFfmpegCompositionEngine } from '../../../../lambdas/engines/composition/ffmpeg-composition-engine.js';
import { probeMedia } from '../../../../lambdas/engines/composition/probe.js';
import {
  ffmpeg,
  frameAt,
  meanColor,
  nearestColor,
  redThenBlueClip,
  scratchDir,
  sidewaysJpeg,
  solidPng,
} from './media-fixtures.js';

const engine = createFfmpegCompositionEngine();
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let wideGreen: string;
let clip: string;
let silentClip: string;

/** Renders one 2 s scene of 320x180 (no captions) in its own folder. */
async function render(scene: Omit<CompositionScene, 'durationMs'>, name: string): Promise<CompositionResult> {
  const workDir = path.join(scratch.dir, name);
  await mkdir(workDir);
  return engine.compose({
    workDir,
    width: 320,
    height: 180,
    format: 'mp4',
    scenes: [{ durationMs: 2000, ...scene }],
    captions: [],
    burnCaptions: false,
  });
}

const colorAt = async (result: CompositionResult, seconds: number, region: Parameters<typeof meanColor>[1]) =>
  nearestColor(meanColor(await frameAt(result.videoPath, seconds, scratch.dir), region));

const TOP_STRIP = { left: 100, top: 1, width: 120, height: 6 };
const CENTRE = { left: 140, top: 70, width: 40, height: 40 };

beforeAll(async () => {
  scratch = await scratchDir('backgrounds');
  // 2:1, wider than the 16:9 frame: `contain` leaves bars above and below, `cover` none.
  wideGreen = await solidPng(path.join(scratch.dir, 'wide.png'), 200, 100, '#00ff00');
  // 1 s: red for 0.5 s, then blue.
  clip = await redThenBlueClip(path.join(scratch.dir, 'clip.mp4'), 1);
  silentClip = await redThenBlueClip(path.join(scratch.dir, 'silent.mp4'), 1, false);
});

afterAll(async () => {
  await scratch.remove();
});

describe('image backgrounds', () => {
  it('cover fills the frame', async () => {
    const result = await render({ background: { type: 'image', path: wideGreen, fit: 'cover' } }, 'cover');
    expect(await colorAt(result, 1, TOP_STRIP)).toBe('green');
    expect(await colorAt(result, 1, CENTRE)).toBe('green');
  });

  it('shows phone photos the right way up (EXIF orientation)', async () => {
    const photo = await sidewaysJpeg(path.join(scratch.dir, 'sideways.jpg'));
    const result = await render({ background: { type: 'image', path: photo, fit: 'contain' } }, 'upright');
    // Upright the photo is tall (20x60): bars left and right, red above blue.
    expect(await colorAt(result, 1, { left: 2, top: 80, width: 20, height: 20 })).toBe('black');
    expect(await colorAt(result, 1, { left: 150, top: 10, width: 20, height: 30 })).toBe('red');
    expect(await colorAt(result, 1, { left: 150, top: 130, width: 20, height: 30 })).toBe('blue');
  });

  it('contain shows the whole image on black bars', async () => {
    const result = await render(
      { background: { type: 'image', path: wideGreen, fit: 'contain' } },
      'contain',
    );
    expect(await colorAt(result, 1, TOP_STRIP)).toBe('black');
    expect(await colorAt(result, 1, CENTRE)).toBe('green');
  });
});

describe('video backgrounds (a 1 s clip, red then blue, in a 2 s scene)', () => {
  it('freeze plays the clip once and holds its last frame', async () => {
    const result = await render(
      { background: { type: 'video', path: clip, mode: 'freeze', volume: 1 } },
      'freeze',
    );
    expect(await colorAt(result, 0.2, CENTRE)).toBe('red');
    expect(await colorAt(result, 0.75, CENTRE)).toBe('blue');
    expect(await colorAt(result, 1.8, CENTRE)).toBe('blue');
  });

  it('loop plays the clip again from its start', async () => {
    const result = await render(
      { background: { type: 'video', path: clip, mode: 'loop', volume: 1 } },
      'loop',
    );
    expect(await colorAt(result, 0.75, CENTRE)).toBe('blue');
    expect(await colorAt(result, 1.25, CENTRE)).toBe('red');
    expect(await colorAt(result, 1.75, CENTRE)).toBe('blue');
  });

  it('fit_to_scene stretches the clip over the whole scene', async () => {
    const result = await render(
      { background: { type: 'video', path: clip, mode: 'fit_to_scene', volume: 1 } },
      'fit',
    );
    expect(await colorAt(result, 0.75, CENTRE)).toBe('red');
    expect(await colorAt(result, 1.25, CENTRE)).toBe('blue');
    const info = await probeMedia(result.videoPath);
    expect(info.durationSeconds).toBeGreaterThan(1.9);
    expect(info.durationSeconds).toBeLessThan(2.1);
  });

  it("keeps the clip's sound, in stereo, for the whole scene", async () => {
    const result = await render(
      { background: { type: 'video', path: clip, mode: 'loop', volume: 0.5 } },
      'sound',
    );
    const audio = (await probeMedia(result.videoPath)).streams.find((stream) => stream.type === 'audio');
    expect(audio?.channels).toBe(2);
    expect(audio?.durationSeconds).toBeGreaterThan(1.9);
  });

  it('gives a silent track to clips without sound', async () => {
    const result = await render(
      { background: { type: 'video', path: silentClip, mode: 'freeze', volume: 1 } },
      'silent',
    );
    const info = await probeMedia(result.videoPath);
    expect(info.streams.find((stream) => stream.type === 'audio')?.codec).toBe('aac');
    expect(info.durationSeconds).toBeGreaterThan(1.9);
  });
});

describe('presenter', () => {
  it('cover hides the background entirely, even while it moves', async () => {
    const portrait = await solidPng(path.join(scratch.dir, 'portrait.png'), 90, 120, '#ff00ff');
    const result = await render(
      {
        background: { type: 'color', color: '#0000ff' },
        avatar: { imagePath: portrait, fit: 'cover' },
      },
      'presenter-cover',
    );
    for (const seconds of [0.3, 1, 1.7]) {
      const frame = await frameAt(result.videoPath, seconds, scratch.dir);
      for (const corner of [
        { left: 0, top: 0, width: 4, height: 4 },
        { left: 316, top: 176, width: 4, height: 4 },
      ]) {
        expect(nearestColor(meanColor(frame, corner))).toBe('magenta');
      }
    }
  });
});

describe('watermark', () => {
  it('lays the image over every frame in the chosen corner, at its opacity', async () => {
    const mark = await solidPng(path.join(scratch.dir, 'mark.png'), 40, 20, '#ff0000');
    const workDir = path.join(scratch.dir, 'watermark');
    await mkdir(workDir);
    const request = {
      workDir,
      width: 320,
      height: 180,
      format: 'mp4' as const,
      scenes: [{ durationMs: 2000, background: { type: 'color' as const, color: '#0000ff' } }],
      captions: [],
      burnCaptions: false,
    };
    const result = await engine.compose({
      ...request,
      watermark: { imagePath: mark, opacity: 1, scale: 1, position: 'top_right', offsetX: 0, offsetY: 0 },
    });
    // Margin: 3 % of the shorter side (6 px, even): the mark covers x 274–314, y 6–26.
    const inMark = { left: 280, top: 10, width: 20, height: 10 };
    const otherCorner = { left: 10, top: 10, width: 20, height: 10 };
    for (const seconds of [0.2, 1.8]) {
      expect(await colorAt(result, seconds, inMark)).toBe('red');
      expect(await colorAt(result, seconds, otherCorner)).toBe('blue');
    }
    await mkdir(path.join(workDir, 'faint'));
    const faint = await engine.compose({
      ...request,
      workDir: path.join(workDir, 'faint'),
      watermark: { imagePath: mark, opacity: 0, scale: 1, position: 'top_right', offsetX: 0, offsetY: 0 },
    });
    expect(await colorAt(faint, 1, inMark)).toBe('blue');
  });
});

describe('transparent background (webm)', () => {
  it('keeps an alpha channel around the presenter; the thumbnail shows the colour behind it', async () => {
    const presenter = await solidPng(path.join(scratch.dir, 'presenter.png'), 60, 90, '#ff0000');
    const workDir = path.join(scratch.dir, 'transparent');
    await mkdir(workDir);
    const result = await engine.compose({
      workDir,
      width: 320,
      height: 180,
      format: 'webm',
      scenes: [
        {
          durationMs: 1000,
          background: { type: 'color', color: '#00ff00', transparent: true },
          avatar: { imagePath: presenter, fit: 'contain' },
        },
      ],
      captions: [{ startMs: 0, endMs: 900, text: 'Hello' }],
      burnCaptions: false,
    });
    const frame = path.join(workDir, 'frame.png');
    // libvpx decodes VP9's alpha; ffmpeg's own decoder would drop it.
    await ffmpeg(['-c:v', 'libvpx-vp9', '-i', result.videoPath, '-frames:v', '1', frame]);
    const { data, info } = await sharp(frame).raw().toBuffer({ resolveWithObject: true });
    expect(info.channels).toBe(4);
    const alphaAt = (x: number, y: number) => data[(y * info.width + x) * 4 + 3];
    expect(alphaAt(5, 5)).toBe(0);
    expect(alphaAt(160, 150)).toBe(255);
    expect(await colorOf(result.thumbnailPath, { left: 5, top: 5, width: 20, height: 20 })).toBe('green');
  });
});

async function colorOf(image: string, region: Parameters<typeof meanColor>[1]) {
  const { data, info } = await sharp(image).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return nearestColor(meanColor({ data, width: info.width }, region));
}
