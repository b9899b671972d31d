/**
 * The progress a chunked HyperFrames render shows: each chunk adds its share of the 85 points between
 * "planned" (5) and "stored" (90) when it is stored, in whatever order the chunks end. Whatever the cut,
 * the shares add up to the span exactly (the GET reaches 90 when the last chunk is stored, never more),
 * and no share is negative (the progress never goes back).
 */
import '../../support/property-seed.js';
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { chunkProgressPoints } from '../../../lambdas/hyperframes/hyperframes-steps.js';

/** Consecutive chunks covering [0, totalFrames), cut at the given frames. */
const cuts = fc.integer({ min: 1, max: 200_000 }).chain((totalFrames) =>
  fc
    .uniqueArray(fc.integer({ min: 1, max: Math.max(1, totalFrames - 1) }), { maxLength: 250 })
    .map((inner) => {
      const bounds = [0, ...inner.filter((frame) => frame < totalFrames).sort((a, b) => a - b), totalFrames];
      return {
        totalFrames,
        chunks: bounds.slice(1).map((endFrame, index) => ({ startFrame: bounds[index] ?? 0, endFrame })),
      };
    }),
);

describe('chunk progress', () => {
  it('adds up to the 85 points of the chunks exactly, each share at least 0, in any order', () => {
    fc.assert(
      fc.property(cuts, ({ totalFrames, chunks }) => {
        const shares = chunks.map((chunk) => chunkProgressPoints(chunk, totalFrames));
        expect(shares.every((share) => share >= 0)).toBe(true);
        expect(shares.reduce((sum, share) => sum + share, 0)).toBe(85);
      }),
    );
  });

  it('gives equal chunks of a render equal shares within a point', () => {
    const shares = Array.from({ length: 75 }, (_, index) =>
      chunkProgressPoints({ startFrame: index * 240, endFrame: (index + 1) * 240 }, 18_000),
    );
    expect(Math.max(...shares) - Math.min(...shares)).toBeLessThanOrEqual(1);
  });
});
