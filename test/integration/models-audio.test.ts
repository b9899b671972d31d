/**
 * Audio voices and text to speech of the Models API over HTTP, on the whole local stack: instant and
 * professional voices trained from real speech (recordings spoken by eSpeak), failures with their
 * reasons, retraining, deletion, the voice-dependent option rules, the stored WAV file (probed with
 * ffprobe, its length against the word timings) and the chunked stream, including proof that the
 * first audio arrives while later sentences are still being spoken.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { getItem } from '../../lambdas/core/repository.js';
import { probeMedia } from '../../lambdas/engines/composition/index.js';
import { createEspeakEngine } from '../../lambdas/engines/speech/espeak-engine.js';
import { type SpeechEngine, speechEngine } from '../../lambdas/engines/speech/index.js';
import { decodeWavPcm16, encodeWavPcm16 } from '../../lambdas/engines/speech/wav.js';
import { headMediaObject } from '../../lambdas/media/media-store.js';
import { type ModelVoiceTombstone, modelVoiceTombstoneKey } from '../../lambdas/model-audio/model-voices.js';
import { eventCapture } from '../support/event-capture.js';
import { png } from '../support/sample-media.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

interface Voice {
  voice_id: string;
  mode: string;
  name: string;
  language?: string;
  status: string;
  created_at: number;
  failure_reason?: string;
  failure_message?: string;
}
interface List<T> {
  data: T[];
  has_more: boolean;
  next_token: string | null;
}
interface Speech {
  audio_url: string;
  duration: number;
  word_timestamps: { word: string; start: number; end: number }[];
}

const capture = eventCapture();
const events = capture.events;

let api: TestStack;
let enterprise: { workspaceId: string; apiKey: string };
let workDir: string;
let speaker: SpeechEngine;
/** Recordings: eSpeak reading sentences, as a speaker would into a microphone. */
let shortRecording: string;
let longRecordings: string[];
let instantVoice: Voice;
let professionalVoice: Voice;

const SENTENCES = [
  'The quick brown fox jumps over the lazy dog while the sun sets slowly behind the hills.',
  'Every morning I walk to the small bakery on the corner and buy fresh bread for breakfast.',
  'Our new product helps teams plan their work, share their ideas and ship great results faster.',
  'When the rain stopped, the children ran outside to play in the puddles and chase the ducks.',
  'Please remember to save your changes before you close the window, or they will be lost.',
];

async function recording(text: string, voiceId = 'espeak-en-us-m1'): Promise<string> {
  const result = await speaker.synthesize({ text, voiceId });
  return Buffer.from(result.audio).toString('base64');
}

const base64Audio = (data: string, mediaType = 'audio/wav') => ({
  type: 'base64',
  media_type: mediaType,
  data,
});

async function waitForVoice(id: string, key = api.apiKey): Promise<Voice> {
  for (let attempt = 0; attempt < 600; attempt++) {
    const result = await api.call<{ data: Voice }>('GET', `/v3/models/audio/voices/${id}`, { key });
    expect(result.status).toBe(200);
    if (result.body.data.status !== 'PENDING') return result.body.data;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error(`voice ${id} stayed PENDING`);
}

async function createVoice(body: Record<string, unknown>, key = api.apiKey) {
  return api.call<{ data: Voice }>('POST', '/v3/models/audio/voices', { body, key });
}

async function download(url: string, name: string): Promise<{ path: string; bytes: Buffer }> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  const bytes = Buffer.from(await response.arrayBuffer());
  const path = join(workDir, name);
  await writeFile(path, bytes);
  return { path, bytes };
}

