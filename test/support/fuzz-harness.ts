/**
 * What the fuzz test files share (test/integration/security/*-fuzz.test.ts): one local stack per file
 * with a webhook endpoint, a folder and an upload batch to aim at, the built routes of the table with
 * their request schemas, the arbitraries of bodies, headers and strings, and the property every answer
 * must have (below 500, the error envelope). Seeded like every property test
 * (test/support/property-seed.ts): `FC_SEED=… FUZZ_RUNS=…` varies and deepens it.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, expect } from 'vitest';
import type { z } from 'zod';
import { ROUTES } from '../../lambdas/api/routes.js';
import { arbitraryOf, propertyNamesOf } from './schema-arbitrary.js';
import { startTestStack, type TestStack } from './test-stack.js';

let api: TestStack;
let endpointId: string;
let folderId: string;
let batchId: string;

/** The file's stack and the resources the fuzzing aims at, once `useFuzzStack`'s setup has run. */
export const fuzzTarget = {
  get api(): TestStack {
    return api;
  },
  get endpointId(): string {
    return endpointId;
  },
  get folderId(): string {
    return folderId;
  },
  get batchId(): string {
    return batchId;
  },
};

/** Starts the file's stack before its tests (and stops it after), with the resources to aim at. */
export function useFuzzStack(): void {
  beforeAll(async () => {
    api = await startTestStack();
    const endpoint = await api.call<{ data: { endpoint_id: string } }>('POST', '/v3/webhooks/endpoints', {
      body: { url: 'https://hooks.example.com/fuzz' },
    });
    expect(endpoint.status).toBe(201);
    endpointId = endpoint.body.data.endpoint_id;
    const folder = await api.call<{ data: { folder_id: string } }>('POST', '/v3/folders', {
      body: { name: 'Fuzz parent', type: 'video' },
    });
    expect(folder.status).toBe(201);
    folderId = folder.body.data.folder_id;
    const batch = await api.call<{ data: { batch_id: string } }>(
      'POST',
      '/v3/assets/direct-uploads/batches',
      {
        body: { files: [{ filename: 'a.png', content_type: 'image/png', size_bytes: 10 }] },
      },
    );
    expect(batch.status).toBe(201);
    batchId = batch.body.data.batch_id;
  });
  afterAll(() => api.stop());
}

/** Built routes of the table, with the schemas their requests are validated by. */
export const BUILT_ROUTES = ROUTES.flatMap((route) =>
  route.endpoint
    ? [{ ...route, request: route.endpoint.request, success: route.endpoint.successStatus }]
    : [],
);

export function builtRoute(operationId: string): (typeof BUILT_ROUTES)[number] {
  const route = BUILT_ROUTES.find((candidate) => candidate.operationId === operationId);
  if (!route) throw new Error(`${operationId} is not a built route of the table`);
  return route;
}

/** The body schema of a built route that takes one. */
export function bodySchemaOf(operationId: string): z.ZodType {
  const { body } = builtRoute(operationId).request;
  if (!body) throw new Error(`${operationId} takes no JSON body`);
  return body;
}

export interface Reply {
  status: number;
  contentType: string | null;
  text: string;
}

export interface Attempt {
  method: string;
  path: string;
  body?: string | Uint8Array | undefined;
  headers?: Record<string, string>;
}

export async function send({ method, path, body, headers = {} }: Attempt): Promise<Reply> {
  // fetch labels a string body text/plain; bytes go without a Content-Type unless one is given.
  const sent = typeof body === 'string' && !('Content-Type' in headers) ? Buffer.from(body) : body;
  const response = await fetch(`${api.baseUrl}${path}`, {
    method,
    headers: { 'X-Api-Key': api.apiKey, ...headers },
    ...(sent !== undefined ? { body: sent } : {}),
  });
  return {
    status: response.status,
    contentType: response.headers.get('content-type'),
    text: await response.text(),
  };
}

