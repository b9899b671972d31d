import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  type RateLimit,
  RateLimiter,
  type RateLimiterSettings,
  type WindowLogStore,
} from '../../../lambdas/api/pipeline/rate-limit.js';
import { EMPTY_LOG, type WindowLog } from '../../../lambdas/api/pipeline/rate-window.js';

/** The table's semantics for one item per key: consistent reads, writes conditional on the version. */
function memoryStore(): WindowLogStore & { writes: number } {
  const logs = new Map<string, WindowLog>();
  const copy = (log: WindowLog) => structuredClone(log);
  const store = {
    writes: 0,
    async read(key: string) {
      await Promise.resolve();
      return copy(logs.get(key) ?? EMPTY_LOG);
    },
    async write(key: string, log: WindowLog, expectedVersion: number) {
      await Promise.resolve();
      store.writes += 1;
      if ((logs.get(key)?.version ?? 0) !== expectedVersion) return false;
      logs.set(key, copy(log));
      return true;
    },
  };
  return store;
}

/** The most requests admitted in any half-open interval of `windowMs` (it starts at an admission). */
function mostInAnyWindow(admitted: number[], windowMs: number): number {
  const times = [...admitted].sort((left, right) => left - right);
  let most = 0;
  let start = 0;
  for (let end = 0; end < times.length; end++) {
    while ((times[end] ?? 0) - (times[start] ?? 0) >= windowMs) start++;
    most = Math.max(most, end - start + 1);
  }
  return most;
}

const settings = (overrides: Partial<RateLimiterSettings> = {}): RateLimiterSettings => ({
  leaseFraction: 0.02,
  leaseMs: 5000,
  windowSteps: 20,
  maxAttempts: 5,
  ...overrides,
});

const base = Date.UTC(2026, 10, 24, 12, 0, 0);

