/**
 * Background removal (`separateVideoLayers`, lambdas/engines/vision/segmentation.ts): one decode of a
 * 1280×720 25 fps H.264 clip of a stock portrait walking across a striped wall, every frame segmented
 * once and written as the three layers (foreground VP8 with alpha in WebM, mask and background H.264
 * in MP4), then each layer alone. Frames per second of wall time, and where a frame's time goes:
 * the model, the mask's scaling (`mask-edges.ts`), each layer's frame making, and the time spent
 * waiting for the encoders (ffmpeg child processes) to take frames.
 *
 *   npm run bench -- background-removal   (BENCH_SECONDS: clip length, default 6; BENCH_WIDTH:
 *   1280; BENCH_KEEP=1 keeps the files)
 */
import { execFile } from 'node:child_process';
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { cpus, loadavg, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { renderPortrait } from '../lambdas/catalog/render-portrait.js';
import { findStockLook } from '../lambdas/catalog/stock-avatars.js';
import { ensureExecutable, ffmpegPath } from '../lambdas/engines/composition/ffmpeg-binaries.js';
import {
  type SeparateLayersResult,
  separateVideoLayers,
  VIDEO_LAYERS,
  type VideoLayer,
} from '../lambdas/engines/vision/segmentation.js';

const seconds = Number(process.env.BENCH_SECONDS ?? '6');
const width = Number(process.env.BENCH_WIDTH ?? '1280');
const height = Math.round((width * 9) / 16 / 2) * 2;

const look = findStockLook('maya-office');
if (!look) throw new Error('no stock look maya-office');

const root = await mkdtemp(path.join(tmpdir(), 'bench-background-removal-'));
try {
  const figure = path.join(root, 'figure.png');
  const wall = path.join(root, 'wall.png');
  // The portrait at 90 % of the frame's height; the wall: diagonal stripes with a gradient.
  await sharp(await renderPortrait(look))
    .resize({ height: Math.round(height * 0.9) })
    .png()
    .toFile(figure);
  const stripes = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const light = ((x + y) >> 4) % 2 ? 200 : 90;
      stripes.set([light, Math.round((light * y) / height), 255 - light], (y * width + x) * 3);
    }
  }
  await sharp(stripes, { raw: { width, height, channels: 3 } })
    .png()
    .toFile(wall);
  const clip = path.join(root, 'clip.mp4');
  const ffmpeg = ffmpegPath();
  await ensureExecutable(ffmpeg);
  await promisify(execFile)(ffmpeg, [
    ...['-v', 'error', '-y', '-loop', '1', '-framerate', '25', '-i', wall],
    ...['-loop', '1', '-framerate', '25', '-i', figure],
    ...['-f', 'lavfi', '-i', `sine=frequency=440:duration=${seconds}`],
    '-filter_complex',
    `[0:v][1:v]overlay=x='W*0.1+(W*0.5)*t/${seconds}':y=H-h:shortest=1,format=yuv420p[v]`,
    ...['-map', '[v]', '-map', '2:a', '-t', String(seconds), '-c:v', 'libx264', '-crf', '18'],
    ...['-c:a', 'aac', clip],
  ]);
  console.log(`${cpus().length} cores; clip ${seconds} s ${width}x${height} 25 fps`);

  const describe = (label: string, run: SeparateLayersResult) => {
    const layers = Object.entries(run.msPerFrame.layers)
      .map(([layer, ms]) => `${layer} ${ms.toFixed(1)}`)
      .join(', ');
    console.log(
      `  ${label}: ${run.processingFps.toFixed(1)} fps (${run.frames} frames in ${(run.elapsedMs / 1000).toFixed(2)} s); per frame: model ${run.msPerFrame.model.toFixed(1)} ms, mask ${run.msPerFrame.mask.toFixed(1)} ms, layers [${layers}] ms, waiting for the encoders ${run.msPerFrame.encoderWait.toFixed(1)} ms; person in ${run.personFrames} frames, ${(run.inpaintedFraction * 100).toFixed(1)} % of covered pixels inpainted`,
    );
  };
  // A warm-up (model load) on the first second.
  await separateVideoLayers({ inputPath: clip, outputs: { mask: path.join(root, 'warm.mp4') } });
  const outputs = (layers: readonly VideoLayer[], tag: string) =>
    Object.fromEntries(
      layers.map((layer) => [
        layer,
        path.join(root, `${tag}-${layer}.${layer === 'foreground' ? 'webm' : 'mp4'}`),
      ]),
    );
  /**
   * CPU seconds of this process and of its ended children (the ffmpeg decoder and encoders), from
   * /proc (Linux): on a shared machine wall time says how busy the neighbours were, CPU time what the
   * work costs.
   */
  const cpuSeconds = async () => {
    const self = process.cpuUsage();
    const stat = await readFile('/proc/self/stat', 'utf8').catch(() => '');
    // After the command's `)`: cutime and cstime are the 14th and 15th fields, in 1/100 s.
    const fields = stat.slice(stat.lastIndexOf(')') + 2).split(' ');
    return {
      node: (self.user + self.system) / 1e6,
      children: (Number(fields[13]) + Number(fields[14])) / 100 || 0,
    };
  };
  const measured = async (label: string, layers: readonly VideoLayer[], tag: string) => {
    const before = await cpuSeconds();
    const result = await separateVideoLayers({ inputPath: clip, outputs: outputs(layers, tag) });
    const after = await cpuSeconds();
    describe(label, result);
    const node = after.node - before.node;
    const children = after.children - before.children;
    const perFrame = (seconds: number) => ((seconds * 1000) / result.frames).toFixed(1);
    console.log(
      `    CPU per frame: node ${perFrame(node)} ms (model, masks, layers), ffmpeg ${perFrame(children)} ms (decoding, encoding): ${((2 * result.frames) / (node + children)).toFixed(1)} fps if both cores were ours alone`,
    );
  };
  console.log(
    `  load average: ${loadavg()
      .map((value) => value.toFixed(1))
      .join(', ')} (above the core count, neighbours share the cores)`,
  );
  await measured('all three layers, one decode', VIDEO_LAYERS, 'all');
  for (const layer of VIDEO_LAYERS) await measured(`${layer} alone`, [layer], layer);
} finally {
  if (process.env.BENCH_KEEP === '1') console.log(`  files kept in ${root}`);
  else await rm(root, { recursive: true, force: true });
}