/** The property every answer must have. Throws (with the request) when it does not. */
export function expectWellFormed(reply: Reply, attempt: Attempt): void {
  const context = `${attempt.method} ${attempt.path} → ${reply.status} ${reply.text.slice(0, 300)}`;
  expect(reply.status, context).toBeLessThan(500);
  expect(reply.contentType, context).toMatch(/^application\/json/);
  const parsed: unknown = JSON.parse(reply.text);
  expect(parsed, context).toBeTypeOf('object');
  if (reply.status >= 400) {
    const error = (parsed as { error?: Record<string, unknown> }).error;
    expect(error, context).toBeTypeOf('object');
    expect(error?.code, context).toBeTypeOf('string');
    expect(error?.code, context).not.toBe('');
    expect(error?.message, context).toBeTypeOf('string');
    expect(error?.message, context).not.toBe('');
    expect(error && 'param' in error, context).toBe(true);
    expect(error?.param === null || typeof error?.param === 'string', context).toBe(true);
    expect(error?.doc_url, context).toBeTypeOf('string');
  } else {
    expect((parsed as { data?: unknown }).data, context).toBeTypeOf('object');
  }
}

/** What every answer has, whatever its success body (a raw body: audio, SRT, a document). */
export function expectBelow500WithEnvelope(reply: Reply, attempt: Attempt): void {
  if (reply.status < 400) {
    expect(reply.status, `${attempt.method} ${attempt.path}`).toBeGreaterThanOrEqual(200);
    return;
  }
  expectWellFormed(reply, attempt);
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** Single code points of the whole Unicode range, plus lone surrogates and control characters. */
export const anyChar = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.constantFrom('\ud800', '\udfff', '\u0000', '\u202e', '\ufeff', '\u{1f431}', 'é', '"', '\\'),
);
export const anyString = fc.string({ unit: anyChar, maxLength: 64 });
/** Strings far past every length limit: 300 to 300 000 code points. */
export const hugeString = fc
  .tuple(fc.string({ unit: anyChar, minLength: 1, maxLength: 3 }), fc.integer({ min: 300, max: 100_000 }))
  .map(([seed, times]) => seed.repeat(times));
/** Deeply nested arrays or objects around a value. */
export const deeplyNested = fc
  .tuple(fc.integer({ min: 10, max: 3_000 }), fc.boolean(), fc.jsonValue({ maxDepth: 1 }))
  .map(([depth, asObject, leaf]) => {
    let value: unknown = leaf;
    for (let level = 0; level < depth; level++) value = asObject ? { name: value } : [value];
    return value;
  });
export const wellFormedId = fc.string({
  unit: fc.constantFrom(...'0123456789abcdef'),
  minLength: 32,
  maxLength: 32,
});
export const anyJson = fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' });
export const wildValue = fc.oneof(anyJson, anyString, hugeString, deeplyNested);

/** Every field a JSON body of the table names, for wrong-typed values and stray fields. */
export const FIELD_NAMES = [
  ...new Set(
    BUILT_ROUTES.flatMap((route) => (route.request.body ? propertyNamesOf(route.request.body) : [])),
  ),
];
export const fieldName = fc.oneof(
  fc.constantFrom(...FIELD_NAMES, '__proto__', 'constructor', 'prototype', 'toString', '', ' name', 'NAME'),
  anyString,
);

/** Plausible values for the known fields, so that fuzzing also reaches past validation. */
export const plausibleUrl = fc.oneof(
  { weight: 4, arbitrary: fc.webUrl({ validSchemes: ['https'] }) },
  { weight: 1, arbitrary: fc.webUrl() },
  fc.constantFrom(
    'https://hooks.example.com/x',
    'https://127.0.0.1/',
    'https://[::1]/',
    'https://[::ffff:169.254.169.254]/',
    'https://0x7f.1/',
    'https://2130706433/',
    'https://hooks.example.com:0/',
    'https://user:pw@hooks.example.com/',
    'https://xn--nxasmq6b.example/',
    'https://例え.テスト/パス',
    'javascript:alert(1)',
    'file:///etc/passwd',
  ),
);
export const eventName = fc.oneof(
  fc.constantFrom('avatar_video.success', 'avatar_video.fail', 'video_agent.success', 'video.exploded'),
  anyString,
);
/**
 * Values where a schema alone cannot make a plausible one (existing resources, URLs the outbound guard
 * weighs, type names), weighted to reach past validation as often as they are refused by it.
 */
