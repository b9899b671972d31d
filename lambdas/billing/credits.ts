/**
 * Credits of paid jobs: reserved when the job is created, settled when it completes, refunded when it
 * fails. Each move is one DynamoDB transaction over the job's item and its workspace, conditional on
 * the job's `billing_state`, so a step that runs twice (a retried task, a restarted workflow) moves
 * credits once, and a job can never exist without its reservation or the reverse.
 *
 * Which balance pays: `wallet_balance` for wallet billing, `remaining_credits` otherwise.
 */
import { assertVendorsAllowed, type EngineCapability } from '../accounts/account-policy.js';
import { getWorkspace, WORKSPACE_STATUS, type Workspace } from '../accounts/workspaces.js';
import { config } from '../core/config.js';
import { PaymentRequiredError, QuotaExceededError } from '../core/errors.js';
import {
  getItem,
  type ItemKey,
  type StoredItem,
  type TransactionItem,
  transactWrite,
} from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import { BURST_RATE_MULTIPLIER, PLAN_ENTITLEMENTS } from './plans.js';
import { usageLedgerCharge } from './usage-ledger.js';

export const BILLING_STATE = { reserved: 'reserved', settled: 'settled', refunded: 'refunded' } as const;
export type BillingState = (typeof BILLING_STATE)[keyof typeof BILLING_STATE];

type Balance = 'remaining_credits' | 'wallet_balance';

/** Billing attributes stored on a paid job's item. */
export interface JobBilling {
  billing_state: BillingState;
  credits_reserved: number;
  /** What the job cost in the end; null until settled (0 once refunded). */
  credits_charged: number | null;
  credits_balance: Balance;
  /** Whether the job counted against the free trial's video limit. */
  trial_counted: boolean;
  /**
   * Set when the job was admitted on a burst slot (`burstTopUp`): its charge is multiplied by this
   * (rounded up to a whole credit). Absent: the contract rate.
   */
  rate_multiplier?: number;
  /** The credits reserved on top of `credits_reserved` for the burst rate, part of what ends with the job. */
  credits_burst_reserved?: number;
}

/** The job's item already exists with a reservation (an id collision, or a batch item admitted twice). */
export class JobAlreadyBilledError extends Error {
  override readonly name = 'JobAlreadyBilledError';
  constructor(readonly jobKey: string) {
    super(`Job ${jobKey} already exists with a reservation`);
  }
}

function balanceOf(workspace: Workspace): Balance {
  return workspace.billing_type === 'wallet' ? 'wallet_balance' : 'remaining_credits';
}

/**
 * The 402 a workspace gets for a job of `credits`, or undefined when it can pay. In the order a
 * user should hear them: a usage limit is not lifted by buying credits, the trial's end is not
 * lifted by credits either, then the balance.
 */
function refusal(workspace: Workspace, credits: number, trialVideo = true): PaymentRequiredError | undefined {
  const used = workspace.used_credits ?? 0;
  const limit = workspace.usage_limit_credits;
  if (typeof limit === 'number' && used + credits > limit) {
    return new PaymentRequiredError(
      `This workspace has used ${used} of its ${limit}-credit usage limit and this job needs ${credits}; more credits do not lift the limit, raise the workspace's usage limit.`,
      'usage_limit_reached',
    );
  }
  const trialLimit = PLAN_ENTITLEMENTS[workspace.plan].trialVideoLimit;
  if (trialVideo && trialLimit !== null && (workspace.trial_videos_used ?? 0) >= trialLimit) {
    return new PaymentRequiredError(
      `The free trial's ${trialLimit} videos are used up; choose a plan to make more.`,
      'trial_limit_exceeded',
    );
  }
  const balance = balanceOf(workspace);
  const have = workspace[balance];
  if (have < credits) {
    if (workspace.plan === 'free') {
      return new PaymentRequiredError(
        `The trial credits are used up (have ${have}, required ${credits}); only a plan restores access.`,
        'subscription_required',
      );
    }
    return new PaymentRequiredError(
      `Not enough credits: have ${have}, required ${credits}.`,
      'insufficient_credit',
    );
  }
  return undefined;
}

