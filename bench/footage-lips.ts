/**
 * Lips over footage (`lambdas/engines/vision/footage-lips.ts`): `reanimateLips` on a 6 s 25 fps clip of
 * a stock portrait whose mouth opens and shuts on its own (the old speech), swaying a little, given a
 * new viseme track that changes shape every 150 ms. At 640×360 with faces searched 8 times a second
 * (the default) and on every frame, and at 1280×720 with the default; and a 640×360 clip of two
 * portraits side by side, both re-animated, with the default. Prints the wall time per frame,
 * the real-time factor, and the detection and warp shares (after a warm-up run that loads the model).
 *
 *   npm run bench -- footage-lips     (BENCH_KEEP=1 keeps the files)
 */
import { execFile } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { cpus, tmpdir } from 'node:os';
import path from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { renderPortrait } from '../lambdas/catalog/render-portrait.js';
import { findStockLook } from '../lambdas/catalog/stock-avatars.js';
import { ensureExecutable, ffmpegPath } from '../lambdas/engines/composition/ffmpeg-binaries.js';
import { VISEMES, type Viseme, type VisemeCue } from '../lambdas/engines/speech/visemes.js';
import { type ReanimateLipsOptions, reanimateLips } from '../lambdas/engines/vision/footage-lips.js';
import { preparePhotoPresenter } from '../lambdas/engines/vision/photo-presenter.js';

const SECONDS = 6;
const FPS = 25;
const run = promisify(execFile);
const ffmpeg = ffmpegPath();
await ensureExecutable(ffmpeg);
const dir = await mkdtemp(path.join(tmpdir(), 'bench-footage-lips-'));

/** A stock portrait, its open mouth (where it goes) and its face's box. */
async function speaker(lookId: string) {
  const look = findStockLook(lookId);
  if (!look) throw new Error(`no stock look ${lookId}`);
  const portrait = await sharp(await renderPortrait(look))
    .flatten({ background: '#7f8a96' })
    .png()
    .toBuffer();
  const presenter = await preparePhotoPresenter(portrait);
  if (presenter.kind !== 'animated') throw new Error(`${lookId} stays still`);
  const photoPath = path.join(dir, `${lookId}.png`);
  const mouthPath = path.join(dir, `${lookId}-open.png`);
  await writeFile(photoPath, presenter.image);
  await writeFile(mouthPath, presenter.sprites.open_wide.png);
  const { width = 0, height = 0 } = await sharp(presenter.image).metadata();
  return {
    photoPath,
    mouthPath,
    ...presenter.sprites.open_wide.box,
    face: presenter.face.box,
    width,
    height,
  };
}

const maya = await speaker('maya-office');
const { photoPath, mouthPath, x, y } = maya;

async function clip(width: number, height: number): Promise<string> {
  const file = path.join(dir, `clip-${width}.mp4`);
  await run(ffmpeg, [
    ...['-loglevel', 'error', '-y', '-loop', '1', '-framerate', String(FPS), '-t', String(SECONDS)],
    ...['-i', photoPath, '-i', mouthPath, '-filter_complex'],
    `[1]format=rgba[m];[0][m]overlay=x=${x}:y=${y}:enable='lt(mod(t,0.6),0.25)'[o];` +
      `[o]crop=1280:720:x='323+8*sin(2*PI*t*0.4)':y='124+6*sin(2*PI*t*0.3)',scale=${width}:${height},format=yuv420p[v]`,
    ...['-map', '[v]', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', file],
  ]);
  return file;
}

/**
 * Maya and Amara side by side at 640×360 (faces about 200 px wide, each swaying, each mouth opening
 * at its own times): what a second face costs.
 */
async function twoFaces(): Promise<string> {
  const file = path.join(dir, 'two-faces.mp4');
  const people = [maya, await speaker('amara-presenter')];
  const oldSpeech = ['lt(mod(t,0.6),0.25)', 'gte(mod(t,0.6),0.3)'];
  const filters = people.map((person, index) => {
    const left = Math.round(
      Math.min(Math.max(0, person.face.x + person.face.width / 2 - 320), person.width - 660),
    );
    const top = Math.round(
      Math.min(Math.max(0, person.face.y + person.face.height / 2 - 330), person.height - 730),
    );
    return (
      `[${2 * index + 1}]format=rgba[m${index}];[${2 * index}][m${index}]overlay=x=${person.x}:y=${person.y}:enable='${oldSpeech[index]}',` +
      `crop=640:720:x='${left + 8}${index === 0 ? '+' : '-'}8*sin(2*PI*t*0.5)':y='${top + 6}+4*sin(2*PI*t*0.3)',scale=320:360[p${index}]`
    );
  });
  await run(ffmpeg, [
    ...['-loglevel', 'error', '-y'],
    ...people.flatMap((person) => [
      ...['-loop', '1', '-framerate', String(FPS), '-t', String(SECONDS), '-i', person.photoPath],
      ...['-loop', '1', '-framerate', String(FPS), '-t', String(SECONDS), '-i', person.mouthPath],
    ]),
    ...['-filter_complex', `${filters.join(';')};[p0][p1]hstack,format=yuv420p[v]`],
    ...['-map', '[v]', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', file],
  ]);
  return file;
}

const shapes: Viseme[] = [
  VISEMES.open_wide,
  VISEMES.rest,
  VISEMES.rounded,
  VISEMES.spread,
  VISEMES.closed,
  VISEMES.open_small,
  VISEMES.lip_teeth,
];
const track: VisemeCue[] = Array.from({ length: Math.ceil((SECONDS * 1000) / 150) }, (_, index) => ({
  startMs: index * 150,
  endMs: (index + 1) * 150,
  viseme: shapes[index % shapes.length] as Viseme,
}));

async function measure(label: string, videoPath: string, options: ReanimateLipsOptions): Promise<void> {
  const started = performance.now();
  const result = await reanimateLips({
    videoPath,
    visemes: track,
    workDir: path.join(dir, label.replace(/\W+/g, '-')),
    options,
  });
  const elapsed = performance.now() - started;
  const { timings, frames } = result;
  console.log(
    `${label}: ${frames} frames in ${(elapsed / 1000).toFixed(2)} s = ${(elapsed / frames).toFixed(1)} ms a frame, ${((SECONDS * 1000) / elapsed).toFixed(2)}× real time; ${timings.detections} face searches ${(timings.detectionMs / Math.max(1, timings.detections)).toFixed(0)} ms each, warps ${(timings.warpMs / frames).toFixed(1)} ms a frame; ${result.faces.framesReanimated}/${frames} frames re-animated, ${result.faces.tracks} ${result.faces.tracks === 1 ? 'face' : 'faces'}`,
  );
}

try {
  console.log(`${cpus().length} cores`);
  const small = await clip(640, 360);
  const large = await clip(1280, 720);
  // Loads the model and compiles its kernels.
  await reanimateLips({
    videoPath: small,
    visemes: track,
    spans: [{ startMs: 0, endMs: 200 }],
    workDir: path.join(dir, 'warm-up'),
  });
  await measure('640×360, 8 searches a second', small, {});
  await measure('640×360, every frame searched', small, { detectFps: FPS });
  await measure('1280×720, 8 searches a second', large, {});
  await measure('640×360, two faces, 8 searches a second', await twoFaces(), {});
} finally {
  if (!process.env.BENCH_KEEP) await rm(dir, { recursive: true, force: true });
}
