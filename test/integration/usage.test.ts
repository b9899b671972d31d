/**
 * `GET /v3/usage` over HTTP: the credits a workspace spent appear under the day and job type of the
 * settlement, a refunded job adds nothing, a settlement repeated counts once, the window's periods
 * cover it exactly, rate-limit headroom comes from the shared windows, and every bad parameter is a
 * 400 naming it.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWorkspace } from '../../lambdas/accounts/workspaces.js';
import { buildOpenApiDocument } from '../../lambdas/api/openapi.js';
import { ROUTES } from '../../lambdas/api/routes.js';
import { settleReservation } from '../../lambdas/billing/credits.js';
import { putItem } from '../../lambdas/core/repository.js';
import { keys, RESOURCE_TYPES } from '../../lambdas/core/table-schema.js';
import { getVideo, videoKey } from '../../lambdas/videos/videos.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

interface Count {
  credits_charged: number;
  jobs_settled: number;
  burst_credits_charged: number;
  burst_jobs_settled: number;
}
interface Tally extends Count {
  by_job_type: Record<string, Count>;
}
interface Usage {
  workspace_id: string;
  plan: string;
  credits: {
    balance: string;
    included: number;
    used: number;
    reserved: number;
    remaining: number;
    usage_limit: number | null;
  };
  window: { from: string; to: string; granularity: string };
  usage: { periods: (Tally & { from: string; to: string })[]; totals: Tally };
  rate_limits: {
    rate_class: string;
    limit: number;
    window_seconds: number;
    used: number;
    remaining: number;
  }[];
  jobs: {
    job_type: string;
    running: number;
    burst_running: number;
    queued: number;
    concurrency_limit: number;
    burst_limit: number;
    credits_reserved: number;
  }[];
}

let api: TestStack;
let lookId: string;
const today = () => new Date().toISOString().slice(0, 10);

beforeAll(async () => {
  api = await startTestStack({ stepFunctionsTimeScale: 0.001 });
  const looks = await api.call<{ data: { id: string }[] }>('GET', '/v3/avatars/looks?limit=1');
  lookId = looks.body.data[0]?.id as string;
}, 60_000);
afterAll(() => api.stop());

async function usageOf(key: string, query = ''): Promise<Usage> {
  const result = await api.call<{ data: Usage }>('GET', `/v3/usage${query}`, { key });
  expect(result.status, JSON.stringify(result.body)).toBe(200);
  return result.body.data;
}

async function videoEnded(
  key: string,
  body: Record<string, unknown>,
): Promise<{ id: string; status: string }> {
  const created = await api.call<{ data: { video_id: string } }>('POST', '/v3/videos', { key, body });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const id = created.body.data.video_id;
  const deadline = Date.now() + 90_000;
  for (;;) {
    const read = await api.call<{ data: { status: string } }>('GET', `/v3/videos/${id}`, { key });
    if (read.body.data.status === 'completed' || read.body.data.status === 'failed')
      return { id, status: read.body.data.status };
    if (Date.now() > deadline) throw new Error(`video ${id} still ${read.body.data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('credits and charges', () => {
  it('a fresh workspace: its credits, zeros for every day of the last 30 and every job type', async () => {
    const { apiKey, workspaceId } = await api.newWorkspace({ included_credits: 40 });
    const usage = await usageOf(apiKey);
    expect(usage.workspace_id).toBe(workspaceId);
    expect(usage.credits).toEqual({
      balance: 'remaining_credits',
      included: 40,
      used: 0,
      reserved: 0,
      remaining: 40,
      usage_limit: null,
    });
    expect(usage.window).toEqual({
      from: new Date(Date.parse(`${today()}T00:00:00Z`) - 29 * 86_400_000).toISOString().slice(0, 10),
      to: today(),
      granularity: 'day',
    });
    expect(usage.usage.periods).toHaveLength(30);
    expect(usage.usage.periods.every((period) => period.credits_charged === 0)).toBe(true);
    expect(usage.usage.totals).toEqual({
      credits_charged: 0,
      jobs_settled: 0,
      burst_credits_charged: 0,
      burst_jobs_settled: 0,
      by_job_type: {},
    });
    expect(usage.jobs.map((job) => job.job_type).sort()).toEqual([
      'ai_clipping',
      'avatar_look',
      'background_removal',
      'filler_word_removal',
      'lipsync',
      'video',
      'video_translation',
    ]);
    expect(usage.jobs.every((job) => job.running === 0 && job.queued === 0)).toBe(true);
    // The test workspaces are on the pro plan: five of each type at once, no burst.
    expect(new Set(usage.jobs.map((job) => job.concurrency_limit))).toEqual(new Set([5]));
    expect(usage.jobs.every((job) => job.burst_limit === 0 && job.burst_running === 0)).toBe(true);
  });

  it('a completed video: its charge appears under today and `video`, matching the balance; a refunded one adds nothing', async () => {
    const { apiKey, workspaceId } = await api.newWorkspace({ included_credits: 40 });
    const other = await api.newWorkspace({ included_credits: 40 });

    const done = await videoEnded(apiKey, {
      type: 'avatar',
      avatar_id: lookId,
      script: 'Usage counts this.',
    });
    expect(done.status).toBe('completed');
    // The settlement follows the completed status by moments (job-lifecycle.ts, finishJob).
    await expect
      .poll(async () => (await usageOf(apiKey)).usage.totals.jobs_settled, { timeout: 5000, interval: 50 })
      .toBe(1);
    const spent = 40 - ((await getWorkspace(workspaceId, true))?.remaining_credits as number);
    expect(spent).toBeGreaterThan(0);

    const usage = await usageOf(apiKey);
    const day = usage.usage.periods.find((period) => period.from === today());
    expect(day).toEqual({
      from: today(),
      to: today(),
      credits_charged: spent,
      jobs_settled: 1,
      burst_credits_charged: 0,
      burst_jobs_settled: 0,
      by_job_type: {
        video: { credits_charged: spent, jobs_settled: 1, burst_credits_charged: 0, burst_jobs_settled: 0 },
      },
    });
    expect(usage.usage.totals.credits_charged).toBe(spent);
    expect(usage.credits).toMatchObject({ used: spent, reserved: 0, remaining: 40 - spent });

    const failed = await videoEnded(apiKey, {
      type: 'avatar',
      avatar_id: lookId,
      voice_id: 'xx-nobody',
      script: 'This one fails.',
    });
    expect(failed.status).toBe('failed');
    await expect
      .poll(async () => (await getWorkspace(workspaceId, true))?.remaining_credits, {
        timeout: 5000,
        interval: 50,
      })
      .toBe(40 - spent);
    const afterRefund = await usageOf(apiKey);
    expect(afterRefund.usage.totals).toEqual(usage.usage.totals);
    expect(afterRefund.credits).toMatchObject({ used: spent, reserved: 0 });

    // Tenant isolation: another workspace sees none of it.
    expect((await usageOf(other.apiKey)).usage.totals.credits_charged).toBe(0);
  }, 120_000);

  it('a settlement that runs again (a retried step) is counted once', async () => {
    const { apiKey, workspaceId } = await api.newWorkspace({ included_credits: 40 });
    const done = await videoEnded(apiKey, { type: 'avatar', avatar_id: lookId, script: 'Counted once.' });
    expect(done.status).toBe('completed');
    await expect
      .poll(async () => (await usageOf(apiKey)).usage.totals.jobs_settled, { timeout: 5000, interval: 50 })
      .toBe(1);
    const before = await usageOf(apiKey);
    const video = await getVideo(workspaceId, done.id, true);
    if (!video) throw new Error('video gone');
    // The billing as it was when reserved: the repeat is refused by the transaction's condition.
    const repeated = await settleReservation(
      videoKey(workspaceId, done.id),
      workspaceId,
      { ...video, billing_state: 'reserved' },
      video.credits_reserved,
    );
    expect(repeated).toBe(false);
    expect((await usageOf(apiKey)).usage.totals).toEqual(before.usage.totals);
  }, 120_000);
});

describe('jobs in flight', () => {
  it('counts running and queued jobs per type from the records, with the credits they hold', async () => {
    const { apiKey, workspaceId } = await api.newWorkspace();
    // Records as the job types write them while they run (only the fields the report reads differ).
    const record = (type: string, id: string, status: string, reserved: number, state: string) =>
      putItem({
        ...keys.resource(workspaceId, type, id),
        workspace_id: workspaceId,
        status,
        billing_state: state,
        credits_reserved: reserved,
      });
    await record(RESOURCE_TYPES.lipsync, 'l1', 'running', 3, 'reserved');
    await record(RESOURCE_TYPES.lipsync, 'l2', 'pending', 2, 'reserved');
    await record(RESOURCE_TYPES.lipsync, 'l3', 'completed', 2, 'settled');
    await record(RESOURCE_TYPES.video, 'v1', 'processing', 4, 'reserved');
    await record(RESOURCE_TYPES.videoTranslation, 't1', 'failed', 5, 'refunded');
    const usage = await usageOf(apiKey);
    const byType = Object.fromEntries(usage.jobs.map((job) => [job.job_type, job]));
    expect(byType.lipsync).toEqual({
      job_type: 'lipsync',
      running: 1,
      burst_running: 0,
      queued: 1,
      concurrency_limit: 5,
      burst_limit: 0,
      credits_reserved: 5,
    });
    expect(byType.video).toMatchObject({ running: 1, queued: 0, credits_reserved: 4 });
    expect(byType.video_translation).toMatchObject({ running: 0, queued: 0, credits_reserved: 0 });
    expect(usage.credits.reserved).toBe(9);
  });
});

describe('the window', () => {
  it('months and ISO weeks: periods in order, cut by the window, covering every day once', async () => {
    const { apiKey } = await api.newWorkspace();
    const months = await usageOf(apiKey, '?from=2026-01-15&to=2026-03-02&granularity=month');
    expect(months.usage.periods.map(({ from, to }) => [from, to])).toEqual([
      ['2026-01-15', '2026-01-31'],
      ['2026-02-01', '2026-02-28'],
      ['2026-03-01', '2026-03-02'],
    ]);
    // 2026-11-01 is a Sunday: its week began on Monday 2026-10-26.
    const weeks = await usageOf(apiKey, '?from=2026-11-01&to=2026-11-10&granularity=week');
    expect(weeks.usage.periods.map(({ from, to }) => [from, to])).toEqual([
      ['2026-11-01', '2026-11-01'],
      ['2026-11-02', '2026-11-08'],
      ['2026-11-09', '2026-11-10'],
    ]);
  });

  it('any window and granularity: contiguous periods from `from` to `to`', async () => {
    const { apiKey } = await api.newWorkspace();
    const dayOf = (offset: number) =>
      new Date(Date.UTC(2024, 0, 1) + offset * 86_400_000).toISOString().slice(0, 10);
    await fc.assert(
      fc.asyncProperty(
        fc.integer({ min: 0, max: 1500 }),
        fc.integer({ min: 0, max: 365 }),
        fc.constantFrom('day', 'week', 'month'),
        async (start, length, granularity) => {
          const from = dayOf(start);
          const to = dayOf(start + length);
          const { periods } = (await usageOf(apiKey, `?from=${from}&to=${to}&granularity=${granularity}`))
            .usage;
          expect(periods[0]?.from).toBe(from);
          expect(periods.at(-1)?.to).toBe(to);
          for (const [index, period] of periods.entries()) {
            expect(period.from <= period.to).toBe(true);
            const next = periods[index + 1];
            if (next) expect(Date.parse(next.from) - Date.parse(period.to)).toBe(86_400_000);
            if (granularity === 'day') expect(period.from).toBe(period.to);
            if (granularity === 'month') expect(period.from.slice(0, 7)).toBe(period.to.slice(0, 7));
            if (granularity === 'week')
              expect(Date.parse(period.to) - Date.parse(period.from)).toBeLessThan(7 * 86_400_000);
          }
        },
      ),
      { seed: 20261124, numRuns: 25 },
    );
  });

  it.each([
    ['?from=2026-02-30', 'from'],
    ['?from=yesterday', 'from'],
    ['?to=2026-13-01', 'to'],
    ['?granularity=hour', 'granularity'],
    ['?from=2026-05-02&to=2026-05-01', 'from'],
    ['?from=2025-01-01&to=2026-01-02', 'from'],
  ])('%s → 400 invalid_parameter naming %s', async (query, param) => {
    const result = await api.call('GET', `/v3/usage${query}`);
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
  });

  it('366 days is the longest window', async () => {
    const { apiKey } = await api.newWorkspace();
    expect((await usageOf(apiKey, '?from=2025-01-01&to=2026-01-01')).usage.periods).toHaveLength(366);
  });
});

describe('rate limits and access', () => {
  it("the plan's limit per class, and the headroom the workspace's own requests used", async () => {
    const { apiKey } = await api.newWorkspace({ plan: 'pro', rate_limits: {} });
    const first = await usageOf(apiKey);
    expect(
      first.rate_limits.map(({ rate_class, limit, window_seconds }) => [rate_class, limit, window_seconds]),
    ).toEqual([
      ['read', 300, 60],
      ['write', 10, 1],
      ['heavy', 30, 60],
      ['status', 500, 60],
    ]);
    const read = first.rate_limits.find((limit) => limit.rate_class === 'read');
    // This request was admitted with a slot of `read`.
    expect(read?.used).toBeGreaterThanOrEqual(1);
    expect(read?.remaining).toBe(300 - (read?.used ?? 0));
    for (let request = 0; request < 5; request++) await usageOf(apiKey);
    const later = (await usageOf(apiKey)).rate_limits.find((limit) => limit.rate_class === 'read');
    expect(later?.used).toBeGreaterThanOrEqual(7);
    expect(later?.remaining).toBeLessThan(read?.remaining ?? 0);
    const write = first.rate_limits.find((limit) => limit.rate_class === 'write');
    expect(write).toMatchObject({ used: 0, remaining: 10 });
  });

  it('needs account:read', async () => {
    const { workspaceId } = await api.newWorkspace();
    const key = await api.newKey(workspaceId, 'custom', ['videos:read']);
    const result = await api.call('GET', '/v3/usage', { key });
    expect(result.status).toBe(403);
    expect(errorOf(result).code).toBe('insufficient_api_key_scope');
  });

  it('is marked an extension in the OpenAPI document', () => {
    const document = buildOpenApiDocument(ROUTES, '0.0.0') as {
      paths: Record<string, Record<string, Record<string, unknown>>>;
    };
    expect(document.paths['/v3/usage']?.get).toMatchObject({
      'x-extension': true,
      'x-required-scopes': ['account:read'],
      'x-rate-limit-class': 'read',
    });
    expect(document.paths['/v3/users/me']?.get?.['x-extension']).toBeUndefined();
  });
});
