/**
 * Every named caption style of AI clipping, burned by libass: one small frame each (the engine writes
 * the ASS script and the fonts setup; ffmpeg burns it on a grey frame). The styles look different from
 * each other, and their text lands where the style puts it.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  CAPTION_PRESET_NAMES,
  CAPTION_PRESETS,
  type CaptionPresetName,
  captionStyleOf,
} from '../../../../lambdas/engines/composition/caption-presets.js';
import {
  ensureExecutable,
  ffmpegPath,
  runProcess,
} from '../../../../lambdas/engines/composition/ffmpeg-binaries.js';
import { createFfmpegCompositionEngine } from '../../../../lambdas/engines/composition/ffmpeg-composition-engine.js';
import { scratchDir } from './media-fixtures.js';

const WIDTH = 270;
const HEIGHT = 480;
const GREY = 128;
const engine = createFfmpegCompositionEngine();
let scratch: Awaited<ReturnType<typeof scratchDir>>;
const frames = new Map<CaptionPresetName, Buffer>();

/** One 270x480 grey frame with the caption "Hello world" burned in the style. */
async function renderFrame(name: CaptionPresetName): Promise<Buffer> {
  const workDir = path.join(scratch.dir, name);
  await mkdir(workDir);
  const invocation = await engine.prepare({
    workDir,
    width: WIDTH,
    height: HEIGHT,
    format: 'mp4',
    scenes: [{ durationMs: 1000, background: { type: 'color', color: '#808080' } }],
    captions: [{ startMs: 0, endMs: 1000, text: 'Hello world' }],
    burnCaptions: true,
    captionStyle: captionStyleOf(name),
  });
  const command = ffmpegPath();
  await ensureExecutable(command);
  await runProcess(
    command,
    [
      ...['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', '-f', 'lavfi'],
      ...['-i', `color=c=0x808080:s=${WIDTH}x${HEIGHT}:d=0.1`, '-vf', 'ass=captions.ass'],
      ...['-frames:v', '1', 'frame.png'],
    ],
    { cwd: workDir, env: invocation.env, timeoutMs: 30_000 },
  );
  return sharp(path.join(workDir, 'frame.png')).removeAlpha().raw().toBuffer();
}

/** Rows where the picture is not the grey background: where the caption is. */
function inkedRows(frame: Buffer): { rows: number[]; pixels: number } {
  const rows: number[] = [];
  let pixels = 0;
  for (let y = 0; y < HEIGHT; y++) {
    let inRow = 0;
    for (let x = 0; x < WIDTH; x++) {
      const offset = (y * WIDTH + x) * 3;
      const distance =
        Math.abs((frame[offset] ?? 0) - GREY) +
        Math.abs((frame[offset + 1] ?? 0) - GREY) +
        Math.abs((frame[offset + 2] ?? 0) - GREY);
      if (distance > 60) inRow++;
    }
    if (inRow > 0) rows.push(y);
    pixels += inRow;
  }
  return { rows, pixels };
}

beforeAll(async () => {
  scratch = await scratchDir('caption-presets');
  for (const name of CAPTION_PRESET_NAMES) frames.set(name, await renderFrame(name));
}, 60_000);
afterAll(() => scratch.remove());

describe('named caption styles', () => {
  it.each(CAPTION_PRESET_NAMES)('%s draws its text where the style puts it', (name) => {
    const { rows, pixels } = inkedRows(frames.get(name) as Buffer);
    expect(pixels).toBeGreaterThan(150);
    const middle = ((rows[0] ?? 0) + (rows.at(-1) ?? 0)) / 2 / HEIGHT;
    const position = CAPTION_PRESETS[name].style.position ?? 'bottom';
    if (position === 'bottom') expect(middle).toBeGreaterThan(0.82);
    if (position === 'lower_third') {
      expect(middle).toBeGreaterThan(0.6);
      expect(middle).toBeLessThan(0.82);
    }
    if (position === 'middle') expect(Math.abs(middle - 0.5)).toBeLessThan(0.08);
  });

  it('no two styles look the same', () => {
    for (const [index, a] of CAPTION_PRESET_NAMES.entries()) {
      for (const b of CAPTION_PRESET_NAMES.slice(index + 1)) {
        const first = frames.get(a) as Buffer;
        const second = frames.get(b) as Buffer;
        let differing = 0;
        for (let offset = 0; offset < first.length; offset += 3) {
          const distance =
            Math.abs((first[offset] ?? 0) - (second[offset] ?? 0)) +
            Math.abs((first[offset + 1] ?? 0) - (second[offset + 1] ?? 0)) +
            Math.abs((first[offset + 2] ?? 0) - (second[offset + 2] ?? 0));
          if (distance > 60) differing++;
        }
        expect(differing, `${a} vs ${b}`).toBeGreaterThan(50);
      }
    }
  });

  it('fills a boxed style’s box with its colour', () => {
    const frame = frames.get('stamp_red') as Buffer;
    let red = 0;
    for (let offset = 0; offset < frame.length; offset += 3)
      if ((frame[offset] ?? 0) > 180 && (frame[offset + 1] ?? 255) < 80 && (frame[offset + 2] ?? 255) < 80)
        red++;
    expect(red).toBeGreaterThan(300);
  });
});
