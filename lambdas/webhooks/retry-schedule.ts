/**
 * When a failed webhook delivery is tried again. The waits come from the configuration
 * (`WEBHOOK_RETRY_SCHEDULE_MS`: by default 5 s, 1 min, 5 min, 30 min, 1 h, 2 h, 4 h, 8 h, 8 h, ten
 * attempts over about 23.6 hours), each shortened by random jitter so receivers that failed together
 * are not hit together again, and never longer than the schedule says unless the receiver asked for
 * more with `Retry-After`.
 */
import { config } from '../core/config.js';

export interface RetryPolicy {
  /** Wait before retry n (index n - 1), in milliseconds. */
  scheduleMs: readonly number[];
  /** Fraction of each wait that may be cut at random. */
  jitter: number;
  /** Longest wait `Retry-After` may ask for, in milliseconds. */
  maxRetryAfterMs: number;
}

export function retryPolicy(): RetryPolicy {
  const settings = config();
  return {
    scheduleMs: settings.webhookRetryScheduleMs,
    jitter: settings.webhookRetryJitter,
    maxRetryAfterMs: settings.webhookMaxRetryAfterMs,
  };
}

/** How many attempts a delivery gets in all: the first and one per scheduled wait. */
export function maxAttempts(policy: RetryPolicy): number {
  return policy.scheduleMs.length + 1;
}

/**
 * The wait before the next attempt after `attemptsMade` attempts failed, or null when none is left.
 * `retryAfterMs` (the receiver's `Retry-After`) lengthens the wait, up to `maxRetryAfterMs` (or the
 * scheduled wait, when that is longer); it never adds attempts.
 */
export function nextRetryDelay(
  policy: RetryPolicy,
  attemptsMade: number,
  retryAfterMs: number | null,
  random: () => number = Math.random,
): number | null {
  const scheduled = policy.scheduleMs[attemptsMade - 1];
  if (scheduled === undefined) return null;
  const jittered = Math.round(scheduled * (1 - policy.jitter * random()));
  if (retryAfterMs === null || retryAfterMs <= jittered) return jittered;
  return Math.min(retryAfterMs, Math.max(scheduled, policy.maxRetryAfterMs));
}

/**
 * `Retry-After` in milliseconds from now: delay-seconds or an HTTP date; null when absent or
 * unreadable (then the schedule alone decides).
 */
export function parseRetryAfter(value: string | undefined, now: number = Date.now()): number | null {
  if (!value) return null;
  const trimmed = value.trim();
  if (/^\d+$/.test(trimmed)) return Number(trimmed) * 1000;
  // Every HTTP-date form starts with the day's name ("Sun, 06 Nov 1994 08:49:37 GMT").
  if (!/^[A-Za-z]{3}/.test(trimmed)) return null;
  const date = Date.parse(trimmed);
  if (Number.isNaN(date)) return null;
  return Math.max(0, date - now);
}
