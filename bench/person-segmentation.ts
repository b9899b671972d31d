/**
 * Person segmentation (MediaPipe selfie model on the tfjs WASM backend, `lambdas/engines/vision/`):
 *
 * 1. Pictures: `segmentPerson` on a stock portrait over seeded noise at 512×512 and 1280×720, the
 *    whole call (shrinking with sharp, the model, the edge ramp, scaling up, feathering); median and
 *    best of `BENCH_ROUNDS` after a warm-up. The model's own share is printed apart.
 * 2. Video: `segmentVideo` on a 10 s 640×360 25 fps H.264 clip of the portrait moving over noise, with
 *    audio: ffmpeg decoding, every frame segmented and smoothed, ffmpeg encoding VP9 with alpha
 *    (transparent) and over a colour. Frames per second of wall time, best of the rounds.
 *
 *   npm run bench -- person-segmentation     (BENCH_ROUNDS to tune, BENCH_KEEP=1 keeps the files)
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import { promisify } from 'node:util';
import type { GraphModel } from '@tensorflow/tfjs-converter';
import type { Tensor } from '@tensorflow/tfjs-core';
import sharp from 'sharp';
import { renderPortrait } from '../lambdas/catalog/render-portrait.js';
import { findStockLook } from '../lambdas/catalog/stock-avatars.js';
import { ensureExecutable, ffmpegPath } from '../lambdas/engines/composition/ffmpeg-binaries.js';
import { selfieModelFile, visionRuntime } from '../lambdas/engines/vision/human-runtime.js';
import { segmentPerson, segmentVideo } from '../lambdas/engines/vision/segmentation.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? '20');
const videoRounds = Math.max(1, Math.min(3, Math.round(rounds / 10)));

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] as number;
};

function noiseRgb(width: number, height: number, seed: number): Buffer {
  const data = Buffer.alloc(width * height * 3);
  let state = seed >>> 0;
  for (let index = 0; index < data.length; index++) {
    state = (Math.imul(state, 1_103_515_245) + 12_345) >>> 0;
    data[index] = (state >>> 16) & 255;
  }
  return data;
}

const look = findStockLook('maya-office');
if (!look) throw new Error('no stock look maya-office');
const portrait = await renderPortrait(look);

/** The portrait (scaled to cover) over noise, as raw RGB. */
async function scene(width: number, height: number): Promise<Buffer> {
  const figure = await sharp(portrait).resize(width, height, { fit: 'cover' }).png().toBuffer();
  return sharp(noiseRgb(width, height, 7), { raw: { width, height, channels: 3 } })
    .composite([{ input: figure }])
    .removeAlpha()
    .raw()
    .toBuffer();
}

const loadStarted = performance.now();
await visionRuntime();
const runtimeMs = performance.now() - loadStarted;
const firstStarted = performance.now();
await segmentPerson({ data: await scene(64, 64), width: 64, height: 64, channels: 3 });
console.log(
  `${cpus().length} cores; vision runtime loaded in ${runtimeMs.toFixed(0)} ms, segmentation model + first frame ${(performance.now() - firstStarted).toFixed(0)} ms`,
);

for (const [width, height] of [
  [512, 512],
  [1280, 720],
] as const) {
  const data = await scene(width, height);
  const image = { data, width, height, channels: 3 } as const;
  await segmentPerson(image);
  const times: number[] = [];
  let coverage = 0;
  for (let round = 0; round < rounds; round++) {
    const started = performance.now();
    coverage = (await segmentPerson(image)).coverage;
    times.push(performance.now() - started);
  }
  console.log(
    `  picture ${width}x${height}: median ${median(times).toFixed(1)} ms, best ${Math.min(...times).toFixed(1)} ms per frame (${rounds} rounds, coverage ${coverage.toFixed(2)})`,
  );
}

// The model alone: its 256×256 input prepared once.
{
  const { tf } = await visionRuntime();
  // Required like the engine does, so it shares Human's tfjs-core (its backend and file:// router).
  const { loadGraphModel } = createRequire(import.meta.url)('@tensorflow/tfjs-converter') as {
    loadGraphModel: (url: string) => Promise<GraphModel>;
  };
  const model = await loadGraphModel(pathToFileURL(selfieModelFile()).href);
  const input = tf.randomUniform([1, 256, 256, 3]);
  const times: number[] = [];
  for (let round = 0; round <= rounds; round++) {
    const started = performance.now();
    const output = model.execute(input) as Tensor;
    await output.data();
    output.dispose();
    if (round > 0) times.push(performance.now() - started);
  }
  input.dispose();
  model.dispose();
  console.log(`  model alone (256x256 in, WASM backend): median ${median(times).toFixed(1)} ms`);
}

const root = await mkdtemp(path.join(tmpdir(), 'bench-person-segmentation-'));
try {
  const width = 640;
  const height = 360;
  const figure = path.join(root, 'figure.png');
  const background = path.join(root, 'background.png');
  await sharp(portrait).resize(width, height).png().toFile(figure);
  await sharp(noiseRgb(width, height, 7), { raw: { width, height, channels: 3 } })
    .png()
    .toFile(background);
  const clip = path.join(root, 'clip.mp4');
  const ffmpeg = ffmpegPath();
  await ensureExecutable(ffmpeg);
  // The figure sways left and right (±80 px, a 4 s period) over the noise, with a tone.
  await promisify(execFile)(ffmpeg, [
    ...['-v', 'error', '-y', '-loop', '1', '-framerate', '25', '-i', background],
    ...['-loop', '1', '-framerate', '25', '-i', figure],
    ...['-f', 'lavfi', '-i', 'sine=frequency=440:duration=10'],
    '-filter_complex',
    "[0:v][1:v]overlay=x='80*sin(2*PI*t/4)':y=0:shortest=1,format=yuv420p[v]",
    ...['-map', '[v]', '-map', '2:a', '-t', '10', '-c:v', 'libx264', '-crf', '18', '-c:a', 'aac', clip],
  ]);
  for (const [label, background] of [
    ['VP9 with alpha (transparent)', 'transparent'],
    ['VP9 over a colour', '#1d3557'],
  ] as const) {
    const runs = [];
    for (let round = 0; round < videoRounds; round++) {
      runs.push(
        await segmentVideo({ inputPath: clip, outputPath: path.join(root, `out-${round}.webm`), background }),
      );
    }
    const best = runs.reduce((top, run) => (run.processingFps > top.processingFps ? run : top));
    console.log(
      `  video 10 s ${width}x${height} 25 fps, ${label}: ${best.processingFps.toFixed(1)} fps (${best.frames} frames in ${(best.elapsedMs / 1000).toFixed(2)} s, ${(best.frames / best.frameRate / (best.elapsedMs / 1000)).toFixed(2)}x realtime; segmentation ${best.segmentationMsPerFrame.toFixed(1)} ms/frame; best of ${videoRounds})`,
    );
  }
} finally {
  if (process.env.BENCH_KEEP === '1') console.log(`  files kept in ${root}`);
  else await rm(root, { recursive: true, force: true });
}
