/**
 * Rendering a 60 s 1280x720 avatar video end to end against the bare ffmpeg encode of the same
 * composition, in one run.
 *
 * Pipeline: speech for three scenes with the eSpeak engine (word timings → caption cues), then the
 * ffmpeg composition engine (probing, captions file, one ffmpeg run writing the clean MP4, the captioned
 * MP4, the thumbnail and the GIF, probing the result). Bare: exactly the ffmpeg command the engine runs
 * for that composition (`prepare()` gives its argv), spawned directly. Rounds alternate the two after a
 * warm-up run, so neither gets a quieter machine or a warmer disk cache; the best round of each counts.
 * Targets: pipeline ≥ 4x realtime, pipeline ≤ 1.25x bare.
 *
 * Then the same three scenes through the service: the local stack in memory, `POST /v3/videos`
 * (a 720p studio video of a stock look and voice, captions on), polled until completed: Step
 * Functions, DynamoDB, S3 and the render steps included. Its bare command is the ffmpeg run of the
 * same composition (the same speech, the stock portrait, the same scene colours), built the way the
 * compose step builds it.
 *
 *   npm run bench -- video-render     (BENCH_ROUNDS to tune, BENCH_KEEP=1 keeps the files)
 */
import { spawn } from 'node:child_process';
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { GetObjectCommand } from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { updateWorkspace } from '../lambdas/accounts/workspaces.js';
import { catalogKeys } from '../lambdas/catalog/catalog-keys.js';
import { findStockVoice } from '../lambdas/catalog/stock-voices.js';
import { s3Client } from '../lambdas/core/aws-clients.js';
import { config } from '../lambdas/core/config.js';
import {
  type CaptionCue,
  type CompositionRequest,
  type CompositionResult,
  type CompositionScene,
  captionCuesFromWords,
  createFfmpegCompositionEngine,
  type FfmpegInvocation,
  wordsWithPunctuation,
} from '../lambdas/engines/composition/index.js';
import { createEspeakEngine } from '../lambdas/engines/speech/espeak-engine.js';
import type { SpeechEngine } from '../lambdas/engines/speech/speech-engine.js';
import { startLocalStack } from '../lib/local/local-stack.js';
import { SCENE_COLORS, SCENE_SCRIPTS } from './support/quarterly-update.js';

const WIDTH = 1280;
const HEIGHT = 720;
/** The last scene is held (silent presenter) until the video is this long. */
const VIDEO_MS = 60_000;
const rounds = Number(process.env.BENCH_ROUNDS ?? '2');

/** The stock look and voice of the run through the service. */
const SERVICE_LOOK = 'maya-office';
const SERVICE_VOICE = 'en-us-olivia';

/** A stylized head-and-shoulders portrait with a transparent background. */
async function drawPortrait(file: string): Promise<string> {
  const svg = `<svg xmlns="http://www.w3.org/2000/svg" width="600" height="720">
    <ellipse cx="300" cy="720" rx="270" ry="210" fill="#34568b"/>
    <path d="M230 520 L300 600 L370 520 Z" fill="#f4f4f4"/>
    <rect x="258" y="420" width="84" height="100" rx="20" fill="#d9a066"/>
    <ellipse cx="300" cy="300" rx="140" ry="175" fill="#f1c27d"/>
    <path d="M158 270 Q170 100 300 110 Q430 100 442 270 Q420 170 300 165 Q180 170 158 270 Z" fill="#4a2c14"/>
    <ellipse cx="248" cy="295" rx="15" ry="11" fill="#2b2b2b"/>
    <ellipse cx="352" cy="295" rx="15" ry="11" fill="#2b2b2b"/>
    <path d="M300 310 Q290 350 300 360" stroke="#c68642" stroke-width="5" fill="none"/>
    <path d="M255 395 Q300 425 345 395" stroke="#a0522d" stroke-width="8" fill="none" stroke-linecap="round"/>
  </svg>`;
  await sharp(Buffer.from(svg)).png().toFile(file);
  return file;
}

interface Assets {
  portrait: string;
  voiceId: string;
  speech: SpeechEngine;
}

interface PipelineRun {
  wallSeconds: number;
  speechSeconds: number;
  compositionSeconds: number;
  result: CompositionResult;
}

