/**
 * The video agent over HTTP, with the engines' test doubles (speech, composition) and no text engine
 * configured, so the deterministic local planner writes the plans: sessions in both modes, follow-ups
 * and edit plans (only the edited scenes spoken again), stop, resources, drafts, styles, events,
 * validation, scopes and tenant isolation. The real render of an agent's video is in
 * video-agent-render.test.ts.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STYLE_PREVIEW } from '../../lambdas/catalog/catalog-media.js';
import { probeMedia } from '../../lambdas/engines/composition/index.js';
import { getVideo } from '../../lambdas/videos/videos.js';
import type { EventBusEvent } from '../../lib/local/emulators/index.js';
import { eventCapture } from '../support/event-capture.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

const capture = eventCapture();

interface Message {
  role: string;
  type: string;
  content: string;
  resource_ids: string[];
}

interface Session {
  session_id: string;
  status: string;
  progress: number;
  title?: string;
  video_id?: string;
  mode: string;
  messages: Message[];
  failure_code: string | null;
  failure_message: string | null;
  engines: Record<string, string>;
}

interface Scenes {
  video_id: string;
  edit_version: string;
  scenes: { id: string; script: { text: string }[] }[];
}

const SOLAR = 'a 45-second explainer about how solar panels work, friendly tone';

let api: TestStack;

async function waitFor(sessionId: string, statuses: string[], key?: string): Promise<Session> {
  const deadline = Date.now() + 60_000;
  for (;;) {
    const result = await api.call<{ data: Session }>(
      'GET',
      `/v3/video-agents/${sessionId}`,
      key ? { key } : {},
    );
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    console.log(Date.now() % 100000, result.body.data.status, result.body.data.progress);
    if (statuses.includes(result.body.data.status)) return result.body.data;
    if (Date.now() > deadline) throw new Error(`session still ${result.body.data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function create(
  body: Record<string, unknown>,
  options: { key?: string; headers?: Record<string, string> } = {},
) {
  const created = await api.call<{ data: { session_id: string; status: string; created_at: number } }>(
    'POST',
    '/v3/video-agents',
    { body, ...options },
  );
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.data;
}

const eventsOf = (sessionId: string): EventBusEvent[] =>
  capture.events.filter((event) => (event.detail as { entity_id?: string }).entity_id === sessionId);

beforeAll(async () => {
  api = await startTestStack({ stepFunctionsTimeScale: 0.001, ...capture.stackOptions });
  await capture.subscribe(api, { 'detail-type': ['video_agent.success', 'video_agent.fail'] });
});

afterAll(async () => {
  await api?.stop();
});

describe('generate mode', () => {
  it('turns a one-line prompt into a finished multi-scene video through the video pipeline', async () => {
    const created = await create({ prompt: SOLAR });
    expect(created.status).toBe('thinking');
    const done = await waitFor(created.session_id, ['completed', 'failed']);
    expect(done.failure_message).toBeNull();
    expect(done.status).toBe('completed');
    expect(done.progress).toBe(100);
    expect(done.title).toBe('How Solar Panels Work');
    expect(done.engines.planner).toBe('local');
    expect(done.messages[0]).toMatchObject({ role: 'user', type: 'text', content: SOLAR });
    const plan = done.messages.find((message) => message.content.startsWith('Here is my plan'));
    expect(plan?.content).toMatch(/6 scenes/);
    const videoId = done.video_id as string;
    const video = await api.call<{ data: { status: string; duration: number; subtitle_url: string } }>(
      'GET',
      `/v3/videos/${videoId}`,
    );
    expect(video.body.data.status).toBe('completed');
    expect(video.body.data.subtitle_url).toEqual(expect.any(String));
    const scenes = await api.call<{ data: Scenes }>('GET', `/v3/videos/${videoId}/scenes`);
    expect(scenes.body.data.scenes.map((scene) => scene.id)).toEqual([
      'scene_1',
      'scene_2',
      'scene_3',
      'scene_4',
      'scene_5',
      'scene_6',
    ]);
    expect(scenes.body.data.scenes[0]?.script[0]?.text).toMatch(/how solar panels work/);
    // The event, once, with the session and its video.
    await expect.poll(() => eventsOf(created.session_id).length).toBe(1);
    const event = eventsOf(created.session_id)[0] as EventBusEvent;
    expect(event['detail-type']).toBe('video_agent.success');
    expect((event.detail as { event_data: Record<string, unknown> }).event_data).toMatchObject({
      session_id: created.session_id,
      video_id: videoId,
      status: 'completed',
      url: expect.any(String),
    });
  });
});

describe('chat mode', () => {
  it('plans, waits for input, plans again with changes, and renders on the go-ahead', async () => {
    const created = await create({ prompt: 'a 20-second explainer about how bees make honey', mode: 'chat' });
    const waiting = await waitFor(created.session_id, ['waiting_for_input', 'failed']);
    expect(waiting.status).toBe('waiting_for_input');
    expect(waiting.video_id).toBeUndefined();
    expect(waiting.messages.at(-1)?.content).toMatch(/Reply "go"/);
    const planMessage = waiting.messages.find((message) => message.type === 'resource');
    expect(planMessage?.resource_ids).toHaveLength(2);
    expect(eventsOf(created.session_id)).toHaveLength(0);

    // A change: planned again from the conversation, still waiting.
    const changed = await api.call<{ data: { run_id: string; session_id: string; status: string } }>(
      'POST',
      `/v3/video-agents/${created.session_id}`,
      {
        body: {
          message:
            'Bees collect nectar from flowers. They store it in wax cells and fan it with their wings.',
        },
      },
    );
    expect(changed.status, JSON.stringify(changed.body)).toBe(200);
    expect(changed.body.data).toMatchObject({ session_id: created.session_id, run_id: expect.any(String) });
    const replanned = await waitFor(created.session_id, ['waiting_for_input', 'failed']);
    const plans = replanned.messages.filter((message) => message.content.startsWith('Here is my plan'));
    expect(plans).toHaveLength(2);
    expect(plans[1]?.content).toMatch(/wax cells/);

    // The go-ahead renders the plan that was shown.
    const go = await api.call('POST', `/v3/video-agents/${created.session_id}`, { body: { message: 'go' } });
    expect(go.status).toBe(200);
    const done = await waitFor(created.session_id, ['completed', 'failed']);
    expect(done.status).toBe('completed');
    const scenes = await api.call<{ data: Scenes }>('GET', `/v3/videos/${done.video_id}/scenes`);
    expect(JSON.stringify(scenes.body.data.scenes)).toMatch(/wax cells/);
  });
});

describe('edit plans', () => {
  let sessionId: string;
  let firstDraft: string;

  beforeAll(async () => {
    sessionId = (await create({ prompt: 'a 30-second explainer about how tides work' })).session_id;
    firstDraft = (await waitFor(sessionId, ['completed', 'failed'])).video_id as string;
  });

  it('makes a new draft in which only the edited scenes are spoken again', async () => {
    const read = await api.call<{ data: Scenes }>('GET', `/v3/videos/${firstDraft}/scenes`);
    const ids = read.body.data.scenes.map((scene) => scene.id);
    expect(ids.length).toBeGreaterThanOrEqual(3);
    const sent = await api.call<{ data: { run_id: string; video_id: string; status: string } }>(
      'POST',
      `/v3/video-agents/${sessionId}`,
      {
        body: {
          edit_plan: [
            {
              scene_id: 'scene_2',
              text: 'The moon pulls the oceans toward it, and the water bulges.',
              scene_snapshot_video_id: firstDraft,
              edit_version: read.body.data.edit_version,
            },
          ],
        },
      },
    );
    expect(sent.status, JSON.stringify(sent.body)).toBe(200);
    const draft = sent.body.data.video_id;
    expect(draft).not.toBe(firstDraft);
    const done = await waitFor(sessionId, ['completed', 'failed']);
    expect(done.status).toBe('completed');
    expect(done.video_id).toBe(draft);
    const after = await api.call<{ data: Scenes }>('GET', `/v3/videos/${draft}/scenes`);
    const texts = after.body.data.scenes.map((scene) => scene.script[0]?.text);
    const before = read.body.data.scenes.map((scene) => scene.script[0]?.text);
    expect(texts[1]).toBe('The moon pulls the oceans toward it, and the water bulges.');
    expect(texts.filter((_, index) => index !== 1)).toEqual(before.filter((_, index) => index !== 1));
    // Every other scene's speech was copied from the first draft, not spoken again.
    const record = await getVideo(api.workspaceId, draft);
    expect(record?.reused_speech).toEqual(ids.filter((id) => id !== 'scene_2'));
    expect(done.messages.at(-1)?.content).toMatch(/Spoken again: scene_2; reused from the previous draft/);
    // Both drafts, newest first.
    const drafts = await api.call<{ data: { id: string }[] }>('GET', `/v3/video-agents/${sessionId}/videos`);
    expect(drafts.body.data.map((video) => video.id)).toEqual([draft, firstDraft]);
    const page = await api.call<{ data: { id: string }[]; next_token: string }>(
      'GET',
      `/v3/video-agents/${sessionId}/videos?limit=1`,
    );
    expect(page.body.data.map((video) => video.id)).toEqual([draft]);
    const next = await api.call<{ data: { id: string }[]; has_more: boolean }>(
      'GET',
      `/v3/video-agents/${sessionId}/videos?limit=1&token=${encodeURIComponent(page.body.next_token)}`,
    );
    expect(next.body.data.map((video) => video.id)).toEqual([firstDraft]);
    expect(next.body.has_more).toBe(false);
  });

  it('refuses a scene outside the snapshot (400) and a changed snapshot (409 stale_edit_version)', async () => {
    const session = await waitFor(sessionId, ['completed', 'failed']);
    const latest = session.video_id as string;
    const edit = (item: Record<string, unknown>) =>
      api.call('POST', `/v3/video-agents/${sessionId}`, {
        body: {
          edit_plan: [
            {
              scene_id: 'scene_1',
              text: 'Hello.',
              scene_snapshot_video_id: latest,
              edit_version: '1',
              ...item,
            },
          ],
        },
      });
    const outside = await edit({ scene_id: 'scene_99' });
    expect(outside.status).toBe(400);
    expect(errorOf(outside)).toMatchObject({ code: 'invalid_parameter', param: 'edit_plan[0].scene_id' });
    const stale = await edit({ scene_snapshot_video_id: firstDraft });
    expect(stale.status).toBe(409);
    expect(errorOf(stale)).toMatchObject({ code: 'stale_edit_version' });
    const version = await edit({ edit_version: '2' });
    expect(version.status).toBe(409);
    expect(errorOf(version).code).toBe('stale_edit_version');
    const foreign = await edit({ scene_snapshot_video_id: '0123456789abcdef0123456789abcdef' });
    expect(foreign.status).toBe(400);
    expect(errorOf(foreign).param).toBe('edit_plan[0].scene_snapshot_video_id');
    // Nothing was written: the session is as it was.
    const unchanged = await waitFor(sessionId, ['completed', 'failed']);
    expect(unchanged.video_id).toBe(latest);
    expect(unchanged.messages).toEqual(session.messages);
  });
});

describe('stop, resources, list', () => {
  it('stops a run while its draft renders; the session keeps what it had and waits for input', async () => {
    const created = await create({ prompt: 'a 20-second explainer about how rainbows form' });
    await waitFor(created.session_id, ['generating', 'completed', 'failed']);
    const stopped = await api.call<{ data: { session_id: string; status: string } }>(
      'POST',
      `/v3/video-agents/${created.session_id}/stop`,
    );
    expect(stopped.status).toBe(200);
    expect(stopped.body.data).toEqual({ session_id: created.session_id, status: 'waiting_for_input' });
    const session = await waitFor(created.session_id, ['waiting_for_input']);
    expect(session.messages.at(-1)?.content).toMatch(/^Stopped at your request/);
    // The draft already handed to the renderer finishes on its own; the stopped run does not end the session.
    const draft = session.video_id as string;
    await expect
      .poll(
        async () =>
          (await api.call<{ data: { status: string } }>('GET', `/v3/videos/${draft}`)).body.data.status,
        {
          timeout: 30_000,
        },
      )
      .toBe('completed');
    await new Promise((resolve) => setTimeout(resolve, 200));
    expect((await waitFor(created.session_id, ['waiting_for_input'])).status).toBe('waiting_for_input');
    expect(eventsOf(created.session_id)).toHaveLength(0);
    // Stopping again changes nothing.
    const again = await api.call<{ data: { status: string } }>(
      'POST',
      `/v3/video-agents/${created.session_id}/stop`,
    );
    expect(again.body.data.status).toBe('waiting_for_input');
  });

  it('serves the plan, the script, uploaded text and drafts as resources', async () => {
    const text = 'Volcanoes form where magma rises through the crust. Eruptions build mountains over time.';
    const created = await create({
      prompt: 'a 20-second explainer about volcanoes',
      files: [{ type: 'base64', media_type: 'text/plain', data: Buffer.from(text).toString('base64') }],
    });
    const done = await waitFor(created.session_id, ['completed', 'failed']);
    expect(done.status).toBe('completed');
    const ids = [...new Set(done.messages.flatMap((message) => message.resource_ids))];
    const resources = await Promise.all(
      ids.map(async (id) => {
        const result = await api.call<{
          data: { resource_type: string; source_type: string; url: string | null };
        }>('GET', `/v3/video-agents/${created.session_id}/resources/${id}`);
        expect(result.status).toBe(200);
        return result.body.data;
      }),
    );
    expect(resources.map((resource) => resource.resource_type).sort()).toEqual([
      'draft',
      'file',
      'plan',
      'script',
    ]);
    const plan = resources.find((resource) => resource.resource_type === 'plan');
    const planJson = (await (await fetch(plan?.url as string)).json()) as { scenes: { narration: string }[] };
    expect(JSON.stringify(planJson.scenes)).toMatch(/magma rises/);
    const file = resources.find((resource) => resource.resource_type === 'file');
    expect(file?.source_type).toBe('user');
    expect(await (await fetch(file?.url as string)).text()).toBe(text);
    const missing = await api.call(
      'GET',
      `/v3/video-agents/${created.session_id}/resources/0123456789abcdef0123456789abcdef`,
    );
    expect(missing.status).toBe(404);
    expect(errorOf(missing)).toMatchObject({ code: 'resource_not_found', param: 'resource_id' });
  });

  it('lists sessions newest first, without incognito ones, with pagination', async () => {
    const { apiKey } = await api.newWorkspace();
    const first = await create(
      { prompt: 'a 10-second explainer about clouds', mode: 'chat' },
      { key: apiKey },
    );
    const hidden = await create(
      { prompt: 'a 10-second explainer about fog', mode: 'chat', incognito_mode: true },
      { key: apiKey },
    );
    const second = await create(
      { prompt: 'a 10-second explainer about rain', mode: 'chat' },
      { key: apiKey },
    );
    const all = await api.call<{ data: { session_id: string }[] }>('GET', '/v3/video-agents', {
      key: apiKey,
    });
    expect(all.body.data.map((session) => session.session_id)).toEqual([second.session_id, first.session_id]);
    const page = await api.call<{ data: { session_id: string }[]; next_token: string; has_more: boolean }>(
      'GET',
      '/v3/video-agents?limit=1',
      { key: apiKey },
    );
    expect(page.body.data.map((session) => session.session_id)).toEqual([second.session_id]);
    expect(page.body.has_more).toBe(true);
    const next = await api.call<{ data: { session_id: string }[] }>(
      'GET',
      `/v3/video-agents?limit=1&token=${encodeURIComponent(page.body.next_token)}`,
      { key: apiKey },
    );
    expect(next.body.data.map((session) => session.session_id)).toEqual([first.session_id]);
    // The incognito session is still readable by id.
    expect((await api.call('GET', `/v3/video-agents/${hidden.session_id}`, { key: apiKey })).status).toBe(
      200,
    );
    const badToken = await api.call('GET', '/v3/video-agents?token=nonsense', { key: apiKey });
    expect(badToken.status).toBe(400);
    expect(errorOf(badToken).param).toBe('token');
    const badLimit = await api.call('GET', '/v3/video-agents?limit=0', { key: apiKey });
    expect(errorOf(badLimit)).toMatchObject({ code: 'invalid_parameter', param: 'limit' });
  });
});

describe('styles', () => {
  it('answers a preview video of each style it lists: an MP4 of the style, with sound', async () => {
    const cinematic = await api.call<{ data: { style_id: string; preview_video_url: string }[] }>(
      'GET',
      '/v3/video-agents/styles?tag=cinematic',
    );
    expect(cinematic.status).toBe(200);
    const [noir] = cinematic.body.data.filter((style) => style.style_id === 'noir-cinema');
    if (!noir) throw new Error('noir-cinema is not listed');
    const download = await fetch(noir.preview_video_url);
    expect(download.status).toBe(200);
    expect(download.headers.get('content-type')).toBe('video/mp4');
    const scratch = await mkdtemp(join(tmpdir(), 'style-preview-'));
    try {
      const file = join(scratch, 'noir-cinema.mp4');
      await writeFile(file, Buffer.from(await download.arrayBuffer()));
      const info = await probeMedia(file);
      expect(info.durationSeconds).toBeCloseTo(
        STYLE_PREVIEW.cardSeconds.reduce((total, seconds) => total + seconds, 0),
        1,
      );
      expect(info.streams.find((stream) => stream.type === 'video')).toMatchObject({
        codec: 'h264',
        width: STYLE_PREVIEW.width,
        height: STYLE_PREVIEW.height,
      });
      expect(info.streams.find((stream) => stream.type === 'audio')).toMatchObject({ codec: 'aac' });
    } finally {
      await rm(scratch, { recursive: true, force: true });
    }
  });

  it('lists at least 12 styles with rendered thumbnails, filtered by tag, paginated', async () => {
    const all = await api.call<{
      data: {
        style_id: string;
        tags: string[];
        thumbnail_url: string;
        preview_video_url: string;
        transition: { kind: string; duration_ms: number };
      }[];
    }>('GET', '/v3/video-agents/styles?limit=100');
    expect(all.status).toBe(200);
    expect(all.body.data.length).toBeGreaterThanOrEqual(12);
    // Each joins its scenes by a transition of its own, under a second long; the cinematic ones dissolve
    // or dip to black.
    for (const style of all.body.data) {
      expect(style.transition.kind, style.style_id).not.toBe('cut');
      expect(style.transition.duration_ms, style.style_id).toBeGreaterThanOrEqual(300);
      expect(style.transition.duration_ms, style.style_id).toBeLessThanOrEqual(1000);
      if (style.tags.includes('cinematic')) expect(['fade', 'fadeblack']).toContain(style.transition.kind);
    }
    expect(new Set(all.body.data.map((style) => style.transition.kind)).size).toBeGreaterThanOrEqual(5);
    for (const tag of ['cinematic', 'retro-tech', 'iconic-artist', 'pop-culture', 'handmade', 'print'])
      expect(
        all.body.data.some((style) => style.tags.includes(tag)),
        tag,
      ).toBe(true);
    for (const style of all.body.data) expect(style.preview_video_url, style.style_id).toMatch(/^https?:/);
    const thumbnail = await fetch(all.body.data[0]?.thumbnail_url as string);
    expect(thumbnail.status).toBe(200);
    const bytes = Buffer.from(await thumbnail.arrayBuffer());
    expect(bytes.subarray(1, 4).toString()).toBe('PNG');
    const cinematic = await api.call<{ data: { style_id: string; tags: string[] }[] }>(
      'GET',
      '/v3/video-agents/styles?tag=cinematic',
    );
    expect(cinematic.body.data.length).toBeGreaterThanOrEqual(2);
    for (const style of cinematic.body.data) expect(style.tags).toContain('cinematic');
    const first = await api.call<{ data: { style_id: string }[]; next_token: string }>(
      'GET',
      '/v3/video-agents/styles?limit=5',
    );
    const second = await api.call<{ data: { style_id: string }[] }>(
      'GET',
      `/v3/video-agents/styles?limit=5&token=${encodeURIComponent(first.body.next_token)}`,
    );
    expect(second.body.data.map((style) => style.style_id)).toEqual(
      all.body.data.slice(5, 10).map((style) => style.style_id),
    );
    // A token of another list (another tag) is refused.
    const crossed = await api.call(
      'GET',
      `/v3/video-agents/styles?tag=print&token=${encodeURIComponent(first.body.next_token)}`,
    );
    expect(errorOf(crossed)).toMatchObject({ code: 'invalid_parameter', param: 'token' });
    const none = await api.call<{ data: unknown[] }>('GET', '/v3/video-agents/styles?tag=nothing-like-this');
    expect(none.body.data).toEqual([]);
  });
});

describe('validation, idempotency, scopes, tenants', () => {
  it('names the bad field of a create and writes nothing', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'prompt'],
      [{ prompt: '   ' }, 'prompt'],
      [{ prompt: 'x', mode: 'auto' }, 'mode'],
      [{ prompt: 'x', orientation: 'square' }, 'orientation'],
      [{ prompt: 'x', style_id: 'no-such-style' }, 'style_id'],
      [
        {
          prompt: 'x',
          files: Array.from({ length: 21 }, () => ({ type: 'url', url: 'https://example.com/a.png' })),
        },
        'files',
      ],
      [{ prompt: 'x', files: [{ type: 'ftp', url: 'x' }] }, 'files[0].type'],
      [{ prompt: 'x', files: [{ type: 'base64', media_type: 'text/plain', data: '%%%' }] }, 'files[0].data'],
      [{ prompt: 'x', incognito_mode: 'yes' }, 'incognito_mode'],
      [{ prompt: 'x', callback_url: 'http://127.0.0.1/hook' }, 'callback_url'],
      [{ prompt: 'x', colour: 'red' }, 'colour'],
    ];
    const { apiKey } = await api.newWorkspace();
    for (const [body, param] of cases) {
      const result = await api.call('POST', '/v3/video-agents', { body, key: apiKey });
      expect(result.status, JSON.stringify(body)).toBe(400);
      expect(errorOf(result), JSON.stringify(body)).toMatchObject({ code: 'invalid_parameter', param });
    }
    const unknownAvatar = await api.call('POST', '/v3/video-agents', {
      body: { prompt: 'x', avatar_id: 'nobody' },
      key: apiKey,
    });
    expect(unknownAvatar.status).toBe(404);
    expect(errorOf(unknownAvatar).param).toBe('avatar_id');
    const unknownVoice = await api.call('POST', '/v3/video-agents', {
      body: { prompt: 'x', voice_id: 'nobody' },
      key: apiKey,
    });
    expect(errorOf(unknownVoice)).toMatchObject({ code: 'voice_not_found', param: 'voice_id' });
    const list = await api.call<{ data: unknown[] }>('GET', '/v3/video-agents', { key: apiKey });
    expect(list.body.data).toEqual([]);
  });

  it('names the bad field of a follow-up; a working session takes it', async () => {
    const created = await create({ prompt: 'a 10-second explainer about snow', mode: 'chat' });
    await waitFor(created.session_id, ['waiting_for_input']);
    const empty = await api.call('POST', `/v3/video-agents/${created.session_id}`, { body: {} });
    expect(errorOf(empty)).toMatchObject({ code: 'invalid_parameter', param: 'message' });
    const tooMany = await api.call('POST', `/v3/video-agents/${created.session_id}`, {
      body: {
        edit_plan: Array.from({ length: 51 }, () => ({
          scene_id: 'scene_1',
          text: 'x',
          scene_snapshot_video_id: 'v',
          edit_version: '1',
        })),
      },
    });
    expect(errorOf(tooMany).param).toBe('edit_plan');
    const noDraft = await api.call('POST', `/v3/video-agents/${created.session_id}`, {
      body: {
        edit_plan: [{ scene_id: 'scene_1', text: 'x', scene_snapshot_video_id: 'v', edit_version: '1' }],
      },
    });
    expect(errorOf(noDraft)).toMatchObject({
      code: 'invalid_parameter',
      param: 'edit_plan[0].scene_snapshot_video_id',
    });
    await api.call('POST', `/v3/video-agents/${created.session_id}`, { body: { message: 'go' } });
    // Sent while the session works: queued (test/integration/video-agent-queue.test.ts), not refused.
    const busy = await api.call('POST', `/v3/video-agents/${created.session_id}`, {
      body: { message: 'again' },
    });
    expect(busy.status).toBe(200);
    await waitFor(created.session_id, ['completed', 'waiting_for_input', 'failed']);
  });

  it('replays a create with the same Idempotency-Key', async () => {
    const headers = { 'Idempotency-Key': 'agent-once' };
    const first = await create({ prompt: 'a 10-second explainer about wind', mode: 'chat' }, { headers });
    const again = await create({ prompt: 'a 10-second explainer about wind', mode: 'chat' }, { headers });
    expect(again).toEqual(first);
  });

  it('checks scopes and keeps workspaces apart', async () => {
    const created = await create({ prompt: 'a 10-second explainer about ice', mode: 'chat' });
    const reader = await api.newKey(api.workspaceId, 'custom', ['video_agent:read']);
    expect((await api.call('GET', `/v3/video-agents/${created.session_id}`, { key: reader })).status).toBe(
      200,
    );
    expect((await api.call('GET', '/v3/video-agents/styles', { key: reader })).status).toBe(200);
    for (const [method, path, body] of [
      ['POST', '/v3/video-agents', { prompt: 'x' }],
      ['POST', `/v3/video-agents/${created.session_id}`, { message: 'go' }],
      ['POST', `/v3/video-agents/${created.session_id}/stop`, undefined],
    ] as const) {
      const denied = await api.call(method, path, { key: reader, ...(body ? { body } : {}) });
      expect(denied.status, path).toBe(403);
      expect(errorOf(denied).code).toBe('insufficient_api_key_scope');
    }
    const unrelated = await api.newKey(api.workspaceId, 'custom', ['videos:read']);
    expect((await api.call('GET', '/v3/video-agents', { key: unrelated })).status).toBe(403);
    const other = await api.newWorkspace();
    for (const path of [
      `/v3/video-agents/${created.session_id}`,
      `/v3/video-agents/${created.session_id}/videos`,
      `/v3/video-agents/${created.session_id}/resources/${created.session_id}`,
    ]) {
      const hidden = await api.call('GET', path, { key: other.apiKey });
      expect(hidden.status, path).toBe(404);
      expect(errorOf(hidden)).toMatchObject({ code: 'not_found', param: 'session_id' });
    }
    const stop = await api.call('POST', `/v3/video-agents/${created.session_id}/stop`, { key: other.apiKey });
    expect(stop.status).toBe(404);
    const send = await api.call('POST', `/v3/video-agents/${created.session_id}`, {
      key: other.apiKey,
      body: { message: 'go' },
    });
    expect(send.status).toBe(404);
  });
});