/** Paid jobs the workspace may start per UTC day: its own quota, else its plan's; null for none. */
export function dailyJobQuota(workspace: Workspace): number | null {
  return workspace.daily_job_quota === undefined
    ? PLAN_ENTITLEMENTS[workspace.plan].dailyJobQuota
    : workspace.daily_job_quota;
}

/**
 * The write that counts a job against the workspace's daily job quota, in the reservation's
 * transaction (refused once the day's count is at the quota), or none without a quota.
 */
function dailyJobCount(workspace: Workspace, now: Date) {
  const quota = dailyJobQuota(workspace);
  if (quota === null) return [];
  const day = now.toISOString().slice(0, 10);
  const dayEnd = Date.parse(`${day}T00:00:00Z`) / 1000 + 86_400;
  return [
    {
      Update: {
        TableName: config().tableName,
        Key: keys.resource(workspace.workspace_id, RESOURCE_TYPES.dailyJobs, day),
        UpdateExpression: 'ADD jobs_started :one SET expires_at = :expires',
        ConditionExpression: 'attribute_not_exists(jobs_started) OR jobs_started < :quota',
        // Kept a day past the day it counts, for an administrator to look at.
        ExpressionAttributeValues: { ':one': 1, ':quota': quota, ':expires': dayEnd + 86_400 },
      },
    },
  ];
}

function quotaExceeded(workspace: Workspace, now: Date): QuotaExceededError {
  const nextDay = Math.ceil((now.getTime() + 1) / 86_400_000) * 86_400;
  return new QuotaExceededError(
    `This workspace's quota of ${dailyJobQuota(workspace)} paid jobs a day is used up; more can start after 00:00 UTC (a paid plan has no daily quota).`,
    Math.max(1, nextDay - Math.floor(now.getTime() / 1000)),
  );
}

/**
 * Refuses early, before any media is fetched or stored, a workspace that cannot pay even the
 * smallest job of this kind (`credits`); the reservation checks the real amount again.
 */
export function assertCanPay(workspace: Workspace, credits: number, trialVideo = true): void {
  const refused = refusal(workspace, credits, trialVideo);
  if (refused) throw refused;
}

/**
 * Writes `job` (a new item) and reserves `credits` for it in one transaction, or writes nothing and
 * throws the 402 the workspace's state calls for. The job item gets the `JobBilling` attributes.
 */
export async function createJobWithReservation(
  workspace: Workspace,
  job: StoredItem,
  credits: number,
  options: {
    /**
     * The job's item exists as an unbilled placeholder (a batch member written when its batch was
     * accepted) and is replaced. @default false
     */
    replacesPlaceholder?: boolean;
    /**
     * The job makes a video, which counts against the free trial's video limit. Other paid jobs
     * (avatars) spend credits only. @default true
     */
    trialVideo?: boolean;
    /**
     * The engine capabilities the job may use: refused (403) when the workspace's policy blocks the
     * vendor this deployment uses for one of them. @default [] (local work only)
     */
    engines?: readonly EngineCapability[];
  } = {},
): Promise<JobBilling> {
  assertVendorsAllowed(workspace.restrictions, options.engines ?? []);
  // A quota of 0 admits nothing (the count's condition admits a first job of the day whatever it is).
  if (dailyJobQuota(workspace) === 0) throw quotaExceeded(workspace, new Date());
  let current: Workspace | undefined = workspace;
  // A concurrent spend can change the balance between the read and the write: re-read and retry.
  for (let attempt = 0; attempt < 3 && current; attempt += 1) {
    const refused = refusal(current, credits, options.trialVideo);
    if (refused) throw refused;
    const balance = balanceOf(current);
    const trial = (options.trialVideo ?? true) ? PLAN_ENTITLEMENTS[current.plan].trialVideoLimit : null;
    const billing: JobBilling = {
      billing_state: BILLING_STATE.reserved,
      credits_reserved: credits,
      credits_charged: null,
      credits_balance: balance,
      trial_counted: trial !== null,
    };
    const conditions = ['#status = :active', '#balance >= :credits'];
    const values: Record<string, unknown> = { ':active': WORKSPACE_STATUS.active, ':credits': credits };
    if (typeof current.usage_limit_credits === 'number') {
      conditions.push('(attribute_not_exists(used_credits) OR used_credits <= :maxUsed)');
      values[':maxUsed'] = current.usage_limit_credits - credits;
    }
    if (trial !== null) {
      conditions.push('(attribute_not_exists(trial_videos_used) OR trial_videos_used < :trialLimit)');
      values[':trialLimit'] = trial;
    }
    const now = new Date();
    const refusedItem = await transactWrite([
      {
        Put: {
          TableName: config().tableName,
          Item: { ...job, ...billing },
          ConditionExpression: options.replacesPlaceholder
            ? 'attribute_exists(pk) AND attribute_not_exists(billing_state)'
            : 'attribute_not_exists(pk)',
        },
      },
      {
        Update: {
          TableName: config().tableName,
          Key: keys.workspace(current.workspace_id),
          UpdateExpression: `ADD #balance :spend, used_credits :credits${trial !== null ? ', trial_videos_used :one' : ''}`,
          ConditionExpression: conditions.join(' AND '),
          ExpressionAttributeNames: { '#status': 'status', '#balance': balance },
          ExpressionAttributeValues: {
            ...values,
            ':spend': -credits,
            ...(trial !== null ? { ':one': 1 } : {}),
          },
        },
      },
      ...dailyJobCount(current, now),
    ]);
    if (refusedItem === undefined) return billing;
    if (refusedItem === 0) throw new JobAlreadyBilledError(job.sk);
    if (refusedItem === 2) throw quotaExceeded(current, now);
    // The balance (or the trial or usage count) moved since it was read: read again and decide again.
    current = await getWorkspace(current.workspace_id, true);
    if (current?.status !== WORKSPACE_STATUS.active) {
      throw new Error(`Workspace ${workspace.workspace_id} is not active`);
    }
  }
  throw new PaymentRequiredError(
    'The workspace balance changed while this job was being created; try again.',
    'insufficient_credit',
  );
}

