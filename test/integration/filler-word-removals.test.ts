/**
 * Filler-word removal over HTTP: the real engines (ffmpeg, eSpeak for the rendered source), real media.
 *
 * Two sources, both small: a 5 s clip built here (a tone broken by 1.2 s and 1.4 s of silence, and
 * where it comes back the second time a white flash on the picture: the marker that shows picture and
 * sound stay in step after the cuts), and a video rendered by the service whose script says "um" and "uh" (its stored
 * words name them). No speech recognition engine is configured, so the built clip has only its
 * silence cut, and the job says so.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWorkspace } from '../../lambdas/accounts/workspaces.js';
import { decodeMonoPcm16 } from '../../lambdas/engines/composition/audio-decode.js';
import { ffmpegPath, runProcess } from '../../lambdas/engines/composition/ffmpeg-binaries.js';
import { probeMedia } from '../../lambdas/engines/composition/probe.js';
import type { EventBusEvent } from '../../lib/local/emulators/index.js';
import { eventCapture } from '../support/event-capture.js';
import { mp4Header, png } from '../support/sample-media.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

const capture = eventCapture();

interface Removal {
  id: string;
  title: string | null;
  status: string;
  progress: number;
  callback_id: string | null;
  num_cuts: number | null;
  original_duration: number | null;
  output_duration: number | null;
  reduction_pct: number | null;
  video_url: string | null;
  thumbnail_url: string | null;
  failure_code: string | null;
  failure_message: string | null;
  engines: Record<string, string>;
}

let api: TestStack;
let scratch: string;
/** The built clip, base64. */
let clip: string;
let clipBytes: Buffer;
let renderedUrl: string;
let renderedDuration: number;

/** The built clip's silences; after the second, the tone comes back and the picture flashes white. */
const SILENCES = [
  [0.8, 2.0],
  [2.6, 4.0],
] as const;
const MARKER_S = 4.0;
const FPS = 25;

async function ffmpeg(args: string[]): Promise<void> {
  await runProcess(ffmpegPath(), ['-v', 'error', '-y', ...args], { timeoutMs: 60_000 });
}

