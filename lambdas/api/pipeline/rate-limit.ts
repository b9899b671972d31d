/**
 * Request-rate limits per workspace and class (and per IP for status polling), as sliding windows
 * shared by every function instance through one DynamoDB item per limit: a log of held slots
 * (`rate-window.ts`, which proves that no interval of the window's length admits more than the limit).
 *
 * Writing the log for every request would double the table traffic of every read. Instead each
 * process leases slots and spends them locally. A lease starts at one request and doubles each time a
 * busy process spends a whole lease, up to a fraction of the limit (`RATE_LIMIT_LEASE_FRACTION`); a
 * lease must be spent within `RATE_LIMIT_LEASE_MS`, and a request after that drops what is left and
 * starts again at one. A
 * lease of one slot is spent at once and held for the window; a larger one is held for the window
 * plus the time it may be spent in, which is what keeps the guarantee. Leased but unspent slots are
 * lost until released, so idle processes must hold little: a process that saw one request holds
 * nothing, and only a process that proved busy holds a large lease, where it saves most log writes.
 *
 * Per request that is not served from a lease: one conditional write when this process's copy of the
 * log is current (it usually is: it made the last write), else a consistent read and a second write;
 * a request that the copy already shows to be over the limit costs nothing.
 */
import { GetCommand, PutCommand } from '@aws-sdk/lib-dynamodb';
import type { RateLimitOverrides } from '../../accounts/workspaces.js';
import { documents } from '../../core/aws-clients.js';
import { config } from '../../core/config.js';
import { RateLimitError } from '../../core/errors.js';
import { onProcessReset } from '../../core/process-state.js';
import { EMPTY_LOG, freeAt, heldSlots, releaseTime, reserve, type WindowLog } from './rate-window.js';
import { RATE_CLASSES, type RateClass } from './route-types.js';

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

/** The window log of a workspace's requests of one class. */
export const workspaceRateKey = (workspaceId: string, rateClass: RateClass) => `${workspaceId}#${rateClass}`;

export function limitFor(bucket: Bucket, plan: string, overrides: RateLimitOverrides): RateLimit {
  const base = PLAN_RATE_LIMITS[plan === 'enterprise' ? 'enterprise' : 'standard'][bucket];
  const override = overrides[bucket];
  return override === undefined ? base : { limit: override, windowSeconds: base.windowSeconds };
}

export interface RateDecision {
  allowed: boolean;
  limit: number;
  remaining: number;
  /**
   * Seconds until another request is admitted, when this one was refused; otherwise until the next
   * held slot is released (the remaining count grows then). At least 1.
   */
  resetSeconds: number;
  scope: string;
}

/** Where the window logs live: DynamoDB, or a stand-in (tests). */
export interface WindowLogStore {
  /** The stored log (consistent read); `EMPTY_LOG` if there is none. */
  read(key: string): Promise<WindowLog>;
  /** Stores `log` if the stored one is still at `expectedVersion` (0: none); false if it moved on. */
  write(key: string, log: WindowLog, expectedVersion: number): Promise<boolean>;
}

export interface RateLimiterSettings {
  leaseFraction: number;
  leaseMs: number;
  windowSteps: number;
  /** Conditional writes tried before a contended request is refused. */
  maxAttempts: number;
}

interface KeyState {
  /** This process's copy of the log: what it last read or wrote. */
  log: WindowLog | undefined;
  /** Slots leased and not yet spent, and until when they may be spent. */
  available: number;
  leaseEndsAt: number;
  /** Size of the next lease. */
  nextSize: number;
  /** Requests of this process for this key, one after another (a local server serves many at once). */
  queue: Promise<unknown>;
}

/**
 * One process's limiter. Instances of it in one test model function instances sharing the store.
 */
export class RateLimiter {
  private readonly keys = new Map<string, KeyState>();

  constructor(
    private readonly store: WindowLogStore,
    private readonly settings: RateLimiterSettings,
  ) {}

  /** Takes one request from the limit `key` (e.g. `<workspace>#read`) at `nowMs`. */
  take(key: string, rate: RateLimit, scope: string, nowMs: number): Promise<RateDecision> {
    let state = this.keys.get(key);
    if (!state) {
      state = { log: undefined, available: 0, leaseEndsAt: 0, nextSize: 1, queue: Promise.resolve() };
      this.keys.set(key, state);
    }
    const current = state;
    const decision = current.queue.then(() => this.decide(key, current, rate, scope, nowMs));
    current.queue = decision.catch(() => undefined);
    return decision;
  }

  private async decide(
    key: string,
    state: KeyState,
    rate: RateLimit,
    scope: string,
    nowMs: number,
  ): Promise<RateDecision> {
    const windowMs = rate.windowSeconds * 1000;
    if (state.available > 0 && nowMs <= state.leaseEndsAt) {
      state.available -= 1;
      if (state.available === 0) state.nextSize = this.grow(state.nextSize, rate.limit);
      return this.decision(true, state, rate, scope, nowMs);
    }
    if (nowMs > state.leaseEndsAt) {
      // The last lease ran out (spent or not) before this request: this process is not as busy as it
      // was, so it starts again at one slot rather than hold a large lease it may not spend.
      state.available = 0;
      state.nextSize = 1;
    }
    const leaseMs = Math.min(this.settings.leaseMs, windowMs);
    const stepMs = windowMs / this.settings.windowSteps;
    for (let attempt = 0; attempt < this.settings.maxAttempts; attempt++) {
      // The copy can lack others' reservations but never holds one that is not stored (only releases
      // remove them, and they are a matter of time): when the copy is full, so is the log.
      if (state.log && heldSlots(state.log, nowMs) >= rate.limit) {
        return this.decision(false, state, rate, scope, nowMs);
      }
      const base = state.log ?? (await this.store.read(key));
      const size = state.nextSize;
      // One slot is spent now; more must be spent within the lease, so they are held that much longer.
      const until = releaseTime(nowMs, windowMs + (size > 1 ? leaseMs : 0), stepMs);
      const { log, granted } = reserve(base, nowMs, size, rate.limit, until);
      if (granted === 0) {
        state.log = base;
        return this.decision(false, state, rate, scope, nowMs);
      }
      if (await this.store.write(key, log, base.version)) {
        state.log = log;
        state.available = granted - 1;
        state.leaseEndsAt = nowMs + leaseMs;
        if (state.available === 0) state.nextSize = this.grow(size, rate.limit);
        return this.decision(true, state, rate, scope, nowMs);
      }
      state.log = await this.store.read(key);
    }
    // Contended past every attempt: refusing keeps the guarantee; the client retries after a second.
    return { allowed: false, limit: rate.limit, remaining: 0, resetSeconds: 1, scope };
  }

