/**
 * The composite remix's light match as a property: the per-channel transfer moves the person's face
 * colours onto the scene face's mean (exactly, when the gain needed is within its bounds), and never
 * amplifies or flattens a channel beyond them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { lightTransfer } from '../../../lambdas/engines/generation/composite-remix-engine.js';

const stats = fc.record({
  mean: fc.tuple(
    fc.double({ min: 0, max: 255, noNaN: true }),
    fc.double({ min: 0, max: 255, noNaN: true }),
    fc.double({ min: 0, max: 255, noNaN: true }),
  ),
  spread: fc.tuple(
    fc.double({ min: 1, max: 80, noNaN: true }),
    fc.double({ min: 1, max: 80, noNaN: true }),
    fc.double({ min: 1, max: 80, noNaN: true }),
  ),
});

describe('the light match of the composite remix', () => {
  it("maps the person's face mean onto the scene face's, with a bounded gain", () => {
    fc.assert(
      fc.property(stats, stats, (from, to) => {
        const { a, b } = lightTransfer(from, to);
        for (const channel of [0, 1, 2]) {
          const gain = a[channel] as number;
          expect(gain).toBeGreaterThanOrEqual(0.5);
          expect(gain).toBeLessThanOrEqual(2);
          // The mean always lands on the scene's: the offset absorbs a clamped gain.
          expect(gain * (from.mean[channel] as number) + (b[channel] as number)).toBeCloseTo(
            to.mean[channel] as number,
            6,
          );
        }
      }),
    );
  });
});
