/** Brand-kit looks in the ffmpeg engine: a caption style (font file, text and box colours) and a logo beside the watermark. */
import { copyFile, mkdir, readdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { bundledFontFile } from '../../../../lambdas/engines/composition/bundled-fonts.js';
import {
  type CompositionRequest,
  validateCompositionRequest,
} from '../../../../lambdas/engines/composition/composition-engine.js';
import { createFfmpegCompositionEngine } from '../../../../lambdas/engines/composition/ffmpeg-composition-engine.js';
import { frameAt, meanColor, nearestColor, scratchDir, solidPng } from './media-fixtures.js';

const engine = createFfmpegCompositionEngine({ motionAmplitude: 0 });
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let green: string;
let magenta: string;

beforeAll(async () => {
  scratch = await scratchDir('caption-style');
  green = await solidPng(path.join(scratch.dir, 'logo.png'), 100, 50, '#00ff00');
  magenta = await solidPng(path.join(scratch.dir, 'mark.png'), 40, 40, '#ff00ff');
});
afterAll(() => scratch.remove());

const request = (workDir: string, overrides: Partial<CompositionRequest> = {}): CompositionRequest => ({
  workDir,
  width: 320,
  height: 180,
  format: 'mp4',
  scenes: [{ durationMs: 1000, background: { type: 'color', color: '#0000ff' } }],
  captions: [{ startMs: 0, endMs: 1000, text: 'WIDE CAPTION LINE HERE' }],
  burnCaptions: true,
  ...overrides,
});

describe('caption styles', () => {
  it('gives libass only the requested font, by its family, with the box and text colours', async () => {
    const workDir = path.join(scratch.dir, 'prepare');
    await mkdir(workDir);
    await engine.prepare(
      request(workDir, {
        captionStyle: {
          font: { path: bundledFontFile('DejaVu Serif'), family: 'DejaVu Serif' },
          textColor: '#111111',
          boxColor: '#e0301e',
        },
      }),
    );
    expect(await readdir(path.join(workDir, 'caption-fonts'))).toEqual(['DejaVuSerif.ttf']);
    const script = await readFile(path.join(workDir, 'captions.ass'), 'utf8');
    // &HAABBGGRR: text #111111, box (the outline colour of border style 3) #e0301e.
    expect(script).toMatch(
      /Style: Caption,DejaVu Serif,9,&H00111111,&H00111111,&H001E30E0,&H80000000,(?:[^,]*,){8}3,/,
    );
  });

  it('draws the captions on a box of the box colour, and the logo and the watermark in their corners', async () => {
    const workDir = path.join(scratch.dir, 'render');
    await mkdir(workDir);
    const mark = { opacity: 1, scale: 0.5, offsetX: 0, offsetY: 0 } as const;
    const result = await engine.compose(
      request(workDir, {
        captionStyle: { boxColor: '#ff0000', textColor: '#ffffff' },
        watermark: { ...mark, imagePath: magenta, position: 'bottom_right' },
        logo: { ...mark, imagePath: green, position: 'top_right' },
      }),
    );
    const frame = await frameAt(result.videoPath, 0.5, scratch.dir);
    // Logo: 50x25 from 10 px in at the top right; watermark 20x20 at the bottom right.
    expect(nearestColor(meanColor(frame, { left: 265, top: 15, width: 30, height: 12 }))).toBe('green');
    expect(nearestColor(meanColor(frame, { left: 294, top: 154, width: 12, height: 12 }))).toBe('magenta');
    expect(nearestColor(meanColor(frame, { left: 10, top: 10, width: 30, height: 30 }))).toBe('blue');
    // The caption box: red beside the text, bottom-centre (the text itself is white on it).
    let red = 0;
    for (let y = 140; y < 180; y++)
      for (let x = 60; x < 260; x++) {
        const offset = (y * frame.width + x) * 3;
        if ((frame.data[offset] ?? 0) > 200 && (frame.data[offset + 1] ?? 0) < 60) red++;
      }
    expect(red).toBeGreaterThan(400);
  });

  it("sets the captions in the style's font: narrow letters in a monospaced font make a wider box", async () => {
    // A font file as a render downloads it: a copy without an extension.
    const mono = path.join(scratch.dir, 'caption-font');
    await copyFile(bundledFontFile('DejaVu Sans Mono'), mono);
    const boxWidth = async (name: string, font?: { path: string; family: string }) => {
      const workDir = path.join(scratch.dir, name);
      await mkdir(workDir);
      const result = await engine.compose(
        request(workDir, {
          captions: [{ startMs: 0, endMs: 1000, text: 'iiiiiiiiiiiiiiii' }],
          captionStyle: { boxColor: '#ff0000', ...(font ? { font } : {}) },
        }),
      );
      const frame = await frameAt(result.videoPath, 0.5, scratch.dir);
      let widest = 0;
      for (let y = 140; y < 180; y++) {
        let run = 0;
        for (let x = 0; x < frame.width; x++) {
          const offset = (y * frame.width + x) * 3;
          const red = (frame.data[offset] ?? 0) > 200 && (frame.data[offset + 2] ?? 255) < 80;
          run = red ? run + 1 : 0;
          widest = Math.max(widest, run);
        }
      }
      return widest;
    };
    const sans = await boxWidth('font-sans');
    const monospaced = await boxWidth('font-mono', { path: mono, family: 'DejaVu Sans Mono' });
    expect(sans).toBeGreaterThan(10);
    expect(monospaced).toBeGreaterThan(sans * 1.5);
  });

  it('refuses a malformed style like any malformed request', () => {
    const workDir = scratch.dir;
    expect(() => validateCompositionRequest(request(workDir, { captionStyle: { boxColor: 'red' } }))).toThrow(
      /caption box colour/,
    );
    expect(() =>
      validateCompositionRequest(
        request(workDir, { captionStyle: { font: { path: '/x.ttf', family: ' ' } } }),
      ),
    ).toThrow(/family/);
    expect(() =>
      validateCompositionRequest(
        request(workDir, {
          logo: { imagePath: green, opacity: 1, scale: 0, position: 'top_left', offsetX: 0, offsetY: 0 },
        }),
      ),
    ).toThrow(/logo scale/);
  });
});
