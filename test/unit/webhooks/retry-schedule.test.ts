/**
 * When failed deliveries are retried: the default schedule, jitter, Retry-After, the queue's delay
 * granularity and the configuration that sets them.
 */
import { afterEach, describe, expect, it } from 'vitest';
import { config, DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS, resetConfig } from '../../../lambdas/core/config.js';
import {
  maxAttempts,
  nextRetryDelay,
  parseRetryAfter,
  type RetryPolicy,
} from '../../../lambdas/webhooks/retry-schedule.js';
import { MAX_QUEUE_DELAY_SECONDS, queueDelaySeconds } from '../../../lambdas/webhooks/webhook-queue.js';

const HOUR = 3_600_000;
const policy: RetryPolicy = {
  scheduleMs: DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS,
  jitter: 0.2,
  maxRetryAfterMs: HOUR,
};

describe('the default schedule', () => {
  it('retries with growing waits for up to 24 hours: ten attempts', () => {
    const total = DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS.reduce((sum, wait) => sum + wait, 0);
    expect(total).toBeLessThanOrEqual(24 * HOUR);
    expect(total).toBeGreaterThan(23 * HOUR);
    expect(maxAttempts(policy)).toBe(10);
    for (const [index, wait] of DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS.entries()) {
      expect(wait).toBeGreaterThanOrEqual(DEFAULT_WEBHOOK_RETRY_SCHEDULE_MS[index - 1] ?? 0);
    }
  });

  it('jitters each wait downwards only, so the schedule never outlasts 24 hours', () => {
    expect(nextRetryDelay(policy, 1, null, () => 0)).toBe(5_000);
    expect(nextRetryDelay(policy, 1, null, () => 1)).toBe(4_000);
    expect(nextRetryDelay(policy, 9, null, () => 0.5)).toBe(Math.round(28_800_000 * 0.9));
    expect(nextRetryDelay(policy, 10, null)).toBeNull();
  });
});

describe('Retry-After', () => {
  it('lengthens a wait, up to the cap, and never adds attempts', () => {
    const exact = () => 0;
    expect(nextRetryDelay(policy, 1, 30_000, exact)).toBe(30_000);
    expect(nextRetryDelay(policy, 1, 1_000, exact)).toBe(5_000);
    expect(nextRetryDelay(policy, 1, 10 * HOUR, exact)).toBe(HOUR);
    // A scheduled wait longer than the cap is never shortened by it.
    expect(nextRetryDelay(policy, 9, 10 * HOUR, exact)).toBe(28_800_000);
    expect(nextRetryDelay(policy, 10, 1_000, exact)).toBeNull();
  });

  it('reads delay-seconds and HTTP dates, and ignores anything else', () => {
    const now = Date.parse('2026-11-21T12:00:00Z');
    expect(parseRetryAfter('120', now)).toBe(120_000);
    expect(parseRetryAfter(' 0 ', now)).toBe(0);
    expect(parseRetryAfter('Sat, 21 Nov 2026 12:00:30 GMT', now)).toBe(30_000);
    expect(parseRetryAfter('Sat, 21 Nov 2026 11:00:00 GMT', now)).toBe(0);
    for (const junk of [undefined, '', 'soon', '-5', '1.5']) expect(parseRetryAfter(junk, now)).toBeNull();
  });
});

describe('queue delays', () => {
  it('are whole seconds, never past the wait, at most 900 (the rest is waited again on receipt)', () => {
    expect(queueDelaySeconds(0)).toBe(0);
    expect(queueDelaySeconds(999)).toBe(0);
    expect(queueDelaySeconds(1_999)).toBe(1);
    expect(queueDelaySeconds(-50)).toBe(0);
    expect(queueDelaySeconds(8 * HOUR)).toBe(MAX_QUEUE_DELAY_SECONDS);
  });
});

describe('configuration', () => {
  const saved = { ...process.env };
  afterEach(() => {
    process.env = { ...saved };
    resetConfig();
  });

  it('reads the schedule, deadline, jitter and cap from the environment', () => {
    Object.assign(process.env, {
      TABLE_NAME: 'table',
      WEBHOOK_RETRY_SCHEDULE_MS: '20, 40,80',
      WEBHOOK_TIMEOUT_MS: '200',
      WEBHOOK_RETRY_JITTER: '0',
      WEBHOOK_MAX_RETRY_AFTER_MS: '1000',
    });
    resetConfig();
    expect(config()).toMatchObject({
      webhookRetryScheduleMs: [20, 40, 80],
      webhookTimeoutMs: 200,
      webhookRetryJitter: 0,
      webhookMaxRetryAfterMs: 1000,
    });
  });

  it.each([
    ['WEBHOOK_RETRY_SCHEDULE_MS', '10,,20'],
    ['WEBHOOK_RETRY_SCHEDULE_MS', '10,-1'],
    ['WEBHOOK_RETRY_SCHEDULE_MS', 'fast'],
    ['WEBHOOK_TIMEOUT_MS', '0'],
    ['WEBHOOK_RETRY_JITTER', '1.5'],
  ])('refuses %s=%s', (name, value) => {
    Object.assign(process.env, { TABLE_NAME: 'table', [name]: value });
    resetConfig();
    expect(() => config()).toThrow(name);
  });
});