/**
 * The writes that top a job's reservation up to the burst rate, for the admission's transaction
 * (jobs/job-admission.ts): the job item marked with `rate_multiplier` and the extra credits, the
 * workspace's balance debited by them. The job's write is conditional on a reservation not ended and
 * not topped up yet, so a retried Admit tops up once; the workspace's on the balance (and the usage
 * limit) covering the extra, so a workspace that cannot pay it is refused (and its job waits for a
 * regular slot). The caller reads a refusal from the position of each: `[job, workspace]`.
 */
export function burstTopUp(workspace: Workspace, jobKey: ItemKey, billing: JobBilling): TransactionItem[] {
  const extra = Math.ceil(billing.credits_reserved * BURST_RATE_MULTIPLIER) - billing.credits_reserved;
  const conditions = ['#status = :active', '#balance >= :extra'];
  const values: Record<string, unknown> = { ':active': WORKSPACE_STATUS.active, ':extra': extra };
  if (typeof workspace.usage_limit_credits === 'number') {
    conditions.push('(attribute_not_exists(used_credits) OR used_credits <= :maxUsed)');
    values[':maxUsed'] = workspace.usage_limit_credits - extra;
  }
  return [
    {
      Update: {
        TableName: config().tableName,
        Key: jobKey,
        UpdateExpression: 'SET rate_multiplier = :rate, credits_burst_reserved = :extra',
        ConditionExpression: 'billing_state = :reserved AND attribute_not_exists(rate_multiplier)',
        ExpressionAttributeValues: {
          ':rate': BURST_RATE_MULTIPLIER,
          ':extra': extra,
          ':reserved': BILLING_STATE.reserved,
        },
      },
    },
    {
      Update: {
        TableName: config().tableName,
        Key: keys.workspace(workspace.workspace_id),
        UpdateExpression: 'ADD #balance :spend, used_credits :extra',
        ConditionExpression: conditions.join(' AND '),
        ExpressionAttributeNames: { '#status': 'status', '#balance': billing.credits_balance },
        ExpressionAttributeValues: { ...values, ':spend': -extra },
      },
    },
  ];
}

/**
 * Ends a reservation: `charged` credits (at the contract rate; times the burst rate for a job that ran
 * on a burst slot, rounded up) are spent, at most what is held (a burst top-up included), the rest
 * goes back.
 * Returns false when the job's billing was already ended (the step ran before). Concurrent
 * transactions on the workspace item (jobs ending together) are retried by `transactWrite`; any other
 * error throws, so the workflow's Retry and Catch see it instead of credits staying reserved unnoticed.
 */
