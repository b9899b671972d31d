/**
 * What `GET /v3/usage` reports of a workspace's spending: its credits, its charges per period and job
 * type over a window (from the usage ledger, usage-ledger.ts), and its jobs in flight per type (from
 * the job records). The request-rate part is the API's (api/pipeline/rate-limit.ts).
 */
import type { Workspace } from '../accounts/workspaces.js';
import { InvalidParameterError } from '../core/errors.js';
import { queryItems } from '../core/repository.js';
import { keys } from '../core/table-schema.js';
import { BILLING_STATE } from './credits.js';
import { jobBurstSlots, jobConcurrencyCap } from './plans.js';
import { PAID_JOB_TYPES, type PaidJobType, readDailyUsage, utcDay } from './usage-ledger.js';

export const USAGE_GRANULARITIES = ['day', 'week', 'month'] as const;
export type UsageGranularity = (typeof USAGE_GRANULARITIES)[number];

/** The longest window one request may cover, in days (bounds the ledger read to days × job types). */
export const MAX_USAGE_WINDOW_DAYS = 366;
/** The window when none is given: the last 30 days, today included. */
const DEFAULT_WINDOW_DAYS = 30;
const DAY_MS = 86_400_000;

export interface UsageWindow {
  /** First and last day, `YYYY-MM-DD` (UTC), both included. */
  from: string;
  to: string;
  granularity: UsageGranularity;
}

const dayStart = (day: string) => Date.parse(`${day}T00:00:00Z`);
const addDays = (day: string, days: number) => utcDay(new Date(dayStart(day) + days * DAY_MS));

/**
 * The window of a request: `to` defaults to today, `from` to 29 days before `to`.
 * @throws 400 `invalid_parameter` naming `from` when it is after `to` or the window is too long
 */
export function usageWindow(
  query: { from?: string | undefined; to?: string | undefined; granularity: UsageGranularity },
  now: Date,
): UsageWindow {
  const to = query.to ?? utcDay(now);
  const from = query.from ?? addDays(to, -(DEFAULT_WINDOW_DAYS - 1));
  if (from > to) throw new InvalidParameterError(`\`from\` (${from}) is after \`to\` (${to}).`, 'from');
  const days = (dayStart(to) - dayStart(from)) / DAY_MS + 1;
  if (days > MAX_USAGE_WINDOW_DAYS) {
    throw new InvalidParameterError(
      `The window from ${from} to ${to} is ${days} days; at most ${MAX_USAGE_WINDOW_DAYS} may be asked at once.`,
      'from',
    );
  }
  return { from, to, granularity: query.granularity };
}

/** The first day of the period of `granularity` that holds `day`: weeks start on Monday (ISO 8601). */
function periodStart(day: string, granularity: UsageGranularity): string {
  if (granularity === 'day') return day;
  if (granularity === 'month') return `${day.slice(0, 8)}01`;
  const weekday = (new Date(dayStart(day)).getUTCDay() + 6) % 7; // Monday 0 … Sunday 6
  return addDays(day, -weekday);
}

export interface UsageCount {
  credits_charged: number;
  jobs_settled: number;
  /** The part of the above that jobs run on burst slots make (charged at the burst rate). */
  burst_credits_charged: number;
  burst_jobs_settled: number;
}

/** Counts, in all and per job type. */
export interface UsageTally extends UsageCount {
  by_job_type: Record<string, UsageCount>;
}

export interface UsagePeriod extends UsageTally {
  /** The period's days within the window (the first and last period may be cut by it). */
  from: string;
  to: string;
}

const emptyCount = (): UsageCount => ({
  credits_charged: 0,
  jobs_settled: 0,
  burst_credits_charged: 0,
  burst_jobs_settled: 0,
});

function addCount(target: UsageCount, count: UsageCount): void {
  target.credits_charged += count.credits_charged;
  target.jobs_settled += count.jobs_settled;
  target.burst_credits_charged += count.burst_credits_charged;
  target.burst_jobs_settled += count.burst_jobs_settled;
}

function addTo(target: UsageTally, jobType: string, count: UsageCount): void {
  addCount(target, count);
  const byType = target.by_job_type[jobType] ?? emptyCount();
  addCount(byType, count);
  target.by_job_type[jobType] = byType;
}

