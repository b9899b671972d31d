/**
 * Property-based fuzzing of the implemented routes and of list query strings: whatever a client
 * sends, the service answers below 500, and every 4xx carries the error envelope. Every built route of
 * the table is fuzzed with cases derived from its request schemas; the creates that need existing
 * resources to succeed also get hand-made plausible values. Seeded like every property test
 * (test/support/property-seed.ts): `FC_SEED=… FUZZ_RUNS=…` varies and deepens it.
 */
import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { z } from 'zod';
import { ROUTES } from '../../../lambdas/api/routes.js';
import { createEspeakEngine } from '../../../lambdas/engines/speech/espeak-engine.js';
import { encodeWavPcm16 } from '../../../lambdas/engines/speech/wav.js';
import { recordEvent } from '../../../lambdas/webhooks/deliveries.js';
import { arbitraryOf, propertyNamesOf } from '../../support/schema-arbitrary.js';
import { startTestStack, type TestStack } from '../../support/test-stack.js';

/** Built routes of the table, with the schemas their requests are validated by. */
const BUILT_ROUTES = ROUTES.flatMap((route) =>
  route.endpoint
    ? [{ ...route, request: route.endpoint.request, success: route.endpoint.successStatus }]
    : [],
);

function builtRoute(operationId: string): (typeof BUILT_ROUTES)[number] {
  const route = BUILT_ROUTES.find((candidate) => candidate.operationId === operationId);
  if (!route) throw new Error(`${operationId} is not a built route of the table`);
  return route;
}

/** The body schema of a built route that takes one. */
function bodySchemaOf(operationId: string): z.ZodType {
  const { body } = builtRoute(operationId).request;
  if (!body) throw new Error(`${operationId} takes no JSON body`);
  return body;
}

let api: TestStack;
let endpointId: string;
let folderId: string;
let batchId: string;

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
  const batch = await api.call<{ data: { batch_id: string } }>('POST', '/v3/assets/direct-uploads/batches', {
    body: { files: [{ filename: 'a.png', content_type: 'image/png', size_bytes: 10 }] },
  });
  expect(batch.status).toBe(201);
  batchId = batch.body.data.batch_id;
});
afterAll(() => api.stop());

interface Reply {
  status: number;
  contentType: string | null;
  text: string;
}

interface Attempt {
  method: string;
  path: string;
  body?: string | Uint8Array | undefined;
  headers?: Record<string, string>;
}

