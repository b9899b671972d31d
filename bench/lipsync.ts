/**
 * `POST /v3/lipsyncs` end to end through the service, and its realtime factor: processing seconds ÷
 * video seconds. The local stack in memory with the real media engines (ffmpeg, the face model for the
 * lips, the audio's loudness for the mouth shapes: `speed` mode; no speech recognition). The video is a
 * stock look as a talking clip (test/unit/engines/vision/talking-clip.ts: the recorded mouth opening and
 * shutting, a gentle sway) over a hum, `BENCH_SECONDS` long (default 10) at 480×270 and 25 fps, plus the
 * same at 960×540 (`BENCH_SIZES=480x270,960x540`); the new audio is eSpeak NG reading a paragraph, cut or
 * padded to the video's length by the service.
 *
 * Each lipsync runs alone, polled every 250 ms: the wall time from the request to the poll that saw it
 * completed, its own running time (first seen running → completed), the realtime factor of each, and
 * its steps from the progress marks (5 running, 20 audio fitted, 35 mouth shapes, 75 lips, 85
 * soundtrack, 100 muxed and stored). `BENCH_KEEP=<dir>` keeps the source and output videos there.
 *
 *   npm run bench -- lipsync
 */
import { copyFile, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { availableParallelism, tmpdir } from 'node:os';
import { join } from 'node:path';
import { createEspeakEngine } from '../lambdas/engines/speech/espeak-engine.js';
import { startLocalStack } from '../lib/local/local-stack.js';
import { ffmpeg } from '../test/unit/engines/composition/media-fixtures.js';
import { talkingClipMaker } from '../test/unit/engines/vision/talking-clip.js';
import { benchWorkspace } from './support/bench-workspace.js';

const SECONDS = Number(process.env.BENCH_SECONDS ?? 10);
const SIZES = (process.env.BENCH_SIZES ?? '480x270,960x540').split(',').map((size) => size.trim());
const KEEP = process.env.BENCH_KEEP;
const POLL_MS = 250;
const TEXT =
  'Welcome back to the studio. Today we look at how the new robot arm picks up parts from the belt, ' +
  'how it learns where each one lies, and why it sometimes stops to think before it moves again.';

interface Lipsync {
  status: string;
  progress: number;
  duration: number | null;
  video_url: string | null;
  failure_code: string | null;
  failure_message: string | null;
  engines: Record<string, string>;
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);
const scratch = await mkdtemp(join(tmpdir(), 'lipsync-bench-'));
const stack = await startLocalStack({ port: 0, stepFunctionsTimeScale: 0.001 });
const { apiKey } = await benchWorkspace({ name: 'Lipsync bench', included_credits: 1_000_000 });

async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
  const response = await fetch(`${stack.baseUrl}${url}`, {
    method,
    headers: { 'X-Api-Key': apiKey, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

const STEPS: [from: number, to: number, name: string][] = [
  [5, 20, 'probe, audio fitted'],
  [20, 35, 'mouth shapes'],
  [35, 75, 'lips'],
  [75, 85, 'soundtrack'],
  [85, 100, 'mux, mp3, stored'],
];

try {
  const engine = createEspeakEngine();
  const speech = await engine.synthesize({ text: TEXT, voiceId: 'espeak-en-us-m2' });
  await engine.close();
  const speechPath = join(scratch, 'speech.wav');
  await writeFile(speechPath, speech.audio);
  const clipOf = await talkingClipMaker(scratch);
  console.log(
    `${availableParallelism()} cores; new audio: eSpeak NG, ${seconds(speech.durationMs)} s (fitted to each video); mode speed`,
  );
  for (const size of SIZES) {
    const silent = await clipOf(join(scratch, `talking-${size}-silent.mp4`), {
      seconds: SECONDS,
      shakeUntil: 0,
      sway: 6,
    });
    const source = join(scratch, `talking-${size}.mp4`);
    await ffmpeg([
      ...['-i', silent, '-f', 'lavfi', '-i', `sine=frequency=220:sample_rate=48000:duration=${SECONDS}`],
      ...['-map', '0:v', '-map', '1:a', '-vf', `scale=${size.replace('x', ':')}`],
      ...['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', '-c:a', 'aac', '-shortest', source],
    ]);
    const started = performance.now();
    const created = await call<{ data: { lipsync_id: string } }>('POST', '/v3/lipsyncs', {
      video: { type: 'base64', media_type: 'video/mp4', data: (await readFile(source)).toString('base64') },
      audio: {
        type: 'base64',
        media_type: 'audio/wav',
        data: (await readFile(speechPath)).toString('base64'),
      },
      title: `Bench ${size}`,
      enable_dynamic_duration: false,
    });
    const acceptedMs = performance.now() - started;
    const marks = new Map<number, number>();
    let runningAt: number | undefined;
    let last: Lipsync;
    for (;;) {
      last = (await call<{ data: Lipsync }>('GET', `/v3/lipsyncs/${created.data.lipsync_id}`)).data;
      const at = performance.now() - started;
      if (!marks.has(last.progress)) marks.set(last.progress, at);
      if (last.status === 'running' && runningAt === undefined) runningAt = at;
      if (last.status === 'completed' || last.status === 'failed') break;
      await new Promise((resolve) => setTimeout(resolve, POLL_MS));
    }
    const wallMs = performance.now() - started;
    if (last.status !== 'completed') {
      console.log(`  ${size}: FAILED ${last.failure_code}: ${last.failure_message}`);
      continue;
    }
    const ownMs = wallMs - (runningAt ?? 0);
    const duration = last.duration ?? SECONDS;
    console.log(
      `  ${size}, ${duration.toFixed(1)} s: ${seconds(wallMs)} s wall (request → completed; accepted in ${seconds(acceptedMs)} s), realtime factor ${(wallMs / 1000 / duration).toFixed(2)} (processing s ÷ video s); running ${seconds(ownMs)} s, ${(ownMs / 1000 / duration).toFixed(2)}`,
    );
    const steps = STEPS.map(([from, to, name]) => {
      const start = marks.get(from) ?? (from === 5 ? runningAt : undefined);
      const end = marks.get(to) ?? (to === 100 ? wallMs : undefined);
      return `${name} ${start !== undefined && end !== undefined ? seconds(end - start) : '?'} s`;
    });
    console.log(`    steps (from the progress marks, ±${POLL_MS} ms): ${steps.join('; ')}`);
    console.log(`    engines: ${JSON.stringify(last.engines)}`);
    if (KEEP && last.video_url) {
      const output = await fetch(last.video_url);
      await writeFile(join(KEEP, `lipsync-${size}.mp4`), Buffer.from(await output.arrayBuffer()));
      await copyFile(source, join(KEEP, `source-${size}.mp4`));
    }
  }
} finally {
  // The step publishes its event just after the record reads completed: let it finish.
  await new Promise((resolve) => setTimeout(resolve, 1000));
  await stack.stop();
  await rm(scratch, { recursive: true, force: true });
}