beforeAll(async () => {
  api = await startTestStack({
    // The subject is the speech and the voices trained from real recordings: the real engines.
    engines: 'reference',
    stepFunctionsTimeScale: 0.001,
    ...capture.stackOptions,
  });
  await capture.subscribe(api);
  enterprise = await api.newWorkspace({ plan: 'enterprise' });
  workDir = await mkdtemp(join(tmpdir(), 'models-audio-'));
  speaker = createEspeakEngine();
  shortRecording = await recording(SENTENCES.slice(0, 2).join(' '));
  // Two recordings of about 20 s each: together past the 30 s a professional voice needs.
  longRecordings = await Promise.all([
    recording([...SENTENCES, SENTENCES[0]].join(' ')),
    recording([...SENTENCES].reverse().join(' ')),
  ]);
  const instant = await createVoice({
    mode: 'instant',
    name: 'Narrator',
    audio: [base64Audio(shortRecording)],
    language: 'en-US',
  });
  expect(instant.status, JSON.stringify(instant.body)).toBe(202);
  const professional = await createVoice(
    { mode: 'professional', name: 'Studio', audio: longRecordings.map((data) => base64Audio(data)) },
    enterprise.apiKey,
  );
  expect(professional.status, JSON.stringify(professional.body)).toBe(202);
  [instantVoice, professionalVoice] = await Promise.all([
    waitForVoice(instant.body.data.voice_id),
    waitForVoice(professional.body.data.voice_id, enterprise.apiKey),
  ]);
});
afterAll(async () => {
  await speaker?.close();
  await api?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});
afterEach(() => {
  vi.restoreAllMocks();
});

