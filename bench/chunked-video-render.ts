/**
 * A 60 s 1280x720 video of a stock presenter (talking, blinking, swaying; three scenes joined by fades,
 * burned captions) rendered in one pass against rendered in chunks on this machine, as the local stack
 * runs the video workflow: the sound once, then `VIDEO_RENDER_CHUNK_SECONDS` chunks (10 s: 6 chunks)
 * `RENDER_CHUNK_CONCURRENCY` at a time (the cores), then the join (concat demuxer, nothing
 * re-encoded). Engine level: the service's S3 copies of the inputs and chunks are not counted. Rounds
 * alternate the two after a warm-up of each; the best round of each counts. Also prints the chunked
 * video's PSNR against the single pass.
 *
 *   npm run bench -- chunked-video-render     (BENCH_ROUNDS, BENCH_CHUNK_SECONDS, BENCH_CONCURRENCY)
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import path from 'node:path';
import pLimit from 'p-limit';
import { renderPortrait } from '../lambdas/catalog/render-portrait.js';
import { renderSprite } from '../lambdas/catalog/render-sprites.js';
import { SPRITES } from '../lambdas/catalog/sprite-art.js';
import { findStockLook } from '../lambdas/catalog/stock-avatars.js';
import { engineVoiceOf, findStockVoice } from '../lambdas/catalog/stock-voices.js';
import { ffmpegPath, runProcess } from '../lambdas/engines/composition/ffmpeg-binaries.js';
import {
  type CaptionCue,
  type CompositionRequest,
  type CompositionScene,
  captionCuesFromWords,
  compositionFrameCount,
  createFfmpegCompositionEngine,
  frameChunks,
  type PresenterSprite,
} from '../lambdas/engines/composition/index.js';
import { createEspeakEngine } from '../lambdas/engines/speech/espeak-engine.js';
import { SCENE_COLORS, SCENE_SCRIPTS } from './support/quarterly-update.js';

const VIDEO_MS = 60_000;
const FPS = 25;
const rounds = Number(process.env.BENCH_ROUNDS ?? '2');
const chunkSeconds = Number(process.env.BENCH_CHUNK_SECONDS ?? '10');
const concurrency = Number(process.env.BENCH_CONCURRENCY ?? String(availableParallelism()));

const look = findStockLook('maya-office');
if (!look) throw new Error('the stock look maya-office is missing');
const root = await mkdtemp(path.join(tmpdir(), 'bench-chunked-'));
const portraitPath = path.join(root, 'portrait.png');
await writeFile(portraitPath, await renderPortrait(look));
const sprites: Partial<Record<(typeof SPRITES)[number], PresenterSprite>> = {};
for (const name of SPRITES) {
  const rendered = await renderSprite(look, name);
  const imagePath = path.join(root, `${name}.png`);
  await writeFile(imagePath, rendered.png);
  sprites[name] = { imagePath, box: rendered.box };
}
const { blink, ...mouths } = sprites;

const speaker = createEspeakEngine();
const voiceId = engineVoiceOf(findStockVoice(look.defaultVoiceId) as never, 'espeak') as string;
const scenes: CompositionScene[] = [];
const captions: CaptionCue[] = [];
let offsetMs = 0;
for (const [index, text] of SCENE_SCRIPTS.entries()) {
  const speech = await speaker.synthesize({ text, voiceId });
  const speechPath = path.join(root, `speech-${index}.wav`);
  await writeFile(speechPath, speech.audio);
  // The last scene is held (the presenter silent) until the video is VIDEO_MS long.
  const durationMs = index === SCENE_SCRIPTS.length - 1 ? VIDEO_MS - offsetMs : speech.durationMs;
  scenes.push({
    durationMs,
    background: { type: 'color', color: SCENE_COLORS[index] as string },
    avatar: {
      imagePath: portraitPath,
      fit: 'contain',
      animation: { mouths, ...(blink ? { blink } : {}), visemes: speech.visemes, blinkSeed: index },
    },
    narration: { path: speechPath, volume: 1 },
  });
  for (const cue of captionCuesFromWords(speech.words, { untilMs: speech.durationMs }))
    captions.push({ ...cue, startMs: cue.startMs + offsetMs, endMs: cue.endMs + offsetMs });
  offsetMs += durationMs;
}
await speaker.close();

let runs = 0;
async function requestIn(name: string): Promise<CompositionRequest> {
  const workDir = path.join(root, `${name}-${runs++}`);
  await mkdir(workDir, { recursive: true });
  return {
    workDir,
    width: 1280,
    height: 720,
    fps: FPS,
    format: 'mp4',
    scenes,
    captions,
    burnCaptions: true,
    transition: { kind: 'fade', durationMs: 600 },
  };
}

const engine = createFfmpegCompositionEngine();
const chunks = frameChunks({
  totalFrames: compositionFrameCount({ scenes, fps: FPS }),
  fps: FPS,
  gopFrames: engine.chunked.gopFrames(FPS),
  chunkSeconds,
});

async function single(): Promise<{ seconds: number; video: string }> {
  const request = await requestIn('single');
  const started = performance.now();
  const result = await engine.compose(request);
  return { seconds: (performance.now() - started) / 1000, video: result.videoPath };
}

async function chunked(): Promise<{ seconds: number; video: string; parts: string }> {
  const soundRequest = await requestIn('sound');
  const chunkRequests = await Promise.all(chunks.map(() => requestIn('chunk')));
  const joinDir = (await requestIn('join')).workDir;
  const started = performance.now();
  const { soundPath } = await engine.chunked.composeSound(soundRequest);
  const soundDone = performance.now();
  const pictures = await pLimit(concurrency).map(chunks, (chunk) =>
    engine.chunked.composePictures(chunkRequests[chunk.index] as CompositionRequest, chunk),
  );
  const chunksDone = performance.now();
  const result = await engine.chunked.joinChunks({
    workDir: joinDir,
    format: 'mp4',
    width: 1280,
    height: 720,
    fps: FPS,
    chunks: pictures,
    soundPath,
  });
  const done = performance.now();
  const parts = `sound ${((soundDone - started) / 1000).toFixed(1)} s, chunks ${((chunksDone - soundDone) / 1000).toFixed(1)} s, join ${((done - chunksDone) / 1000).toFixed(1)} s`;
  return { seconds: (done - started) / 1000, video: result.videoPath, parts };
}

console.log(
  `60 s 1280x720, ${scenes.length} scenes, fades, burned captions; ${chunks.length} chunks of ${chunkSeconds} s, ${concurrency} at once (${availableParallelism()} cores)`,
);
await single();
await chunked();
let bestSingle = Number.POSITIVE_INFINITY;
let bestChunked = Number.POSITIVE_INFINITY;
let last: { single: string; chunked: string } = { single: '', chunked: '' };
for (let round = 1; round <= rounds; round++) {
  const one = await single();
  const parts = await chunked();
  console.log(
    `round ${round}: single pass ${one.seconds.toFixed(1)} s, chunked ${parts.seconds.toFixed(1)} s (${parts.parts})`,
  );
  bestSingle = Math.min(bestSingle, one.seconds);
  bestChunked = Math.min(bestChunked, parts.seconds);
  last = { single: one.video, chunked: parts.video };
}
const { stderr } = await runProcess(
  ffmpegPath(),
  [
    '-hide_banner',
    '-nostdin',
    '-i',
    last.chunked,
    '-i',
    last.single,
    '-lavfi',
    '[0:v][1:v]psnr',
    '-f',
    'null',
    '-',
  ],
  { timeoutMs: 300_000 },
);
console.log(
  `best: single pass ${bestSingle.toFixed(1)} s, chunked ${bestChunked.toFixed(1)} s (${(bestSingle / bestChunked).toFixed(2)}x); chunked vs single pass PSNR ${/average:([\d.]+|inf)/.exec(stderr)?.[1]} dB`,
);
if (!process.env.BENCH_KEEP) await rm(root, { recursive: true, force: true });
