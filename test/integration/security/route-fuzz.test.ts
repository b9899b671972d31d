/**
 * Property-based fuzzing of every built route of the table, with cases derived from its request
 * schemas (path, query and body), and of list query strings: the service answers below 500 and every
 * 4xx carries the error envelope. Apart from create-fuzz.test.ts so the two share the cores. The
 * harness is test/support/fuzz-harness.ts. `FC_SEED=… FUZZ_RUNS=…` varies and deepens it.
 */
import fc from 'fast-check';
import { beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import {
  anyString,
  BUILT_ROUTES,
  expectBelow500WithEnvelope,
  expectWellFormed,
  fieldName,
  fuzzTarget,
  headersOf,
  idempotencyHeader,
  NUM_RUNS,
  send,
  useFuzzStack,
  wellFormedId,
  wildValue,
} from '../../support/fuzz-harness.js';
import { arbitraryOf, propertyNamesOf } from '../../support/schema-arbitrary.js';

useFuzzStack();

describe('every built route never fails with 5xx, with cases derived from its request schemas', () => {
  // Whole code points only: a path is percent-encoded UTF-8, which a lone surrogate has no form in.
  const pathSegment = fc.oneof(
    { weight: 2, arbitrary: wellFormedId },
    { weight: 1, arbitrary: fc.string({ unit: 'binary', minLength: 1, maxLength: 64 }) },
  );
  const queryValue = (value: unknown): string => (Array.isArray(value) ? value.join(',') : String(value));

  it.each(BUILT_ROUTES.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s',
    async (_label, route) => {
      const pathNames = [...route.path.matchAll(/\{([^}]+)\}/g)].map(([, name]) => name ?? '');
      const pathValues = route.request.path
        ? fc.oneof(
            arbitraryOf(route.request.path),
            fc.record(Object.fromEntries(pathNames.map((name) => [name, pathSegment]))),
          )
        : fc.record(Object.fromEntries(pathNames.map((name) => [name, pathSegment])));
      const query = route.request.query
        ? fc.oneof(
            { weight: 4, arbitrary: arbitraryOf(route.request.query) },
            { weight: 1, arbitrary: fc.dictionary(fieldName, anyString, { maxKeys: 3 }) },
          )
        : fc.constant({});
      const body = route.request.body
        ? fc.oneof(
            { weight: 4, arbitrary: arbitraryOf(route.request.body) },
            { weight: 1, arbitrary: wildValue },
          )
        : fc.constant(undefined);
      const key = route.idempotent ? idempotencyHeader : fc.constant(undefined);
      await fc.assert(
        fc.asyncProperty(
          pathValues,
          query,
          body,
          key,
          async (pathParameters, queryParameters, payload, idempotencyKey) => {
            const values = (pathParameters ?? {}) as Record<string, unknown>;
            const path = route.path.replace(/\{([^}]+)\}/g, (_match, name: string) =>
              encodeURIComponent(String(values[name] ?? 'x') || 'x'),
            );
            const search = new URLSearchParams(
              Object.entries(queryParameters as Record<string, unknown>)
                .filter(([, value]) => value !== undefined)
                .map(([name, value]): [string, string] => [name, queryValue(value)]),
            ).toString();
            const attempt = {
              method: route.method,
              path: search ? `${path}?${search}` : path,
              ...(payload !== undefined ? { body: JSON.stringify(payload) } : {}),
              headers: headersOf(payload !== undefined ? 'application/json' : undefined, idempotencyKey),
            };
            const reply = await send(attempt);
            expectBelow500WithEnvelope(reply, attempt);
          },
        ),
        { numRuns: Math.ceil(NUM_RUNS / 4) },
      );
    },
  );
});