async function send({ method, path, body, headers = {} }: Attempt): Promise<Reply> {
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
function expectWellFormed(reply: Reply, attempt: Attempt): void {
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
function expectBelow500WithEnvelope(reply: Reply, attempt: Attempt): void {
  if (reply.status < 400) {
    expect(reply.status, `${attempt.method} ${attempt.path}`).toBeGreaterThanOrEqual(200);
    return;
  }
  expectWellFormed(reply, attempt);
}

// ---------------------------------------------------------------------------------------------
// Arbitraries

/** Single code points of the whole Unicode range, plus lone surrogates and control characters. */
const anyChar = fc.oneof(
  fc.string({ unit: 'binary', minLength: 1, maxLength: 1 }),
  fc.constantFrom('\ud800', '\udfff', '\u0000', '\u202e', '\ufeff', '\u{1f431}', 'é', '"', '\\'),
);
const anyString = fc.string({ unit: anyChar, maxLength: 64 });
/** Strings far past every length limit: 300 to 300 000 code points. */
const hugeString = fc
  .tuple(fc.string({ unit: anyChar, minLength: 1, maxLength: 3 }), fc.integer({ min: 300, max: 100_000 }))
  .map(([seed, times]) => seed.repeat(times));
/** Deeply nested arrays or objects around a value. */
const deeplyNested = fc
  .tuple(fc.integer({ min: 10, max: 3_000 }), fc.boolean(), fc.jsonValue({ maxDepth: 1 }))
  .map(([depth, asObject, leaf]) => {
    let value: unknown = leaf;
    for (let level = 0; level < depth; level++) value = asObject ? { name: value } : [value];
    return value;
  });
const wellFormedId = fc.string({
  unit: fc.constantFrom(...'0123456789abcdef'),
  minLength: 32,
  maxLength: 32,
});
const anyJson = fc.jsonValue({ maxDepth: 4, stringUnit: 'binary' });
const wildValue = fc.oneof(anyJson, anyString, hugeString, deeplyNested);

/** Every field a JSON body of the table names, for wrong-typed values and stray fields. */
const FIELD_NAMES = [
  ...new Set(
    BUILT_ROUTES.flatMap((route) => (route.request.body ? propertyNamesOf(route.request.body) : [])),
  ),
];
const fieldName = fc.oneof(
  fc.constantFrom(...FIELD_NAMES, '__proto__', 'constructor', 'prototype', 'toString', '', ' name', 'NAME'),
  anyString,
);

/** Plausible values for the known fields, so that fuzzing also reaches past validation. */
const plausibleUrl = fc.oneof(
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
const eventName = fc.oneof(
  fc.constantFrom('avatar_video.success', 'avatar_video.fail', 'video_agent.success', 'video.exploded'),
  anyString,
);
/**
 * Values where a schema alone cannot make a plausible one (existing resources, URLs the outbound guard
 * weighs, type names), weighted to reach past validation as often as they are refused by it.
 */
const plausibleFields = {
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
const plausibleBody = (schema: z.ZodType) => arbitraryOf(schema, plausibleFields);

const wrongTypedFields = fc.record(
  Object.fromEntries(FIELD_NAMES.map((name) => [name, wildValue])) as Record<string, typeof wildValue>,
  { requiredKeys: [] },
);
const jsonBodyFor = (schema: z.ZodType) =>
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
const headerValue = fc.oneof(
  fc.string({
    unit: fc.integer({ min: 0x21, max: 0x7e }).map((code) => String.fromCharCode(code)),
    maxLength: 300,
  }),
  fc.string({ unit: fc.constantFrom('a', 'Z', '0', '_', '-', ':', '.'), minLength: 1, maxLength: 300 }),
  fc.string({ unit: fc.constantFrom('a', ' ', '\t', '/', '=', '%'), maxLength: 20 }),
);
const idempotencyHeader = fc.oneof(
  { weight: 2, arbitrary: fc.constant(undefined) },
  { weight: 1, arbitrary: fc.stringMatching(/^[A-Za-z0-9_\-:.]{1,255}$/) },
  { weight: 1, arbitrary: headerValue },
);

const CONTENT_TYPES = [
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
const contentType = fc.oneof(
  { weight: 4, arbitrary: fc.constant('application/json') },
  { weight: 1, arbitrary: fc.constant(undefined) },
  { weight: 2, arbitrary: fc.constantFrom(...CONTENT_TYPES) },
);

/** A body and headers: JSON of any shape, or raw text or bytes that are not JSON at all. */
const payloadFor = (schema: z.ZodType) =>
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

function headersOf(type: string | undefined, idempotencyKey: string | undefined): Record<string, string> {
  return {
    ...(type !== undefined ? { 'Content-Type': type } : {}),
    ...(idempotencyKey !== undefined ? { 'Idempotency-Key': idempotencyKey } : {}),
  };
}

/** Runs per property; `FUZZ_RUNS=5000 npx vitest run …` fuzzes deeper. */
const NUM_RUNS = Number(process.env.FUZZ_RUNS ?? 150);

/**
 * The statuses a fuzz run must have reached. Runs are drawn from the suite's seed, which a failure
 * names (`FC_SEED=<seed>` replays it); a case whose success must be reached also carries an example
 * that reaches it, so the assertion never rests on the draw.
 */
function expectReached(seen: ReadonlySet<number>, ...statuses: number[]): void {
  const { seed } = fc.readConfigureGlobal();
  for (const status of statuses)
    expect([...seen], `statuses reached (replay with FC_SEED=${String(seed)})`).toContain(status);
}

describe('create and update routes never fail with 5xx', () => {
  // The creates and updates whose plausible bodies can succeed: method, body schema and success status
  // come from the row; the path names resources created above.
  const cases = [
    { ...builtRoute('FolderCreate'), url: () => '/v3/folders' },
    { ...builtRoute('WebhookEndpointsCreate'), url: () => '/v3/webhooks/endpoints' },
    { ...builtRoute('AssetDirectUploadsCreate'), url: () => '/v3/assets/direct-uploads' },
    { ...builtRoute('AssetDirectUploadsBatchesCreate'), url: () => '/v3/assets/direct-uploads/batches' },
    { ...builtRoute('AssetCompleteBatchesCreate'), url: () => '/v3/assets/complete/batches' },
    { ...builtRoute('WebhookEndpointsUpdate'), url: () => `/v3/webhooks/endpoints/${endpointId}` },
  ];

  it.each(cases.map((route) => [`${route.method} ${route.path}`, route] as const))(
    '%s: any body, content type and Idempotency-Key',
    async (_label, route) => {
      const seen = new Set<number>();
      await fc.assert(
        fc.asyncProperty(
          payloadFor(bodySchemaOf(route.operationId)),
          idempotencyHeader,
          async ({ body, contentType: type }, key) => {
            const attempt = { method: route.method, path: route.url(), body, headers: headersOf(type, key) };
            const reply = await send(attempt);
            expectWellFormed(reply, attempt);
            seen.add(reply.status);
          },
        ),
        { numRuns: NUM_RUNS },
      );
      // The inputs reached past validation as well as being rejected by it.
      expectReached(seen, route.success, 400);
    },
  );

  it('PATCH /v3/webhooks/endpoints/{endpoint_id}: any path parameter', async () => {
    const pathSegment = fc.oneof(
      wellFormedId,
      fc.string({ unit: 'binary', minLength: 1, maxLength: 64 }).map((value) => encodeURIComponent(value)),
      fc.constantFrom('%', '%zz', '..', '.', '%2e%2e', '%2F', 'a%00b', 'null', 'undefined', '__proto__'),
    );
    await fc.assert(
      fc.asyncProperty(
        pathSegment,
        plausibleBody(bodySchemaOf('WebhookEndpointsUpdate')),
        async (segment, body) => {
          const attempt = {
            method: 'PATCH',
            path: `/v3/webhooks/endpoints/${segment}`,
            body: JSON.stringify(body),
            headers: { 'Content-Type': 'application/json' },
          };
          expectWellFormed(await send(attempt), attempt);
        },
      ),
      { numRuns: NUM_RUNS },
    );
  });

  it('answers a body over the payload limit with 413 in the envelope', async () => {
    const attempt = {
      method: 'POST',
      path: '/v3/folders',
      body: JSON.stringify({ name: 'x'.repeat(11 * 1024 * 1024) }),
      headers: { 'Content-Type': 'application/json' },
    };
    const reply = await send(attempt);
    expect(reply.status).toBe(413);
    expectWellFormed(reply, attempt);
  });
});

describe('video creates never fail with 5xx', () => {
  // A workspace without credits: bodies that pass validation end in 402 instead of rendering.
  let brokeKey: string;
  beforeAll(async () => {
    brokeKey = (await api.newWorkspace({ included_credits: 0 })).apiKey;
  });

  const mediaInput = fc.oneof(
    fc.record({
      type: fc.constant('base64'),
      media_type: fc.constantFrom('image/png', 'video/mp4', ''),
      data: fc.oneof(fc.base64String({ maxLength: 64 }), anyString),
    }),
    fc.record({ type: fc.constant('url'), url: plausibleUrl }),
    fc.record({ type: fc.constant('asset_id'), asset_id: fc.oneof(wellFormedId, anyString) }),
    anyJson,
  );
  const script = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('Hello there.', 'Two words') },
    { weight: 1, arbitrary: anyString },
    { weight: 1, arbitrary: hugeString },
  );
  const voiceSettings = fc.record(
    {
      speed: fc.oneof(fc.double({ min: 0, max: 3 }), anyJson),
      pitch: fc.integer({ min: -80, max: 80 }),
      volume: fc.double({ min: -1, max: 2 }),
      locale: anyString,
    },
    { requiredKeys: [] },
  );
  const presenter = {
    avatar_id: fc.oneof(fc.constantFrom('no-such-look'), anyString),
    script,
    voice_id: fc.oneof(fc.constantFrom('en-us-olivia'), anyString),
    voice_settings: voiceSettings,
    audio_url: plausibleUrl,
    aspect_ratio: fc.constantFrom('16:9', '9:16', '1:1', 'auto', '3:2'),
    resolution: fc.constantFrom('720p', '1080p', '4k', '8k'),
    output_format: fc.constantFrom('mp4', 'webm', 'gif'),
    caption: fc.oneof(fc.constant({}), fc.constant({ style: 'default' }), anyJson),
    background: fc.oneof(
      fc.constant({ type: 'color', value: '#102030' }),
      fc.record({ type: fc.constantFrom('image', 'color'), url: plausibleUrl }),
      anyJson,
    ),
    title: fc.oneof(fc.string({ maxLength: 20 }), hugeString),
    callback_url: plausibleUrl,
  };
  const avatarBody = fc.record({ type: fc.constant('avatar'), ...presenter }, { requiredKeys: ['type'] });
  // Valid more often than the fully random bodies, so that fuzzing also reaches past validation.
  const simpleAvatarBody = fc.record({
    type: fc.constant('avatar'),
    avatar_id: fc.constantFrom('maya-office', 'no-such-look'),
    script,
  });
  const imageBody = fc.record(
    { type: fc.constant('image'), image: mediaInput, ...presenter },
    { requiredKeys: ['type'] },
  );
  const studioScene = fc.oneof(
    fc.record({
      type: fc.constant('avatar_video'),
      input: fc.record(
        { type: fc.constant('avatar'), avatar_id: presenter.avatar_id, script },
        { requiredKeys: [] },
      ),
    }),
    fc.record(
      {
        type: fc.constant('image'),
        source: mediaInput,
        duration: fc.oneof(fc.double({ min: -1, max: 400 }), anyJson),
      },
      { requiredKeys: ['type'] },
    ),
    fc.record(
      { type: fc.constant('video'), source: mediaInput, playback: anyJson },
      { requiredKeys: ['type'] },
    ),
    anyJson,
  );
  const studioBody = fc.record(
    {
      type: fc.constant('studio'),
      scenes: fc.oneof(fc.array(studioScene, { maxLength: 4 }), anyJson),
      title: presenter.title,
    },
    { requiredKeys: ['type'] },
  );
  const cinematicBody = fc.record(
    {
      type: fc.constant('cinematic_avatar'),
      prompt: script,
      avatar_id: fc.oneof(fc.array(anyString, { maxLength: 4 }), anyJson),
      duration: fc.oneof(fc.integer({ min: 0, max: 20 }), anyJson),
    },
    { requiredKeys: ['type'] },
  );
  const videoBody = fc.oneof(
    { weight: 2, arbitrary: simpleAvatarBody },
    { weight: 3, arbitrary: avatarBody },
    { weight: 2, arbitrary: imageBody },
    { weight: 2, arbitrary: studioBody },
    { weight: 1, arbitrary: cinematicBody },
    { weight: 1, arbitrary: anyJson },
    { weight: 1, arbitrary: fc.dictionary(fieldName, wildValue, { maxKeys: 6 }) },
  );
  const cases = [
    { label: 'POST /v3/videos', path: '/v3/videos', body: videoBody, passed: 402 },
    {
      label: 'POST /v3/videos/batches',
      path: '/v3/videos/batches',
      body: fc.record(
        {
          videos: fc.oneof(
            fc.array(fc.oneof(simpleAvatarBody, avatarBody, cinematicBody), { maxLength: 3 }),
            anyJson,
          ),
          title: presenter.title,
          callback_url: plausibleUrl,
        },
        { requiredKeys: [] },
      ),
      passed: 202,
    },
  ] as const;

  it.each(cases.map((route) => [route.label, route] as const))('%s: any body', async (_label, route) => {
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(route.body as fc.Arbitrary<unknown>, async (body) => {
        const attempt = {
          method: 'POST',
          path: route.path,
          body: JSON.stringify(body),
          headers: { 'Content-Type': 'application/json', 'X-Api-Key': brokeKey },
        };
        const reply = await send(attempt);
        expectWellFormed(reply, attempt);
        seen.add(reply.status);
      }),
      { numRuns: NUM_RUNS },
    );
    expectReached(seen, route.passed, 400);
  });
});

describe('voice creates never fail with 5xx', () => {
  // A speaker to clone: a short, valid WAV (a tone), so that fuzzing also reaches the clone workflow.
  const toneWav = Buffer.from(
    encodeWavPcm16(
      Int16Array.from({ length: 16_000 }, (_, i) =>
        Math.round(8000 * Math.sin((2 * Math.PI * 150 * i) / 16_000)),
      ),
      16_000,
    ),
  ).toString('base64');
  const voiceId = fc.oneof(
    { weight: 3, arbitrary: fc.constantFrom('en-us-olivia', 'fr-fr-julien', 'dv-en-gb-oliver-deep') },
    { weight: 1, arbitrary: fc.oneof(wellFormedId, anyString, hugeString) },
  );
  const language = fc.oneof(
    fc.constantFrom('en', 'en-US', 'es-MX', 'fr', 'tlh', 'zz-ZZ', ''),
    anyString,
    anyJson,
  );
  const text = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.constantFrom('Hello there.', 'Two words', '<speak>Hi <break time="200ms"/> you</speak>'),
    },
    {
      weight: 2,
      arbitrary: fc
        .array(
          fc.constantFrom(
            'word ',
            '<break time="100ms"/>',
            '<break strength="weak"/>',
            '<prosody rate="fast">',
            '</prosody>',
            '<p>',
            '</p>',
            '<s>',
            '</s>',
            '&amp;',
            '&',
            '<',
            '<emphasis>',
            '<break time="9s"/>',
            '<prosody rate="5%">',
          ),
          { maxLength: 12 },
        )
        .map((parts) => `<speak>${parts.join('')}</speak>`),
    },
    { weight: 1, arbitrary: anyString },
    { weight: 1, arbitrary: hugeString },
  );
  const cases = [
    {
      label: 'POST /v3/voices',
      path: '/v3/voices',
      passed: 200,
      body: fc.record(
        {
          prompt: fc.oneof(
            {
              weight: 3,
              arbitrary: fc.constantFrom('warm female narrator', 'deep British man', 'fast young voice'),
            },
            { weight: 1, arbitrary: anyString },
            { weight: 1, arbitrary: hugeString },
          ),
          gender: fc.oneof(fc.constantFrom('male', 'female', null, 'robot'), anyJson),
          locale: fc.oneof(language, fc.constant(null)),
          seed: fc.oneof(fc.integer({ min: -2, max: 200 }), fc.double(), anyJson),
        },
        { requiredKeys: [] },
      ),
    },
    {
      label: 'POST /v3/voices/clone',
      path: '/v3/voices/clone',
      passed: 202,
      body: fc.record(
        {
          audio: fc.oneof(
            { weight: 3, arbitrary: fc.constant({ type: 'base64', media_type: 'audio/wav', data: toneWav }) },
            {
              weight: 1,
              arbitrary: fc.record({
                type: fc.constant('base64'),
                media_type: fc.constantFrom('audio/wav', 'image/png', ''),
                data: fc.oneof(fc.base64String({ maxLength: 64 }), anyString),
              }),
            },
            { weight: 1, arbitrary: fc.record({ type: fc.constant('url'), url: plausibleUrl }) },
            {
              weight: 1,
              arbitrary: fc.record({
                type: fc.constant('asset_id'),
                asset_id: fc.oneof(wellFormedId, anyString),
              }),
            },
            { weight: 1, arbitrary: anyJson },
          ),
          voice_name: fc.oneof(fc.constantFrom('My voice', ''), anyString, hugeString),
          language: fc.oneof(language, fc.constant(null)),
          remove_background_noise: fc.oneof(fc.boolean(), anyJson),
        },
        { requiredKeys: [] },
      ),
    },
    {
      label: 'POST /v3/voices/speech',
      path: '/v3/voices/speech',
      passed: 200,
      body: fc.oneof(
        // Valid more often than the fully random bodies, so that fuzzing also reaches the engine.
        fc.record({
          text: fc.constantFrom('Hello there.', 'Two words'),
          voice_id: fc.constantFrom('en-us-olivia', 'de-de-lukas'),
          speed: fc.double({ min: 0.5, max: 2, noNaN: true }),
        }),
        fc.record(
          {
            text,
            voice_id: voiceId,
            input_type: fc.constantFrom('text', 'ssml', 'html'),
            speed: fc.oneof(fc.double({ min: 0, max: 3 }), anyJson),
            language: fc.oneof(language, fc.constant(null)),
            locale: fc.oneof(language, fc.constant(null)),
            engine: fc.oneof(
              fc.constantFrom('espeak', 'polly', 'default', 'starfish', 'elevenlabs'),
              anyJson,
            ),
            settings: fc.oneof(
              fc.record({ model_id: fc.oneof(fc.constantFrom('neural', 'x'), anyJson) }),
              anyJson,
            ),
          },
          { requiredKeys: [] },
        ),
      ),
    },
  ] as const;

  it.each(cases.map((route) => [route.label, route] as const))('%s: any body', async (_label, route) => {
    // Its own workspace: the largest plan, so that clones rarely run out of slots.
    const { apiKey } = await api.newWorkspace({ plan: 'enterprise' });
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(route.body as fc.Arbitrary<unknown>, async (body) => {
        const attempt = {
          method: 'POST',
          path: route.path,
          body: JSON.stringify(body),
          headers: { 'Content-Type': 'application/json', 'X-Api-Key': apiKey },
        };
        const reply = await send(attempt);
        expectWellFormed(reply, attempt);
        seen.add(reply.status);
      }),
      // Half the runs: an accepted design speaks up to three previews, an accepted clone runs its workflow.
      { numRuns: Math.ceil(NUM_RUNS / 2) },
    );
    expectReached(seen, route.passed, 400);
  });
});

