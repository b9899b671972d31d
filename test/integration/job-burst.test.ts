/**
 * Enterprise burst concurrency: once a workspace's cap for a job type is full, up to its burst slots
 * more run, each charged 1.5× (rounded up to a whole credit); the rest still wait their turn. Seen as
 * a user sees it: the videos' statuses, the balance and charges of `GET /v3/usage`; and the job's
 * record for what it was charged.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import { getWorkspace, updateWorkspace } from '../../lambdas/accounts/workspaces.js';
import {
  BILLING_STATE,
  type JobBilling,
  refundReservation,
  reservationOf,
} from '../../lambdas/billing/credits.js';
import { newId } from '../../lambdas/core/ids.js';
import { getItem, putItem, type StoredItem } from '../../lambdas/core/repository.js';
import { keys } from '../../lambdas/core/table-schema.js';
import { admitJob, releaseJobSlot } from '../../lambdas/jobs/job-admission.js';
import { type AnyJobDefinition, JOB_OUTCOME } from '../../lambdas/jobs/job-definition.js';
import { getVideo } from '../../lambdas/videos/videos.js';
import { runAdminCommand } from '../../lib/admin/admin-commands.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

let api: TestStack;
beforeAll(async () => {
  // Waits for a slot last a second or more: a hundredth of that here.
  api = await startTestStack({ stepFunctionsTimeScale: 0.01 });
});
afterAll(() => api.stop());

interface Count {
  credits_charged: number;
  jobs_settled: number;
  burst_credits_charged: number;
  burst_jobs_settled: number;
}
interface Usage {
  jobs: {
    job_type: string;
    running: number;
    burst_running: number;
    queued: number;
    concurrency_limit: number;
    burst_limit: number;
    credits_reserved: number;
  }[];
  credits: { remaining: number; reserved: number; used: number };
  usage: { totals: Count & { by_job_type: Record<string, Count> } };
}

async function usage(key: string) {
  const answer = await api.call<{ data: Usage }>('GET', '/v3/usage', { key });
  expect(answer.status).toBe(200);
  return answer.body.data;
}
const videosOf = (of: Usage) => of.jobs.find((job) => job.job_type === 'video');

/** A 4k avatar video: 2 credits a started minute, so its burst charge (3) is exactly 1.5×. */
async function createVideo(key: string, script: string, voiceId?: string): Promise<string> {
  const created = await api.call<{ data: { video_id: string } }>('POST', '/v3/videos', {
    key,
    body: {
      type: 'avatar',
      avatar_id: 'maya-office',
      script,
      resolution: '4k',
      ...(voiceId ? { voice_id: voiceId } : {}),
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.data.video_id;
}

/**
 * An Enterprise workspace whose videos all wait in their queue until `open` sets its cap and burst
 * slots: a cap of 0 (set directly, the admin CLI sets positive caps only) admits none, so every video
 * is created before any may start and which of them take burst slots does not race their creation.
 */
async function heldEnterpriseWorkspace() {
  const { workspaceId, apiKey } = await api.newWorkspace({ plan: 'enterprise' });
  await updateWorkspace(workspaceId, { job_concurrency: { 'video-render': 0 } });
  const open = (cap: number, burst: number) =>
    runAdminCommand([
      'workspace',
      'update',
      workspaceId,
      '--job-concurrency',
      `video-render=${cap}`,
      '--burst-slots',
      String(burst),
    ]);
  return { workspaceId, key: apiKey, open };
}

async function videoEnded(key: string, id: string): Promise<string> {
  for (let poll = 0; poll < 3000; poll++) {
    const read = await api.call<{ data: { status: string } }>('GET', `/v3/videos/${id}`, { key });
    if (read.body.data.status === 'completed' || read.body.data.status === 'failed')
      return read.body.data.status;
    await new Promise((resolve) => setTimeout(resolve, 10));
  }
  throw new Error(`video ${id} did not end`);
}

describe('Enterprise burst', () => {
  it('runs N+B+2 videos against a cap of N with B burst slots: at most N+B at once, the B burst ones charged 1.5×, the 2 others in turn', async () => {
    const cap = 2;
    const burst = 2;
    const { workspaceId, key, open } = await heldEnterpriseWorkspace();
    const before = await usage(key);
    const ids: string[] = [];
    for (let index = 0; index < cap + burst + 2; index++) {
      ids.push(await createVideo(key, `Video number ${index + 1}.`));
    }
    // Each reserved its 2 credits at create; none runs yet.
    await expect
      .poll(async () => videosOf(await usage(key)))
      .toMatchObject({ running: 0, queued: ids.length });
    const opened = await open(cap, burst);
    expect(opened.output).toMatchObject({ job_burst_slots: burst, job_concurrency: { 'video-render': cap } });

    const startedAtPoll = new Map<string, number>();
    const completedByPoll: number[] = [];
    let mostRunning = 0;
    let mostBurstRunning = 0;
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
      mostRunning = Math.max(mostRunning, statuses.filter((status) => status === 'processing').length);
      const videos = videosOf(await usage(key));
      expect(videos).toMatchObject({ concurrency_limit: cap, burst_limit: burst });
      expect(videos?.running ?? 0).toBeLessThanOrEqual(cap + burst);
      expect(videos?.burst_running ?? 0).toBeLessThanOrEqual(burst);
      mostBurstRunning = Math.max(mostBurstRunning, videos?.burst_running ?? 0);
      if (statuses.every((status) => status === 'completed' || status === 'failed')) {
        expect(statuses).toEqual(ids.map(() => 'completed'));
        break;
      }
      expect(poll, 'the videos ended').toBeLessThan(3000);
      await new Promise((resolve) => setTimeout(resolve, 10));
    }
    expect(mostRunning).toBeLessThanOrEqual(cap + burst);
    expect(mostBurstRunning).toBeGreaterThanOrEqual(1);
    // In turn: past the cap and the burst slots, the k-th video (from 0) starts only once
    // k - (cap + burst) + 1 earlier ones have ended.
    ids.forEach((id, index) => {
      if (index < cap + burst) return;
      const started = startedAtPoll.get(id) ?? 0;
      const ended = completedByPoll[Math.min(started + 1, completedByPoll.length - 1)] ?? 0;
      expect(ended, `video ${index + 1} started at poll ${started}`).toBeGreaterThanOrEqual(
        index - (cap + burst) + 1,
      );
    });

    // The cap's first, the burst slots next (by creation order), each charged its rate.
    const records = await Promise.all(ids.map((id) => getVideo(workspaceId, id, true)));
    expect(records.map((video) => video?.rate_multiplier ?? 1)).toEqual([1, 1, 1.5, 1.5, 1, 1]);
    expect(records.map((video) => video?.credits_charged)).toEqual([2, 2, 3, 3, 2, 2]);
    const charged = 2 * (ids.length - burst) + 3 * burst;
    await expect
      .poll(async () => (await usage(key)).credits)
      .toMatchObject({ remaining: before.credits.remaining - charged, reserved: 0 });
    const after = await usage(key);
    expect(after.usage.totals.by_job_type.video).toEqual({
      credits_charged: charged,
      jobs_settled: ids.length,
      burst_credits_charged: 3 * burst,
      burst_jobs_settled: burst,
    });
    expect(videosOf(after)).toMatchObject({ running: 0, burst_running: 0, queued: 0 });
  });

  it('gives a failed burst job its whole 1.5× reservation back', async () => {
    const { workspaceId, key, open } = await heldEnterpriseWorkspace();
    const remaining = (await usage(key)).credits.remaining;
    const regular = await createVideo(key, 'A video that renders.');
    // An unknown voice is found out in the render: the job fails after it took its burst slot.
    const failing = await createVideo(key, 'A video that fails.', 'xx-nobody');
    await open(1, 1);
    expect(await videoEnded(key, regular)).toBe('completed');
    expect(await videoEnded(key, failing)).toBe('failed');

    const failed = await getVideo(workspaceId, failing, true);
    expect(failed).toMatchObject({ rate_multiplier: 1.5, credits_reserved: 2, credits_burst_reserved: 1 });
    await expect
      .poll(async () => (await getVideo(workspaceId, failing, true))?.billing_state)
      .toBe(BILLING_STATE.refunded);
    // Only the completed video is paid for; the burst one's 3 credits all came back.
    await expect
      .poll(async () => (await usage(key)).credits)
      .toMatchObject({ remaining: remaining - 2, reserved: 0, used: 2 });
    expect((await usage(key)).usage.totals).toMatchObject({
      credits_charged: 2,
      jobs_settled: 1,
      burst_credits_charged: 0,
      burst_jobs_settled: 0,
    });
  });

  it('is an Enterprise feature: refused on other plans, off with `--burst off` or a move off Enterprise', async () => {
    const { workspaceId: pro } = await api.newWorkspace({ plan: 'pro' });
    await expect(runAdminCommand(['workspace', 'update', pro, '--burst', 'on'])).rejects.toThrow(
      /Enterprise feature; this workspace's plan is pro/,
    );
    expect((await getWorkspace(pro, true))?.job_burst_slots).toBeUndefined();

    const { workspaceId, apiKey } = await api.newWorkspace({ plan: 'enterprise' });
    const on = await runAdminCommand(['workspace', 'update', workspaceId, '--burst', 'on']);
    expect(on.output).toMatchObject({ job_burst_slots: 50 });
    expect(videosOf(await usage(apiKey))).toMatchObject({ concurrency_limit: 20, burst_limit: 50 });
    await expect(
      runAdminCommand(['workspace', 'update', workspaceId, '--burst', 'off', '--burst-slots', '3']),
    ).rejects.toThrow(/--burst-slots goes with --burst on/);

    // Moved to a plan without burst, the workspace bursts no more (its setting is kept for a move back).
    await runAdminCommand(['workspace', 'update', workspaceId, '--plan', 'team']);
    expect(videosOf(await usage(apiKey))).toMatchObject({ concurrency_limit: 10, burst_limit: 0 });
    await runAdminCommand(['workspace', 'update', workspaceId, '--plan', 'enterprise', '--burst', 'off']);
    expect(videosOf(await usage(apiKey))).toMatchObject({ burst_limit: 0 });
  });
});

describe('the Admit step with burst slots', () => {
  /** A paid job type whose records are items put here, so each admission is asked for when a test chooses. */
  function fakePaidJobType(name: string) {
    const keyOf = (ref: { workspace_id: string; id: string }) =>
      keys.resource(ref.workspace_id, 'FAKEJOB', ref.id);
    type FakeRecord = StoredItem & JobBilling & { status: string; workspace_id: string; id: string };
    const job = {
      name,
      concurrencyLimited: true,
      ref: z.object({ workspace_id: z.string(), id: z.string() }),
      executionName: (ref: { id: string }) => ref.id,
      record: {
        get: (ref: { workspace_id: string; id: string }) => getItem<FakeRecord>(keyOf(ref), true),
        outcome: (record: FakeRecord) =>
          record.status === 'pending' ? JOB_OUTCOME.running : JOB_OUTCOME.succeeded,
      },
      billing: {
        key: (record: FakeRecord) => keyOf(record),
        reservation: (record: FakeRecord) => reservationOf(record),
        charge: () => 0,
      },
    } as unknown as AnyJobDefinition;
    const create = (ref: { workspace_id: string; id: string }, credits: number) =>
      putItem({
        ...keyOf(ref),
        ...ref,
        status: 'pending',
        billing_state: BILLING_STATE.reserved,
        credits_reserved: credits,
        credits_balance: 'remaining_credits',
        trial_counted: false,
      });
    return { job, keyOf, create };
  }

  it('leaves a head the workspace cannot pay the burst rate for waiting, first in line, for a regular slot', async () => {
    const { workspaceId } = await api.newWorkspace({ plan: 'enterprise', included_credits: 1 });
    await updateWorkspace(workspaceId, { job_concurrency: { 'burst-check': 1 }, job_burst_slots: 1 });
    const { job, keyOf, create } = fakePaidJobType('burst-check');
    type Ref = { workspace_id: string; id: string };
    const [first, second, third] = [1, 2, 3].map(
      (offset): Ref => ({ workspace_id: workspaceId, id: newId(Date.now() + offset) }),
    ) as [Ref, Ref, Ref];
    // The second's top-up would be 2 credits (4 → 6); the workspace has 1 left.
    await create(first, 1);
    await create(second, 4);
    await create(third, 1);
    const admitted = async (ref: Ref) => (await admitJob(job, ref)).admitted;

    expect(await admitted(first)).toBe(true);
    expect(await admitted(second)).toBe(false);
    // The third could pay a burst slot (1 → 2), but the second is older: it waits too.
    expect(await admitted(third)).toBe(false);
    expect((await getWorkspace(workspaceId, true))?.remaining_credits).toBe(1);
    expect(await getItem(keyOf(second), true)).not.toHaveProperty('rate_multiplier');

    await putItem({ ...((await getItem(keyOf(first), true)) as StoredItem), status: 'completed' });
    await releaseJobSlot(job, first);
    // The regular slot, at the contract rate; the third then takes the burst slot it can pay.
    expect(await admitted(second)).toBe(true);
    expect(await getItem(keyOf(second), true)).not.toHaveProperty('rate_multiplier');
    expect(await admitted(third)).toBe(true);
    expect(await admitted(third)).toBe(true); // a retried Admit tops up once
    expect(await getItem(keyOf(third), true)).toMatchObject({
      rate_multiplier: 1.5,
      credits_burst_reserved: 1,
    });
    expect((await getWorkspace(workspaceId, true))?.remaining_credits).toBe(0);
  });

  it("refunds the top-up too when it lands between a refund's read and its write", async () => {
    const { workspaceId } = await api.newWorkspace({ plan: 'enterprise', included_credits: 10 });
    await updateWorkspace(workspaceId, { job_concurrency: { 'burst-refund': 1 }, job_burst_slots: 1 });
    const { job, keyOf, create } = fakePaidJobType('burst-refund');
    type Ref = { workspace_id: string; id: string };
    const [holder, burst] = [1, 2].map(
      (offset): Ref => ({ workspace_id: workspaceId, id: newId(Date.now() + offset) }),
    ) as [Ref, Ref];
    await create(holder, 2);
    await create(burst, 2);
    expect((await admitJob(job, holder)).admitted).toBe(true);
    // A delete reads the reservation (2, no burst), then the job takes its burst slot (1 more)...
    const read = reservationOf((await getItem<StoredItem & JobBilling>(keyOf(burst), true)) as JobBilling);
    expect((await admitJob(job, burst)).admitted).toBe(true);
    expect((await getWorkspace(workspaceId, true))?.remaining_credits).toBe(9);
    // ...and its refund, written with what it read, gives back all 3 held.
    expect(await refundReservation(keyOf(burst), workspaceId, read as JobBilling)).toBe(true);
    expect(await getItem(keyOf(burst), true)).toMatchObject({
      billing_state: 'refunded',
      credits_charged: 0,
    });
    expect((await getWorkspace(workspaceId, true))?.remaining_credits).toBe(12);
  });
});
