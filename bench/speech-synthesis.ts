/**
 * Text to speech of a 1,000-character text: how much faster than realtime it is spoken, and how soon
 * the first streamed audio arrives.
 *
 * 1. Engine: the text-to-speech pipeline alone (eSpeak NG in its worker, sentence units, resampling
 *    to 44.1 kHz), as `speak()` runs it: time to the first chunk and to the last.
 * 2. Service: the local stack in memory with an instant voice trained from an eSpeak recording;
 *    `POST /v3/models/audio/tts` (speech, WAV stored, URL presigned) and
 *    `POST /v3/models/audio/tts/stream` with each model (time to the first audio byte, and to the end).
 *
 * Realtime factor = seconds of audio / seconds of wall time. Rounds after a warm-up; the median counts.
 *
 *   npm run bench -- speech-synthesis     (BENCH_ROUNDS to tune)
 */
import { createEspeakEngine } from '../lambdas/engines/speech/espeak-engine.js';
import { speak } from '../lambdas/model-audio/text-to-speech.js';
import { planTtsRequest, ttsBody } from '../lambdas/model-audio/tts-request.js';
import { startLocalStack } from '../lib/local/local-stack.js';

const rounds = Number(process.env.BENCH_ROUNDS ?? '5');

const TEXT = [
  'Welcome to the quarterly update from the product team.',
  'This quarter we shipped three major features and fixed more than two hundred bugs, large and small.',
  'Customers told us that onboarding felt slow, so we rebuilt it from the ground up.',
  'The new flow takes less than two minutes, and early numbers show many more completed sign ups.',
  'Next, reliability: we moved our databases to a new cluster, added automatic failover, and halved the average response time.',
  'We also started a public status page, so you always know what is going on.',
  'Looking ahead, we will focus on performance, accessibility, and better tools for teams.',
  'Expect faster pages, full keyboard navigation, and shared workspaces with roles and permissions.',
  'Our support team answered questions in under an hour on average, and we opened two new offices.',
  'Finally, a big thank you to every customer who sent us feedback: many of these changes started with you.',
  'Thank you for watching, and see you next quarter, when we will share even more good news with all of you.',
]
  .join(' ')
  .slice(0, 999)
  .concat('.');

const median = (values: number[]) => {
  const sorted = [...values].sort((a, b) => a - b);
  return sorted[Math.floor(sorted.length / 2)] ?? 0;
};
const ms = (seconds: number) => `${Math.round(seconds * 1000)} ms`;

interface Run {
  firstSeconds: number;
  totalSeconds: number;
  audioSeconds: number;
}

function report(label: string, runs: Run[], streamed = true): void {
  const first = median(runs.map((run) => run.firstSeconds));
  const total = median(runs.map((run) => run.totalSeconds));
  const audio = median(runs.map((run) => run.audioSeconds));
  console.log(
    `  ${label.padEnd(38)} ${audio.toFixed(1)} s of audio in ${total.toFixed(2)} s: ${(audio / total).toFixed(0)}x realtime; ${
      streamed ? `first audio after ${ms(first)}` : 'the URL after all of it'
    }`,
  );
}

async function engineRuns(): Promise<Run[]> {
  const engine = createEspeakEngine();
  const plan = planTtsRequest(ttsBody.parse({ voice_id: 'bench', text: TEXT }), 'instant');
  const settings = { engineVoiceId: 'espeak-en-us-m1', speed: 1, pitch: 0, intonation: 1, language: 'en' };
  const runs: Run[] = [];
  for (let round = 0; round <= rounds; round++) {
    const started = performance.now();
    let first = 0;
    let samples = 0;
    for await (const chunk of speak(engine, plan, settings)) {
      if (first === 0) first = performance.now();
      samples += chunk.samples.length;
    }
    const run = {
      firstSeconds: (first - started) / 1000,
      totalSeconds: (performance.now() - started) / 1000,
      audioSeconds: samples / 44_100,
    };
    if (round > 0) runs.push(run); // round 0 warms the worker up
  }
  await engine.close();
  return runs;
}

async function serviceRuns(): Promise<void> {
  const stack = await startLocalStack({ stepFunctionsTimeScale: 0.001 });
  try {
    const headers = { 'X-Api-Key': stack.apiKey, 'Content-Type': 'application/json' };
    const call = (path: string, body: unknown) =>
      fetch(`${stack.baseUrl}${path}`, { method: 'POST', headers, body: JSON.stringify(body) });
    const recorder = createEspeakEngine();
    const recording = await recorder.synthesize({
      text: 'This is a short recording of my voice, read slowly and clearly for the benchmark.',
      voiceId: 'espeak-en-us-m1',
    });
    await recorder.close();
    const created = (await (
      await call('/v3/models/audio/voices', {
        mode: 'instant',
        name: 'Bench',
        audio: [
          { type: 'base64', media_type: 'audio/wav', data: Buffer.from(recording.audio).toString('base64') },
        ],
      })
    ).json()) as { data: { voice_id: string } };
    const voiceId = created.data.voice_id;
    for (;;) {
      const voice = (await (
        await fetch(`${stack.baseUrl}/v3/models/audio/voices/${voiceId}`, { headers })
      ).json()) as { data: { status: string } };
      if (voice.data.status === 'ACTIVE') break;
      if (voice.data.status === 'FAILED') throw new Error('the benchmark voice failed');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }

    const whole: Run[] = [];
    for (let round = 0; round <= rounds; round++) {
      const started = performance.now();
      const response = await call('/v3/models/audio/tts', { voice_id: voiceId, text: TEXT });
      const body = (await response.json()) as { data: { duration: number } };
      const seconds = (performance.now() - started) / 1000;
      if (round > 0)
        whole.push({ firstSeconds: seconds, totalSeconds: seconds, audioSeconds: body.data.duration });
    }
    report('service POST /tts (whole file)', whole, false);

    for (const model of ['service-voice-1', 'service-voice-1-turbo']) {
      const streamed: Run[] = [];
      for (let round = 0; round <= rounds; round++) {
        const started = performance.now();
        const response = await call('/v3/models/audio/tts/stream', { voice_id: voiceId, text: TEXT, model });
        const reader = (response.body as ReadableStream<Uint8Array>).getReader();
        let first = 0;
        let bytes = 0;
        for (;;) {
          const { value, done } = await reader.read();
          if (done) break;
          if (first === 0) first = performance.now();
          bytes += value.length;
        }
        const run = {
          firstSeconds: (first - started) / 1000,
          totalSeconds: (performance.now() - started) / 1000,
          audioSeconds: (bytes - 44) / 2 / 44_100,
        };
        if (round > 0) streamed.push(run);
      }
      report(`service POST /tts/stream (${model === 'service-voice-1' ? 'standard' : 'turbo'})`, streamed);
    }
  } finally {
    await stack.stop();
  }
}

console.log(`  text: ${TEXT.length} characters; ${rounds} rounds after a warm-up, medians`);
report('engine pipeline (eSpeak, speak())', await engineRuns());
await serviceRuns();