describe('model audio creates never fail with 5xx', () => {
  // Its own workspace, on a plan with professional cloning, and one ACTIVE voice to speak with.
  let key: string;
  let speakingVoiceId: string;
  let recording: string;
  beforeAll(async () => {
    key = (await api.newWorkspace({ plan: 'enterprise' })).apiKey;
    const engine = createEspeakEngine();
    const speech = await engine.synthesize({
      text: 'This is a short recording of my voice, read slowly and clearly.',
      voiceId: 'espeak-en-us-m2',
    });
    await engine.close();
    recording = Buffer.from(speech.audio).toString('base64');
    const created = await api.call<{ data: { voice_id: string } }>('POST', '/v3/models/audio/voices', {
      key,
      body: {
        mode: 'instant',
        name: 'Fuzz',
        audio: [{ type: 'base64', media_type: 'audio/wav', data: recording }],
      },
    });
    expect(created.status).toBe(202);
    speakingVoiceId = created.body.data.voice_id;
    // The text to speech cases speak with it: it must be ACTIVE, however long training takes here.
    let status = 'PENDING';
    for (let attempt = 0; attempt < 1200 && status === 'PENDING'; attempt++) {
      const voice = await api.call<{ data: { status: string } }>(
        'GET',
        `/v3/models/audio/voices/${speakingVoiceId}`,
        { key },
      );
      status = voice.body.data.status;
      if (status === 'PENDING') await new Promise((resolve) => setTimeout(resolve, 50));
    }
    if (status !== 'ACTIVE') throw new Error(`The voice to speak with ended ${status}, not ACTIVE`);
  });

  const recordingInput = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constant(null).map(() => ({ type: 'base64', media_type: 'audio/wav', data: recording })),
    },
    {
      weight: 1,
      arbitrary: fc.record({
        type: fc.constant('base64'),
        media_type: fc.constantFrom('audio/wav', 'audio/mpeg', ''),
        data: fc.oneof(fc.base64String({ maxLength: 64 }), anyString),
      }),
    },
    { weight: 1, arbitrary: fc.record({ type: fc.constant('url'), url: plausibleUrl }) },
    {
      weight: 1,
      arbitrary: fc.record({ type: fc.constant('asset_id'), asset_id: fc.oneof(wellFormedId, anyString) }),
    },
    { weight: 1, arbitrary: anyJson },
  );
  const language = fc.oneof(fc.constantFrom('en', 'en-GB', 'es', 'tlh', 'x', null), anyString, anyJson);
  const voiceBody = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record(
        {
          mode: fc.constant('instant'),
          name: fc.oneof(fc.constantFrom('Narrator', ''), anyString, hugeString),
          audio: fc.oneof(
            fc.array(recordingInput, { minLength: 1, maxLength: 1 }),
            fc.array(recordingInput, { maxLength: 3 }),
          ),
          language,
          gender: fc.oneof(fc.constantFrom('male', 'female', null, 'other'), anyJson),
          age: fc.oneof(fc.constantFrom('young', 'old', null, 'middle'), anyJson),
          remove_background_noise: fc.oneof(fc.boolean(), anyJson),
          similarity: fc.oneof(fc.constantFrom('medium', 'high', 'mel', 'extra_high', 'max', 'low'), anyJson),
        },
        { requiredKeys: ['mode', 'name', 'audio'] },
      ),
    },
    {
      weight: 2,
      arbitrary: fc.record(
        {
          mode: fc.constant('professional'),
          audio: fc.array(recordingInput, { maxLength: 3 }),
          name: fc.oneof(fc.constantFrom('Studio', null), anyString),
          language,
          voice_id: fc.oneof(
            fc.constant(null),
            wellFormedId,
            anyString,
            fc.constant(null).map(() => speakingVoiceId),
          ),
        },
        { requiredKeys: ['mode', 'audio'] },
      ),
    },
    { weight: 1, arbitrary: anyJson },
    { weight: 1, arbitrary: fc.dictionary(fieldName, wildValue, { maxKeys: 6 }) },
  );
  const ttsText = fc.oneof(
    { weight: 4, arbitrary: fc.constantFrom('Hello there.', 'One. Two, three; four!', '3 < 5') },
    {
      weight: 2,
      arbitrary: fc
        .array(
          fc.constantFrom(
            'word ',
            "<break time='0.2s'/>",
            '<break time="6s"/>',
            '<break/>',
            '<speak>',
            '<',
            '&amp;',
            '.',
          ),
          { maxLength: 8 },
        )
        .map((parts) => parts.join('')),
    },
    { weight: 1, arbitrary: anyString },
    { weight: 1, arbitrary: hugeString },
  );
  const ttsBody = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.record({
        voice_id: fc.constant(null).map(() => speakingVoiceId),
        text: fc.constantFrom('Hello there.', 'Short and sweet. Another sentence.'),
      }),
    },
    {
      weight: 3,
      arbitrary: fc.record(
        {
          voice_id: fc.oneof(
            fc.constant(null).map(() => speakingVoiceId),
            wellFormedId,
            anyString,
          ),
          text: ttsText,
          model: fc.oneof(
            fc.constantFrom('service-voice-1', 'service-voice-1-turbo', 'heygen-voice-1'),
            anyJson,
          ),
          language,
          expressiveness_boost: fc.oneof(fc.double({ min: -1, max: 2 }), anyJson),
          seed: fc.oneof(fc.integer(), anyJson),
          speed: fc.oneof(fc.double({ min: 0, max: 3 }), anyJson),
          pitch_shift: fc.oneof(fc.double({ min: -20, max: 20 }), anyJson),
          pitch_variance: fc.oneof(fc.double({ min: -1, max: 3 }), anyJson),
        },
        { requiredKeys: ['voice_id', 'text'] },
      ),
    },
    { weight: 1, arbitrary: anyJson },
  );
  const cases = [
    {
      label: 'POST /v3/models/audio/voices',
      path: '/v3/models/audio/voices',
      body: voiceBody,
      passed: 202,
      accepted: () => ({
        mode: 'instant',
        name: 'Narrator',
        audio: [{ type: 'base64', media_type: 'audio/wav', data: recording }],
      }),
    },
    {
      label: 'POST /v3/models/audio/tts',
      path: '/v3/models/audio/tts',
      body: ttsBody,
      passed: 200,
      accepted: () => ({ voice_id: speakingVoiceId, text: 'Hello there.' }),
    },
    {
      label: 'POST /v3/models/audio/tts/stream',
      path: '/v3/models/audio/tts/stream',
      body: ttsBody,
      passed: 200,
      accepted: () => ({ voice_id: speakingVoiceId, text: 'Hello there.' }),
    },
  ] as const;

  it.each(cases.map((route) => [route.label, route] as const))('%s: any body', async (_label, route) => {
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(route.body as fc.Arbitrary<unknown>, async (body) => {
        const attempt = {
          method: 'POST',
          path: route.path,
          body: JSON.stringify(body),
          headers: { 'Content-Type': 'application/json', 'X-Api-Key': key },
        };
        const reply = await send(attempt);
        seen.add(reply.status);
        if (route.path.endsWith('/stream') && reply.status === 200) {
          // A stream that started is audio, not JSON.
          expect(reply.contentType).toBe('audio/wav');
          expect(reply.text.length).toBeGreaterThan(44);
          return;
        }
        expectWellFormed(reply, attempt);
      }),
      // One body that must be accepted and one that must be refused, whatever the draw.
      { numRuns: NUM_RUNS, examples: [[route.accepted()], [{}]] },
    );
    expectReached(seen, route.passed, 400);
  });
});

