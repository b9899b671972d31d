/**
 * Voice clones over HTTP: recordings made here (eSpeak at the ends of its pitch range), cloned from
 * base64 and from an asset, polled to `complete`, then spoken through `POST /v3/voices/speech` and a
 * video; the clone of the high voice is measurably higher than the clone of the low one. Failures end
 * `failed` with a reason and give the clone slot back; deletes free slots and respect templates.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { deleteExistingItem, putItem } from '../../lambdas/core/repository.js';
import { createEspeakEngine } from '../../lambdas/engines/speech/espeak-engine.js';
import { encodeWavPcm16 } from '../../lambdas/engines/speech/wav.js';
import { analyseRecording, type RecordingAnalysis } from '../../lambdas/voices/voice-analysis.js';
import { templateVoiceReferenceKey } from '../../lambdas/voices/voice-references.js';
import { createCloneRecord } from '../../lambdas/voices/workspace-voices.js';
import type { EventBusEvent } from '../../lib/local/emulators/index.js';
import { eventCapture } from '../support/event-capture.js';
import { multipartBody, png } from '../support/sample-media.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

const capture = eventCapture();
const events = capture.events;

interface VoiceDetail {
  voice_id: string;
  name: string;
  language: string;
  gender?: string;
  type: string;
  status?: string;
  failure_message?: string;
  failure_code?: string;
  preview_audio_url?: string;
  created_at?: number;
}

let api: TestStack;
let scratch: string;
let low: Buffer;
let high: Buffer;
let lowSource: RecordingAnalysis;
let highSource: RecordingAnalysis;

const SCRIPT = 'Thank you for calling. Your order has shipped and will arrive on Tuesday afternoon.';

beforeAll(async () => {
  api = await startTestStack({
    // The subject is voices derived from real recordings, and their previews: the real engines.
    engines: 'reference',
    stepFunctionsTimeScale: 0.001,
    ...capture.stackOptions,
  });
  await capture.subscribe(api, { 'detail-type': ['voice_clone.success', 'voice_clone.fail'] });
  scratch = await mkdtemp(join(tmpdir(), 'voice-clone-test-'));
  // The two speakers: a low, slow man and a high, quick woman.
  const engine = createEspeakEngine();
  try {
    low = Buffer.from(
      (await engine.synthesize({ text: SCRIPT, voiceId: 'espeak-en-us-m1', pitch: -40, speed: 0.85 })).audio,
    );
    high = Buffer.from(
      (await engine.synthesize({ text: SCRIPT, voiceId: 'espeak-en-us-f3', pitch: 45, speed: 1.25 })).audio,
    );
  } finally {
    await engine.close();
  }
  lowSource = await measure(low, 'low-source.wav');
  highSource = await measure(high, 'high-source.wav');
}, 120_000);

afterAll(async () => {
  await api.stop();
  await rm(scratch, { recursive: true, force: true });
});

async function measure(audio: Buffer, name: string): Promise<RecordingAnalysis> {
  const path = join(scratch, name);
  await writeFile(path, audio);
  return analyseRecording(path);
}

const base64Audio = (audio: Buffer) => ({
  type: 'base64',
  media_type: 'audio/wav',
  data: audio.toString('base64'),
});

async function clone(body: Record<string, unknown>, key?: string) {
  return api.call<{ data: { voice_clone_id: string; status: string } }>('POST', '/v3/voices/clone', {
    body,
    ...(key ? { key } : {}),
  });
}

async function startClone(body: Record<string, unknown>, key?: string): Promise<string> {
  const created = await clone(body, key);
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  return created.body.data.voice_clone_id;
}

async function waitForClone(voiceId: string, key?: string): Promise<VoiceDetail> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const result = await api.call<{ data: VoiceDetail }>('GET', `/v3/voices/${voiceId}`, key ? { key } : {});
    expect(result.status).toBe(200);
    if (result.body.data.status !== 'processing') return result.body.data;
    if (Date.now() > deadline) throw new Error(`Clone ${voiceId} still processing`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function uploadAsset(audio: Buffer, key?: string): Promise<string> {
  const { body, contentType } = multipartBody('file', 'speaker.wav', 'audio/wav', audio);
  const result = await api.call<{ data: { asset_id: string } }>('POST', '/v3/assets', {
    rawBody: body,
    headers: { 'Content-Type': contentType },
    ...(key ? { key } : {}),
  });
  expect(result.status, JSON.stringify(result.body)).toBe(201);
  return result.body.data.asset_id;
}

async function speak(voiceId: string, name: string): Promise<RecordingAnalysis> {
  const result = await api.call<{ data: { audio_url: string } }>('POST', '/v3/voices/speech', {
    body: { text: 'A different sentence, spoken by the clone for this test.', voice_id: voiceId },
  });
  expect(result.status, JSON.stringify(result.body)).toBe(200);
  const response = await fetch(result.body.data.audio_url);
  return measure(Buffer.from(await response.arrayBuffer()), name);
}

/** The terminal event of a clone (published just after its status is written). */
async function eventOf(voiceId: string): Promise<EventBusEvent> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = events.find((event) => (event.detail as { entity_id?: string }).entity_id === voiceId);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`No event for clone ${voiceId}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

const silence = (seconds: number) => Buffer.from(encodeWavPcm16(new Int16Array(16_000 * seconds), 16_000));

describe('POST /v3/voices/clone', () => {
  let lowId: string;
  let highId: string;

  it('clones a low and a high voice from base64 and from an asset; they complete with a preview', async () => {
    lowId = await startClone({ audio: base64Audio(low), voice_name: 'Deep caller', language: 'en' });
    const assetId = await uploadAsset(high);
    highId = await startClone({
      audio: { type: 'asset_id', asset_id: assetId },
      voice_name: 'Bright caller',
      remove_background_noise: false,
    });
    const [lowVoice, highVoice] = await Promise.all([waitForClone(lowId), waitForClone(highId)]);
    expect(lowVoice).toMatchObject({
      voice_id: lowId,
      name: 'Deep caller',
      status: 'complete',
      gender: 'male',
      language: 'en-US',
      type: 'private',
      support_pause: false,
      created_at: expect.any(Number),
      preview_audio_url: expect.stringMatching(/^http/),
    });
    expect(lowVoice.failure_message).toBeUndefined();
    expect(highVoice).toMatchObject({ status: 'complete', gender: 'female', name: 'Bright caller' });
    const preview = await fetch(highVoice.preview_audio_url ?? '');
    expect(preview.status).toBe(200);
    // The asset it was cloned from is still the workspace's.
    expect((await api.call('GET', `/v3/assets/${assetId}`)).status).toBe(200);

    const listed = await api.call<{ data: { voice_id: string }[] }>(
      'GET',
      '/v3/voices?type=private&limit=100',
    );
    expect(listed.body.data.map((voice) => voice.voice_id)).toEqual(expect.arrayContaining([lowId, highId]));
    for (const id of [lowId, highId]) expect((await eventOf(id))['detail-type']).toBe('voice_clone.success');
  });

  it('speaks like the recordings: the high clone is measurably higher and quicker than the low one', async () => {
    const [lowClone, highClone] = await Promise.all([
      speak(lowId, 'low-clone.wav'),
      speak(highId, 'high-clone.wav'),
    ]);
    expect(lowClone.usable && highClone.usable).toBe(true);
    // The sources are about 70 Hz and 330 Hz apart: the clones keep them apart...
    expect(highClone.pitchHz).toBeGreaterThan(lowClone.pitchHz * 2.5);
    // ...each near its own speaker (within 3 semitones).
    expect(Math.abs(12 * Math.log2(lowClone.pitchHz / lowSource.pitchHz))).toBeLessThan(3);
    expect(Math.abs(12 * Math.log2(highClone.pitchHz / highSource.pitchHz))).toBeLessThan(3);
    expect(highClone.speakingRate).toBeGreaterThan(lowClone.speakingRate);
  });

  it('narrates a video', async () => {
    const created = await api.call<{ data: { video_id: string } }>('POST', '/v3/videos', {
      body: {
        type: 'avatar',
        avatar_id: 'maya-office',
        script: 'Hello from my cloned voice.',
        voice_id: lowId,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const videoId = created.body.data.video_id;
    const deadline = Date.now() + 90_000;
    let video: { status: string; failure_message: string | null; duration: number | null };
    for (;;) {
      video = (await api.call<{ data: typeof video }>('GET', `/v3/videos/${videoId}`)).body.data;
      if (video.status === 'completed' || video.status === 'failed' || Date.now() > deadline) break;
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
    expect(video.failure_message).toBeNull();
    expect(video.status).toBe('completed');
    const scenes = await api.call<{ data: { scenes: { script: { voice_id: string }[] }[] } }>(
      'GET',
      `/v3/videos/${videoId}/scenes`,
    );
    expect(scenes.body.data.scenes[0]?.script[0]?.voice_id).toBe(lowId);
  });

  it('fails a silent recording with the reason, and gives its slot back', async () => {
    const { apiKey } = await api.newWorkspace({ plan: 'free' });
    const id = await startClone({ audio: base64Audio(silence(3)), voice_name: 'Nobody' }, apiKey);
    const failed = await waitForClone(id, apiKey);
    expect(failed).toMatchObject({ status: 'failed', failure_code: 'invalid_audio' });
    expect(failed.failure_message).toMatch(/too quiet/);
    expect(failed.preview_audio_url).toBeUndefined();
    const failEvent = await eventOf(id);
    expect(failEvent['detail-type']).toBe('voice_clone.fail');
    expect(failEvent.detail).toMatchObject({ event_data: { failure_code: 'invalid_audio' } });
    // Failed clones are not listed and do not speak.
    const listed = await api.call<{ data: unknown[] }>('GET', '/v3/voices?type=private', { key: apiKey });
    expect(listed.body.data).toEqual([]);
    const spoken = await api.call('POST', '/v3/voices/speech', {
      key: apiKey,
      body: { text: 'Hello.', voice_id: id },
    });
    expect(spoken.status).toBe(403);
    expect(errorOf(spoken)).toMatchObject({ code: 'voice_not_usable', param: 'voice_id' });
    // The free plan's one slot is free again.
    const next = await startClone({ audio: base64Audio(low), voice_name: 'Second try' }, apiKey);
    expect((await waitForClone(next, apiKey)).status).toBe('complete');
  });

  it('counts clone slots by plan; deleting a clone frees its slot', async () => {
    const { apiKey } = await api.newWorkspace({ plan: 'free' });
    const first = await startClone({ audio: base64Audio(low), voice_name: 'One' }, apiKey);
    const refused = await clone({ audio: base64Audio(low), voice_name: 'Two' }, apiKey);
    expect(refused.status).toBe(402);
    expect(errorOf(refused).code).toBe('plan_upgrade_required');
    expect(errorOf(refused).message).toMatch(/All 1 voice clone slots of the free plan are in use/);
    // Deleting it, even while it is being made, gives the slot back.
    expect((await api.call('DELETE', `/v3/voices/${first}`, { key: apiKey })).status).toBe(200);
    const again = await startClone({ audio: base64Audio(low), voice_name: 'Two' }, apiKey);
    expect((await waitForClone(again, apiKey)).status).toBe('complete');
    expect((await api.call('GET', `/v3/voices/${first}`, { key: apiKey })).status).toBe(404);
  });

  it('refuses to delete a voice a template uses (403), and deletes it once no template does', async () => {
    const { workspaceId, apiKey } = await api.newWorkspace();
    const id = await startClone({ audio: base64Audio(high), voice_name: 'Template voice' }, apiKey);
    await waitForClone(id, apiKey);
    const reference = templateVoiceReferenceKey(workspaceId, id, 'tmpl_welcome');
    await putItem({ ...reference, template_id: 'tmpl_welcome', voice_id: id });
    const refused = await api.call('DELETE', `/v3/voices/${id}`, { key: apiKey });
    expect(refused.status).toBe(403);
    expect(errorOf(refused)).toMatchObject({ code: 'resource_access_denied', param: 'voice_id' });
    expect(errorOf(refused).message).toContain('tmpl_welcome');
    await deleteExistingItem(reference);
    const deleted = await api.call('DELETE', `/v3/voices/${id}`, { key: apiKey });
    expect(deleted.status).toBe(200);
    const twice = await api.call('DELETE', `/v3/voices/${id}`, { key: apiKey });
    expect(twice.status).toBe(404);
    expect(errorOf(twice)).toMatchObject({ code: 'voice_not_found', param: 'voice_id' });
  });

  it('answers 409 for a clone still being made, which GET shows processing', async () => {
    const { workspaceId, apiKey } = await api.newWorkspace();
    // A clone whose workflow has not run yet: its record, written as the create writes it.
    await createCloneRecord(
      {
        voice_id: 'c0ffee00000000000000000000000001',
        workspace_id: workspaceId,
        kind: 'clone',
        name: 'Not yet',
        language: 'en-US',
        gender: null,
        status: 'processing',
        created_at: Math.floor(Date.now() / 1000),
        base_voice_id: null,
        engine_voices: {},
        preview_key: null,
        failure_code: null,
        failure_message: null,
        holds_slot: true,
      },
      'pro',
    );
    const read = await api.call<{ data: VoiceDetail }>('GET', '/v3/voices/c0ffee00000000000000000000000001', {
      key: apiKey,
    });
    expect(read.body.data).toMatchObject({ status: 'processing', name: 'Not yet' });
    expect(read.body.data.preview_audio_url).toBeUndefined();
    const spoken = await api.call('POST', '/v3/voices/speech', {
      key: apiKey,
      body: { text: 'Hello.', voice_id: 'c0ffee00000000000000000000000001' },
    });
    expect(spoken.status).toBe(409);
    expect(errorOf(spoken)).toMatchObject({ code: 'resource_not_ready', param: 'voice_id' });
    const listed = await api.call<{ data: unknown[] }>('GET', '/v3/voices?type=private', { key: apiKey });
    expect(listed.body.data).toEqual([]);
  });

  it('keeps clones to their workspace', async () => {
    const other = await api.newWorkspace();
    expect((await api.call('GET', `/v3/voices/${lowId}`, { key: other.apiKey })).status).toBe(404);
    expect((await api.call('DELETE', `/v3/voices/${lowId}`, { key: other.apiKey })).status).toBe(404);
    const spoken = await api.call('POST', '/v3/voices/speech', {
      key: other.apiKey,
      body: { text: 'Hello.', voice_id: lowId },
    });
    expect(spoken.status).toBe(404);
  });

  it.each([
    [{ voice_name: 'x' }, 'audio'],
    [{ audio: { type: 'url' }, voice_name: 'x' }, 'audio.url'],
    [{ audio: { type: 'ftp', url: 'x' }, voice_name: 'x' }, 'audio.type'],
    [{ audio: { type: 'asset_id', asset_id: 'nope' }, voice_name: 'x' }, 'audio.asset_id'],
    [
      { audio: { type: 'base64', media_type: 'image/png', data: png().toString('base64') }, voice_name: 'x' },
      'audio',
    ],
    [{ audio: { type: 'base64', media_type: 'audio/wav', data: 'not base64!' }, voice_name: 'x' }, 'audio'],
    [{ audio: { type: 'url', url: 'http://127.0.0.1/voice.wav' }, voice_name: 'x' }, 'audio'],
    [{ audio: { type: 'base64', media_type: 'audio/wav', data: 'AAAA' } }, 'voice_name'],
    [{ audio: { type: 'base64', media_type: 'audio/wav', data: 'AAAA' }, voice_name: '  ' }, 'voice_name'],
    [
      { audio: { type: 'base64', media_type: 'audio/wav', data: 'AAAA' }, voice_name: 'x', language: 'tlh' },
      'language',
    ],
    [
      {
        audio: { type: 'base64', media_type: 'audio/wav', data: 'AAAA' },
        voice_name: 'x',
        language: 'not a tag',
      },
      'language',
    ],
    [
      {
        audio: { type: 'base64', media_type: 'audio/wav', data: 'AAAA' },
        voice_name: 'x',
        remove_background_noise: 'yes',
      },
      'remove_background_noise',
    ],
  ])('refuses %j naming %s', async (body, param) => {
    const result = await clone(body);
    expect(result.status, JSON.stringify(result.body)).toBe(400);
    expect(errorOf(result).code).toBe('invalid_parameter');
    expect(errorOf(result).param ?? '').toMatch(new RegExp(`^${param.replace('.', '\\.')}`));
  });
});