/** Every period of the window, in order, with what was charged in it (zeros included). */
export async function usageByPeriod(
  workspaceId: string,
  window: UsageWindow,
): Promise<{ periods: UsagePeriod[]; totals: UsageTally }> {
  const periods: UsagePeriod[] = [];
  const periodOfDay = new Map<string, UsagePeriod>();
  for (let day = window.from; day <= window.to; day = addDays(day, 1)) {
    const start = periodStart(day, window.granularity);
    let period = periods.at(-1);
    if (!period || periodStart(period.from, window.granularity) !== start) {
      period = { from: day, to: day, ...emptyCount(), by_job_type: {} };
      periods.push(period);
    }
    period.to = day;
    periodOfDay.set(day, period);
  }
  const totals: UsageTally = { ...emptyCount(), by_job_type: {} };
  for (const entry of await readDailyUsage(workspaceId, window.from, window.to)) {
    const period = periodOfDay.get(entry.day);
    if (!period) continue;
    addTo(period, entry.job_type, entry);
    addTo(totals, entry.job_type, entry);
  }
  return { periods, totals };
}

/** The workspace's credits: what the plan includes, what is spent or held, what is left. */
export function creditSummary(workspace: Workspace, reserved: number) {
  const balance = workspace.billing_type === 'wallet' ? 'wallet_balance' : 'remaining_credits';
  return {
    balance,
    included: workspace.included_credits,
    used: workspace.used_credits ?? 0,
    reserved,
    remaining: workspace[balance],
    usage_limit: workspace.usage_limit_credits ?? null,
  };
}

/** Statuses of a job that has started and not ended, in every job type's records. */
const RUNNING_STATUSES = ['running', 'processing'] as const;
/** Accepted and not started yet. */
const QUEUED_STATUS = 'pending';

/** The workflow (jobs/job-admission.ts caps by it) of each paid job type. */
const WORKFLOW_OF_JOB_TYPE: Readonly<Record<PaidJobType, string>> = {
  video: 'video-render',
  video_translation: 'video-translation',
  lipsync: 'lipsync',
  ai_clipping: 'ai-clipping',
  background_removal: 'background-removal',
  filler_word_removal: 'filler-word-removal',
  avatar_look: 'avatar-training',
};

export interface JobsInFlight {
  job_type: PaidJobType;
  running: number;
  /** Of `running`, those on burst slots (charged at the burst rate). */
  burst_running: number;
  /** Accepted and not started: waiting for a slot under `concurrency_limit`, or about to start. */
  queued: number;
  /** How many of the type the workspace runs at once (its own cap, else its plan's). */
  concurrency_limit: number;
  /** How many more of the type may run on burst slots once `concurrency_limit` are running; 0 without burst. */
  burst_limit: number;
  /** Credits reserved by the type's jobs that have not ended (burst top-ups included). */
  credits_reserved: number;
}

/**
 * Per paid job type, the jobs that have not ended, from the records: one query per type over the
 * type's records in the workspace's partition, filtered and projected (DynamoDB still reads every
 * record of the type; fine for the sizes one workspace holds, and no index is kept just for this).
 */
export async function jobsInFlight(workspace: Workspace): Promise<JobsInFlight[]> {
  const workspaceId = workspace.workspace_id;
  return Promise.all(
    Object.entries(PAID_JOB_TYPES).map(async ([jobType, resourceType]) => {
      const items = await queryItems<{
        status?: string;
        billing_state?: string;
        credits_reserved?: number;
        credits_burst_reserved?: number;
        rate_multiplier?: number;
      }>({
        partition: keys.workspacePartition(workspaceId),
        sortKey: { prefix: `${resourceType}#` },
        filter: {
          expression: '#status IN (:queued, :running0, :running1) OR billing_state = :reserved',
          names: { '#status': 'status' },
          values: {
            ':queued': QUEUED_STATUS,
            ':running0': RUNNING_STATUSES[0],
            ':running1': RUNNING_STATUSES[1],
            ':reserved': BILLING_STATE.reserved,
          },
        },
        attributes: [
          'status',
          'billing_state',
          'credits_reserved',
          'credits_burst_reserved',
          'rate_multiplier',
        ],
      });
      const isRunning = (status: string | undefined) =>
        (RUNNING_STATUSES as readonly (string | undefined)[]).includes(status);
      const running = items.filter((item) => isRunning(item.status));
      return {
        job_type: jobType as PaidJobType,
        running: running.length,
        // A job is marked with its rate when it takes a burst slot (billing/credits.ts, burstTopUp).
        burst_running: running.filter((item) => item.rate_multiplier !== undefined).length,
        queued: items.filter((item) => item.status === QUEUED_STATUS).length,
        concurrency_limit: jobConcurrencyCap(workspace, WORKFLOW_OF_JOB_TYPE[jobType as PaidJobType]),
        burst_limit: jobBurstSlots(workspace),
        credits_reserved: items
          .filter((item) => item.billing_state === BILLING_STATE.reserved)
          .reduce(
            (sum, item) =>
              sum + Number(item.credits_reserved ?? 0) + Number(item.credits_burst_reserved ?? 0),
            0,
          ),
      };
    }),
  );
}