describe('POST /v3/models/audio/voices', () => {
  it('makes an instant voice ACTIVE from one recording', () => {
    expect(instantVoice).toEqual({
      voice_id: expect.stringMatching(/^[0-9a-f]{32}$/),
      mode: 'instant',
      name: 'Narrator',
      language: 'en',
      status: 'ACTIVE',
      created_at: expect.any(Number),
    });
    expect(Number.isInteger(instantVoice.created_at)).toBe(true);
  });

  it('answers 202 with the voice PENDING', async () => {
    const result = await createVoice({
      mode: 'instant',
      name: 'Quick',
      audio: [base64Audio(shortRecording)],
    });
    expect(result.status).toBe(202);
    expect(result.body.data).toEqual({
      voice_id: expect.any(String),
      mode: 'instant',
      name: 'Quick',
      status: 'PENDING',
      created_at: expect.any(Number),
    });
    const done = await waitForVoice(result.body.data.voice_id);
    // Without a language the voice speaks English (nothing here recognises a recording's language).
    expect(done).toMatchObject({ status: 'ACTIVE', language: 'en' });
  });

  it('announces each ending on the event bus', async () => {
    const detailOf = (type: string, voiceId: string) =>
      events
        .map(
          (event) =>
            event.detail as { event_type: string; entity_id: string; event_data: Record<string, unknown> },
        )
        .find((detail) => detail.event_type === type && detail.entity_id === voiceId);
    expect(detailOf('audio_voice.success', instantVoice.voice_id)?.event_data).toEqual(instantVoice);
    const silence = encodeWavPcm16(new Int16Array(22_050 * 2), 22_050);
    const created = await createVoice({
      mode: 'instant',
      name: 'Quiet',
      audio: [base64Audio(Buffer.from(silence).toString('base64'))],
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const failed = await waitForVoice(created.body.data.voice_id);
    for (let attempt = 0; attempt < 100 && !detailOf('audio_voice.fail', failed.voice_id); attempt++) {
      await new Promise((resolve) => setTimeout(resolve, 20));
    }
    expect(detailOf('audio_voice.fail', failed.voice_id)?.event_data).toMatchObject({
      voice_id: failed.voice_id,
      status: 'FAILED',
      failure_reason: 'INVALID_AUDIO',
    });
  });

  it('trains a professional voice from several recordings of one speaker', () => {
    expect(professionalVoice).toMatchObject({
      mode: 'professional',
      name: 'Studio',
      status: 'ACTIVE',
      language: 'en',
    });
  });

  it.each([
    [{ name: 'x', audio: [] }, 'mode'],
    [{ mode: 'studio', name: 'x', audio: [] }, 'mode'],
    [{ mode: 'instant', audio: [{ type: 'url', url: 'https://example.com/a.wav' }] }, 'name'],
    [{ mode: 'instant', name: 'x', audio: [] }, 'audio'],
    [
      {
        mode: 'instant',
        name: 'x',
        audio: [
          { type: 'asset_id', asset_id: 'a' },
          { type: 'asset_id', asset_id: 'b' },
        ],
      },
      'audio',
    ],
    [{ mode: 'instant', name: 'x', audio: [{ type: 'ftp', url: 'x' }] }, 'audio[0].type'],
    [
      {
        mode: 'instant',
        name: 'x',
        audio: [{ type: 'base64', media_type: 'audio/wav', data: 'not base64!' }],
      },
      'audio[0].data',
    ],
    [
      { mode: 'instant', name: 'x', audio: [{ type: 'asset_id', asset_id: '0'.repeat(32) }] },
      'audio[0].asset_id',
    ],
    [{ mode: 'instant', name: 'x', audio: [{ type: 'url', url: 'http://127.0.0.1/a.wav' }] }, 'audio[0].url'],
    [
      { mode: 'instant', name: 'x', similarity: 'perfect', audio: [{ type: 'asset_id', asset_id: 'a' }] },
      'similarity',
    ],
    [{ mode: 'instant', name: 'x', gender: 'other', audio: [{ type: 'asset_id', asset_id: 'a' }] }, 'gender'],
    [
      {
        mode: 'instant',
        name: 'x',
        language: 'Klingon language',
        audio: [{ type: 'asset_id', asset_id: 'a' }],
      },
      'language',
    ],
    [{ mode: 'instant', name: 'x', extra: 1, audio: [{ type: 'asset_id', asset_id: 'a' }] }, 'extra'],
  ])('refuses %j with 400 naming %s', async (body, param) => {
    const result = await createVoice(body);
    expect(result.status, JSON.stringify(result.body)).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
  });

  it('refuses a language the speech engine does not speak, and a file that is not audio', async () => {
    const language = await createVoice({
      mode: 'instant',
      name: 'x',
      language: 'tlh',
      audio: [base64Audio(shortRecording)],
    });
    expect(language.status).toBe(400);
    expect(errorOf(language)).toMatchObject({ param: 'language' });
    const image = await createVoice({
      mode: 'instant',
      name: 'x',
      audio: [base64Audio(png().toString('base64'), 'image/png')],
    });
    expect(image.status).toBe(400);
    expect(errorOf(image)).toMatchObject({ param: 'audio[0].data' });
    expect(errorOf(image).message).toMatch(/audio/);
  });

  it('answers 403 forbidden to professional creates where professional cloning is not enabled', async () => {
    const result = await createVoice({ mode: 'professional', audio: [base64Audio(shortRecording)] });
    expect(result.status).toBe(403);
    expect(errorOf(result)).toMatchObject({ code: 'forbidden', param: 'mode' });
    expect(errorOf(result).message).toMatch(/enterprise/);
  });

  it('fails a voice whose recording holds no speech with INVALID_AUDIO and a message', async () => {
    const silence = encodeWavPcm16(new Int16Array(22_050 * 3), 22_050);
    const result = await createVoice({
      mode: 'instant',
      name: 'Silent',
      audio: [base64Audio(Buffer.from(silence).toString('base64'))],
    });
    expect(result.status).toBe(202);
    const failed = await waitForVoice(result.body.data.voice_id);
    expect(failed).toMatchObject({ status: 'FAILED', failure_reason: 'INVALID_AUDIO' });
    expect(failed.failure_message).toMatch(/recording/i);
  });

  it('fails a professional voice with too little speech with INSUFFICIENT_AUDIO', async () => {
    const result = await createVoice(
      { mode: 'professional', name: 'Short', audio: [base64Audio(shortRecording)] },
      enterprise.apiKey,
    );
    expect(result.status).toBe(202);
    const failed = await waitForVoice(result.body.data.voice_id, enterprise.apiKey);
    expect(failed).toMatchObject({ status: 'FAILED', failure_reason: 'INSUFFICIENT_AUDIO' });
    expect(failed.failure_message).toMatch(/at least 30 s/);
  });

  it('fails a professional voice whose recordings are of different speakers', async () => {
    const female = await recording(SENTENCES.join(' '), 'espeak-en-us-f3');
    const result = await createVoice(
      {
        mode: 'professional',
        name: 'Two people',
        audio: [base64Audio(longRecordings[0] ?? ''), base64Audio(female)],
      },
      enterprise.apiKey,
    );
    const failed = await waitForVoice(result.body.data.voice_id, enterprise.apiKey);
    expect(failed).toMatchObject({ status: 'FAILED', failure_reason: 'INVALID_AUDIO' });
    expect(failed.failure_message).toMatch(/same speaker/);
  });

  it('retrains a professional voice with voice_id, keeping its name, and refuses the wrong ones', async () => {
    const retrain = await createVoice(
      {
        mode: 'professional',
        voice_id: professionalVoice.voice_id,
        name: 'Ignored',
        audio: longRecordings.map((data) => base64Audio(data)),
      },
      enterprise.apiKey,
    );
    expect(retrain.status).toBe(202);
    expect(retrain.body.data).toMatchObject({
      voice_id: professionalVoice.voice_id,
      name: 'Studio',
      status: 'PENDING',
    });
    // Training: another retrain, or a delete, must wait.
    const again = await createVoice(
      { mode: 'professional', voice_id: professionalVoice.voice_id, audio: [base64Audio(shortRecording)] },
      enterprise.apiKey,
    );
    const deleting = await api.call('DELETE', `/v3/models/audio/voices/${professionalVoice.voice_id}`, {
      key: enterprise.apiKey,
    });
    const retrained = await waitForVoice(professionalVoice.voice_id, enterprise.apiKey);
    expect(retrained).toMatchObject({
      status: 'ACTIVE',
      name: 'Studio',
      created_at: professionalVoice.created_at,
    });
    // The second call ran while the first training was PENDING (or, on a very fast machine, after it).
    if (again.status !== 202) {
      expect(again.status).toBe(409);
      expect(errorOf(again)).toMatchObject({ code: 'resource_not_ready', param: 'voice_id' });
    } else {
      await waitForVoice(professionalVoice.voice_id, enterprise.apiKey);
    }
    if (deleting.status !== 200) expect(errorOf(deleting)).toMatchObject({ code: 'resource_not_ready' });

    const instant = await createVoice(
      { mode: 'professional', voice_id: instantVoice.voice_id, audio: [base64Audio(shortRecording)] },
      // The instant voice belongs to the primary workspace: from the enterprise one it does not exist.
      enterprise.apiKey,
    );
    expect(instant.status).toBe(404);
    expect(errorOf(instant)).toMatchObject({ code: 'voice_not_found', param: 'voice_id' });
  });

  it('refuses to retrain an instant voice', async () => {
    const own = await createVoice(
      { mode: 'instant', name: 'Mine', audio: [base64Audio(shortRecording)] },
      enterprise.apiKey,
    );
    await waitForVoice(own.body.data.voice_id, enterprise.apiKey);
    const result = await createVoice(
      { mode: 'professional', voice_id: own.body.data.voice_id, audio: [base64Audio(shortRecording)] },
      enterprise.apiKey,
    );
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param: 'voice_id' });
  });
});