async function endReservation(
  jobKey: ItemKey,
  workspaceId: string,
  billing: JobBilling,
  charged: number,
): Promise<boolean> {
  const held = billing.credits_reserved + (billing.credits_burst_reserved ?? 0);
  const spent = Math.min(Math.max(0, Math.ceil(charged * (billing.rate_multiplier ?? 1))), held);
  const returned = held - spent;
  const refunded = spent === 0;
  const returnsTrial = refunded && billing.trial_counted;
  // A charge is counted in the usage ledger by the same transaction (usage-ledger.ts): it can never be
  // counted without being spent, or twice. A refund charges nothing and counts nothing.
  const ledger = refunded
    ? []
    : [usageLedgerCharge(workspaceId, jobKey, spent, new Date(), billing.rate_multiplier !== undefined)];
  // Conditional on the rate read too: a top-up for a burst slot landing between the caller's read and
  // this write is then not left held. A refusal means the job's billing already ended (the step ran
  // before), unless the job is still reserved at another rate: then it ends with what it holds now.
  const refused = await transactWrite([
    {
      Update: {
        TableName: config().tableName,
        Key: jobKey,
        UpdateExpression: 'SET billing_state = :next, credits_charged = :spent',
        ConditionExpression: `billing_state = :reserved AND ${
          billing.rate_multiplier === undefined
            ? 'attribute_not_exists(rate_multiplier)'
            : 'rate_multiplier = :rate'
        }`,
        ExpressionAttributeValues: {
          ':next': refunded ? BILLING_STATE.refunded : BILLING_STATE.settled,
          ':spent': spent,
          ':reserved': BILLING_STATE.reserved,
          ...(billing.rate_multiplier === undefined ? {} : { ':rate': billing.rate_multiplier }),
        },
      },
    },
    {
      Update: {
        TableName: config().tableName,
        Key: keys.workspace(workspaceId),
        UpdateExpression: `ADD #balance :returned, used_credits :unused${returnsTrial ? ', trial_videos_used :minusOne' : ''}`,
        ExpressionAttributeNames: { '#balance': billing.credits_balance },
        ExpressionAttributeValues: {
          ':returned': returned,
          ':unused': -returned,
          ...(returnsTrial ? { ':minusOne': -1 } : {}),
        },
      },
    },
    ...ledger,
  ]);
  if (refused === undefined) return true;
  const current = reservationOf((await getItem<StoredItem & Partial<JobBilling>>(jobKey, true)) ?? {});
  if (
    current?.billing_state !== BILLING_STATE.reserved ||
    current.rate_multiplier === billing.rate_multiplier
  ) {
    return false;
  }
  return endReservation(jobKey, workspaceId, current, charged);
}

/** The reservation a job's record holds (`JobBilling`), or undefined for a record that never held one. */
export function reservationOf(record: Partial<JobBilling>): JobBilling | undefined {
  if (!record.billing_state || record.credits_reserved === undefined) return undefined;
  return {
    billing_state: record.billing_state,
    credits_reserved: record.credits_reserved,
    credits_charged: record.credits_charged ?? null,
    credits_balance: record.credits_balance ?? 'remaining_credits',
    trial_counted: record.trial_counted ?? false,
    ...(record.rate_multiplier === undefined
      ? {}
      : {
          rate_multiplier: record.rate_multiplier,
          credits_burst_reserved: record.credits_burst_reserved ?? 0,
        }),
  };
}

/** Completion: charges what the output really cost (never more than reserved), returns the rest. */
export function settleReservation(
  jobKey: ItemKey,
  workspaceId: string,
  billing: JobBilling,
  actualCredits: number,
): Promise<boolean> {
  return endReservation(jobKey, workspaceId, billing, actualCredits);
}

/** Failure: every reserved credit (a burst top-up included) goes back, and a trial video is given back too. */
export function refundReservation(
  jobKey: ItemKey,
  workspaceId: string,
  billing: JobBilling,
): Promise<boolean> {
  return endReservation(jobKey, workspaceId, billing, 0);
}
