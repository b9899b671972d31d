/**
 * A local stack stopped in the middle of renders and started again on the same data: every video
 * still ends terminal (its workflow starts again from the top), and its credits move exactly once.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, expect, it } from 'vitest';
import { getWorkspace } from '../../lambdas/accounts/workspaces.js';
import { type LocalStack, startLocalStack } from '../../lib/local/local-stack.js';

let stack: LocalStack | undefined;
let dataDir: string | undefined;

afterAll(async () => {
  await stack?.stop();
  if (dataDir) await rm(dataDir, { recursive: true, force: true });
});

async function call<T>(method: string, path: string, body?: unknown): Promise<{ status: number; body: T }> {
  const running = stack as LocalStack;
  const response = await fetch(`${running.baseUrl}${path}`, {
    method,
    headers: { 'X-Api-Key': running.apiKey, ...(body ? { 'Content-Type': 'application/json' } : {}) },
    ...(body ? { body: JSON.stringify(body) } : {}),
  });
  return { status: response.status, body: (await response.json()) as T };
}

interface Video {
  status: string;
  progress?: number;
  failure_message: string | null;
}

const video = async (videoId: string) =>
  (await call<{ data: Video }>('GET', `/v3/videos/${videoId}`)).body.data;

it('finishes every video that was rendering when the stack stopped', async () => {
  dataDir = await mkdtemp(join(tmpdir(), 'video-restart-'));
  stack = await startLocalStack({ dataDir, stepFunctionsTimeScale: 0.001 });
  const looks = await call<{ data: { id: string }[] }>('GET', '/v3/avatars/looks?limit=1');
  const lookId = looks.body.data[0]?.id as string;
  const creditsBefore = (await getWorkspace(stack.workspaceId, true))?.remaining_credits as number;
  const script =
    'This video is long enough to still be rendering when the stack stops. It keeps talking about nothing in particular, sentence after sentence, so that the render takes a moment.';
  const ids: string[] = [];
  for (let index = 0; index < 2; index++) {
    const created = await call<{ data: { video_id: string } }>('POST', '/v3/videos', {
      type: 'avatar',
      avatar_id: lookId,
      script,
    });
    expect(created.status).toBe(200);
    ids.push(created.body.data.video_id);
  }
  // Stop once a render is under way (speech made, composition running).
  const deadline = Date.now() + 60_000;
  while (Date.now() < deadline) {
    const states = await Promise.all(ids.map(video));
    if (states.some((state) => state.status === 'processing' && (state.progress ?? 0) >= 35)) break;
    if (states.every((state) => state.status === 'completed'))
      throw new Error('Rendered before the stack could be stopped');
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
  await stack.stop();

  stack = await startLocalStack({ dataDir, stepFunctionsTimeScale: 0.001 });
  const finished: Video[] = [];
  for (const videoId of ids) {
    let state = await video(videoId);
    const until = Date.now() + 90_000;
    while (state.status !== 'completed' && state.status !== 'failed' && Date.now() < until) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      state = await video(videoId);
    }
    finished.push(state);
  }
  expect(finished.map((state) => [state.status, state.failure_message])).toEqual([
    ['completed', null],
    ['completed', null],
  ]);
  // One credit each (under a minute at 720p), charged once however often the steps ran.
  expect((await getWorkspace(stack.workspaceId, true))?.remaining_credits).toBe(creditsBefore - 2);
}, 240_000);