describe('GET /v3/models/audio/voices and /{voice_id}', () => {
  it('lists the workspace voices newest first, paged', async () => {
    const all = await api.call<List<Voice>>('GET', '/v3/models/audio/voices?limit=100');
    expect(all.status).toBe(200);
    const ids = all.body.data.map((voice) => voice.voice_id);
    expect(ids).toContain(instantVoice.voice_id);
    expect([...ids].sort().reverse()).toEqual(ids);
    expect(ids).not.toContain(professionalVoice.voice_id); // another workspace's
    const seen: string[] = [];
    let token: string | null = null;
    do {
      const page: { status: number; body: List<Voice> } = await api.call<List<Voice>>(
        'GET',
        `/v3/models/audio/voices?limit=1${token ? `&token=${encodeURIComponent(token)}` : ''}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.data.length).toBeLessThanOrEqual(1);
      seen.push(...page.body.data.map((voice) => voice.voice_id));
      token = page.body.next_token;
    } while (token);
    expect(seen).toEqual(ids);
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['token=bogus', 'token'],
    ['limit=1&token=', 'token'],
  ])('answers ?%s with 400 naming %s', async (query, param) => {
    const result = await api.call('GET', `/v3/models/audio/voices?${query}`);
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
  });

  it("answers 404 voice_not_found for unknown ids and another workspace's voice", async () => {
    for (const id of ['0'.repeat(32), professionalVoice.voice_id, 'en-us-olivia']) {
      const result = await api.call('GET', `/v3/models/audio/voices/${id}`);
      expect(result.status).toBe(404);
      expect(errorOf(result)).toMatchObject({ code: 'voice_not_found', param: 'voice_id' });
    }
  });
});

describe('DELETE /v3/models/audio/voices/{voice_id}', () => {
  it('deletes a voice, again successfully, and reads then answer 404', async () => {
    const created = await createVoice({
      mode: 'instant',
      name: 'Short-lived',
      audio: [base64Audio(shortRecording)],
    });
    const voice = await waitForVoice(created.body.data.voice_id);
    const path = `/v3/models/audio/voices/${voice.voice_id}`;
    for (let attempt = 0; attempt < 2; attempt++) {
      const deleted = await api.call('DELETE', path);
      expect(deleted.status).toBe(200);
      expect(deleted.body).toEqual({ data: { status: 'ok' } });
    }
    expect((await api.call('GET', path)).status).toBe(404);
    const list = await api.call<List<Voice>>('GET', '/v3/models/audio/voices?limit=100');
    expect(list.body.data.map((item) => item.voice_id)).not.toContain(voice.voice_id);
    const speech = await api.call('POST', '/v3/models/audio/tts', {
      body: { voice_id: voice.voice_id, text: 'Hi.' },
    });
    expect(speech.status).toBe(404);
  });

  it('cancels an instant voice still being created, and its training removes the recording', async () => {
    const created = await createVoice({
      mode: 'instant',
      name: 'Cancelled',
      audio: [base64Audio(shortRecording)],
    });
    const voiceId = created.body.data.voice_id;
    const deleted = await api.call('DELETE', `/v3/models/audio/voices/${voiceId}`);
    expect(deleted.status).toBe(200);
    expect((await api.call('GET', `/v3/models/audio/voices/${voiceId}`)).status).toBe(404);
    const tombstoneKey = modelVoiceTombstoneKey(api.workspaceId, voiceId);
    const recording = (await getItem<ModelVoiceTombstone>(tombstoneKey, true))?.cancelled_training
      ?.recordings[0]?.object_key;
    if (!recording) return; // the training had already ended: the delete removed the recording itself
    // The training, which may have been reading it, finds the voice gone and removes the recording.
    for (let attempt = 0; attempt < 400; attempt++) {
      if (!(await getItem<ModelVoiceTombstone>(tombstoneKey, true))?.cancelled_training) break;
      await new Promise((resolve) => setTimeout(resolve, 25));
    }
    expect((await getItem<ModelVoiceTombstone>(tombstoneKey, true))?.cancelled_training).toBeUndefined();
    expect(await headMediaObject(recording)).toBeUndefined();
    expect((await api.call('GET', `/v3/models/audio/voices/${voiceId}`)).status).toBe(404);
  });

  it('answers 404 voice_not_found for a voice that never existed', async () => {
    const result = await api.call('DELETE', `/v3/models/audio/voices/${'f'.repeat(32)}`);
    expect(result.status).toBe(404);
    expect(errorOf(result)).toMatchObject({ code: 'voice_not_found', param: 'voice_id' });
  });
});

describe('POST /v3/models/audio/tts', () => {
  const tts = (body: Record<string, unknown>, key = api.apiKey) =>
    api.call<{ data: Speech }>('POST', '/v3/models/audio/tts', { body, key });

  it('speaks with an instant voice: a 44.1 kHz mono WAV whose length matches the word timings', async () => {
    const text = 'Hello there. This is my new voice, speaking clearly. It can say quite a lot!';
    const result = await tts({ voice_id: instantVoice.voice_id, text });
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    expect(result.headers.get('content-language')).toBe('en');
    const speech = result.body.data;
    const { path, bytes } = await download(speech.audio_url, 'instant.wav');
    const probed = await probeMedia(path);
    expect(probed.streams).toEqual([
      expect.objectContaining({ type: 'audio', codec: 'pcm_s16le', channels: 1 }),
    ]);
    expect(decodeWavPcm16(bytes).sampleRate).toBe(44_100);
    expect(probed.durationSeconds).toBeCloseTo(speech.duration, 2);
    const words = speech.word_timestamps;
    expect(words.map((word) => word.word)).toEqual(text.match(/[A-Za-z]+/g));
    for (const [index, word] of words.entries()) {
      expect(word.end).toBeGreaterThan(word.start);
      if (index > 0) expect(word.start).toBeGreaterThanOrEqual(words[index - 1]?.end ?? 0);
    }
    expect(words.at(-1)?.end).toBeLessThanOrEqual(speech.duration);
    expect(words.at(-1)?.end).toBeGreaterThan(speech.duration - 1);
  });

  it('speaks with a professional voice, with pauses, speed and pitch', async () => {
    const plain = await tts(
      { voice_id: professionalVoice.voice_id, text: 'One two three. Four five six.' },
      enterprise.apiKey,
    );
    const paused = await tts(
      { voice_id: professionalVoice.voice_id, text: "One two three. <break time='2s'/>Four five six." },
      enterprise.apiKey,
    );
    const fast = await tts(
      {
        voice_id: professionalVoice.voice_id,
        text: 'One two three. Four five six.',
        speed: 2,
        pitch_shift: 3,
        pitch_variance: 1.5,
        seed: 7,
      },
      enterprise.apiKey,
    );
    for (const result of [plain, paused, fast]) expect(result.status, JSON.stringify(result.body)).toBe(200);
    const gap = paused.body.data.duration - plain.body.data.duration;
    expect(gap).toBeGreaterThan(1.9);
    expect(gap).toBeLessThan(2.1);
    const four = paused.body.data.word_timestamps.find((word) => word.word === 'Four');
    const three = paused.body.data.word_timestamps.find((word) => word.word === 'three');
    expect((four?.start ?? 0) - (three?.end ?? 0)).toBeGreaterThan(2);
    expect(fast.body.data.duration).toBeLessThan(plain.body.data.duration * 0.7);
    const probed = await probeMedia((await download(paused.body.data.audio_url, 'paused.wav')).path);
    expect(probed.durationSeconds).toBeCloseTo(paused.body.data.duration, 2);
  });

  it('speaks another language when asked, and says which', async () => {
    const result = await tts({ voice_id: instantVoice.voice_id, text: 'Hola, ¿cómo estás?', language: 'es' });
    expect(result.status).toBe(200);
    expect(result.headers.get('content-language')).toBe('es');
  });

  it.each([
    ['instant', { speed: 1.2 }, 'speed'],
    ['instant', { seed: 3 }, 'seed'],
    ['instant', { pitch_shift: 1 }, 'pitch_shift'],
    ['instant', { pitch_variance: 1 }, 'pitch_variance'],
    ['instant', { text: "Wait <break time='1s'/> now." }, 'text'],
    ['professional', { expressiveness_boost: 0.5 }, 'expressiveness_boost'],
    ['professional', { model: 'service-voice-1-turbo' }, 'model'],
    ['professional', { text: "Wait <break time='6s'/> now." }, 'text'],
    ['professional', { text: 'Wait <break time="1s"> now.' }, 'text'],
    ['professional', { text: '<speak>Hello</speak>' }, 'text'],
    ['instant', { text: 'Say <emphasis>this</emphasis>.' }, 'text'],
    ['instant', { model: 'service-voice-2' }, 'model'],
    ['instant', { expressiveness_boost: 2 }, 'expressiveness_boost'],
    ['professional', { speed: 3 }, 'speed'],
    ['professional', { pitch_shift: 12 }, 'pitch_shift'],
    ['instant', { language: 'tlh' }, 'language'],
    ['instant', { text: '' }, 'text'],
    ['instant', { text: 'x'.repeat(5001) }, 'text'],
    ['instant', { voice: 'x' }, 'voice'],
  ])('%s voice with %j → 400 naming %s', async (mode, extra, param) => {
    const voice = mode === 'instant' ? instantVoice : professionalVoice;
    const key = mode === 'instant' ? api.apiKey : enterprise.apiKey;
    const result = await tts({ voice_id: voice.voice_id, text: 'Hello.', ...extra }, key);
    expect(result.status, JSON.stringify(result.body)).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
  });

  it('accepts turbo and expressiveness for an instant voice; plain text with a < is spoken', async () => {
    const result = await tts({
      voice_id: instantVoice.voice_id,
      text: 'Three is < five. Yes, it is.',
      model: 'service-voice-1-turbo',
      expressiveness_boost: 0.2,
    });
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    expect(result.body.data.word_timestamps.map((word) => word.word)).toContain('five');
  });

  it('refuses unknown, stock, pending and failed voices', async () => {
    const unknown = await tts({ voice_id: '0'.repeat(32), text: 'Hello.' });
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown)).toMatchObject({ code: 'voice_not_found', param: 'voice_id' });
    const stock = await tts({ voice_id: 'en-us-olivia', text: 'Hello.' });
    expect(stock.status).toBe(404);
    expect(errorOf(stock).message).toMatch(/stock voice/);

    const pending = await createVoice({
      mode: 'instant',
      name: 'Soon',
      audio: [base64Audio(shortRecording)],
    });
    const early = await tts({ voice_id: pending.body.data.voice_id, text: 'Hello.' });
    if (early.status !== 200) {
      expect(early.status).toBe(409);
      expect(errorOf(early)).toMatchObject({ code: 'resource_not_ready', param: 'voice_id' });
    }
    await waitForVoice(pending.body.data.voice_id);

    const silence = encodeWavPcm16(new Int16Array(22_050), 22_050);
    const failed = await createVoice({
      mode: 'instant',
      name: 'Mute',
      audio: [base64Audio(Buffer.from(silence).toString('base64'))],
    });
    await waitForVoice(failed.body.data.voice_id);
    const refused = await tts({ voice_id: failed.body.data.voice_id, text: 'Hello.' });
    expect(refused.status).toBe(400);
    expect(errorOf(refused)).toMatchObject({ code: 'invalid_parameter', param: 'voice_id' });
    expect(errorOf(refused).message).toMatch(/INVALID_AUDIO/);
  });
});

describe('POST /v3/models/audio/tts/stream', () => {
  const LONG_TEXT = Array.from({ length: 8 }, (_, index) => SENTENCES[index % SENTENCES.length]).join(' ');

  const stream = (body: Record<string, unknown>) =>
    fetch(`${api.baseUrl}/v3/models/audio/tts/stream`, {
      method: 'POST',
      headers: { 'X-Api-Key': api.apiKey, 'Content-Type': 'application/json' },
      body: JSON.stringify(body),
    });

  async function readAll(response: Response): Promise<Buffer> {
    return Buffer.from(await response.arrayBuffer());
  }

  it('streams a chunked WAV that decodes to the same speech as the file', async () => {
    const response = await stream({ voice_id: instantVoice.voice_id, text: LONG_TEXT });
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('audio/wav');
    expect(response.headers.get('transfer-encoding')).toBe('chunked');
    expect(response.headers.get('content-length')).toBeNull();
    expect(response.headers.get('content-language')).toBe('en');
    expect(response.headers.get('x-request-id')).toBeTruthy();
    const bytes = await readAll(response);
    const path = join(workDir, 'stream.wav');
    await writeFile(path, bytes);
    const probed = await probeMedia(path);
    expect(probed.streams).toEqual([
      expect.objectContaining({ type: 'audio', codec: 'pcm_s16le', channels: 1 }),
    ]);
    const file = await api.call<{ data: Speech }>('POST', '/v3/models/audio/tts', {
      body: { voice_id: instantVoice.voice_id, text: LONG_TEXT },
    });
    const streamedSeconds = (bytes.length - 44) / 2 / 44_100;
    expect(probed.durationSeconds).toBeCloseTo(streamedSeconds, 1);
    // eSpeak's output varies by a few samples with its worker's state: the same speech, near enough.
    expect(Math.abs(streamedSeconds - file.body.data.duration)).toBeLessThan(file.body.data.duration * 0.02);
  });

  it('sends the first audio while later sentences are still being spoken', async () => {
    const engine = speechEngine();
    const synthesize = engine.synthesize.bind(engine);
    let started = 0;
    let finished = 0;
    let open!: () => void;
    const gate = new Promise<void>((resolve) => {
      open = resolve;
    });
    vi.spyOn(engine, 'synthesize').mockImplementation(async (request) => {
      // The first sentence is spoken at once; every later one waits until the test has its audio.
      if (started++ > 0) await gate;
      const result = await synthesize(request);
      finished++;
      return result;
    });
    const response = await stream({ voice_id: instantVoice.voice_id, text: LONG_TEXT });
    expect(response.status).toBe(200);
    const reader = (response.body as ReadableStream<Uint8Array>).getReader();
    let received = 0;
    while (received <= 44) {
      const { value, done } = await reader.read();
      if (done) break;
      received += value.length;
    }
    // Audio arrived (header and samples) while only the first sentence had been spoken.
    expect(received).toBeGreaterThan(44 + 44_100);
    expect(finished).toBe(1);
    open();
    for (;;) {
      const { value, done } = await reader.read();
      if (done) break;
      received += value.length;
    }
    expect(finished).toBe(started);
    expect(finished).toBeGreaterThan(3);
    expect(received).toBeGreaterThan(44 + 44_100 * 2 * 10);
  });

  it('ends the stream early, without its end, when speaking fails half way', async () => {
    const engine = speechEngine();
    const synthesize = engine.synthesize.bind(engine);
    let calls = 0;
    vi.spyOn(engine, 'synthesize').mockImplementation(async (request) => {
      if (calls++ === 3) throw new Error('the engine broke');
      return synthesize(request);
    });
    const response = await stream({ voice_id: instantVoice.voice_id, text: LONG_TEXT });
    expect(response.status).toBe(200);
    await expect(readAll(response)).rejects.toThrow();
  });

  it('answers refusals before any audio, as JSON errors', async () => {
    const unknown = await stream({ voice_id: '0'.repeat(32), text: 'Hello.' });
    expect(unknown.status).toBe(404);
    expect(unknown.headers.get('content-type')).toMatch(/^application\/json/);
    expect(((await unknown.json()) as { error: unknown }).error).toMatchObject({
      code: 'voice_not_found',
      param: 'voice_id',
    });
    const invalid = await stream({ voice_id: instantVoice.voice_id, text: 'Hi.', speed: 1.5 });
    expect(invalid.status).toBe(400);
    expect(((await invalid.json()) as { error: unknown }).error).toMatchObject({
      code: 'invalid_parameter',
      param: 'speed',
    });
    const anonymous = await fetch(`${api.baseUrl}/v3/models/audio/tts/stream`, {
      method: 'POST',
      body: '{}',
    });
    expect(anonymous.status).toBe(401);
  });
});
