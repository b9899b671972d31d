/**
 * Request-rate limits per workspace and class (and per IP for status polling), as fixed windows
 * counted in DynamoDB so every function instance shares them.
 *
 * Counting every request with a write would double the table traffic of every read. Instead each
 * process leases requests from the shared counter and spends them locally. A lease starts at one
 * request per window and doubles each time a busy process spends its lease, up to a fraction of the
 * limit (`RATE_LIMIT_LEASE_FRACTION`). Leased but unspent requests are lost to the window, so idle
 * processes must hold little: a process that saw one request holds nothing, and only a process that
 * proved busy holds a large lease, where it saves most of the counter writes.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { RateLimitOverrides } from '../../accounts/workspaces.js';
import { documents } from '../../core/aws-clients.js';
import { config } from '../../core/config.js';
import { RateLimitError } from '../../core/errors.js';
import { onProcessReset } from '../../core/process-state.js';
import type { RateClass } from './route-types.js';

export interface RateLimit {
  limit: number;
  windowSeconds: number;
}

type Bucket = RateClass | 'status_ip';

/** The spec's plan defaults; Enterprise values in the second table. */
export const PLAN_RATE_LIMITS: Record<'standard' | 'enterprise', Record<Bucket, RateLimit>> = {
  standard: {
    read: { limit: 300, windowSeconds: 60 },
    write: { limit: 10, windowSeconds: 1 },
    heavy: { limit: 30, windowSeconds: 60 },
    status: { limit: 500, windowSeconds: 60 },
    status_ip: { limit: 600, windowSeconds: 60 },
  },
  enterprise: {
    read: { limit: 1000, windowSeconds: 60 },
    write: { limit: 30, windowSeconds: 1 },
    heavy: { limit: 120, windowSeconds: 60 },
    status: { limit: 1500, windowSeconds: 60 },
    status_ip: { limit: 1800, windowSeconds: 60 },
  },
};

export function limitFor(bucket: Bucket, plan: string, overrides: RateLimitOverrides): RateLimit {
  const base = PLAN_RATE_LIMITS[plan === 'enterprise' ? 'enterprise' : 'standard'][bucket];
  const override = overrides[bucket];
  return override === undefined ? base : { limit: override, windowSeconds: base.windowSeconds };
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /** Seconds until the window resets. */
  resetSeconds: number;
  scope: string;
}

interface Lease {
  windowStart: number;
  /** Requests leased to this process and not yet spent. */
  available: number;
  /** The shared counter after our last lease. */
  counted: number;
  /** The window's counter has reached the limit: counters only grow, so ask no more this window. */
  exhausted: boolean;
  /** Size of the next lease: doubles with each lease spent in this window. */
  nextSize: number;
}

const leases = new Map<string, Lease>();

async function addToCounter(counterKey: string, windowStart: number, amount: number, expiresAt: number) {
  const result = await documents().send(
    new UpdateCommand({
      TableName: config().tableName,
      Key: { pk: `RATE#${counterKey}`, sk: String(windowStart) },
      UpdateExpression: 'ADD hits :amount SET expires_at = :expires',
      ExpressionAttributeValues: { ':amount': amount, ':expires': expiresAt },
      ReturnValues: 'UPDATED_NEW',
    }),
  );
  return Number(result.Attributes?.hits ?? amount);
}

/** Takes one request from the bucket `counterKey` (e.g. `<workspace>#read`). */
export async function takeRequest(
  counterKey: string,
  rate: RateLimit,
  scope: string,
  nowMs = Date.now(),
): Promise<RateDecision> {
  const windowMs = rate.windowSeconds * 1000;
  const windowStart = Math.floor(nowMs / windowMs) * windowMs;
  const resetSeconds = Math.max(1, Math.ceil((windowStart + windowMs - nowMs) / 1000));
  let lease = leases.get(counterKey);
  if (!lease || lease.windowStart !== windowStart) {
    lease = { windowStart, available: 0, counted: 0, exhausted: false, nextSize: 1 };
    leases.set(counterKey, lease);
  }
  if (lease.available === 0 && !lease.exhausted) {
    const size = lease.nextSize;
    lease.nextSize = Math.min(
      size * 2,
      Math.max(1, Math.floor(rate.limit * config().rateLimitLeaseFraction)),
    );
    const counted = await addToCounter(
      counterKey,
      windowStart,
      size,
      Math.ceil((windowStart + windowMs) / 1000) + 60,
    );
    // The part of this lease that fits under the limit is ours to spend (added: concurrent requests
    // of one process may lease at the same time).
    lease.available += Math.max(0, Math.min(size, rate.limit - (counted - size)));
    lease.counted = Math.max(lease.counted, counted);
    lease.exhausted = lease.counted >= rate.limit;
  }
  const used = Math.min(rate.limit, lease.counted - lease.available);
  if (lease.available === 0) {
    return { allowed: false, limit: rate.limit, remaining: 0, resetSeconds, scope };
  }
  lease.available -= 1;
  return {
    allowed: true,
    limit: rate.limit,
    remaining: Math.max(0, rate.limit - used - 1),
    resetSeconds,
    scope,
  };
}

export function rateLimitHeaders(decision: RateDecision): Record<string, string> {
  return {
    'X-RateLimit-Limit': String(decision.limit),
    'X-RateLimit-Remaining': String(decision.remaining),
    'X-RateLimit-Reset': String(decision.resetSeconds),
    'X-RateLimit-Scope': decision.scope,
  };
}

export function rateLimitExceeded(decision: RateDecision): RateLimitError {
  return new RateLimitError(
    `Too many requests (${decision.scope}): at most ${decision.limit} per window. Retry after ${decision.resetSeconds} s.`,
    { 'Retry-After': String(decision.resetSeconds), ...rateLimitHeaders(decision) },
  );
}

/** Forget all leases (tests). */
export function resetRateLimitLeases(): void {
  leases.clear();
}
onProcessReset(resetRateLimitLeases);
