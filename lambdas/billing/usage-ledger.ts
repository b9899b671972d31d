/**
 * The usage ledger: per workspace, per UTC day and per job type, the credits charged and the jobs
 * settled. One small counter item per day and type (`USAGE#<YYYY-MM-DD>#<job type>` in the workspace's
 * partition), incremented by an atomic ADD in the very transaction that settles a job's reservation
 * (credits.ts), so the ledger never disagrees with the balance: a settlement that runs twice is
 * refused whole the second time, and a refund writes nothing here.
 *
 * Why counters rather than reading the jobs: usage over a window is then one range query over at most
 * (days × job types) small items, whatever the number of jobs; the job records are neither scanned nor
 * needed (a deleted job's charge stays counted, as it stays spent).
 */
import { config } from '../core/config.js';
import { type ItemKey, queryItems, type TransactionItem } from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';

/** The paid job types, by the name usage reports give them, and the resource type of their records. */
export const PAID_JOB_TYPES = {
  video: RESOURCE_TYPES.video,
  video_translation: RESOURCE_TYPES.videoTranslation,
  lipsync: RESOURCE_TYPES.lipsync,
  ai_clipping: RESOURCE_TYPES.aiClipping,
  background_removal: RESOURCE_TYPES.backgroundRemoval,
  filler_word_removal: RESOURCE_TYPES.fillerWordRemoval,
  avatar_look: RESOURCE_TYPES.avatarLook,
} as const;
export type PaidJobType = keyof typeof PAID_JOB_TYPES;

/**
 * The job type of a job's item key (`VIDEO#<id>` → `video`). A resource type missing from
 * `PAID_JOB_TYPES` is still counted, under its lower-cased name, rather than lost.
 */
export function jobTypeOfKey(jobKey: ItemKey): string {
  const resourceType = jobKey.sk.slice(0, jobKey.sk.indexOf('#'));
  const known = Object.entries(PAID_JOB_TYPES).find(([, type]) => type === resourceType);
  return known ? known[0] : resourceType.toLowerCase();
}

/** `YYYY-MM-DD` of a time, in UTC. */
export function utcDay(at: Date): string {
  return at.toISOString().slice(0, 10);
}

const ledgerSortKey = (day: string, jobType: string) => `${RESOURCE_TYPES.usage}#${day}#${jobType}`;

/**
 * The ledger's part of a settlement's transaction: `credits` charged today for the job of `jobKey`;
 * for a job that ran on a burst slot (`burst`), counted again under `burst_*` (its charge is at the
 * burst rate already).
 * Unconditional (an ADD creates the counter on the day's first charge): the settlement's own
 * condition on the job's billing state is what makes the whole transaction happen once.
 */
export function usageLedgerCharge(
  workspaceId: string,
  jobKey: ItemKey,
  credits: number,
  at: Date,
  burst = false,
): TransactionItem {
  const day = utcDay(at);
  const jobType = jobTypeOfKey(jobKey);
  return {
    Update: {
      TableName: config().tableName,
      Key: { pk: keys.workspacePartition(workspaceId), sk: ledgerSortKey(day, jobType) },
      UpdateExpression: `SET #day = :day, job_type = :jobType ADD credits_charged :credits, jobs_settled :one${
        burst ? ', burst_credits_charged :credits, burst_jobs_settled :one' : ''
      }`,
      ExpressionAttributeNames: { '#day': 'day' },
      ExpressionAttributeValues: { ':day': day, ':jobType': jobType, ':credits': credits, ':one': 1 },
    },
  };
}

export interface DailyUsage {
  /** `YYYY-MM-DD` (UTC). */
  day: string;
  job_type: string;
  credits_charged: number;
  jobs_settled: number;
  /** Of those, what jobs run on burst slots were charged (at the burst rate) and how many settled. */
  burst_credits_charged: number;
  burst_jobs_settled: number;
}

/** The workspace's counters from `fromDay` to `toDay` (`YYYY-MM-DD`, both included), by day then type. */
export async function readDailyUsage(
  workspaceId: string,
  fromDay: string,
  toDay: string,
): Promise<DailyUsage[]> {
  const items = await queryItems<DailyUsage>({
    partition: keys.workspacePartition(workspaceId),
    // `#` sorts before every letter and digit: `<toDay>#~` is after every type of the last day.
    sortKey: { from: ledgerSortKey(fromDay, ''), to: ledgerSortKey(toDay, '~') },
    attributes: [
      'day',
      'job_type',
      'credits_charged',
      'jobs_settled',
      'burst_credits_charged',
      'burst_jobs_settled',
    ],
  });
  return items.map((item) => ({
    day: item.day,
    job_type: item.job_type,
    credits_charged: Number(item.credits_charged),
    jobs_settled: Number(item.jobs_settled),
    // Absent on a counter no burst job has settled under.
    burst_credits_charged: Number(item.burst_credits_charged ?? 0),
    burst_jobs_settled: Number(item.burst_jobs_settled ?? 0),
  }));
}
