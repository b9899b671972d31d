/**
 * Lipsyncs and overdubs over HTTP, with the real media engines (ffmpeg, the face model, eSpeak NG for
 * the new audio) and the speech recognition test double (it "hears" the words of the file's name,
 * `speech.wav` → "speech": recognisably not recognition, but the path words take). The face is one of
 * our stock looks as a talking clip (test/unit/engines/vision/talking-clip.ts) over a 220 Hz hum, 1.2 s at
 * 480×270; the picture without a face is ffmpeg's test pattern. A second stack without speech
 * recognition checks what is refused there.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { buildOpenApiDocument } from '../../lambdas/api/openapi.js';
import { ROUTES } from '../../lambdas/api/routes.js';
import { decodeMonoPcm16 } from '../../lambdas/engines/composition/audio-decode.js';
import { probeMedia } from '../../lambdas/engines/composition/probe.js';
import { parseSubtitles } from '../../lambdas/engines/composition/subtitle-files.js';
import { createEspeakEngine } from '../../lambdas/engines/speech/espeak-engine.js';
import { getLipsync } from '../../lambdas/lipsyncs/lipsync-records.js';
import { mediaKeys } from '../../lambdas/media/media-keys.js';
import { listMediaKeys } from '../../lambdas/media/media-store.js';
import { eventCapture } from '../support/event-capture.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';
import { ffmpeg } from '../unit/engines/composition/media-fixtures.js';
import { talkingClipMaker } from '../unit/engines/vision/talking-clip.js';

const capture = eventCapture();
let api: TestStack;
let scratch: string;
/** Inline media inputs. */
let faceVideo: Record<string, string>;
let plainVideo: Record<string, string>;
let speech: Record<string, string>;
let speechSeconds: number;

interface Lipsync {
  id: string;
  status: string;
  title: string;
  mode: string;
  duration: number | null;
  video_url: string | null;
  audio_url: string | null;
  caption_url: string | null;
  progress: number;
  audio_cut_seconds: number | null;
  engines: Record<string, string>;
  failure_code: string | null;
  failure_message: string | null;
}

const inline = async (path: string, mediaType: string) => ({
  type: 'base64',
  media_type: mediaType,
  data: (await readFile(path)).toString('base64'),
});

