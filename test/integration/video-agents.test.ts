/**
 * The video agent over HTTP, with the engines' test doubles (speech, composition) and no text engine
 * configured, so the deterministic local planner writes the plans: sessions in both modes, follow-ups
 * and edit plans (only the edited scenes spoken again), stop, resources, drafts, styles, events,
 * validation, scopes and tenant isolation. The real render of an agent's video is in
 * video-agent-render.test.ts.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
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
    expect(plan?.content).toMatch(/5 scenes/);
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
