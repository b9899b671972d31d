/**
 * Follow-ups sent while a video agent session works are queued (over HTTP, engines' test doubles, the
 * local planner): each is answered at once with its run id and shown in the conversation, and the runs
 * happen one after the other, in order, after a run that waits for input, completes or fails; a stop discards the queue and says so; the queue is bounded;
 * a queued edit plan whose snapshot went stale fails its run with the reason in the conversation.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { corruptPdf } from '../support/pdf-documents.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

interface Message {
  role: string;
  type: string;
  content: string;
}

interface Session {
  session_id: string;
  status: string;
  video_id?: string;
  messages: Message[];
  failure_code: string | null;
  failure_message: string | null;
}

interface FollowUpAnswer {
  run_id: string;
  session_id: string;
  status: string;
  video_id?: string;
}

const WORKING = ['thinking', 'reviewing', 'generating'];

let api: TestStack;

beforeAll(async () => {
  api = await startTestStack({ stepFunctionsTimeScale: 0.001 });
});

afterAll(async () => {
  await api?.stop();
});

async function session(sessionId: string): Promise<Session> {
  const result = await api.call<{ data: Session }>('GET', `/v3/video-agents/${sessionId}`);
  expect(result.status, JSON.stringify(result.body)).toBe(200);
  return result.body.data;
}

async function waitUntil(sessionId: string, done: (session: Session) => boolean): Promise<Session> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const current = await session(sessionId);
    if (done(current)) return current;
    if (Date.now() > deadline)
      throw new Error(`session still ${current.status}: ${JSON.stringify(current.messages)}`);
    await new Promise((resolve) => setTimeout(resolve, 25));
  }
}

async function create(body: Record<string, unknown>): Promise<string> {
  const created = await api.call<{ data: { session_id: string } }>('POST', '/v3/video-agents', { body });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.data.session_id;
}

const send = (sessionId: string, body: Record<string, unknown>) =>
  api.call<{ data: FollowUpAnswer }>('POST', `/v3/video-agents/${sessionId}`, { body });

async function queue(sessionId: string, message: string): Promise<FollowUpAnswer> {
  const answer = await send(sessionId, { message });
  expect(answer.status, JSON.stringify(answer.body)).toBe(200);
  // Answered while the session works: queued, not started.
  expect(WORKING).toContain(answer.body.data.status);
  return answer.body.data;
}

const indexOf = (messages: Message[], content: string) =>
  messages.findIndex((message) => message.role === 'user' && message.content === content);

describe('follow-ups sent while the session works', () => {
  it('are answered at once, shown in the conversation, and run one after the other, in order', async () => {
    // Chat mode: each run plans and ends waiting for input, which starts the next queued one.
    const sessionId = await create({
      prompt: 'a 20-second explainer about how solar panels work',
      mode: 'chat',
    });
    const first = 'Wind turbines turn moving air into electricity. Their blades spin a generator.';
    const second = 'Offshore wind farms stand at sea. The wind there is stronger and steadier.';
    const one = await queue(sessionId, first);
    const two = await queue(sessionId, second);
    expect(one.session_id).toBe(sessionId);
    expect(one.run_id).not.toBe(two.run_id);
    expect(one.video_id).toBeUndefined();

    // Shown at once, in the order sent, after the conversation so far.
    const queued = await session(sessionId);
    expect(queued.messages.slice(-2).map((message) => [message.role, message.content])).toEqual([
      ['user', first],
      ['user', second],
    ]);

    const isPlan = (message: Message) => message.content.startsWith('Here is my plan');
    const done = await waitUntil(
      sessionId,
      (current) => current.status === 'waiting_for_input' && current.messages.filter(isPlan).length === 3,
    );
    const { messages } = done;
    const plans = messages.flatMap((message, index) => (isPlan(message) ? [index] : []));
    // The first run, then the first follow-up's, then the second's: each planned after its message.
    expect(plans[0]).toBeLessThan(indexOf(messages, first));
    expect(indexOf(messages, first)).toBeLessThan(plans[1] as number);
    expect(plans[1]).toBeLessThan(indexOf(messages, second));
    expect(indexOf(messages, second)).toBeLessThan(plans[2] as number);
    // Each run planned with the messages so far: only the last plan speaks of offshore wind.
    expect(messages[plans[1] as number]?.content).toMatch(/wind/i);
    expect(messages[plans[1] as number]?.content).not.toMatch(/offshore/i);
    expect(messages[plans[2] as number]?.content).toMatch(/offshore/i);
    // Nothing more runs: the queue is empty.
    await new Promise((resolve) => setTimeout(resolve, 500));
    expect((await session(sessionId)).messages).toHaveLength(messages.length);
  });

  it('takes follow-ups sent at the same moment, each once, and runs them all', async () => {
    const sessionId = await create({ prompt: 'a 20-second explainer about how tides work', mode: 'chat' });
    const sent = ['The moon pulls the sea.', 'The sun pulls it too.', 'Spring tides are the highest.'];
    const answers = await Promise.all(sent.map((message) => send(sessionId, { message })));
    expect(answers.map((answer) => answer.status)).toEqual([200, 200, 200]);
    expect(new Set(answers.map((answer) => answer.body.data.run_id)).size).toBe(3);
    const done = await waitUntil(
      sessionId,
      (current) =>
        current.status === 'waiting_for_input' &&
        current.messages.filter((message) => message.content.startsWith('Here is my plan')).length === 4,
    );
    for (const message of sent) {
      expect(
        done.messages.filter((shown) => shown.role === 'user' && shown.content === message),
      ).toHaveLength(1);
    }
  });

  it('keeps at most 5 queued; a stop discards them and says so', async () => {
    const sessionId = await create({ prompt: 'a 20-second explainer about how bees make honey' });
    const sent: string[] = [];
    for (let index = 1; index <= 5; index += 1) {
      sent.push(`Change number ${index}: mention the queen bee.`);
      await queue(sessionId, sent.at(-1) as string);
    }
    const sixth = await send(sessionId, { message: 'One more change.' });
    expect(sixth.status).toBe(409);
    expect(errorOf(sixth)).toMatchObject({ code: 'resource_not_ready', param: 'session_id' });
    expect(errorOf(sixth).message).toMatch(/already has 5 follow-ups queued/);

    const stopped = await api.call<{ data: { status: string } }>(
      'POST',
      `/v3/video-agents/${sessionId}/stop`,
    );
    expect(stopped.status).toBe(200);
    expect(stopped.body.data.status).toBe('waiting_for_input');
    const after = await session(sessionId);
    const note = after.messages.at(-1);
    expect(note).toMatchObject({ role: 'agent', type: 'text' });
    expect(note?.content).toMatch(/^Stopped at your request\./);
    expect(note?.content).toMatch(/I discarded the 5 follow-ups you sent while I worked/);
    // The discarded messages stay in the conversation, before the note.
    expect(after.messages.slice(-6, -1).map((message) => message.content)).toEqual(sent);

    // None of them runs: the session stays as the stop left it.
    await new Promise((resolve) => setTimeout(resolve, 1500));
    const later = await session(sessionId);
    expect(later.status).toBe('waiting_for_input');
    expect(
      later.messages.filter((message) => message.content.startsWith('Here is my plan')).length,
    ).toBeLessThanOrEqual(1);
    expect(later.messages).toHaveLength(after.messages.length);
    // And the session takes a follow-up again, started at once.
    const again = await send(sessionId, { message: 'Now make it.' });
    expect(again.status).toBe(200);
    expect(again.body.data.status).toBe('thinking');
  });

  it('fails a queued edit plan whose snapshot is no longer the latest draft when its turn comes, saying why', async () => {
    const sessionId = await create({ prompt: 'a 10-second explainer about how rainbows form' });
    const first = await waitUntil(sessionId, (current) => current.status === 'completed');
    const snapshot = first.video_id as string;
    // A new plan, rendered as a new draft; the edit plan of the old draft waits behind it.
    const replan = await send(sessionId, {
      message: 'Sunlight bends in raindrops. Each colour bends by its own angle.',
    });
    expect(replan.body.data.status).toBe('thinking');
    const edit = await send(sessionId, {
      edit_plan: [
        { scene_id: 'scene_2', text: 'A new line.', scene_snapshot_video_id: snapshot, edit_version: '1' },
      ],
    });
    expect(edit.status, JSON.stringify(edit.body)).toBe(200);
    expect(WORKING).toContain(edit.body.data.status);
    expect(edit.body.data.video_id).toBeUndefined();

    const failed = await waitUntil(sessionId, (current) => current.status === 'failed');
    expect(failed.failure_code).toBe('stale_edit_version');
    expect(failed.failure_message).toMatch(/The snapshot changed since it was read/);
    expect(failed.messages.at(-1)).toMatchObject({ role: 'agent', type: 'error' });
    expect(failed.messages.at(-1)?.content).toMatch(
      new RegExp(`^Your follow-up sent while I worked \\(run ${edit.body.data.run_id}\\) could not start`),
    );
    expect(failed.video_id).not.toBe(snapshot);
  });

  it('starts the next queued follow-up after a run that failed', async () => {
    // A damaged PDF fails the run at its Plan step.
    const sessionId = await create({
      prompt: 'a 20-second summary of this report',
      files: [{ type: 'base64', media_type: 'application/pdf', data: corruptPdf().toString('base64') }],
    });
    await queue(sessionId, 'Try once more, please.');
    const done = await waitUntil(
      sessionId,
      (current) => current.messages.filter((message) => message.type === 'error').length === 2,
    );
    // The queued run ran after the failed one (and failed the same way: the session still holds the PDF).
    const errors = done.messages.flatMap((message, index) => (message.type === 'error' ? [index] : []));
    expect(indexOf(done.messages, 'Try once more, please.')).toBeGreaterThan(errors[0] as number);
    expect(indexOf(done.messages, 'Try once more, please.')).toBeLessThan(errors[1] as number);
    expect(done.failure_code).toBe('document_unreadable');
  });
});
