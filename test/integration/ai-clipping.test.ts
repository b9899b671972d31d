/**
 * AI clipping over HTTP: a short video rendered by the service itself (a stock presenter speaking a
 * script with eSpeak; the render keeps its words) is cut into portrait clips that follow the face,
 * with captions burned in the chosen style, scored, titled, charged per source minute; and every
 * refusal, failure and route answers as documented.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWorkspace } from '../../lambdas/accounts/workspaces.js';
import { STOCK_LOOKS } from '../../lambdas/catalog/stock-avatars.js';
import { clippingRecords } from '../../lambdas/clipping/clipping-records.js';
import { getItem } from '../../lambdas/core/repository.js';
import {
  ensureExecutable,
  ffmpegPath,
  runProcess,
} from '../../lambdas/engines/composition/ffmpeg-binaries.js';
import { probeMedia } from '../../lambdas/engines/composition/probe.js';
import { findFaces } from '../../lambdas/engines/vision/face-landmarks.js';
import { listMediaKeys } from '../../lambdas/media/media-store.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

/** Several sentences, one of them a hook about batteries (the prompt). About 10 s in eSpeak. */
const SCRIPT =
  'Welcome to the workshop. Why do robots need a battery? ' +
  'The motor needs power to turn the wheels. Keep it charged and your robot runs all day!';

let api: TestStack;
let judge: ModelServer;
let scratch: string;
let sourceVideoUrl: string;
let sourceBytes: Buffer;

interface Clip {
  id: string;
  status: string;
  title: string | null;
  duration_seconds: number | null;
  virality_score: number | null;
  thumbnail_url: string | null;
  video_url: string | null;
  aspect_ratio: string | null;
  start_seconds: number;
  end_seconds: number;
  score_features: Record<string, number>;
}

interface Clipping {
  id: string;
  status: string;
  title: string | null;
  progress: number;
  source_duration: number | null;
  input_language: string | null;
  output_settings: { caption_style: string; aspect_ratio: string; duration_types: string[] };
  clips: Clip[];
  failure_code: string | null;
  failure_message: string | null;
  transcript_source: string | null;
  engines: Record<string, string>;
}

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