  private grow(size: number, limit: number): number {
    return Math.min(size * 2, Math.max(1, Math.floor(limit * this.settings.leaseFraction)));
  }

  private decision(
    allowed: boolean,
    state: KeyState,
    rate: RateLimit,
    scope: string,
    nowMs: number,
  ): RateDecision {
    const log = state.log ?? EMPTY_LOG;
    // Slots this process leased and has not spent are still this caller's to use.
    const remaining = Math.max(0, rate.limit - heldSlots(log, nowMs) + state.available);
    const releasedAt = allowed
      ? (log.reservations.find((slot) => slot.until > nowMs)?.until ?? nowMs)
      : freeAt(log, nowMs, rate.limit);
    return {
      allowed,
      limit: rate.limit,
      remaining,
      resetSeconds: Math.max(1, Math.ceil((releasedAt - nowMs) / 1000)),
      scope,
    };
  }

  /** Forget every lease and copy (a fresh instance). */
  reset(): void {
    this.keys.clear();
  }
}

interface StoredLog {
  reservations: { until: number; count: number }[];
  version: number;
}

/** The logs in the service's table: `RATE#<key>` / `window`, expiring a minute after the last slot. */
export const dynamoWindowLogs: WindowLogStore = {
  async read(key) {
    const result = await documents().send(
      new GetCommand({
        TableName: config().tableName,
        Key: { pk: `RATE#${key}`, sk: 'window' },
        ConsistentRead: true,
      }),
    );
    const item = result.Item as StoredLog | undefined;
    return item ? { reservations: item.reservations, version: item.version } : EMPTY_LOG;
  },
  async write(key, log, expectedVersion) {
    const lastUntil = log.reservations.at(-1)?.until ?? Date.now();
    try {
      await documents().send(
        new PutCommand({
          TableName: config().tableName,
          Item: {
            pk: `RATE#${key}`,
            sk: 'window',
            reservations: log.reservations,
            version: log.version,
            expires_at: Math.ceil(lastUntil / 1000) + 60,
          },
          ...(expectedVersion === 0
            ? { ConditionExpression: 'attribute_not_exists(pk)' }
            : {
                ConditionExpression: 'version = :expected',
                ExpressionAttributeValues: { ':expected': expectedVersion },
              }),
        }),
      );
      return true;
    } catch (error) {
      if ((error as Error).name === 'ConditionalCheckFailedException') return false;
      throw error;
    }
  },
};

let limiter: RateLimiter | undefined;

function processLimiter(): RateLimiter {
  limiter ??= new RateLimiter(dynamoWindowLogs, {
    leaseFraction: config().rateLimitLeaseFraction,
    leaseMs: config().rateLimitLeaseMs,
    windowSteps: config().rateLimitWindowSteps,
    maxAttempts: 5,
  });
  return limiter;
}

/** Takes one request from the limit `counterKey` (e.g. `<workspace>#read`), shared by every instance. */
export function takeRequest(
  counterKey: string,
  rate: RateLimit,
  scope: string,
  nowMs = Date.now(),
): Promise<RateDecision> {
  return processLimiter().take(counterKey, rate, scope, nowMs);
}

export interface RateHeadroom {
  rate_class: RateClass;
  limit: number;
  window_seconds: number;
  /** Slots held in the window now: requests admitted, and slots instances leased and not spent yet. */
  used: number;
  /** Requests the workspace may still send in this class now. */
  remaining: number;
}

/**
 * Each request class's limit for a workspace and what is left of it now, read from the shared window
 * logs (consistent reads; no slot is taken). Slots leased by busy instances and not spent yet count as
 * used: they are unavailable to anyone else until spent or released, so `remaining` never promises more
 * than a request would get.
 */
export async function workspaceRateHeadroom(
  workspaceId: string,
  plan: string,
  overrides: RateLimitOverrides,
  nowMs = Date.now(),
): Promise<RateHeadroom[]> {
  return Promise.all(
    Object.values(RATE_CLASSES).map(async (rateClass) => {
      const rate = limitFor(rateClass, plan, overrides);
      const used = heldSlots(await dynamoWindowLogs.read(workspaceRateKey(workspaceId, rateClass)), nowMs);
      return {
        rate_class: rateClass,
        limit: rate.limit,
        window_seconds: rate.windowSeconds,
        used,
        remaining: Math.max(0, rate.limit - used),
      };
    }),
  );
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

/** Forget all leases and copies of logs (a fresh instance; tests). */
export function resetRateLimitLeases(): void {
  limiter = undefined;
}
onProcessReset(resetRateLimitLeases);
