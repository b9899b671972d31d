/**
 * A 60 s avatar video translated into 3 languages, against rendering the same video from scratch, end to
 * end through the service: the local stack in memory with the real media engines (eSpeak NG speech,
 * ffmpeg composition, face landmarks for the lips over the footage); the one external engine, the
 * translation model, doubled by a local OpenAI-compatible server (`TRANSLATION_ENGINE=openai`).
 *
 * The double answers each segment with its words in reverse order: a deterministic pseudo-translation of
 * exactly the source's length (real Spanish, German or French runs some 10–30 % longer, so the speech of a
 * real translation would take a little longer), spoken by the target language's eSpeak voice. It answers
 * at once: the model's own latency is not in the figures.
 *
 * First `POST /v3/videos` (a stock look and voice, the three paragraphs of the render benchmarks as one
 * script, 720p), polled until completed: the "from scratch" figure. Then `POST /v3/video-translations` of
 * its `video_url` (captions as SRT/VTT files, not burned in, like the render: `BENCH_CAPTIONS=1` burns them,
 * one more 720p encode): into the first language alone
 * (`BENCH_ALONE=0` skips it), then into all 3 languages in one request (3 jobs, run concurrently). Each job
 * is polled every 250 ms: its wall time from the request to the poll that saw it completed, its own
 * running time (first seen running → completed), the `created_at`/`completed_at` span (whole seconds),
 * the ratio to the render, the realtime factor, its `engines`, and its steps' times from the progress
 * marks (5 running, 40 words translated, 60 spoken, 70 lips, 75 soundtrack, 100 stored). The CPU time of
 * this process and its ffmpeg/eSpeak children per phase shows how many of the cores the work kept busy.
 *
 *   npm run bench -- video-translation     (BENCH_LANGUAGES="Spanish (Spain),German (Germany)" to change them)
 */
import { readFileSync } from 'node:fs';
import { availableParallelism, loadavg } from 'node:os';
import { startLocalStack } from '../lib/local/local-stack.js';
import { startModelServer } from '../test/support/model-server.js';
import { benchWorkspace } from './support/bench-workspace.js';
import { SCENE_SCRIPTS } from './support/quarterly-update.js';

const LOOK = 'maya-office';
const VOICE = 'en-us-olivia';
const SCRIPT = SCENE_SCRIPTS.join(' ');
const LANGUAGES = (process.env.BENCH_LANGUAGES ?? 'Spanish (Spain),German (Germany),French (France)')
  .split(',')
  .map((name) => name.trim())
  .filter(Boolean);
const POLL_MS = 250;
const BURN_CAPTIONS = process.env.BENCH_CAPTIONS === '1';

/** The translation model's double: `POST /v1/chat/completions`, each segment's words reversed. */
async function startPseudoTranslator() {
  const requests = new Map<string, number>();
  const server = await startModelServer((request) => {
    const body = JSON.parse(request.body.toString('utf8')) as {
      messages: { role: string; content: string }[];
    };
    const system = body.messages.find((message) => message.role === 'system')?.content ?? '';
    const target = / to ([^.]+)\./.exec(system)?.[1] ?? '?';
    requests.set(target, (requests.get(target) ?? 0) + 1);
    const user = body.messages.find((message) => message.role === 'user')?.content ?? '{}';
    const { segments } = JSON.parse(user) as { segments: string[] };
    const content = JSON.stringify({
      segments: segments.map((segment) => segment.split(/\s+/).reverse().join(' ')),
    });
    return { json: { choices: [{ message: { role: 'assistant', content } }] } };
  });
  return { baseUrl: server.baseUrl, requests, close: () => server.close() };
}

interface Translation {
  id: string;
  status: string;
  output_language: string;
  input_language: string | null;
  progress: number;
  duration: number | null;
  failure_code: string | null;
  failure_message: string | null;
  engines: Record<string, string>;
  transcript_source: string | null;
  created_at: number;
  completed_at: number | null;
}

interface Watch {
  id: string;
  language: string;
  /** ms after the request, when each progress value was first seen. */
  marks: Map<number, number>;
  runningAt?: number;
  endedAt?: number;
  last?: Translation;
}

const seconds = (ms: number) => (ms / 1000).toFixed(1);
const load = () =>
  loadavg()
    .map((value) => value.toFixed(2))
    .join(' ');