async function waitFor<T extends { status: string }>(path: string): Promise<T> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const result = await api.call<{ data: T }>('GET', path);
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    if (result.body.data.status === 'completed' || result.body.data.status === 'failed')
      return result.body.data;
    if (Date.now() > deadline) throw new Error(`${path} still ${result.body.data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

async function create(path: '/v3/lipsyncs' | '/v3/overdubs', body: Record<string, unknown>) {
  const created = await api.call<{ data: { lipsync_id?: string; overdub_id?: string } }>('POST', path, {
    body,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return (created.body.data.lipsync_id ?? created.body.data.overdub_id) as string;
}

async function download(url: string | null, name: string): Promise<string> {
  expect(url).toMatch(/^http/);
  const response = await fetch(url as string);
  expect(response.status).toBe(200);
  const path = join(scratch, name);
  await writeFile(path, Buffer.from(await response.arrayBuffer()));
  return path;
}

/** RMS level (dBFS) of 16 kHz mono samples between two times. */
function levelDb(samples: Int16Array, fromMs: number, toMs: number): number {
  const from = Math.floor((fromMs / 1000) * 16_000);
  const to = Math.min(samples.length, Math.floor((toMs / 1000) * 16_000));
  let sum = 0;
  for (let index = from; index < to; index++) sum += ((samples[index] ?? 0) / 32768) ** 2;
  return 10 * Math.log10(sum / Math.max(1, to - from) + 1e-12);
}

/** The outcome event of a lipsync (published just after its record ends). */
async function eventOf(field: 'lipsync_id' | 'overdub_id', id: string) {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const event = capture.events.find(
      (entry) => (entry.detail as { event_data?: Record<string, unknown> }).event_data?.[field] === id,
    );
    if (event) return event;
    if (Date.now() > deadline) throw new Error(`no event of ${field} ${id}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

/** What the lipsync's reservation became. */
const billingOf = async (id: string) => {
  const record = await getLipsync(api.workspaceId, id, true);
  return {
    state: record?.billing_state,
    reserved: record?.credits_reserved,
    charged: record?.credits_charged,
  };
};

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'lipsyncs-test-'));
  const clip = await (await talkingClipMaker(scratch))(join(scratch, 'face-silent.mp4'), {
    seconds: 1.2,
    shakeUntil: 0,
    sway: 6,
  });
  const face = join(scratch, 'face.mp4');
  await ffmpeg([
    ...['-i', clip, '-f', 'lavfi', '-i', 'sine=frequency=220:sample_rate=48000:duration=1.2'],
    ...['-map', '0:v', '-map', '1:a', '-c:v', 'copy', '-c:a', 'aac', '-shortest', face],
  ]);
  const plain = join(scratch, 'plain.mp4');
  await ffmpeg([
    ...['-f', 'lavfi', '-i', 'testsrc=size=320x180:rate=25:duration=1'],
    ...['-f', 'lavfi', '-i', 'sine=frequency=220:sample_rate=48000:duration=1'],
    ...['-c:v', 'libx264', '-preset', 'veryfast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', plain],
  ]);
  const engine = createEspeakEngine();
  const spoken = await engine.synthesize({
    text: 'Hello there, this is the new voice.',
    voiceId: 'espeak-en-us-m2',
  });
  await engine.close();
  speechSeconds = spoken.durationMs / 1000;
  const speechPath = join(scratch, 'speech.wav');
  await writeFile(speechPath, spoken.audio);
  faceVideo = await inline(face, 'video/mp4');
  plainVideo = await inline(plain, 'video/mp4');
  speech = await inline(speechPath, 'audio/wav');
}, 60_000);

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('lipsyncs', () => {
  const started = {} as Record<'precision' | 'cut' | 'noFaceOverdub' | 'noFacePrecision', Promise<string>>;
  beforeAll(async () => {
    api = await startTestStack({
      engines: 'reference',
      stepFunctionsTimeScale: 0.001,
      environment: { ALLOW_TEST_DOUBLE_ENGINES: 'true', SPEECH_RECOGNITION_ENGINE: 'test-double' },
      ...capture.stackOptions,
    });
    await capture.subscribe(api);
    // The jobs run side by side; each test waits for its own.
    started.precision = create('/v3/lipsyncs', {
      video: faceVideo,
      audio: speech,
      title: 'New voice',
      mode: 'precision',
      enable_caption: true,
      callback_id: 'cb-1',
    });
    started.cut = create('/v3/lipsyncs', {
      video: faceVideo,
      audio: speech,
      start_time: 0.2,
      end_time: 0.6,
      enable_speech_enhancement: true,
      disable_music_track: true,
    });
    started.noFaceOverdub = create('/v3/overdubs', {
      video: plainVideo,
      audio: speech,
      title: 'Old name',
      keep_the_same_format: true,
      fps_mode: 'vfr',
    });
    started.noFacePrecision = create('/v3/lipsyncs', { video: plainVideo, audio: speech, mode: 'precision' });
  }, 30_000);
  afterAll(async () => {
    await api?.stop();
  });

  it('replaces the audio, re-animates the face to it, loops the picture for a longer audio, captions its words', async () => {
    const id = await started.precision;
    const done = await waitFor<Lipsync>(`/v3/lipsyncs/${id}`);
    expect(done.failure_message).toBeNull();
    expect(done).toMatchObject({ status: 'completed', title: 'New voice', mode: 'precision', progress: 100 });
    // The face follows the new words on most frames of the part re-dubbed.
    const lips = /^footage_lips \((\d+) of (\d+) frames/.exec(done.engines.lips ?? '');
    expect(lips, done.engines.lips).not.toBeNull();
    expect(Number(lips?.[1])).toBeGreaterThan(0.8 * Number(lips?.[2]));
    expect(done.engines.visemes).toMatch(/^words: recognition \(test-double/);
    // The audio is longer than the 1.2 s video: the picture plays again until it ends.
    expect(speechSeconds).toBeGreaterThan(1.7);
    expect(done.engines.picture).toMatch(/^looped from 1.2 s/);
    expect(done.audio_cut_seconds).toBe(0);
    const video = await download(done.video_url, 'precision.mp4');
    const probe = await probeMedia(video);
    expect(probe.streams.map((stream) => stream.type).sort()).toEqual(['audio', 'video']);
    expect(probe.durationSeconds).toBeCloseTo(speechSeconds, 0);
    expect(done.duration).toBeCloseTo(probe.durationSeconds, 0);
    // The new speech is heard over the hum, which is ducked under it.
    const samples = await decodeMonoPcm16(video, { sampleRate: 16_000 });
    expect(levelDb(samples, 200, speechSeconds * 1000 - 200)).toBeGreaterThan(-30);
    // The captions are the words heard (the double hears the file's name).
    const cues = parseSubtitles(await (await fetch(done.caption_url as string)).text()).cues;
    expect(cues.map((cue) => cue.text)).toEqual(['speech']);
    // Charged: precision is two credits a started minute.
    expect(await billingOf(id)).toEqual({ state: 'settled', reserved: 2, charged: 2 });
    const event = await eventOf('lipsync_id', id);
    expect(event['detail-type']).toBe('lipsync.success');
    expect((event?.detail as { event_data?: Record<string, unknown> } | undefined)?.event_data).toMatchObject(
      {
        callback_id: 'cb-1',
        status: 'completed',
      },
    );
  });

  it('re-dubs only the start_time–end_time part, cutting a longer audio when the picture cannot grow, the original kept outside it', async () => {
    const id = await started.cut;
    const done = await waitFor<Lipsync>(`/v3/lipsyncs/${id}`);
    expect(done.failure_message).toBeNull();
    expect(done.status).toBe('completed');
    expect(done.audio_cut_seconds).toBeCloseTo(speechSeconds - 0.4, 1);
    expect(done.engines.audio).toMatch(/^cut: .*end_time is before the end of the video/);
    expect(done.engines.visemes).toBe('audio level');
    expect(done.engines.speech_enhancement).toMatch(
      /^high-pass, afftdn; speech at -?\d+\.\d LUFS, gain [+-]\d+\.\d dB toward -16 LUFS/,
    );
    // No words were needed: none were heard, no captions.
    expect(done.caption_url).toBeNull();
    // The whole video, its length kept; the new speech only inside the part, the hum outside it.
    const video = await download(done.video_url, 'cut.mp4');
    const probe = await probeMedia(video);
    expect(probe.durationSeconds).toBeCloseTo(1.2, 0);
    const lips = /^footage_lips \(\d+ of (\d+) frames/.exec(done.engines.lips ?? '');
    // 0.4 s at 25 fps, and the frames of the 80 ms fades at its edges.
    expect(Number(lips?.[1])).toBeGreaterThanOrEqual(10);
    expect(Number(lips?.[1])).toBeLessThanOrEqual(14);
    // disable_music_track: the hum (a sine of amplitude 1/8: -21 dB RMS) is gone under the part only;
    // after it, it plays at its own level. The new speech, enhanced to -16 LUFS, is louder than it was.
    const samples = await decodeMonoPcm16(video, { sampleRate: 16_000 });
    expect(Math.abs(levelDb(samples, 800, 1100) + 21)).toBeLessThan(1.5);
    expect(levelDb(samples, 250, 550)).toBeGreaterThan(-21);
  });

  it('an overdub of a video without a face: completed with the audio replaced, said in engines; the Overdub shape', async () => {
    const id = await started.noFaceOverdub;
    const done = await waitFor<{ status: string } & Record<string, unknown>>(`/v3/overdubs/${id}`);
    expect(Object.keys(done).sort()).toEqual(
      [
        'callback_id',
        'created_at',
        'duration',
        'failure_message',
        'id',
        'status',
        'title',
        'video_url',
      ].sort(),
    );
    expect(done).toMatchObject({ id, status: 'completed', title: 'Old name', failure_message: null });
    const full = await api.call<{ data: Lipsync }>('GET', `/v3/lipsyncs/${id}`);
    expect(full.body.data.engines.lips).toMatch(/^no face found in \d+ frames: the audio was replaced/);
    expect((await eventOf('overdub_id', id))['detail-type']).toBe('overdub.success');
  });

  it('a precision lipsync of a video without a face fails with no_face and is refunded', async () => {
    const id = await started.noFacePrecision;
    const done = await waitFor<Lipsync>(`/v3/lipsyncs/${id}`);
    expect(done).toMatchObject({ status: 'failed', failure_code: 'no_face' });
    expect(done.failure_message).toMatch(/No face was found/);
    expect(done.video_url).toBeNull();
    // Its two reserved credits came back.
    expect(await billingOf(id)).toMatchObject({ state: 'refunded', reserved: 2 });
    expect((await eventOf('lipsync_id', id))['detail-type']).toBe('lipsync.fail');
  });

  it.each([
    [{ start_time: 3, end_time: 2 }, 'end_time'],
    [{ mode: 'turbo' }, 'mode'],
    [{ fps_mode: 'variable' }, 'fps_mode'],
    [{ start_time: -1 }, 'start_time'],
    [{ folder_id: 'f'.repeat(32) }, 'folder_id'],
    [{ audio: undefined }, 'audio'],
    [{ audio: { type: 'asset_id', asset_id: 'f'.repeat(32) } }, 'audio.asset_id'],
  ])('refuses %j naming %s', async (fields, param) => {
    const result = await api.call('POST', '/v3/lipsyncs', {
      body: { video: plainVideo, audio: speech, ...fields },
    });
    expect(result.status, JSON.stringify(result.body)).toBe(400);
    expect(errorOf(result).param).toBe(param);
  });

  it('reads, renames, lists, reports statuses and deletes, within the workspace only; overdubs alike', async () => {
    const id = await started.noFaceOverdub;
    await waitFor<Lipsync>(`/v3/lipsyncs/${id}`);
    const renamed = await api.call<{ data: Lipsync }>('PATCH', `/v3/lipsyncs/${id}`, {
      body: { title: 'Renamed' },
    });
    expect(renamed.body.data.title).toBe('Renamed');
    const overdubRenamed = await api.call<{ data: { title: string } }>('PATCH', `/v3/overdubs/${id}`, {
      body: { title: 'Renamed again' },
    });
    expect(overdubRenamed.body.data.title).toBe('Renamed again');
    for (const path of ['/v3/lipsyncs?limit=100', '/v3/overdubs?limit=100']) {
      const list = await api.call<{ data: { id: string }[]; has_more: boolean }>('GET', path);
      expect(list.status).toBe(200);
      expect(list.body.data.map((item) => item.id)).toContain(id);
    }
    const paged = await api.call<{ data: unknown[]; has_more: boolean; next_token: string | null }>(
      'GET',
      '/v3/lipsyncs?limit=1',
    );
    expect(paged.body.data).toHaveLength(1);
    expect(paged.body.has_more).toBe(true);
    const next = await api.call<{ data: { id: string }[] }>(
      'GET',
      `/v3/lipsyncs?limit=1&token=${encodeURIComponent(paged.body.next_token as string)}`,
    );
    expect(next.body.data).toHaveLength(1);
    expect((await api.call('GET', '/v3/overdubs?limit=101')).status).toBe(400);

    const statuses = await api.call<{ data: { video_id: string; status: string }[] }>(
      'GET',
      `/v3/lipsyncs/statuses?lipsync_ids=${id},${'f'.repeat(32)}`,
    );
    expect(statuses.body.data).toEqual([
      { video_id: id, status: 'completed', batch_id: null, item_index: null, error: null },
      { video_id: 'f'.repeat(32), status: 'not_found', batch_id: null, item_index: null, error: null },
    ]);
    const tooMany = Array.from({ length: 101 }, (_, index) => index.toString(16).padStart(32, '0'));
    const refused = await api.call('GET', `/v3/lipsyncs/statuses?lipsync_ids=${tooMany.join(',')}`);
    expect(refused.status).toBe(400);
    expect(errorOf(refused)).toMatchObject({ message: 'At most 100 ids per request.', param: 'lipsync_ids' });

    const other = await api.newWorkspace();
    for (const path of [`/v3/lipsyncs/${id}`, `/v3/overdubs/${id}`]) {
      for (const method of ['GET', 'DELETE'] as const)
        expect((await api.call(method, path, { key: other.apiKey })).status).toBe(404);
    }
    const elsewhere = await api.call<{ data: { status: string }[] }>(
      'GET',
      `/v3/lipsyncs/statuses?lipsync_ids=${id}`,
      {
        key: other.apiKey,
      },
    );
    expect(elsewhere.body.data[0]?.status).toBe('not_found');

    const deleted = await api.call('DELETE', `/v3/overdubs/${id}`);
    expect(deleted.body).toEqual({ data: { id } });
    expect((await api.call('GET', `/v3/lipsyncs/${id}`)).status).toBe(404);
  });

  it('makes a batch: a refused payload fails its item, the batch closes, statuses expand it', async () => {
    const created = await api.call<{ data: { batch_id: string } }>('POST', '/v3/lipsyncs/batches', {
      body: {
        title: 'Two dubs',
        lipsyncs: [
          { video: plainVideo, audio: speech, enable_dynamic_duration: false },
          { video: plainVideo, audio: speech, folder_id: 'f'.repeat(32) },
        ],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const batchId = created.body.data.batch_id;
    interface BatchView {
      status: string;
      title: string;
      total_items: number;
      counts_by_status: Record<string, number>;
      items: { video_id: string; item_index: number; status: string; error: { code: string } | null }[];
    }
    const deadline = Date.now() + 120_000;
    let batch: BatchView;
    for (;;) {
      batch = (await api.call<{ data: BatchView }>('GET', `/v3/lipsyncs/batches/${batchId}`)).body.data;
      if (batch.status !== 'processing') break;
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(batch).toMatchObject({ status: 'completed', title: 'Two dubs', total_items: 2 });
    expect(batch.counts_by_status).toEqual({ queued: 0, processing: 0, completed: 1, failed: 1 });
    expect(batch.items[1]?.error?.code).toBe('invalid_parameter');
    // The batch's payloads (inline media included) went with its closing.
    const inputs = await listMediaKeys(mediaKeys.input(api.workspaceId, ''));
    expect(inputs.filter((key) => key.includes(batchId))).toEqual([]);
    const first = await api.call<{ data: Lipsync }>('GET', `/v3/lipsyncs/${batch.items[0]?.video_id}`);
    // enable_dynamic_duration false: the 1 s video keeps its length, the audio is cut.
    expect(first.body.data.duration).toBeCloseTo(1, 0);
    expect(first.body.data.audio_cut_seconds).toBeCloseTo(speechSeconds - 1, 1);
    expect(first.body.data.engines.audio).toMatch(/enable_dynamic_duration is false/);
    const statuses = await api.call<{ data: { video_id: string; batch_id: string; item_index: number }[] }>(
      'GET',
      `/v3/lipsyncs/statuses?batch_ids=${batchId}`,
    );
    expect(statuses.body.data.map((entry) => [entry.video_id, entry.item_index, entry.batch_id])).toEqual(
      batch.items.map((item) => [item.video_id, item.item_index, batchId]),
    );

    const bad = await api.call('POST', '/v3/lipsyncs/batches', {
      body: { lipsyncs: [{ video: plainVideo, audio: speech }, { video: plainVideo }] },
    });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toMatchObject({ code: 'invalid_parameter', param: 'lipsyncs' });
    expect(errorOf(bad).message).toContain('lipsyncs[1].audio');
  });

  it('answers 404 for every id that names nothing of the workspace', async () => {
    const unknown = 'f'.repeat(32);
    for (const [method, path, code] of [
      ['GET', `/v3/lipsyncs/${unknown}`, 'not_found'],
      ['PATCH', `/v3/lipsyncs/${unknown}`, 'not_found'],
      ['DELETE', `/v3/lipsyncs/${unknown}`, 'not_found'],
      ['GET', `/v3/lipsyncs/batches/${unknown}`, 'batch_not_found'],
      ['GET', `/v3/overdubs/${unknown}`, 'not_found'],
      ['PATCH', `/v3/overdubs/${unknown}`, 'not_found'],
      ['DELETE', `/v3/overdubs/${unknown}`, 'not_found'],
    ] as const) {
      const result = await api.call(method, path, method === 'PATCH' ? { body: { title: 'x' } } : {});
      expect(result.status, `${method} ${path}`).toBe(404);
      expect(errorOf(result).code, `${method} ${path}`).toBe(code);
      if (code === 'not_found')
        expect(errorOf(result).param).toBe(path.startsWith('/v3/overdubs') ? 'overdub_id' : 'lipsync_id');
    }
  });

  it('marks the overdub routes deprecated in the OpenAPI document, naming the lipsync routes', () => {
    // The document as `npm run docs:generate` writes it (and /v3/openapi.json serves it).
    const document = buildOpenApiDocument(ROUTES, 'test') as {
      paths: Record<string, Record<string, { deprecated?: boolean; description?: string }>>;
    };
    expect(document.paths['/v3/overdubs']?.post?.deprecated).toBe(true);
    expect(document.paths['/v3/overdubs']?.post?.description).toContain('POST /v3/lipsyncs');
    expect(document.paths['/v3/overdubs/{overdub_id}']?.get?.deprecated).toBe(true);
    expect(document.paths['/v3/lipsyncs']?.post?.deprecated).toBeUndefined();
  });
});

describe('lipsyncs on a deployment without speech recognition', () => {
  let bare: TestStack;
  beforeAll(async () => {
    // The environment outlives a stack (it is the process's): the engine is named, not left out.
    bare = await startTestStack({
      engines: 'reference',
      stepFunctionsTimeScale: 0.001,
      environment: { SPEECH_RECOGNITION_ENGINE: 'none' },
    });
  }, 30_000);
  afterAll(async () => {
    await bare?.stop();
  });

  it('refuses enable_caption naming it: nothing could hear the words', async () => {
    const result = await bare.call('POST', '/v3/lipsyncs', {
      body: { video: plainVideo, audio: speech, enable_caption: true },
    });
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param: 'enable_caption' });
    expect(errorOf(result).message).toMatch(/SPEECH_RECOGNITION_ENGINE/);
  });

  it('makes precision as speed, and says so', async () => {
    const created = await bare.call<{ data: { lipsync_id: string } }>('POST', '/v3/lipsyncs', {
      body: { video: faceVideo, audio: speech, mode: 'precision', end_time: 0.5 },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const deadline = Date.now() + 120_000;
    let done: Lipsync;
    for (;;) {
      done = (await bare.call<{ data: Lipsync }>('GET', `/v3/lipsyncs/${created.body.data.lipsync_id}`)).body
        .data;
      if (done.status === 'completed' || done.status === 'failed') break;
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 150));
    }
    expect(done.failure_message).toBeNull();
    expect(done.engines.visemes).toMatch(/^audio level \(precision asked, but no speech recognition/);
    expect(done.engines.lips).toMatch(/^footage_lips/);
  });
});