/** The outcome event of a job, as the events list holds it. */
async function eventOf(type: string, jobId: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const events = await api.call<{ data: { event_type: string; event_data: Record<string, unknown> }[] }>(
      'GET',
      `/v3/webhooks/events?event_type=${type}&entity_id=${jobId}`,
    );
    const event = events.body.data?.[0];
    if (event) return event.event_data;
    if (Date.now() > deadline) throw new Error(`no ${type} event for ${jobId}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function clip(body: Record<string, unknown>, headers: Record<string, string> = {}): Promise<Clipping> {
  const created = await api.call<{ data: Clipping }>('POST', '/v3/ai-clipping', { body, headers });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.data;
}

const credits = async () => (await getWorkspace(api.workspaceId, true))?.remaining_credits as number;

/** The frame of a video at `seconds`, as raw RGB. */
async function frameAt(video: string, seconds: number) {
  const file = join(scratch, `frame-${seconds}-${Math.random().toString(36).slice(2)}.png`);
  const command = ffmpegPath();
  await ensureExecutable(command);
  await runProcess(
    command,
    ['-loglevel', 'error', '-y', '-ss', String(seconds), '-i', video, '-frames:v', '1', file],
    { timeoutMs: 30_000 },
  );
  const { data, info } = await sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
  return { data, width: info.width, height: info.height };
}

beforeAll(async () => {
  // A language model stand-in judges the candidates: it likes the ones about batteries, and titles them.
  judge = await startModelServer((request) => {
    const body = JSON.parse(request.body.toString('utf8')) as {
      messages: { role: string; content: string }[];
    };
    const user = body.messages.find((message) => message.role === 'user')?.content ?? '{}';
    const { candidates } = JSON.parse(user) as { candidates: { index: number; transcript: string }[] };
    const clips = candidates.map(({ index, transcript }) => ({
      index,
      score: /battery/.test(transcript) ? 95 : 10,
      title: `Judge: ${transcript.split(' ').slice(0, 3).join(' ')}`,
    }));
    return { json: { choices: [{ message: { role: 'assistant', content: JSON.stringify({ clips }) } }] } };
  });
  api = await startTestStack({
    engines: 'reference',
    stepFunctionsTimeScale: 0.001,
    environment: {
      TEXT_GENERATION_ENGINE: 'openai',
      TEXT_GENERATION_BASE_URL: judge.baseUrl,
      MODEL_HOSTS_ALLOW_PRIVATE: 'true',
    },
  });
  scratch = await mkdtemp(join(tmpdir(), 'ai-clipping-test-'));
  // Events are recorded for a workspace with an endpoint that wants them.
  const endpoint = await api.call('POST', '/v3/webhooks/endpoints', {
    body: { url: 'https://hooks.example.com/clips', events: ['ai_clipping.success', 'ai_clipping.fail'] },
  });
  expect(endpoint.status).toBe(201);
  const created = await api.call<{ data: { video_id: string } }>('POST', '/v3/videos', {
    body: {
      type: 'avatar',
      avatar_id: STOCK_LOOKS[0]?.id,
      voice_id: 'en-us-olivia',
      script: SCRIPT,
      resolution: '720p',
      title: 'Robot workshop',
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const video = await waitFor<{ status: string; video_url: string }>(
    `/v3/videos/${created.body.data.video_id}`,
  );
  expect(video.status).toBe('completed');
  sourceVideoUrl = video.video_url;
  sourceBytes = Buffer.from(await (await fetch(sourceVideoUrl)).arrayBuffer());
}, 120_000);

afterAll(async () => {
  await api?.stop();
  await judge?.close();
  await rm(scratch, { recursive: true, force: true });
});

describe('AI clipping', () => {
  it('cuts a video made here into portrait clips that follow the face, captioned, scored and titled', async () => {
    const before = await credits();
    const created = await clip({
      video: { type: 'url', url: sourceVideoUrl },
      output_settings: {
        aspect_ratio: 'portrait',
        caption_style: 'tag_yellow',
        duration_types: ['30'],
        prompt: 'robot battery power',
      },
      callback_id: 'job-1',
    });
    expect(created).toMatchObject({ status: 'pending', title: 'Robot workshop', progress: 0, clips: [] });
    const done = await waitFor<Clipping>(`/v3/ai-clipping/${created.id}`);
    expect(done.failure_message).toBeNull();
    expect(done).toMatchObject({
      status: 'completed',
      progress: 100,
      transcript_source: 'stored_script',
      input_language: 'en-US',
    });
    expect(done.engines).toMatchObject({
      recognition: 'known_transcript',
      composition: 'ffmpeg',
      judge: 'openai',
    });
    expect(done.engines.reframing).toMatch(/^face_landmarks \(a face in \d+ of \d+ sampled frames\)/);
    expect(done.source_duration).toBeGreaterThan(6);
    expect(done.clips.length).toBeGreaterThan(0);

    // Best first, each within 5-30 s, whole sentences, not overlapping.
    const scores = done.clips.map((item) => item.virality_score as number);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    for (const item of done.clips) {
      expect(item).toMatchObject({ status: 'completed', aspect_ratio: 'portrait' });
      expect(item.duration_seconds).toBeGreaterThanOrEqual(4.9);
      expect(item.duration_seconds).toBeLessThanOrEqual(30.1);
      expect(item.title?.length).toBeGreaterThan(0);
      expect(Object.keys(item.score_features).sort()).toEqual(
        ['completeness', 'energy', 'hook', 'pace', 'relevance', 'sentiment'].sort(),
      );
    }
    const sorted = [...done.clips].sort((a, b) => a.start_seconds - b.start_seconds);
    for (let index = 1; index < sorted.length; index++)
      expect(sorted[index]?.start_seconds).toBeGreaterThanOrEqual(sorted[index - 1]?.end_seconds ?? 0);

    // The judge's favourite is the best clip: about batteries, its title the judge's.
    const best = done.clips[0] as Clip;
    expect(judge.requests.length).toBeGreaterThan(0);
    expect(best.title).toMatch(/^Judge: /);
    expect(best.virality_score).toBeGreaterThanOrEqual(48);

    // The best clip plays: 9:16 H.264 + AAC, its thumbnail a JPEG.
    const video = join(scratch, 'best.mp4');
    await writeFile(video, Buffer.from(await (await fetch(best.video_url as string)).arrayBuffer()));
    const probe = await probeMedia(video);
    const picture = probe.streams.find((stream) => stream.type === 'video');
    expect(probe.streams.map((stream) => stream.type).sort()).toEqual(['audio', 'video']);
    expect((picture?.width ?? 0) / (picture?.height ?? 1)).toBeCloseTo(9 / 16, 1);
    const thumbnail = Buffer.from(await (await fetch(best.thumbnail_url as string)).arrayBuffer());
    expect(thumbnail.subarray(0, 3)).toEqual(Buffer.from([0xff, 0xd8, 0xff]));

    // The presenter's face is in the portrait window, and the yellow caption tag sits in its lower part.
    // Two moments of the clip; captions show while words are said (not in the pause between sentences).
    const frames = await Promise.all([1, 3].map((seconds) => frameAt(video, seconds)));
    const yellowOf = (frame: Awaited<ReturnType<typeof frameAt>>) => {
      let top = 0;
      let bottom = 0;
      for (let y = 0; y < frame.height; y++)
        for (let x = 0; x < frame.width; x++) {
          const offset = (y * frame.width + x) * 3;
          const [r, g, b] = [
            frame.data[offset] ?? 0,
            frame.data[offset + 1] ?? 0,
            frame.data[offset + 2] ?? 0,
          ];
          if (r > 200 && g > 170 && b < 80) {
            if (y < frame.height / 2) top++;
            else bottom++;
          }
        }
      return { top, bottom };
    };
    const [yellowTop, yellowBottom] = frames
      .map(yellowOf)
      .sort((a, b) => b.bottom - a.bottom)
      .map(({ top, bottom }) => [top, bottom])[0] as [number, number];
    const frame = frames[0] as Awaited<ReturnType<typeof frameAt>>;
    const faces = await findFaces({
      data: frame.data,
      width: frame.width,
      height: frame.height,
      channels: 3,
    });
    expect(faces.length).toBeGreaterThan(0);
    const face = faces[0]?.box as { x: number; width: number };
    const centre = (face.x + face.width / 2) / frame.width;
    expect(centre).toBeGreaterThan(0.25);
    expect(centre).toBeLessThan(0.75);
    expect(yellowBottom).toBeGreaterThan(500);
    expect(yellowTop).toBeLessThan(yellowBottom / 10);

    // The webhook carries the job as GET answers it.
    const event = await eventOf('ai_clipping.success', created.id);
    expect(event).toMatchObject({ id: created.id, status: 'completed', callback_id: 'job-1' });
    expect((event.clips as Clip[]).map((item) => item.id)).toEqual(done.clips.map((item) => item.id));

    // One credit: the source is under a minute, whatever the number of clips.
    // The charge and the refund land a moment after the status (docs/architecture.md, "Jobs").
    await expect.poll(async () => before - (await credits())).toBe(1);
    const list = await api.call<{ data: Clipping[] }>('GET', '/v3/ai-clipping?limit=100');
    expect(list.body.data.find((item) => item.id === created.id)).toMatchObject({ progress: 100 });
  });

  it('fails a video it would have to hear when no speech recognition is configured, charging nothing', async () => {
    const before = await credits();
    const created = await clip({
      video: { type: 'base64', media_type: 'video/mp4', data: sourceBytes.toString('base64') },
      title: 'Uploaded',
    });
    const done = await waitFor<Clipping>(`/v3/ai-clipping/${created.id}`);
    expect(done).toMatchObject({ status: 'failed', failure_code: 'engine_unavailable', clips: [] });
    expect(done.failure_message).toMatch(/SPEECH_RECOGNITION_ENGINE/);
    await expect.poll(credits).toBe(before);
    expect(await eventOf('ai_clipping.fail', created.id)).toMatchObject({
      id: created.id,
      status: 'failed',
      failure_code: 'engine_unavailable',
    });
  });

  it('fails with no_clips when no run of whole sentences fits the durations asked for, refunded', async () => {
    const before = await credits();
    const created = await clip({
      video: { type: 'url', url: sourceVideoUrl },
      output_settings: { duration_types: ['60', '180'] },
    });
    const done = await waitFor<Clipping>(`/v3/ai-clipping/${created.id}`);
    expect(done).toMatchObject({ status: 'failed', failure_code: 'no_clips' });
    expect(done.failure_message).toMatch(/30–60 s \(60\), 60–180 s \(180\)/);
    await expect.poll(credits).toBe(before);
  });

  it.each([
    [{ output_settings: { aspect_ratio: 'wide' } }, 'output_settings.aspect_ratio'],
    [{ output_settings: { duration_types: ['45'] } }, 'output_settings.duration_types[0]'],
    [{ output_settings: { duration_types: ['30', '30'] } }, 'output_settings.duration_types[1]'],
    [{ output_settings: { duration_types: [] } }, 'output_settings.duration_types'],
    [{ output_settings: { prompt: 'x'.repeat(501) } }, 'output_settings.prompt'],
    [{ output_settings: { captions: 'yes' } }, 'output_settings.captions'],
    [{ input_language: 'English!' }, 'input_language'],
    [{ video: { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' } }, 'video.data'],
    [{ video: undefined }, 'video'],
    [{ surprise: true }, 'surprise'],
  ])('refuses %j naming %s, creating nothing', async (fields, param) => {
    const before = await api.call<{ data: Clipping[] }>('GET', '/v3/ai-clipping?limit=100');
    const result = await api.call('POST', '/v3/ai-clipping', {
      body: { video: { type: 'url', url: sourceVideoUrl }, ...fields },
    });
    expect(result.status, JSON.stringify(result.body)).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
    const after = await api.call<{ data: Clipping[] }>('GET', '/v3/ai-clipping?limit=100');
    expect(after.body.data.length).toBe(before.body.data.length);
  });

  it('replays a create with the same Idempotency-Key, falls back to the default caption style, and deletes within the workspace only', async () => {
    const body = {
      video: { type: 'url', url: sourceVideoUrl },
      output_settings: { caption_style: 'comic_sans', duration_types: ['30'] },
    };
    const first = await clip(body, { 'Idempotency-Key': 'clip-once-1' });
    const again = await clip(body, { 'Idempotency-Key': 'clip-once-1' });
    expect(again.id).toBe(first.id);
    expect(first.output_settings.caption_style).toBe('outline_classic');

    const other = await api.newWorkspace();
    for (const method of ['GET', 'DELETE'] as const) {
      const result = await api.call(method, `/v3/ai-clipping/${first.id}`, { key: other.apiKey });
      expect(result.status).toBe(404);
      expect(errorOf(result)).toMatchObject({ code: 'not_found', param: 'job_id' });
    }
    const theirs = await api.call<{ data: Clipping[] }>('GET', '/v3/ai-clipping', { key: other.apiKey });
    expect(theirs.body.data).toEqual([]);

    const before = await credits();
    const deleted = await api.call('DELETE', `/v3/ai-clipping/${first.id}`);
    expect(deleted.body).toEqual({ data: { id: first.id } });
    expect((await api.call('GET', `/v3/ai-clipping/${first.id}`)).status).toBe(404);
    expect((await api.call('DELETE', `/v3/ai-clipping/${first.id}`)).status).toBe(404);
    const listed = await api.call<{ data: Clipping[] }>('GET', '/v3/ai-clipping?limit=100');
    expect(listed.body.data.map((job) => job.id)).not.toContain(first.id);
    // A soft delete, as the reference's: the record stays, marked, and its clips are gone.
    const kept = await clippingRecords.get(api.workspaceId, first.id, true);
    expect(kept).toBeUndefined();
    const stored = await getItem<{ pk: string; sk: string; status: string }>(
      clippingRecords.key(api.workspaceId, first.id),
      true,
    );
    expect(stored).toMatchObject({ status: 'deleted', deleted_at: expect.any(Number) });
    await expect
      .poll(() => listMediaKeys(`workspaces/${api.workspaceId}/ai-clipping/${first.id}/`))
      .toEqual([]);
    // Deleted while it ran, its reservation (one credit: the source is under a minute) came back with
    // the delete; if it had already ended, its charge stays. Never more than that.
    expect(await credits()).toBeOneOf([before, before + 1]);
  });

  it('answers 404 for ids that name nothing, and asks for the ai_clipping scopes', async () => {
    for (const method of ['GET', 'DELETE'] as const) {
      const result = await api.call(method, `/v3/ai-clipping/${'f'.repeat(32)}`);
      expect(result.status).toBe(404);
      expect(errorOf(result).code).toBe('not_found');
    }
    const reader = await api.newKey(api.workspaceId, 'custom', ['ai_clipping:read']);
    expect((await api.call('GET', '/v3/ai-clipping', { key: reader })).status).toBe(200);
    const write = await api.call('POST', '/v3/ai-clipping', {
      key: reader,
      body: { video: { type: 'url', url: sourceVideoUrl } },
    });
    expect(write.status).toBe(403);
    expect(errorOf(write).code).toBe('insufficient_api_key_scope');
    const none = await api.newKey(api.workspaceId, 'custom', ['videos:read']);
    expect((await api.call('GET', '/v3/ai-clipping', { key: none })).status).toBe(403);
  });
});
