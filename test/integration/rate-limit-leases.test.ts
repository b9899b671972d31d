import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import {
  dynamoWindowLogs,
  RateLimiter,
  resetRateLimitLeases,
  takeRequest,
} from '../../lambdas/api/pipeline/rate-limit.js';
import { dynamo } from '../../lambdas/core/aws-clients.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

// The window logs live in the stack's table; these tests call the limiter directly, as each function
// instance does, and model instances by forgetting the process's leases.
let api: TestStack;
beforeAll(async () => {
  api = await startTestStack();
});
afterAll(() => api.stop());

const now = Date.UTC(2026, 10, 21, 12, 0, 0);
const perMinute = (limit: number) => ({ limit, windowSeconds: 60 });

describe('shared rate-limit window logs with leases', () => {
  it('admits exactly the limit when every request lands on a different instance', async () => {
    const decisions = [];
    for (let index = 0; index < 301; index++) {
      resetRateLimitLeases(); // a fresh instance each time
      decisions.push(await takeRequest('spread#read', perMinute(300), 'workspace:read', now));
    }
    expect(decisions.filter((decision) => decision.allowed)).toHaveLength(300);
    expect(decisions.at(-1)?.allowed).toBe(false);
  });

  it('admits exactly the limit from one busy instance, with far fewer table calls than requests', async () => {
    resetRateLimitLeases();
    let counterWrites = 0;
    dynamo().middlewareStack.add(
      (next, context) => async (args) => {
        if (context.commandName === 'PutItemCommand' || context.commandName === 'GetItemCommand')
          counterWrites += 1;
        return next(args);
      },
      { step: 'initialize', name: 'countCounterWrites' },
    );
    const allowed = [];
    for (let index = 0; index < 1200; index++) {
      allowed.push((await takeRequest('busy#read', perMinute(1000), 'workspace:read', now)).allowed);
    }
    dynamo().middlewareStack.remove('countCounterWrites');
    expect(allowed.filter(Boolean)).toHaveLength(1000);
    expect(allowed.slice(1000).every((value) => !value)).toBe(true);
    expect(counterWrites).toBeGreaterThan(0);
    expect(counterWrites).toBeLessThan(100);
  });

  it('shares one limit between instances that both get traffic', async () => {
    resetRateLimitLeases();
    const first = [];
    for (let index = 0; index < 40; index++)
      first.push((await takeRequest('shared#write', perMinute(50), 'workspace:write', now)).allowed);
    resetRateLimitLeases();
    const second = [];
    for (let index = 0; index < 40; index++)
      second.push((await takeRequest('shared#write', perMinute(50), 'workspace:write', now)).allowed);
    const admitted = [...first, ...second].filter(Boolean).length;
    // The first instance may hold at most its last lease unspent; nothing is ever over-admitted.
    expect(admitted).toBeLessThanOrEqual(50);
    expect(admitted).toBeGreaterThanOrEqual(50 - 1);
  });

  it('gives a slot back one window after it was taken', async () => {
    resetRateLimitLeases();
    const rate = { limit: 2, windowSeconds: 1 };
    expect((await takeRequest('window#write', rate, 's', now)).allowed).toBe(true);
    expect((await takeRequest('window#write', rate, 's', now)).allowed).toBe(true);
    expect((await takeRequest('window#write', rate, 's', now)).allowed).toBe(false);
    expect((await takeRequest('window#write', rate, 's', now + 1000)).allowed).toBe(true);
  });

  it('keeps the limit exact when instances write over each other (every write conditional)', async () => {
    const settings = { leaseFraction: 0.02, leaseMs: 5000, windowSteps: 20, maxAttempts: 5 };
    const first = new RateLimiter(dynamoWindowLogs, settings);
    const second = new RateLimiter(dynamoWindowLogs, settings);
    const allowed = [];
    // Alternating, each instance's copy of the log is always one write behind: every write but the
    // first conflicts, is refused, and is retried after a fresh read.
    for (let index = 0; index < 30; index++) {
      const limiter = index % 2 === 0 ? first : second;
      allowed.push((await limiter.take('contended#write', perMinute(20), 's', now)).allowed);
    }
    expect(allowed.filter(Boolean)).toHaveLength(20);
    expect(allowed.slice(20).every((value) => !value)).toBe(true);
  });
});