export const plausibleFields = {
  name: fc.oneof(
    { weight: 4, arbitrary: fc.string({ unit: anyChar, minLength: 1, maxLength: 64 }) },
    { weight: 1, arbitrary: anyString },
    { weight: 1, arbitrary: fc.string({ unit: 'grapheme', minLength: 250, maxLength: 260 }) },
  ),
  parent_id: fc.oneof(
    wellFormedId,
    anyString,
    // Generated after the stack has started: an existing folder.
    fc.constant(null).map(() => folderId),
  ),
  type: fc.constantFrom('mixed', 'video', 'video_translate', 'asset', 'podcast', ''),
  url: plausibleUrl,
  events: fc.oneof(fc.constant(null), fc.array(eventName, { maxLength: 40 })),
  entity_id: anyString,
  // Valid values weigh more, so that fuzzing reaches past validation as often as it is refused by it.
  filename: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('clip.mp4', 'logo.png', 'voice.wav') },
    { weight: 1, arbitrary: fc.constantFrom('', '../x', 'a/b.png') },
    { weight: 1, arbitrary: anyString },
  ),
  content_type: fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('image/png', 'video/mp4', 'audio/wav', 'image/jpg') },
    { weight: 1, arbitrary: fc.constantFrom('text/html', '') },
    { weight: 1, arbitrary: anyString },
  ),
  size_bytes: fc.oneof(
    { weight: 4, arbitrary: fc.integer({ min: 1, max: 10_000_000 }) },
    { weight: 1, arbitrary: fc.integer({ min: -10, max: 0 }) },
    { weight: 1, arbitrary: fc.oneof(fc.double(), fc.constant(Number.MAX_SAFE_INTEGER)) },
  ),
  files: fc.oneof(
    {
      weight: 4,
      arbitrary: fc.array(
        fc.record({
          filename: fc.constantFrom('a.png', 'b.wav', 'c.mp4'),
          content_type: fc.constantFrom('image/png', 'audio/wav', 'video/mp4'),
          size_bytes: fc.integer({ min: 1, max: 1000 }),
        }),
        { minLength: 1, maxLength: 3 },
      ),
    },
    {
      weight: 1,
      arbitrary: fc.array(
        fc.record({
          filename: fc.constantFrom('', '../x', 'a.png'),
          content_type: fc.constantFrom('text/html', 'image/png'),
          size_bytes: fc.oneof(fc.constant(0), fc.constant(-1), fc.integer()),
        }),
        { maxLength: 3 },
      ),
    },
    { weight: 1, arbitrary: anyJson },
  ),
  title: fc.oneof(fc.string({ maxLength: 20 }), anyString, hugeString),
  callback_url: plausibleUrl,
  batch_id: fc.oneof(
    wellFormedId,
    anyString,
    // An existing batch of the fuzzing workspace, created after the stack started.
    fc.constant(null).map(() => batchId),
  ),
  checksum_sha256: fc.oneof(
    fc.string({ unit: fc.constantFrom(...'0123456789abcdefABCDEF'), minLength: 64, maxLength: 64 }),
    anyString,
  ),
};

/** A body derived from the route's schema, with the plausible values above for the fields they name. */
export const plausibleBody = (schema: z.ZodType) => arbitraryOf(schema, plausibleFields);

