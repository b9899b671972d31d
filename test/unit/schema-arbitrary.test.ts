/** The fuzz tests' arbitraries derived from zod request schemas (test/support/schema-arbitrary.ts). */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { z } from 'zod';
import { ROUTES } from '../../lambdas/api/routes.js';
import { arbitraryOf, propertyNamesOf } from '../support/schema-arbitrary.js';

const SEED = 20_261_124;

describe('arbitraryOf', () => {
  it('derives only values the schema accepts when it has no refinements', () => {
    const schema = z.strictObject({
      name: z.string().min(1).max(8),
      kind: z.enum(['video', 'audio']),
      count: z.number().int().min(1).max(100).optional(),
      ratio: z.number().min(0).max(1).optional(),
      tags: z.array(z.string().max(3)).max(2).optional(),
      parent: z.string().nullable().optional(),
      mode: z.union([z.literal('fast'), z.object({ steps: z.number().int().min(1) })]).optional(),
    });
    fc.assert(
      fc.property(arbitraryOf(schema), (value) => {
        expect(schema.safeParse(value).success, JSON.stringify(value)).toBe(true);
      }),
      { seed: SEED, numRuns: 300 },
    );
  });

  it('derives values for the request schemas of every built route', () => {
    for (const route of ROUTES) {
      for (const schema of Object.values(route.endpoint?.request ?? {})) {
        expect(fc.sample(arbitraryOf(schema), { seed: SEED, numRuns: 5 }), route.operationId).toHaveLength(5);
      }
    }
  });

  it('names the parameters of a query schema', () => {
    expect(
      propertyNamesOf(z.strictObject({ limit: z.coerce.number(), token: z.string().optional() })),
    ).toEqual(['limit', 'token']);
  });
});
