/**
 * Jobs of one type run at most `cap` at a time per workspace (the plan's, or the administrator's
 * `--job-concurrency`): the rest wait `pending` and start in the order they were created as slots
 * free, none refused or lost, each charged as if it had run at once. Seen as a user sees it: the
 * statuses of the videos, and `GET /v3/usage`.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { updateWorkspace } from '../../lambdas/accounts/workspaces.js';
import { newId } from '../../lambdas/core/ids.js';
import { admitJob, releaseJobSlot } from '../../lambdas/jobs/job-admission.js';
import { type AnyJobDefinition, JOB_OUTCOME } from '../../lambdas/jobs/job-definition.js';
import { runAdminCommand } from '../../lib/admin/admin-commands.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

let api: TestStack;
beforeAll(async () => {
  // Waits for a slot last a second or more: a hundredth of that here.
  api = await startTestStack({ stepFunctionsTimeScale: 0.01 });
});
afterAll(() => api.stop());

interface Usage {
  jobs: { job_type: string; running: number; queued: number; concurrency_limit: number }[];
  credits: { remaining: number; reserved: number };
}

async function usage(key: string) {
  const answer = await api.call<{ data: Usage }>('GET', '/v3/usage', { key });
  expect(answer.status).toBe(200);
  return answer.body.data;
}

describe('job concurrency per workspace and type', () => {
  it('runs N+3 videos against a cap of N: at most N at once, the rest in turn, all finished and charged', async () => {
    const cap = 2;
    const { workspaceId, apiKey: key } = await api.newWorkspace({ plan: 'pro' });
    await runAdminCommand(['workspace', 'update', workspaceId, '--job-concurrency', `video-render=${cap}`]);
    const before = await usage(key);
    expect(before.jobs.find((job) => job.job_type === 'video')?.concurrency_limit).toBe(cap);

    const ids: string[] = [];
    for (let index = 0; index < cap + 3; index++) {
      const created = await api.call<{ data: { video_id: string } }>('POST', '/v3/videos', {
        key,
        body: { type: 'avatar', avatar_id: 'maya-office', script: `Video number ${index + 1}.` },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(200);
      ids.push(created.body.data.video_id);
    }

    // Poll until every video has ended: when each one left `pending`, and what the usage said.
    const startedAtPoll = new Map<string, number>();
    const completedByPoll: number[] = [];
    let mostRunning = 0;
    let mostQueued = 0;
    for (let poll = 0; ; poll++) {
      const statuses = await Promise.all(
        ids.map(async (id) => {
          const read = await api.call<{ data: { status: string } }>('GET', `/v3/videos/${id}`, { key });
          return read.body.data.status;
        }),
      );
      statuses.forEach((status, index) => {
        const id = ids[index] as string;
        if (status !== 'pending' && !startedAtPoll.has(id)) startedAtPoll.set(id, poll);
      });
      completedByPoll.push(statuses.filter((status) => status === 'completed').length);
      const running = statuses.filter((status) => status === 'processing').length;
      mostRunning = Math.max(mostRunning, running);
      const videos = (await usage(key)).jobs.find((job) => job.job_type === 'video');
      expect(videos?.running ?? 0).toBeLessThanOrEqual(cap);
      mostQueued = Math.max(mostQueued, videos?.queued ?? 0);
      if (statuses.every((status) => status === 'completed' || status === 'failed')) {
        expect(statuses).toEqual(ids.map(() => 'completed'));
        break;
      }
      expect(poll, 'the videos ended').toBeLessThan(3000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(mostRunning).toBeLessThanOrEqual(cap);
    // Jobs did wait: more were accepted than could run.
    expect(mostQueued).toBeGreaterThanOrEqual(1);
    // In turn: the k-th video (from 0) starts only once k - cap + 1 earlier ones have ended and given
    // back their slots (their ending is read within a poll of the start: reads of one poll interleave).
    ids.forEach((id, index) => {
      if (index < cap) return;
      const started = startedAtPoll.get(id) ?? 0;
      const ended = completedByPoll[Math.min(started + 1, completedByPoll.length - 1)] ?? 0;
      expect(ended, `video ${index + 1} started at poll ${started}`).toBeGreaterThanOrEqual(index - cap + 1);
    });

    // Charged as if each had run at once: one credit a video, nothing left reserved.
    await expect
      .poll(async () => (await usage(key)).credits)
      .toMatchObject({
        remaining: before.credits.remaining - ids.length,
        reserved: 0,
      });
    const after = (await usage(key)).jobs.find((job) => job.job_type === 'video');
    expect(after).toMatchObject({ running: 0, queued: 0 });
  });

  it('goes back to the plan with `plan`, and refuses a workflow it does not know', async () => {
    const { workspaceId } = await api.newWorkspace({ plan: 'team' });
    const set = await runAdminCommand(['workspace', 'update', workspaceId, '--job-concurrency', 'lipsync=3']);
    expect(set.output).toMatchObject({ job_concurrency: { lipsync: 3 } });
    const back = await runAdminCommand([
      'workspace',
      'update',
      workspaceId,
      '--job-concurrency',
      'lipsync=plan',
    ]);
    expect(back.output).toMatchObject({ job_concurrency: {} });
    await expect(
      runAdminCommand(['workspace', 'update', workspaceId, '--job-concurrency', 'avatar-consent-review=2']),
    ).rejects.toThrow(/job-concurrency/);
  });
});

describe('the Admit step', () => {
  /** A job type of records held here, so each admission is asked for in the order a test chooses. */
  function fakeJobType(name: string) {
    const records = new Map<string, 'pending' | 'completed'>();
    const job = {
      name,
      concurrencyLimited: true,
      ref: z.object({ workspace_id: z.string(), id: z.string() }),
      executionName: (ref: { id: string }) => ref.id,
      record: {
        get: async (ref: { id: string }) => records.get(ref.id),
        outcome: (status: string) => (status === 'pending' ? JOB_OUTCOME.running : JOB_OUTCOME.succeeded),
      },
    } as unknown as AnyJobDefinition;
    return { job, records };
  }

  it('admits the oldest waiting job first whoever asks first, and skips one deleted while it waited', async () => {
    const { workspaceId } = await api.newWorkspace({ plan: 'pro' });
    await updateWorkspace(workspaceId, { job_concurrency: { 'fifo-check': 1 } });
    const { job, records } = fakeJobType('fifo-check');
    type Ref = { workspace_id: string; id: string };
    const refs = [1, 2, 3, 4].map(
      (offset): Ref => ({ workspace_id: workspaceId, id: newId(Date.now() + offset) }),
    );
    const [first, second, third, fourth] = refs as [Ref, Ref, Ref, Ref];
    for (const ref of refs) records.set(ref.id, 'pending');
    const admitted = async (ref: Ref) => (await admitJob(job, ref)).admitted;

    expect(await admitted(first)).toBe(true);
    // A retried Admit of a job holding its slot is admitted again, and takes no second slot.
    expect(await admitted(first)).toBe(true);
    expect(await admitted(fourth)).toBe(false);
    expect(await admitted(third)).toBe(false);
    expect(await admitted(second)).toBe(false);
    const waiting = await admitJob(job, second);
    expect(waiting).toEqual({ admitted: false, wait_seconds: expect.any(Number) });
    expect(waiting.wait_seconds).toBeGreaterThanOrEqual(1);

    records.set(first.id, 'completed');
    await releaseJobSlot(job, first);
    await releaseJobSlot(job, first); // given back once
    // The fourth and third ask first, but the second was created before them.
    expect(await admitted(fourth)).toBe(false);
    expect(await admitted(third)).toBe(false);
    expect(await admitted(second)).toBe(true);

    // The third is deleted while it waits: it does not block the fourth.
    records.delete(third.id);
    records.set(second.id, 'completed');
    await releaseJobSlot(job, second);
    expect(await admitted(fourth)).toBe(true);
    // The deleted job's run, when it asks, is let through to find itself gone, holding no slot.
    expect(await admitted(third)).toBe(true);
  });
});