export const wrongTypedFields = fc.record(
  Object.fromEntries(FIELD_NAMES.map((name) => [name, wildValue])) as Record<string, typeof wildValue>,
  { requiredKeys: [] },
);
export const jsonBodyFor = (schema: z.ZodType) =>
  fc.oneof(
    { weight: 12, arbitrary: plausibleBody(schema) },
    { weight: 1, arbitrary: anyJson },
    { weight: 1, arbitrary: fc.record(plausibleFields, { requiredKeys: [] }) },
    {
      weight: 1,
      arbitrary: fc
        .tuple(plausibleBody(schema), fc.dictionary(fieldName, wildValue, { maxKeys: 3 }))
        .map(([known, extra]) => ({ ...(known as object), ...extra })),
    },
    { weight: 1, arbitrary: wrongTypedFields },
    { weight: 1, arbitrary: fc.dictionary(fieldName, wildValue, { maxKeys: 8 }) },
    { weight: 1, arbitrary: deeplyNested },
    { weight: 1, arbitrary: hugeString.map((value) => ({ name: value, url: value, entity_id: value })) },
  );

/** Any header value fetch can send: visible ASCII and inner spaces and tabs. */
export const headerValue = fc.oneof(
  fc.string({
    unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
    maxLength: 300,
  }),
  fc.string({ unit: fc.constantFrom('a', 'Z', '0', '_', '-', ':', '.'), minLength: 1, maxLength: 300 }),
  fc.string({ unit: fc.constantFrom('a', ' ', '\t', '/', '=', '%'), maxLength: 20 }),
);
export const idempotencyHeader = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9_\-:.]{1,255}$/) },
  { weight: 1, arbitrary: headerValue },
);

export const CONTENT_TYPES = [
  'application/json',
  'application/json; charset=utf-8',
  'APPLICATION/JSON',
  'text/plain',
  'text/json',
  'application/x-www-form-urlencoded',
  'multipart/form-data; boundary=xyz',
  'application/octet-stream',
  'application/xml',
  'image/png',
];
export const contentType = fc.oneof(
  { weight: 4, arbitrary: fc.constant('application/json') },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
);

/** A body and headers: JSON of any shape, or raw text or bytes that are not JSON at all. */
export const payloadFor = (schema: z.ZodType) =>
  fc.oneof(
    {
      weight: 6,
      arbitrary: fc.record({
        body: jsonBodyFor(schema).map((value) => JSON.stringify(value)),
        contentType,
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        body: fc.oneof(
          anyString,
          fc.string({ unit: 'binary-ascii', maxLength: 200 }),
          fc.constantFrom(
            '{',
            '{"name": ',
            '[1,2',
            'null',
            'true',
            '1e999',
            '"\\ud800"',
            '{"a":1}{"b":2}',
            'NaN',
          ),
          fc.json().map((text) => `${text}garbage`),
        ),
        contentType,
      }),
    },
    {
      weight: 1,
      arbitrary: fc.record({ body: fc.uint8Array({ maxLength: 512 }), contentType }),
    },
  );

export function headersOf(
  type: string | undefined,
  idempotencyKey: string | undefined,
): Record<string, string> {
  return {
    ...(type !== undefined ? { 'Content-Type': type } : {}),
    ...(idempotencyKey !== undefined ? { 'Idempotency-Key': idempotencyKey } : {}),
  };
}

/**
 * Runs per property; `FUZZ_RUNS=5000 npx vitest run …` fuzzes deeper. 40 in the suite: the two fuzz
 * files then take about 38 s of a 2-core machine's CPU (117 s at 100 runs), and every status a property
 * must reach carries an example that reaches it, so fewer runs weaken no assertion.
 */
export const NUM_RUNS = Number(process.env.FUZZ_RUNS ?? 40);

/**
 * The statuses a fuzz run must have reached. Runs are drawn from the suite's seed, which a failure
 * names (`FC_SEED=<seed>` replays it); a case whose success must be reached also carries an example
 * that reaches it, so the assertion never rests on the draw.
 */
export function expectReached(seen: ReadonlySet<number>, ...statuses: number[]): void {
  const { seed } = fc.readConfigureGlobal();
  for (const status of statuses)
    expect([...seen], `statuses reached (replay with FC_SEED=${String(seed)})`).toContain(status);
}