/** The composition request of the rendered video: one scene per script, captions on the whole timeline. */
async function buildRequest(assets: Assets, workDir: string): Promise<CompositionRequest> {
  const scenes: CompositionScene[] = [];
  const captions: CaptionCue[] = [];
  let offsetMs = 0;
  for (const [index, text] of SCENE_SCRIPTS.entries()) {
    const speech = await assets.speech.synthesize({ text, voiceId: assets.voiceId });
    const narration = path.join(workDir, `scene-${index + 1}.wav`);
    await writeFile(narration, speech.audio);
    for (const cue of captionCuesFromWords(wordsWithPunctuation(text, speech.words))) {
      captions.push({ ...cue, startMs: cue.startMs + offsetMs, endMs: cue.endMs + offsetMs });
    }
    // A short breath between scenes; the last one lasts until the video's end.
    const last = index === SCENE_SCRIPTS.length - 1;
    const durationMs = Math.max(speech.durationMs + 400, last ? VIDEO_MS - offsetMs : 0);
    scenes.push({
      durationMs,
      background: { type: 'color', color: SCENE_COLORS[index % SCENE_COLORS.length] as string },
      avatar: { imagePath: assets.portrait, fit: 'contain' },
      narration: { path: narration, volume: 1 },
    });
    offsetMs += durationMs;
  }
  return { workDir, width: WIDTH, height: HEIGHT, format: 'mp4', scenes, captions, burnCaptions: false };
}

/** The product path: speech, then composition through the engine. */
async function renderViaEngine(assets: Assets, workDir: string): Promise<PipelineRun> {
  const engine = createFfmpegCompositionEngine();
  const started = performance.now();
  const request = await buildRequest(assets, workDir);
  const composing = performance.now();
  const result = await engine.compose(request);
  const ended = performance.now();
  return {
    wallSeconds: (ended - started) / 1000,
    speechSeconds: (composing - started) / 1000,
    compositionSeconds: (ended - composing) / 1000,
    result,
  };
}

/** Runs one ffmpeg invocation as it is, returning its wall time in seconds. */
function runBare(invocation: FfmpegInvocation): Promise<number> {
  const started = performance.now();
  return new Promise((resolve, reject) => {
    const child = spawn(invocation.command, invocation.args, {
      cwd: invocation.cwd,
      env: invocation.env,
      stdio: ['ignore', 'ignore', 'inherit'],
    });
    child.on('error', reject);
    child.on('close', (code) =>
      code === 0
        ? resolve((performance.now() - started) / 1000)
        : reject(new Error(`ffmpeg exited with ${code}`)),
    );
  });
}

const root = await mkdtemp(path.join(tmpdir(), 'bench-video-render-'));
const speech = createEspeakEngine();
try {
  const voices = await speech.voices();
  const voice =
    voices.find((entry) => entry.language === 'en-US') ??
    voices.find((entry) => entry.language.startsWith('en'));
  if (!voice) throw new Error('the eSpeak engine has no English voice');
  const assets: Assets = {
    portrait: await drawPortrait(path.join(root, 'portrait.png')),
    voiceId: voice.id,
    speech,
  };

  // The bare command: what the engine runs for the same composition, prepared (untimed) in its own folder.
  const bareDir = path.join(root, 'bare');
  await mkdir(bareDir);
  const bare = await createFfmpegCompositionEngine().prepare(await buildRequest(assets, bareDir));
  await runBare(bare); // warm-up: disk cache, eSpeak's worker is already warm from buildRequest

  const pipelineRuns: PipelineRun[] = [];
  const bareRuns: number[] = [];
  for (let round = 1; round <= rounds; round++) {
    const workDir = path.join(root, `pipeline-${round}`);
    await mkdir(workDir);
    pipelineRuns.push(await renderViaEngine(assets, workDir));
    bareRuns.push(await runBare(bare));
  }
  const best = pipelineRuns.reduce((top, run) => (run.wallSeconds < top.wallSeconds ? run : top));
  const bestBare = Math.min(...bareRuns);
  const videoSeconds = best.result.durationSeconds;
  console.log(
    `${videoSeconds.toFixed(1)} s ${WIDTH}x${HEIGHT} MP4, 3 scenes, presenter, narration, captions (clean + captioned), thumbnail, GIF; best of ${rounds} rounds after a warm-up`,
  );
  console.log(
    `  pipeline (speech + composition): ${best.wallSeconds.toFixed(2)} s wall (speech ${best.speechSeconds.toFixed(2)} s, composition ${best.compositionSeconds.toFixed(2)} s), ${(videoSeconds / best.wallSeconds).toFixed(2)}x realtime`,
  );
  console.log(`  bare ffmpeg (same command):      ${bestBare.toFixed(2)} s wall`);
  console.log(`  ratio pipeline/bare: ${(best.wallSeconds / bestBare).toFixed(2)}`);
  console.log(
    `  all rounds: pipeline ${pipelineRuns.map((run) => run.wallSeconds.toFixed(2)).join(', ')} s; bare ${bareRuns.map((seconds) => seconds.toFixed(2)).join(', ')} s`,
  );

  await benchThroughService(root, speech);
} finally {
  await speech.close();
  if (process.env.BENCH_KEEP === '1') console.log(`  files kept in ${root}`);
  else await rm(root, { recursive: true, force: true });
}