const translator = await startPseudoTranslator();
const stack = await startLocalStack({
  port: 0,
  stepFunctionsTimeScale: 0.001,
  environment: {
    TRANSLATION_ENGINE: 'openai',
    TRANSLATION_BASE_URL: translator.baseUrl,
    MODEL_HOSTS_ALLOW_PRIVATE: 'true',
  },
});
const { apiKey } = await benchWorkspace({ name: 'Translation bench', included_credits: 1_000_000 });

async function call<T>(method: string, url: string, body?: unknown): Promise<T> {
  const response = await fetch(`${stack.baseUrl}${url}`, {
    method,
    headers: { 'X-Api-Key': apiKey, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  if (!response.ok) throw new Error(`${method} ${url}: ${response.status} ${await response.text()}`);
  return (await response.json()) as T;
}

/** The steps between the progress marks the Prepare and Dub steps set. */
const STEPS: [from: number, to: number, name: string][] = [
  [5, 40, 'prepare (cut, words, translation)'],
  [40, 60, 'speech'],
  [60, 70, 'lips'],
  [70, 75, 'soundtrack'],
  [75, 100, `mux${BURN_CAPTIONS ? ', captions burned' : ''}, mp3, stored`],
];

/** CPU seconds of this process and of its children waited for (ffmpeg, eSpeak), from /proc (Linux). */
function cpuSeconds(): number {
  try {
    const fields = readFileSync('/proc/self/stat', 'utf8').split(') ')[1]?.split(' ') ?? [];
    // utime, stime, cutime, cstime: fields 14–17, here 11–14 after the command name; clock ticks of 10 ms.
    return fields.slice(11, 15).reduce((sum, value) => sum + Number(value), 0) / 100;
  } catch {
    return Number.NaN;
  }
}

/** One `POST /v3/video-translations` of `videoUrl` into `languages`, polled to the end; prints its figures. */
async function translate(videoUrl: string, languages: string[], renderMs: number): Promise<void> {
  const cpuBefore = cpuSeconds();
  const started = performance.now();
  const translations = await call<{ data: { video_translation_ids: string[] } }>(
    'POST',
    '/v3/video-translations',
    {
      video: { type: 'url', url: videoUrl },
      output_languages: languages,
      title: 'Quarterly update, translated',
      enable_caption: BURN_CAPTIONS,
    },
  );
  const acceptedMs = performance.now() - started;
  const watches: Watch[] = translations.data.video_translation_ids.map((id, index) => ({
    id,
    language: languages[index] as string,
    marks: new Map(),
  }));
  let peakLoad = 0;
  await Promise.all(
    watches.map(async (watch) => {
      for (;;) {
        const current = (await call<{ data: Translation }>('GET', `/v3/video-translations/${watch.id}`)).data;
        const at = performance.now() - started;
        peakLoad = Math.max(peakLoad, loadavg()[0] ?? 0);
        watch.last = current;
        watch.language = current.output_language;
        if (!watch.marks.has(current.progress)) watch.marks.set(current.progress, at);
        if (current.status === 'running' && watch.runningAt === undefined) watch.runningAt = at;
        if (current.status === 'completed' || current.status === 'failed') {
          watch.endedAt = at;
          return;
        }
        await new Promise((resolve) => setTimeout(resolve, POLL_MS));
      }
    }),
  );
  const totalMs = Math.max(...watches.map((watch) => watch.endedAt ?? 0));
  const cpu = cpuSeconds() - cpuBefore;

  console.log(
    `\ntranslated into ${watches.length === 1 ? '1 language alone' : `${watches.length} languages concurrently`} (POST /v3/video-translations accepted in ${seconds(acceptedMs)} s; polled every ${POLL_MS} ms)`,
  );
  for (const watch of watches) {
    const last = watch.last as Translation;
    const wallMs = watch.endedAt ?? 0;
    if (last.status !== 'completed') {
      console.log(
        `  ${watch.language.padEnd(18)} FAILED after ${seconds(wallMs)} s at progress ${last.progress}: ${last.failure_code}: ${last.failure_message}`,
      );
      continue;
    }
    const ownMs = wallMs - (watch.runningAt ?? 0);
    const stamped = last.completed_at !== null ? last.completed_at - last.created_at : Number.NaN;
    console.log(
      `  ${watch.language.padEnd(18)} ${seconds(wallMs)} s wall (request → completed), ${(wallMs / renderMs).toFixed(2)}x the render, ${((last.duration ?? 0) / (wallMs / 1000)).toFixed(2)}x realtime; running ${seconds(ownMs)} s; created_at→completed_at ${stamped} s; ${(last.duration ?? 0).toFixed(1)} s out`,
    );
    const steps = STEPS.map(([from, to, name]) => {
      const start = watch.marks.get(from) ?? (from === 5 ? watch.runningAt : undefined);
      const end = watch.marks.get(to) ?? (to === 100 ? watch.endedAt : undefined);
      return `${name} ${start !== undefined && end !== undefined ? seconds(end - start) : '?'} s`;
    });
    console.log(`    steps (from the progress marks, ±${POLL_MS} ms): ${steps.join('; ')}`);
    console.log(
      `    engines: ${Object.entries(last.engines)
        .map(([role, name]) => `${role}=${name}`)
        .join(', ')}; transcript ${last.transcript_source}; ${last.input_language} → ${last.output_language}`,
    );
  }
  const completed = watches.filter((watch) => watch.last?.status === 'completed');
  const outSeconds = completed.reduce((sum, watch) => sum + (watch.last?.duration ?? 0), 0);
  console.log(
    `  all ${watches.length}: ${seconds(totalMs)} s wall, ${(totalMs / renderMs).toFixed(2)}x one render (${(totalMs / watches.length / renderMs).toFixed(2)}x per language), ${(outSeconds / (totalMs / 1000)).toFixed(2)}x realtime over the ${completed.length} output(s) (${outSeconds.toFixed(1)} s of video); CPU ${cpu.toFixed(1)} s (${(cpu / (totalMs / 1000)).toFixed(2)} cores); load average peak ${peakLoad.toFixed(2)}, at the end ${load()}`,
  );
}

try {
  console.log(`${availableParallelism()} cores, load average at the start ${load()}`);
  const listed = await call<{ data: { languages: string[] } }>('GET', '/v3/video-translations/languages');
  const missing = LANGUAGES.filter((name) => !listed.data.languages.includes(name));
  if (missing.length)
    throw new Error(`not offered: ${missing.join(', ')} (of ${listed.data.languages.join(', ')})`);

  // From scratch: speech, presenter, captions, composition, stored.
  const cpuBeforeRender = cpuSeconds();
  const renderStarted = performance.now();
  const created = await call<{ data: { video_id: string } }>('POST', '/v3/videos', {
    type: 'avatar',
    avatar_id: LOOK,
    voice_id: VOICE,
    script: SCRIPT,
    resolution: '720p',
    title: 'Quarterly update',
  });
  let video: { status: string; duration: number; video_url: string; failure_message?: string | null };
  for (;;) {
    video = (await call<{ data: typeof video }>('GET', `/v3/videos/${created.data.video_id}`)).data;
    if (video.status === 'completed') break;
    if (video.status === 'failed') throw new Error(`the source video failed: ${video.failure_message}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  const renderMs = performance.now() - renderStarted;
  console.log(
    `from scratch: POST /v3/videos (${LOOK}, ${VOICE}, ${SCRIPT.length} characters, 720p) → completed in ${seconds(renderMs)} s for ${video.duration.toFixed(1)} s of video: ${(video.duration / (renderMs / 1000)).toFixed(2)}x realtime (load ${load()})`,
  );

  const cpuAtRender = cpuSeconds() - cpuBeforeRender;
  console.log(
    `  CPU of this process and its ffmpeg/eSpeak children: ${cpuAtRender.toFixed(1)} s (${(cpuAtRender / (renderMs / 1000)).toFixed(2)} cores)`,
  );
  if (process.env.BENCH_ALONE !== '0') await translate(video.video_url, LANGUAGES.slice(0, 1), renderMs);
  await translate(video.video_url, LANGUAGES, renderMs);
  console.log(
    `\ntranslation model calls per target: ${[...translator.requests.entries()].map(([tag, count]) => `${tag} ${count}`).join(', ')}`,
  );
} finally {
  await stack.stop();
  await translator.close();
}
