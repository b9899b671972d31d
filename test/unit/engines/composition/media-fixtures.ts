/** Small media files made on the spot, and ways to look at what the engine wrote. */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import {
  ensureExecutable,
  ffmpegPath,
  runProcess,
} from '../../../../lambdas/engines/composition/ffmpeg-binaries.js';

export async function scratchDir(prefix: string): Promise<{ dir: string; remove: () => Promise<void> }> {
  const dir = await mkdtemp(path.join(tmpdir(), `composition-${prefix}-`));
  return { dir, remove: () => rm(dir, { recursive: true, force: true }) };
}

export async function ffmpeg(args: string[]): Promise<void> {
  const command = ffmpegPath();
  await ensureExecutable(command);
  await runProcess(command, ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', ...args], {
    timeoutMs: 60_000,
  });
}

/** A solid-colour PNG. */
export async function solidPng(file: string, width: number, height: number, color: string): Promise<string> {
  await sharp({ create: { width, height, channels: 4, background: color } })
    .png()
    .toFile(file);
  return file;
}

/** A mono sine-tone WAV. */
export async function toneWav(file: string, seconds: number): Promise<string> {
  await ffmpeg(['-f', 'lavfi', '-i', `sine=frequency=440:sample_rate=22050:duration=${seconds}`, file]);
  return file;
}

/**
 * A 320x180 25 fps H.264 clip that is red for its first `seconds / 2` and blue for the rest, with a
 * stereo tone unless `audio` is false.
 */
export async function redThenBlueClip(file: string, seconds: number, audio = true): Promise<string> {
  const half = seconds / 2;
  const video = `color=c=red:s=320x180:r=25:d=${half}[r];color=c=blue:s=320x180:r=25:d=${half}[b];[r][b]concat=n=2:v=1:a=0,format=yuv420p[v]`;
  const args = audio
    ? ['-f', 'lavfi', '-i', `sine=frequency=660:duration=${seconds}`, '-filter_complex', video, '-map', '[v]']
    : ['-filter_complex', video, '-map', '[v]'];
  await ffmpeg([
    ...args,
    ...(audio ? ['-map', '0:a', '-ac', '2', '-c:a', 'aac'] : []),
    '-c:v',
    'libx264',
    file,
  ]);
  return file;
}

export interface Rgb {
  r: number;
  g: number;
  b: number;
}

export interface Region {
  left: number;
  top: number;
  width: number;
  height: number;
}

/** The frame of `video` at `seconds`, as raw RGB pixels. */
export async function frameAt(
  video: string,
  seconds: number,
  workDir: string,
): Promise<{ data: Buffer; width: number; height: number }> {
  const file = path.join(workDir, `frame-${path.basename(video)}-${seconds}.png`);
  await ffmpeg(['-ss', String(seconds), '-i', video, '-frames:v', '1', file]);
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

/** Mean colour of a region of raw RGB pixels. */
export function meanColor(frame: { data: Buffer; width: number }, region: Region): Rgb {
  let r = 0;
  let g = 0;
  let b = 0;
  for (let y = region.top; y < region.top + region.height; y++) {
    for (let x = region.left; x < region.left + region.width; x++) {
      const offset = (y * frame.width + x) * 3;
      r += frame.data[offset] ?? 0;
      g += frame.data[offset + 1] ?? 0;
      b += frame.data[offset + 2] ?? 0;
    }
  }
  const count = region.width * region.height;
  return { r: r / count, g: g / count, b: b / count };
}

/** Mean absolute difference per channel between two frames over a region (0 = identical). */
export function meanDifference(
  a: { data: Buffer; width: number },
  b: { data: Buffer; width: number },
  region: Region,
): number {
  let sum = 0;
  for (let y = region.top; y < region.top + region.height; y++) {
    for (let x = region.left; x < region.left + region.width; x++) {
      for (let channel = 0; channel < 3; channel++) {
        const offset = (y * a.width + x) * 3 + channel;
        sum += Math.abs((a.data[offset] ?? 0) - (b.data[offset] ?? 0));
      }
    }
  }
  return sum / (region.width * region.height * 3);
}

/** Which of a few named colours `color` is closest to. */
export function nearestColor(color: Rgb): 'red' | 'green' | 'blue' | 'black' | 'white' | 'magenta' {
  const palette = {
    red: { r: 255, g: 0, b: 0 },
    green: { r: 0, g: 255, b: 0 },
    blue: { r: 0, g: 0, b: 255 },
    black: { r: 0, g: 0, b: 0 },
    white: { r: 255, g: 255, b: 255 },
    magenta: { r: 255, g: 0, b: 255 },
  } as const;
  let best: keyof typeof palette = 'black';
  let bestDistance = Number.POSITIVE_INFINITY;
  for (const [name, reference] of Object.entries(palette) as [keyof typeof palette, Rgb][]) {
    const distance =
      (color.r - reference.r) ** 2 + (color.g - reference.g) ** 2 + (color.b - reference.b) ** 2;
    if (distance < bestDistance) {
      best = name;
      bestDistance = distance;
    }
  }
  return best;
}

/**
 * A JPEG stored 60x20 (left third red, the rest blue) with EXIF orientation 6: shown upright it is
 * 20x60, red at the top.
 */
export async function sidewaysJpeg(file: string): Promise<string> {
  const svg =
    '<svg xmlns="http://www.w3.org/2000/svg" width="60" height="20"><rect width="60" height="20" fill="#0000ff"/><rect width="20" height="20" fill="#ff0000"/></svg>';
  await sharp(Buffer.from(svg)).jpeg({ quality: 95 }).withMetadata({ orientation: 6 }).toFile(file);
  return file;
}

/** Every frame of `video`, cropped to `region`, as raw RGB pixels (one buffer per frame). */
export async function regionFrames(video: string, region: Region, workDir: string): Promise<Buffer[]> {
  const file = path.join(workDir, `frames-${path.basename(video)}-${region.left}-${region.top}.rgb`);
  await ffmpeg([
    '-i',
    video,
    '-vf',
    // RGB first: a 4:2:0 crop would round an odd size or offset.
    `format=rgb24,crop=${region.width}:${region.height}:${region.left}:${region.top}`,
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgb24',
    file,
  ]);
  const bytes = await readFile(file);
  const frameBytes = region.width * region.height * 3;
  return Array.from({ length: Math.floor(bytes.length / frameBytes) }, (_, index) =>
    bytes.subarray(index * frameBytes, (index + 1) * frameBytes),
  );
}

/** Mean absolute difference per channel between two equally sized raw RGB buffers (0 = identical). */
export function bufferDifference(a: Buffer, b: Buffer): number {
  let sum = 0;
  for (let index = 0; index < a.length; index++) sum += Math.abs((a[index] ?? 0) - (b[index] ?? 0));
  return sum / a.length;
}