describe('POST /v3/assets never fails with 5xx', () => {
  const part = fc.record({
    field: fc.oneof(fc.constant('file'), anyString),
    fileName: fc.oneof(fc.constantFrom('a.png', 'a', '../../a.png', ''), anyString),
    declaredType: fc.constantFrom(
      'image/png',
      'application/pdf',
      'application/octet-stream',
      'text/plain',
      '',
    ),
    bytes: fc.oneof(
      fc.uint8Array({ maxLength: 2048 }),
      fc.constant(new Uint8Array(Buffer.from('89504e470d0a1a0a0000000d49484452', 'hex'))),
    ),
    boundary: fc.oneof(
      fc.constant('fuzzboundary'),
      fc.string({ unit: fc.constantFrom(...'abc-_'), minLength: 1, maxLength: 70 }),
    ),
    truncate: fc.nat({ max: 400 }),
  });

  it('any multipart shape, file bytes, boundary and truncation', async () => {
    await fc.assert(
      fc.asyncProperty(part, async ({ field, fileName, declaredType, bytes, boundary, truncate }) => {
        const whole = Buffer.concat([
          Buffer.from(
            `--${boundary}\r\nContent-Disposition: form-data; name="${field}"; filename="${fileName}"\r\n`,
          ),
          Buffer.from(declaredType ? `Content-Type: ${declaredType}\r\n\r\n` : '\r\n'),
          Buffer.from(bytes),
          Buffer.from(`\r\n--${boundary}--\r\n`),
        ]);
        const body = whole.subarray(0, Math.max(0, whole.length - truncate));
        const attempt = {
          method: 'POST',
          path: '/v3/assets',
          body: new Uint8Array(body),
          headers: { 'Content-Type': `multipart/form-data; boundary=${boundary}` },
        };
        expectWellFormed(await send(attempt), attempt);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});

describe('webhook event routes never fail with 5xx', () => {
  const eventId = `avatar_video.success:fuzz-${Date.now()}`;
  beforeAll(async () => {
    // The update fuzz above may have left the endpoint disabled, which redelivery refuses (409).
    const enabled = await api.call('PATCH', `/v3/webhooks/endpoints/${endpointId}`, {
      body: { status: 'enabled' },
    });
    expect(enabled.status).toBe(200);
    // A recorded event of the fuzzing workspace (as the dispatcher records one), to redeliver.
    await recordEvent(
      {
        event_id: eventId,
        event_type: 'avatar_video.success',
        workspace_id: api.workspaceId,
        entity_id: 'fuzz',
        event_data: { video_id: 'fuzz' },
        created_at: new Date().toISOString(),
      },
      0,
    );
  });

  const eventSegment = fc.oneof(
    { weight: 2, arbitrary: fc.constant(null).map(() => encodeURIComponent(eventId)) },
    wellFormedId,
    fc.string({ unit: 'binary', minLength: 1, maxLength: 64 }).map((value) => encodeURIComponent(value)),
    fc.constantFrom('%', '%zz', '..', '%2F', 'a%00b', '__proto__', 'x%23y', 'a'.repeat(600)),
  );
  const endpointField = fc.oneof(
    { weight: 3, arbitrary: fc.constant(null).map(() => endpointId) },
    wellFormedId,
    anyString,
    hugeString,
    anyJson,
  );

  it('POST /v3/webhooks/events/{event_id}/redeliver: any event id, body and content type', async () => {
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(
        eventSegment,
        fc.oneof(
          {
            weight: 4,
            arbitrary: fc.record({ endpoint_id: endpointField }).map((body) => JSON.stringify(body)),
          },
          {
            weight: 1,
            arbitrary: fc
              .dictionary(fieldName, wildValue, { maxKeys: 3 })
              .map((body) => JSON.stringify(body)),
          },
          { weight: 1, arbitrary: fc.oneof(anyString, fc.constantFrom('{', 'null', '[]')) },
        ),
        contentType,
        idempotencyHeader,
        async (segment, body, type, key) => {
          const attempt = {
            method: 'POST',
            path: `/v3/webhooks/events/${segment}/redeliver`,
            body,
            headers: headersOf(type, key),
          };
          const reply = await send(attempt);
          expectWellFormed(reply, attempt);
          seen.add(reply.status);
        },
      ),
      {
        numRuns: NUM_RUNS,
        // The recorded event to the fuzzing endpoint: the success is reached whatever the draw.
        examples: [
          [
            encodeURIComponent(eventId),
            JSON.stringify({ endpoint_id: endpointId }),
            'application/json',
            undefined,
          ],
        ],
      },
    );
    expectReached(seen, 202, 404, 400);
  });

  it('GET /v3/webhooks/events/{event_id}: any event id', async () => {
    await fc.assert(
      fc.asyncProperty(eventSegment, async (segment) => {
        const attempt = { method: 'GET', path: `/v3/webhooks/events/${segment}` };
        expectWellFormed(await send(attempt), attempt);
      }),
      { numRuns: NUM_RUNS },
    );
  });
});

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
      await api.call('POST', '/v3/folders', { body: { name: `page ${index}` } });
      await api.call('POST', '/v3/webhooks/endpoints', {
        body: { url: `https://hooks.example.com/p${index}` },
      });
    }
    realTokens = [];
    for (const path of LIST_ROUTES) {
      const page = await api.call<{ next_token: string | null }>('GET', `${path}?limit=1`);
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