/** The 60 s video as a `POST /v3/videos` body, and the bare ffmpeg run of the same composition. */
async function benchThroughService(root: string, engine: SpeechEngine): Promise<void> {
  const stack = await startLocalStack({ stepFunctionsTimeScale: 0.001 });
  try {
    // Polled every 50 ms so the wall time is exact: more than the status class allows a minute on a
    // slow machine, so the bench's workspace polls without a limit.
    const unlimited = 1_000_000_000;
    await updateWorkspace(stack.workspaceId, {
      rate_limits: {
        read: unlimited,
        write: unlimited,
        heavy: unlimited,
        status: unlimited,
        status_ip: unlimited,
      },
    });
    const call = async <T>(method: string, url: string, body?: unknown): Promise<T> => {
      const response = await fetch(`${stack.baseUrl}${url}`, {
        method,
        headers: { 'X-Api-Key': stack.apiKey, ...(body ? { 'Content-Type': 'application/json' } : {}) },
        ...(body ? { body: JSON.stringify(body) } : {}),
      });
      if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
      return (await response.json()) as T;
    };
    const render = async () => {
      const started = performance.now();
      const created = await call<{ data: { video_id: string } }>('POST', '/v3/videos', {
        type: 'studio',
        resolution: '720p',
        caption: { file_format: 'srt' },
        scenes: SCENE_SCRIPTS.map((script, index) => ({
          type: 'avatar_video',
          input: {
            type: 'avatar',
            avatar_id: SERVICE_LOOK,
            voice_id: SERVICE_VOICE,
            script,
            background: { type: 'color', color: SCENE_COLORS[index] },
          },
        })),
      });
      for (;;) {
        const video = await call<{
          data: { status: string; duration: number; failure_message: string | null };
        }>('GET', `/v3/videos/${created.data.video_id}`);
        if (video.data.status === 'failed')
          throw new Error(`The video failed: ${video.data.failure_message}`);
        if (video.data.status === 'completed') {
          return { wallSeconds: (performance.now() - started) / 1000, videoSeconds: video.data.duration };
        }
        await new Promise((resolve) => setTimeout(resolve, 50));
      }
    };

    // The same composition, built as the compose step builds it (no pauses between scenes).
    const bareDir = path.join(root, 'service-bare');
    await mkdir(bareDir);
    const portrait = path.join(bareDir, 'portrait.png');
    const object = await s3Client().send(
      new GetObjectCommand({ Bucket: config().bucketName, Key: catalogKeys.portrait(SERVICE_LOOK) }),
    );
    await writeFile(
      portrait,
      await (object.Body as { transformToByteArray(): Promise<Uint8Array> }).transformToByteArray(),
    );
    const voiceId = findStockVoice(SERVICE_VOICE)?.engineVoices.espeak as string;
    const scenes: CompositionScene[] = [];
    const captions: CaptionCue[] = [];
    let offsetMs = 0;
    for (const [index, text] of SCENE_SCRIPTS.entries()) {
      const spoken = await engine.synthesize({ text, voiceId });
      const narration = path.join(bareDir, `scene-${index + 1}.wav`);
      await writeFile(narration, spoken.audio);
      for (const cue of captionCuesFromWords(wordsWithPunctuation(text, spoken.words))) {
        captions.push({ ...cue, startMs: cue.startMs + offsetMs, endMs: cue.endMs + offsetMs });
      }
      scenes.push({
        durationMs: spoken.durationMs,
        background: { type: 'color', color: SCENE_COLORS[index] as string },
        avatar: { imagePath: portrait, fit: 'contain' },
        narration: { path: narration, volume: 1 },
      });
      offsetMs += spoken.durationMs;
    }
    const bare = await createFfmpegCompositionEngine().prepare({
      workDir: bareDir,
      width: WIDTH,
      height: HEIGHT,
      format: 'mp4',
      scenes,
      captions,
      burnCaptions: false,
    });

    await render(); // warm-up: catalog, modules, the workflow's first run
    const serviceRuns: { wallSeconds: number; videoSeconds: number }[] = [];
    const bareRuns: number[] = [];
    for (let round = 1; round <= rounds; round++) {
      serviceRuns.push(await render());
      bareRuns.push(await runBare(bare));
    }
    const best = serviceRuns.reduce((top, run) => (run.wallSeconds < top.wallSeconds ? run : top));
    const bestBare = Math.min(...bareRuns);
    console.log(
      `\nthrough the service (local stack, POST /v3/videos → completed), best of ${rounds} rounds after a warm-up`,
    );
    console.log(
      `  service: ${best.videoSeconds.toFixed(1)} s video in ${best.wallSeconds.toFixed(2)} s wall, ${(best.videoSeconds / best.wallSeconds).toFixed(2)}x realtime`,
    );
    console.log(`  bare ffmpeg (same composition): ${bestBare.toFixed(2)} s wall`);
    console.log(`  ratio service/bare: ${(best.wallSeconds / bestBare).toFixed(2)}`);
    console.log(
      `  all rounds: service ${serviceRuns.map((run) => run.wallSeconds.toFixed(2)).join(', ')} s; bare ${bareRuns.map((seconds) => seconds.toFixed(2)).join(', ')} s`,
    );
  } finally {
    await stack.stop();
  }
}