describe('sliding-window rate limits', () => {
  it('admits 10, not 20, of a 10/s burst straddling a second boundary', async () => {
    const limiter = new RateLimiter(memoryStore(), settings());
    const rate: RateLimit = { limit: 10, windowSeconds: 1 };
    const times = [
      ...Array.from({ length: 10 }, () => base + 850),
      ...Array.from({ length: 10 }, () => base + 1150),
    ];
    const admitted: number[] = [];
    for (const time of times) {
      if ((await limiter.take('ws#write', rate, 'workspace:write', time)).allowed) admitted.push(time);
    }
    expect(admitted).toHaveLength(10);
    // The first slots come back a window after they were taken, not at the next second.
    expect((await limiter.take('ws#write', rate, 's', base + 1849)).allowed).toBe(false);
    expect((await limiter.take('ws#write', rate, 's', base + 1850)).allowed).toBe(true);
  });

  it('holds a lease until a window after the last moment it may be spent', async () => {
    const store = memoryStore();
    const lease = settings({ leaseFraction: 1, leaseMs: 1000 });
    const busy = new RateLimiter(store, lease);
    const other = new RateLimiter(store, lease);
    const rate: RateLimit = { limit: 8, windowSeconds: 1 };
    const admitted: number[] = [];
    const take = async (limiter: RateLimiter, time: number) => {
      if ((await limiter.take('k', rate, 's', time)).allowed) admitted.push(time);
    };
    // Leases of 1, 2 and 4 (the busy instance spends each whole lease, so the next one doubles)…
    for (const time of [base, base + 1, base + 2, base + 3]) await take(busy, time);
    // …the rest of the last one spent just before the lease ends…
    for (let index = 0; index < 3; index++) await take(busy, base + 990);
    // …then another instance bursts once the first slots' window has passed.
    for (let index = 0; index < 8; index++) await take(other, base + 1050);
    expect(admitted.length).toBeGreaterThan(7);
    expect(mostInAnyWindow(admitted, 1000)).toBeLessThanOrEqual(8);
  });

  it('tells a refused caller when the next slot frees', async () => {
    const limiter = new RateLimiter(memoryStore(), settings());
    const rate: RateLimit = { limit: 2, windowSeconds: 60 };
    await limiter.take('k', rate, 's', base);
    const second = await limiter.take('k', rate, 's', base + 20_000);
    expect(second).toMatchObject({ allowed: true, remaining: 0, resetSeconds: 40 });
    const refused = await limiter.take('k', rate, 's', base + 30_000);
    expect(refused).toMatchObject({ allowed: false, remaining: 0, resetSeconds: 30 });
  });

  it('never admits more than the limit in any interval of the window, whatever the instances, leases and timing', async () => {
    const scenario = fc.record({
      limit: fc.integer({ min: 1, max: 40 }),
      windowSeconds: fc.constantFrom(1, 2, 60),
      leaseFraction: fc.constantFrom(0.02, 0.25, 1),
      leaseMs: fc.constantFrom(0, 150, 700, 5000),
      windowSteps: fc.constantFrom(1, 3, 20),
      instances: fc.integer({ min: 1, max: 4 }),
      // Where the first request falls in its window: often just before a boundary.
      startOffset: fc.oneof(fc.constant(-1), fc.constant(-50), fc.integer({ min: -2000, max: 2000 })),
      requests: fc.array(
        fc.record({
          // 0: the same instant (a burst, sent concurrently), else a gap in thousandths of a window.
          gap: fc.oneof(
            fc.constant(0),
            fc.constant(0),
            fc.integer({ min: 1, max: 40 }),
            fc.integer({ min: 1, max: 1200 }),
          ),
          instance: fc.nat(),
        }),
        { minLength: 1, maxLength: 150 },
      ),
      // Requests before which their instance is replaced (a cold start: no leases, no copy of the log).
      coldStarts: fc.array(fc.nat({ max: 149 }), { maxLength: 10 }),
    });
    await fc.assert(
      fc.asyncProperty(scenario, async (run) => {
        const windowMs = run.windowSeconds * 1000;
        const rate: RateLimit = { limit: run.limit, windowSeconds: run.windowSeconds };
        const store = memoryStore();
        const limiterSettings = settings({
          leaseFraction: run.leaseFraction,
          leaseMs: run.leaseMs,
          windowSteps: run.windowSteps,
        });
        const limiters = Array.from({ length: run.instances }, () => new RateLimiter(store, limiterSettings));
        const coldStarts = new Set(run.coldStarts);
        const admitted: number[] = [];
        let now = base + windowMs + run.startOffset;
        let burst: Promise<void>[] = [];
        for (const [index, request] of run.requests.entries()) {
          if (request.gap > 0) {
            await Promise.all(burst);
            burst = [];
            now += Math.max(1, Math.round((request.gap * windowMs) / 1000));
          }
          const limiter = limiters[request.instance % run.instances] as RateLimiter;
          if (coldStarts.has(index)) limiter.reset();
          const time = now;
          burst.push(
            limiter.take('ws#read', rate, 'workspace:read', time).then((decision) => {
              if (decision.allowed) admitted.push(time);
            }),
          );
        }
        await Promise.all(burst);
        expect(mostInAnyWindow(admitted, windowMs)).toBeLessThanOrEqual(run.limit);
        // Not vacuous: the first request of a fresh limit is always admitted.
        expect(admitted.length).toBeGreaterThan(0);
      }),
      { numRuns: 300 },
    );
  });

  it('serves a busy instance from leases: far fewer writes than requests, and exactly the limit', async () => {
    const store = memoryStore();
    const limiter = new RateLimiter(store, settings({ leaseFraction: 0.02 }));
    const rate: RateLimit = { limit: 1000, windowSeconds: 60 };
    let allowed = 0;
    for (let index = 0; index < 1200; index++) {
      if ((await limiter.take('busy', rate, 's', base + index)).allowed) allowed += 1;
    }
    expect(allowed).toBe(1000);
    expect(store.writes).toBeLessThan(100);
  });
});