describe('list query strings never fail with 5xx', () => {
  /** The list routes of the table: a `limit` and `token` in their query, no path parameters. */
  const LISTS = BUILT_ROUTES.filter(
    (route) =>
      route.method === 'GET' &&
      !route.path.includes('{') &&
      route.request.query !== undefined &&
      ['limit', 'token'].every((name) => propertyNamesOf(route.request.query as z.ZodType).includes(name)),
  );
  const LIST_ROUTES = LISTS.map((route) => route.path);
  const LIST_PARAMETERS = [
    ...new Set(LISTS.flatMap((route) => propertyNamesOf(route.request.query as z.ZodType))),
  ];

  let realTokens: string[] = [];

  beforeAll(async () => {
    for (let index = 0; index < 3; index++) {
      await fuzzTarget.api.call('POST', '/v3/folders', { body: { name: `page ${index}` } });
      await fuzzTarget.api.call('POST', '/v3/webhooks/endpoints', {
        body: { url: `https://hooks.example.com/p${index}` },
      });
    }
    realTokens = [];
    for (const path of LIST_ROUTES) {
      const page = await fuzzTarget.api.call<{ next_token: string | null }>('GET', `${path}?limit=1`);
      if (page.body.next_token) realTokens.push(page.body.next_token);
    }
    expect(realTokens.length).toBeGreaterThanOrEqual(2);
  });

  const limit = fc.oneof(
    fc.integer({ min: -1000, max: 1000 }).map(String),
    fc.double().map(String),
    fc.constantFrom(
      '',
      ' ',
      '0',
      '1',
      '100',
      '101',
      '1e2',
      '1e999',
      '0x10',
      '0b1',
      '-0',
      '+5',
      ' 5 ',
      'NaN',
      'Infinity',
      '10.0',
      '10.5',
      '٣',
    ),
    anyString,
  );
  const token = fc.oneof(
    anyString,
    fc.base64String({ maxLength: 200 }),
    fc
      .tuple(fc.base64String({ maxLength: 80 }), fc.base64String({ maxLength: 60 }))
      .map(([a, b]) => `${a}.${b}`),
    fc.constantFrom('', '.', '..', 'a.b.c', 'e30.', '.e30'),
    fc.nat().map((index) => realTokens[index % Math.max(realTokens.length, 1)] ?? ''),
    fc
      .tuple(fc.nat(), fc.nat(), fc.string({ unit: 'grapheme-ascii', minLength: 1, maxLength: 1 }))
      .map(([index, position, replacement]) => {
        const original = realTokens[index % Math.max(realTokens.length, 1)] ?? '';
        const at = position % Math.max(original.length, 1);
        return original.slice(0, at) + replacement + original.slice(at + 1);
      }),
  );
  const parameter = fc.oneof(
    fc.tuple(fc.constant('limit'), limit),
    fc.tuple(fc.constant('token'), token),
    fc.tuple(fc.constantFrom(...LIST_PARAMETERS, 'cursor', 'page', 'limit[]'), anyString),
    // Any name; fast-check also yields Object.prototype members such as `valueOf` (pinned down below).
    fc.tuple(anyString, anyString),
  );

  it('lists the list routes of the table', () => {
    expect(LIST_ROUTES).toEqual(
      expect.arrayContaining(['/v3/folders', '/v3/webhooks/events', '/v3/audio/sounds']),
    );
  });

  it.each(LIST_ROUTES)('GET %s with any limit, token and extra parameters', async (path) => {
    await fc.assert(
      fc.asyncProperty(fc.array(parameter, { maxLength: 4 }), async (parameters) => {
        const query = new URLSearchParams(parameters).toString();
        const attempt = { method: 'GET', path: `${path}?${query}` };
        const reply = await send(attempt);
        expectWellFormed(reply, attempt);
        if (reply.status === 200) {
          const list = JSON.parse(reply.text) as { data: unknown; has_more: unknown; next_token: unknown };
          expect(Array.isArray(list.data)).toBe(true);
          expect(list.has_more).toBeTypeOf('boolean');
          expect(list.next_token === null || typeof list.next_token === 'string').toBe(true);
        }
      }),
      { numRuns: NUM_RUNS },
    );
  });

  it.each([
    ['__proto__', ''],
    ['constructor', 'x'],
    ['toString', 'x'],
    ['hasOwnProperty', '1'],
    ['valueOf', '1'],
  ])('GET /v3/folders?%s=%s → the list, the unknown parameter ignored, not 500', async (name, value) => {
    const attempt = { method: 'GET', path: `/v3/folders?${name}=${value}` };
    const reply = await send(attempt);
    expectWellFormed(reply, attempt);
    expect(reply.status).toBe(200);
    expect(Array.isArray(JSON.parse(reply.text).data)).toBe(true);
  });
});