async function waitFor<T extends { status: string }>(path: string, key?: string): Promise<T> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const result = await api.call<{ data: T }>('GET', path, key ? { key } : {});
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    if (result.body.data.status === 'completed' || result.body.data.status === 'failed')
      return result.body.data;
    if (Date.now() > deadline) throw new Error(`${path} still ${result.body.data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function create(body: Record<string, unknown>, key?: string): Promise<Removal> {
  const created = await api.call<{ data: Removal }>('POST', '/v3/filler-word-removals', {
    body,
    ...(key ? { key } : {}),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.data;
}

async function download(url: string | null, name: string): Promise<string> {
  expect(url).toMatch(/^http/);
  const response = await fetch(url as string);
  expect(response.status).toBe(200);
  const path = join(scratch, name);
  await writeFile(path, Buffer.from(await response.arrayBuffer()));
  return path;
}

/** Mean brightness (0-255) of each frame of a video. */
async function frameBrightness(video: string): Promise<number[]> {
  const raw = join(scratch, 'frames.gray');
  await ffmpeg(['-i', video, '-vf', 'scale=16:9,format=gray', '-f', 'rawvideo', raw]);
  const bytes = await readFile(raw);
  const frames: number[] = [];
  for (let offset = 0; offset + 144 <= bytes.length; offset += 144) {
    frames.push(bytes.subarray(offset, offset + 144).reduce((sum, value) => sum + value, 0) / 144);
  }
  return frames;
}

/** When the sound first gets loud (RMS over -30 dBFS in 5 ms windows) after `afterS`. */
async function soundOnset(file: string, afterS: number): Promise<number> {
  const rate = 16_000;
  const samples = await decodeMonoPcm16(file, { sampleRate: rate });
  const window = rate / 200;
  for (let start = Math.round(afterS * rate); start + window <= samples.length; start += window) {
    let sum = 0;
    for (let index = start; index < start + window; index++) sum += ((samples[index] ?? 0) / 32768) ** 2;
    if (10 * Math.log10(sum / window + 1e-12) > -30) return start / rate;
  }
  throw new Error(`no sound after ${afterS} s`);
}

async function creditsOf(workspaceId: string): Promise<number> {
  return (await getWorkspace(workspaceId, true))?.remaining_credits as number;
}

/** The balance once the job's settlement (written just after its status) has landed. */
async function settledCredits(workspaceId: string, expected: number): Promise<number> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const credits = await creditsOf(workspaceId);
    if (credits === expected || Date.now() > deadline) return credits;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

async function eventOf(id: string): Promise<EventBusEvent> {
  const deadline = Date.now() + 10_000;
  for (;;) {
    const found = capture.events.find((event) => (event.detail as { entity_id?: string }).entity_id === id);
    if (found) return found;
    if (Date.now() > deadline) throw new Error(`No event for ${id}`);
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  api = await startTestStack({
    engines: 'reference',
    stepFunctionsTimeScale: 0.001,
    ...capture.stackOptions,
  });
  await capture.subscribe(api, {
    'detail-type': ['filler_word_removal.success', 'filler_word_removal.fail'],
  });
  scratch = await mkdtemp(join(tmpdir(), 'filler-removal-test-'));
  const rendering = api.call<{ data: { video_id: string } }>('POST', '/v3/videos', {
    body: {
      type: 'image',
      image: {
        type: 'base64',
        media_type: 'image/png',
        data: png(320, 180, [30, 120, 200]).toString('base64'),
      },
      script: 'Hello um everyone. Uh, welcome to the show.',
      voice_id: 'en-us-olivia',
      resolution: '720p',
    },
  });
  const built = join(scratch, 'clip.mp4');
  const silent = SILENCES.map(([from, to]) => `between(t\\,${from}\\,${to})`).join('+');
  await ffmpeg([
    ...['-f', 'lavfi', '-i', `color=c=0x404040:s=320x180:r=${FPS}:d=5`],
    ...['-f', 'lavfi', '-i', `aevalsrc=if(${silent}\\,0\\,0.4*sin(2*PI*440*t)):s=48000:d=5`],
    ...[
      '-vf',
      `drawbox=x=0:y=0:w=iw:h=ih:color=white:t=200:enable='between(t,${MARKER_S},${MARKER_S + 0.1})'`,
    ],
    ...['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac', '-shortest', built],
  ]);
  clipBytes = await readFile(built);
  clip = clipBytes.toString('base64');
  const created = await rendering;
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const video = await waitFor<{ status: string; video_url: string; duration: number }>(
    `/v3/videos/${created.body.data.video_id}`,
  );
  expect(video.status).toBe('completed');
  renderedUrl = video.video_url;
  renderedDuration = video.duration;
}, 120_000);

afterAll(async () => {
  await api?.stop();
  await rm(scratch, { recursive: true, force: true });
});

describe('filler-word removal', () => {
  it('cuts long silences with picture and sound in step, says no words were heard, charges the minute', async () => {
    const { workspaceId, apiKey } = await api.newWorkspace();
    const before = await creditsOf(workspaceId);
    const created = await create(
      { video: { type: 'base64', media_type: 'video/mp4', data: clip }, callback_id: 'clip-1' },
      apiKey,
    );
    expect(created).toMatchObject({
      status: 'pending',
      title: 'Filler Removal',
      progress: 0,
      num_cuts: null,
    });
    const done = await waitFor<Removal>(`/v3/filler-word-removals/${created.id}`, apiKey);
    expect(done.failure_message).toBeNull();
    expect(done).toMatchObject({ status: 'completed', progress: 100, callback_id: 'clip-1', num_cuts: 0 });
    expect(done.engines.recognition).toMatch(
      /^none: no filler words were cut, only silences\. Speech recognition is not configured/,
    );
    // Each silence shortened to 300 ms: 0.95-1.85 s and 2.75-3.85 s cut, on the frame grid 22 + 27
    // frames (1.96 s) of 125.
    expect(done.original_duration).toBeCloseTo(5, 1);
    expect(done.output_duration).toBeCloseTo(3.04, 2);
    expect(done.reduction_pct).toBeCloseTo(39.2, 0);

    const video = await download(done.video_url, 'clip-cleaned.mp4');
    const probe = await probeMedia(video);
    expect(probe.streams.map((stream) => stream.type).sort()).toEqual(['audio', 'video']);
    expect(probe.durationSeconds).toBeCloseTo(3.04, 1);
    // The marker lands at the same instant in both streams: 4.0 s − 1.96 s = 2.04 s (frame 51).
    const brightness = await frameBrightness(video);
    expect(brightness.length).toBe(76);
    const flash = brightness.findIndex((value) => value > 200);
    expect(flash).toBe(51);
    expect(brightness[flash - 1]).toBeLessThan(100);
    const onset = await soundOnset(video, 1.9);
    expect(Math.abs(onset - flash / FPS)).toBeLessThanOrEqual(0.02);
    // The kept pause is silent, the tone before it is still there.
    expect(await soundOnset(video, 0)).toBeLessThan(0.05);

    const thumbnail = await download(done.thumbnail_url, 'clip-thumbnail.jpg');
    expect((await probeMedia(thumbnail)).streams[0]).toMatchObject({
      type: 'video',
      width: 320,
      height: 180,
    });
    expect(await settledCredits(workspaceId, before - 1)).toBe(before - 1);

    const event = await eventOf(done.id);
    expect(event['detail-type']).toBe('filler_word_removal.success');
    expect(event.detail).toMatchObject({
      event_data: {
        filler_word_removal_id: done.id,
        num_cuts: 0,
        callback_id: 'clip-1',
        status: 'completed',
      },
    });
  });

  it('cuts the "um" and "uh" of a video made here, from its stored words', async () => {
    const done = await waitFor<Removal>(
      `/v3/filler-word-removals/${(await create({ video: { type: 'url', url: renderedUrl }, title: 'Show intro' })).id}`,
    );
    expect(done.failure_message).toBeNull();
    expect(done).toMatchObject({ status: 'completed', title: 'Show intro', num_cuts: 2 });
    expect(done.engines.recognition).toBe('known_transcript');
    expect(done.original_duration).toBeCloseTo(renderedDuration, 1);
    const removed = (done.original_duration as number) - (done.output_duration as number);
    // eSpeak says "um" from 294 to 419 ms, between words that touch it: cut at the nearest frames,
    // 280-400 ms; "Uh" from 1382 to 1609 ms, between pauses: cut whole, 1360-1640 ms. 3 + 7 frames.
    expect(removed).toBeCloseTo(0.4, 2);
    expect(done.reduction_pct).toBeCloseTo((removed / (done.original_duration as number)) * 100, 0);

    const video = await download(done.video_url, 'rendered-cleaned.mp4');
    const probe = await probeMedia(video);
    expect(probe.durationSeconds).toBeCloseTo(done.output_duration as number, 1);
    // The sound is as long as the picture: the cuts took the same time from both.
    const [picture, sound] = ['video', 'audio'].map(
      (type) => probe.streams.find((stream) => stream.type === type)?.durationSeconds as number,
    );
    expect(Math.abs((picture as number) - (sound as number))).toBeLessThan(0.03);
    const frames = await frameBrightness(video);
    expect(frames.length).toBe(Math.round((done.output_duration as number) * FPS));
  });

  it('cleans a recording without pictures: its silences cut, an M4A with sound only', async () => {
    const recording = join(scratch, 'recording.wav');
    await ffmpeg([
      ...['-f', 'lavfi', '-i', 'aevalsrc=if(between(t\\,0.5\\,2)\\,0\\,0.4*sin(2*PI*300*t)):s=16000:d=2.5'],
      ...['-c:a', 'pcm_s16le', recording],
    ]);
    const created = await create({
      video: {
        type: 'base64',
        media_type: 'audio/wav',
        data: (await readFile(recording)).toString('base64'),
      },
    });
    const done = await waitFor<Removal>(`/v3/filler-word-removals/${created.id}`);
    expect(done.failure_message).toBeNull();
    // 1.5 s of silence → 0.3 s, on the 10 ms grid of a source without frames.
    expect(done).toMatchObject({
      status: 'completed',
      num_cuts: 0,
      thumbnail_url: null,
      output_duration: 1.3,
    });
    const probe = await probeMedia(await download(done.video_url, 'recording-cleaned.m4a'));
    expect(probe.streams.map((stream) => stream.type)).toEqual(['audio']);
    expect(probe.durationSeconds).toBeCloseTo(1.3, 1);
  });

  it('changes nothing when nothing is long enough to cut: the source byte for byte, the charge refunded', async () => {
    const { workspaceId, apiKey } = await api.newWorkspace();
    const before = await creditsOf(workspaceId);
    const created = await create(
      { video: { type: 'base64', media_type: 'video/mp4', data: clip }, silence_threshold_ms: 2000 },
      apiKey,
    );
    const done = await waitFor<Removal>(`/v3/filler-word-removals/${created.id}`, apiKey);
    expect(done).toMatchObject({ status: 'completed', num_cuts: 0, reduction_pct: 0 });
    expect(done.output_duration).toBe(done.original_duration);
    const output = await readFile(await download(done.video_url, 'unchanged.mp4'));
    expect(output.equals(clipBytes)).toBe(true);
    expect(await settledCredits(workspaceId, before)).toBe(before);
  });

  it('fails an unreadable video with the reason, refunds it and sends the fail event', async () => {
    const { workspaceId, apiKey } = await api.newWorkspace();
    const before = await creditsOf(workspaceId);
    const created = await create(
      { video: { type: 'base64', media_type: 'video/mp4', data: mp4Header().toString('base64') } },
      apiKey,
    );
    const done = await waitFor<Removal>(`/v3/filler-word-removals/${created.id}`, apiKey);
    expect(done).toMatchObject({ status: 'failed', failure_code: 'invalid_media', video_url: null });
    expect(done.failure_message).toBe(
      'The video could not be read: Invalid data found when processing input. Send a video or audio file (MP4, MOV, WebM, MP3, WAV, …); its credits were returned.',
    );
    expect(await settledCredits(workspaceId, before)).toBe(before);
    const event = await eventOf(done.id);
    expect(event['detail-type']).toBe('filler_word_removal.fail');
    expect(event.detail).toMatchObject({ event_data: { failure_code: 'invalid_media', status: 'failed' } });
  });

  it('replays a create with the same Idempotency-Key', async () => {
    const body = {
      video: { type: 'base64', media_type: 'video/mp4', data: clip },
      silence_threshold_ms: 5000,
    };
    const first = await api.call<{ data: Removal }>('POST', '/v3/filler-word-removals', {
      body,
      headers: { 'Idempotency-Key': 'filler-once' },
    });
    const again = await api.call<{ data: Removal }>('POST', '/v3/filler-word-removals', {
      body,
      headers: { 'Idempotency-Key': 'filler-once' },
    });
    expect(first.status).toBe(200);
    expect(again.status).toBe(200);
    expect(again.body.data.id).toBe(first.body.data.id);
    await waitFor<Removal>(`/v3/filler-word-removals/${first.body.data.id}`);
  });

  it.each([
    [{}, 'video'],
    [{ video: { type: 'file', url: 'x' } }, 'video.type'],
    [{ video: { type: 'base64', media_type: 'image/png', data: png().toString('base64') } }, 'video.data'],
    [{ video: { type: 'asset_id', asset_id: 'nope' } }, 'video.asset_id'],
    [
      { video: { type: 'base64', media_type: 'video/mp4', data: 'AA' }, silence_threshold_ms: 10 },
      'silence_threshold_ms',
    ],
    [{ video: { type: 'base64', media_type: 'video/mp4', data: 'AA' }, title: 7 }, 'title'],
    [
      { video: { type: 'base64', media_type: 'video/mp4', data: 'AA' }, filler_words: [''] },
      'filler_words[0]',
    ],
    [{ video: { type: 'base64', media_type: 'video/mp4', data: 'AA' }, language: 'not a tag' }, 'language'],
    [
      { video: { type: 'url', url: 'http://127.0.0.1:1/x.mp4' }, callback_url: 'http://10.0.0.1/hook' },
      'callback_url',
    ],
    [{ video: { type: 'base64', media_type: 'video/mp4', data: 'AA' }, speed: 2 }, 'speed'],
  ])('refuses %j with 400 naming %s', async (body, param) => {
    const result = await api.call('POST', '/v3/filler-word-removals', { body });
    expect(result.status, JSON.stringify(result.body)).toBeGreaterThanOrEqual(400);
    expect(result.status).toBeLessThan(500);
    expect(errorOf(result).param).toBe(param);
  });

  it('asks for credits: 402 with nothing created', async () => {
    const { apiKey } = await api.newWorkspace({ included_credits: 0 });
    const result = await api.call('POST', '/v3/filler-word-removals', {
      key: apiKey,
      body: { video: { type: 'base64', media_type: 'video/mp4', data: clip } },
    });
    expect(result.status).toBe(402);
    expect(errorOf(result).code).toBe('insufficient_credit');
  });

  it('needs filler_removal:write to create and filler_removal:read to read', async () => {
    const created = await create({
      video: { type: 'base64', media_type: 'video/mp4', data: clip },
      silence_threshold_ms: 5000,
    });
    const reader = await api.newKey(api.workspaceId, 'custom', ['filler_removal:read']);
    const denied = await api.call('POST', '/v3/filler-word-removals', {
      key: reader,
      body: { video: { type: 'base64', media_type: 'video/mp4', data: clip } },
    });
    expect(denied.status).toBe(403);
    expect(errorOf(denied)).toMatchObject({ code: 'insufficient_api_key_scope' });
    expect(errorOf(denied).message).toContain('filler_removal:write');
    expect((await api.call('GET', `/v3/filler-word-removals/${created.id}`, { key: reader })).status).toBe(
      200,
    );
    const other = await api.newKey(api.workspaceId, 'custom', ['videos:read']);
    const unread = await api.call('GET', `/v3/filler-word-removals/${created.id}`, { key: other });
    expect(unread.status).toBe(403);
    expect(errorOf(unread).message).toContain('filler_removal:read');
    await waitFor<Removal>(`/v3/filler-word-removals/${created.id}`);
  });

  it('answers 404 for an unknown id and for another workspace’s', async () => {
    const created = await create({
      video: { type: 'base64', media_type: 'video/mp4', data: clip },
      silence_threshold_ms: 5000,
    });
    const other = await api.newWorkspace();
    for (const [id, key] of [
      [created.id, other.apiKey],
      ['0123456789abcdef0123456789abcdef', api.apiKey],
      ['not-an-id', api.apiKey],
    ] as const) {
      const result = await api.call('GET', `/v3/filler-word-removals/${id}`, { key });
      expect(result.status).toBe(404);
      expect(errorOf(result)).toMatchObject({ code: 'not_found', param: 'filler_word_removal_id' });
    }
    await waitFor<Removal>(`/v3/filler-word-removals/${created.id}`);
  });
});
