/**
 * Property-based fuzzing of the creates and updates: whatever a client sends to them, the service
 * answers below 500 and every 4xx carries the error envelope. The creates that need existing resources
 * to succeed get hand-made plausible values, and each case must reach its success too. The harness
 * (stack, arbitraries, the property) is test/support/fuzz-harness.ts; route-fuzz.test.ts fuzzes every
 * built route from its schemas. `FC_SEED=… FUZZ_RUNS=…` varies and deepens it.
 */
import fc from 'fast-check';
import { zipSync } from 'fflate';
import { beforeAll, describe, expect, it } from 'vitest';
import { findStockLook } from '../../../lambdas/catalog/stock-avatars.js';
import { createEspeakEngine } from '../../../lambdas/engines/speech/espeak-engine.js';
import { encodeWavPcm16 } from '../../../lambdas/engines/speech/wav.js';
import { recordEvent } from '../../../lambdas/webhooks/deliveries.js';
import {
  anyJson,
  anyString,
  bodySchemaOf,
  builtRoute,
  contentType,
  expectReached,
  expectWellFormed,
  fieldName,
  fuzzTarget,
  headersOf,
  hugeString,
  idempotencyHeader,
  jsonBodyFor,
  NUM_RUNS,
  payloadFor,
  plausibleBody,
  plausibleUrl,
  send,
  useFuzzStack,
  wellFormedId,
  wildValue,
} from '../../support/fuzz-harness.js';
import { mp4Header } from '../../support/sample-media.js';

useFuzzStack();

describe('create and update routes never fail with 5xx', () => {
  // The creates and updates whose plausible bodies can succeed: method, body schema and success status
  // come from the row; the path names resources created above.
  const cases = [
    { ...builtRoute('FolderCreate'), url: () => '/v3/folders' },
    { ...builtRoute('WebhookEndpointsCreate'), url: () => '/v3/webhooks/endpoints' },
    { ...builtRoute('AssetDirectUploadsCreate'), url: () => '/v3/assets/direct-uploads' },
    { ...builtRoute('AssetDirectUploadsBatchesCreate'), url: () => '/v3/assets/direct-uploads/batches' },
    { ...builtRoute('AssetCompleteBatchesCreate'), url: () => '/v3/assets/complete/batches' },
    { ...builtRoute('WebhookEndpointsUpdate'), url: () => `/v3/webhooks/endpoints/${fuzzTarget.endpointId}` },
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

describe('lipsync creates never fail with 5xx', () => {
  // A workspace without credits: bodies that pass validation end in 402 before any media is fetched.
  let brokeKey: string;
  beforeAll(async () => {
    brokeKey = (await fuzzTarget.api.newWorkspace({ included_credits: 0 })).apiKey;
  });

  const mediaInput = fc.oneof(
    fc.record({
      type: fc.constant('base64'),
      media_type: fc.constantFrom('video/mp4', 'audio/wav', 'image/png', ''),
      data: fc.oneof(fc.base64String({ maxLength: 64 }), anyString),
    }),
    fc.record({ type: fc.constant('url'), url: plausibleUrl }),
    fc.record({ type: fc.constant('asset_id'), asset_id: fc.oneof(wellFormedId, anyString) }),
    anyJson,
  );
  const seconds = fc.oneof(fc.double({ min: -1, max: 120, noNaN: true }), anyJson);
  const lipsyncBody = fc.record(
    {
      video: mediaInput,
      audio: mediaInput,
      title: fc.oneof(anyString, hugeString),
      mode: fc.oneof(fc.constantFrom('speed', 'precision'), anyString),
      start_time: seconds,
      end_time: seconds,
      fps_mode: fc.oneof(fc.constantFrom('vfr', 'cfr', 'passthrough'), anyString),
      enable_caption: fc.oneof(fc.boolean(), anyJson),
      keep_the_same_format: fc.boolean(),
      enable_dynamic_duration: fc.boolean(),
      disable_music_track: fc.boolean(),
      enable_speech_enhancement: fc.boolean(),
      enable_watermark: fc.boolean(),
      folder_id: fc.oneof(wellFormedId, anyString),
      callback_url: plausibleUrl,
      callback_id: anyString,
    },
    { requiredKeys: [] },
  );
  const example = {
    video: { type: 'base64', media_type: 'video/mp4', data: 'AAAAGGZ0eXBpc29t' },
    audio: { type: 'base64', media_type: 'audio/wav', data: 'UklGRg==' },
  };
  const cases = [
    { label: 'POST /v3/lipsyncs', path: '/v3/lipsyncs', body: lipsyncBody, passed: 402, example },
    { label: 'POST /v3/overdubs', path: '/v3/overdubs', body: lipsyncBody, passed: 402, example },
    {
      label: 'POST /v3/lipsyncs/batches',
      path: '/v3/lipsyncs/batches',
      body: fc.record(
        {
          lipsyncs: fc.oneof(fc.array(lipsyncBody, { maxLength: 3 }), anyJson),
          title: anyString,
          callback_url: plausibleUrl,
        },
        { requiredKeys: [] },
      ),
      passed: 202,
      example: { lipsyncs: [example] },
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
      { numRuns: NUM_RUNS, examples: [[route.example]] },
    );
    expectReached(seen, route.passed, 400);
  });
});

describe('video creates never fail with 5xx', () => {
  // A workspace without credits: bodies that pass validation end in 402 instead of rendering.
  let brokeKey: string;
  beforeAll(async () => {
    brokeKey = (await fuzzTarget.api.newWorkspace({ included_credits: 0 })).apiKey;
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
  // A source the admission accepts (an MP4 header), so that fuzzing also reaches the credit check.
  const fillerSource = { type: 'base64', media_type: 'video/mp4', data: mp4Header().toString('base64') };
  const fillerRemovalBody = fc.oneof(
    { weight: 3, arbitrary: fc.record({ video: fc.constant(fillerSource) }) },
    {
      weight: 4,
      arbitrary: fc.record(
        {
          video: fc.oneof(fc.constant(fillerSource), mediaInput),
          title: fc.oneof(presenter.title, fc.constant(null), anyJson),
          callback_url: fc.oneof(plausibleUrl, fc.constant(null)),
          callback_id: fc.oneof(fc.string({ maxLength: 20 }), hugeString, fc.constant(null)),
          silence_threshold_ms: fc.oneof(fc.integer({ min: -10, max: 20_000 }), fc.double(), anyJson),
          filler_words: fc.oneof(fc.array(anyString, { maxLength: 4 }), anyJson),
          language: fc.oneof(fc.constantFrom('en', 'en-US', 'de', 'x', ''), anyString),
        },
        { requiredKeys: [] },
      ),
    },
    { weight: 1, arbitrary: anyJson },
    { weight: 1, arbitrary: fc.dictionary(fieldName, wildValue, { maxKeys: 6 }) },
  );
  const agentFile = fc.oneof(
    mediaInput,
    fc.record({
      type: fc.constant('base64'),
      media_type: fc.constantFrom('text/plain', 'text/markdown', 'text/plain; charset=utf-8'),
      data: fc.oneof(
        fc.string().map((text) => Buffer.from(text).toString('base64')),
        anyString,
      ),
    }),
  );
  const videoAgentBody = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record(
        {
          prompt: fc.oneof(fc.constant('a 30-second explainer about kites'), anyString, hugeString, anyJson),
          mode: fc.oneof(fc.constantFrom('generate', 'chat', 'auto'), anyJson),
          style_id: fc.oneof(fc.constantFrom('noir-cinema', 'synthwave', 'nope'), anyString),
          orientation: fc.oneof(fc.constantFrom('landscape', 'portrait', 'square'), anyJson),
          avatar_id: fc.oneof(fc.constantFrom('maya-office', 'nobody'), anyString),
          voice_id: fc.oneof(fc.constantFrom('en-us-olivia', 'nobody'), anyString),
          brand_kit_id: fc.oneof(wellFormedId, anyString),
          files: fc.oneof(fc.array(agentFile, { maxLength: 3 }), anyJson),
          incognito_mode: fc.oneof(fc.boolean(), anyJson),
          callback_url: fc.oneof(plausibleUrl, anyString),
          callback_id: fc.oneof(fc.string({ maxLength: 20 }), hugeString),
        },
        { requiredKeys: [] },
      ),
    },
    { weight: 1, arbitrary: anyJson },
    { weight: 1, arbitrary: fc.dictionary(fieldName, wildValue, { maxKeys: 6 }) },
  );
  const compositionZip = {
    type: 'base64',
    media_type: 'application/zip',
    data: Buffer.from(
      zipSync({
        'index.html': new TextEncoder().encode(
          '<div data-composition-id="main" data-width="1920" data-height="1080" data-duration="1"></div>',
        ),
        '../outside.txt': new TextEncoder().encode('x'),
      }),
    ).toString('base64'),
  };
  const plainZip = {
    ...compositionZip,
    data: Buffer.from(
      zipSync({
        'index.html': new TextEncoder().encode(
          '<div data-composition-id="main" data-width="1920" data-height="1080" data-duration="1"></div>',
        ),
      }),
    ).toString('base64'),
  };
  const hyperframesBody = fc.oneof(
    { weight: 2, arbitrary: fc.record({ project: fc.constantFrom(plainZip, compositionZip) }) },
    {
      weight: 5,
      arbitrary: fc.record(
        {
          project: fc.oneof(fc.constantFrom(plainZip, compositionZip), anyJson),
          composition: fc.oneof(
            fc.constantFrom('index.html', '../index.html', '/index.html', 'a/b.html'),
            anyString,
          ),
          fps: fc.oneof(fc.integer({ min: -5, max: 300 }), anyJson),
          quality: fc.oneof(fc.constantFrom('draft', 'standard', 'high'), anyString),
          format: fc.oneof(fc.constantFrom('mp4', 'webm', 'mov'), anyString),
          resolution: fc.oneof(fc.constantFrom('1080p', '4k', 'landscape', 'square-4k', null), anyString),
          aspect_ratio: fc.oneof(fc.constantFrom('16:9', '9:16', '1:1'), anyString),
          variables: anyJson,
          title: fc.oneof(anyString, hugeString, fc.constant(null)),
          callback_url: plausibleUrl,
        },
        { requiredKeys: [] },
      ),
    },
  );
  const cases = [
    {
      label: 'POST /v3/hyperframes/renders',
      path: '/v3/hyperframes/renders',
      body: hyperframesBody,
      passed: 402,
      example: { project: plainZip },
    },
    {
      label: 'POST /v3/video-agents',
      path: '/v3/video-agents',
      body: videoAgentBody,
      passed: 402,
      example: { prompt: 'a 30-second explainer about kites' },
    },
    {
      label: 'POST /v3/filler-word-removals',
      path: '/v3/filler-word-removals',
      body: fillerRemovalBody,
      passed: 402,
      example: { video: fillerSource },
    },
    {
      label: 'POST /v3/videos',
      path: '/v3/videos',
      body: videoBody,
      passed: 402,
      // Reached past validation whatever the seed draws.
      example: { type: 'avatar', avatar_id: 'maya-office', script: 'Hello there.' },
    },
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
      example: { videos: [{ type: 'avatar', avatar_id: 'maya-office', script: 'Hello there.' }] },
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
      { numRuns: NUM_RUNS, examples: [[route.example]] },
    );
    expectReached(seen, route.passed, 400);
  });
});

describe('POST /v3/background-removals never fails with 5xx', () => {
  // A workspace without credits: bodies that pass validation end in 402 instead of running a job.
  let brokeKey: string;
  beforeAll(async () => {
    brokeKey = (await fuzzTarget.api.newWorkspace({ included_credits: 0 })).apiKey;
  });
  const video = fc.oneof(
    fc.record({
      type: fc.constant('base64'),
      media_type: fc.constantFrom('video/mp4', 'image/png', ''),
      data: fc.oneof(fc.base64String({ maxLength: 64 }), anyString),
    }),
    fc.record({ type: fc.constant('url'), url: plausibleUrl }),
    fc.record({ type: fc.constant('asset_id'), asset_id: fc.oneof(wellFormedId, anyString) }),
    anyJson,
  );
  const body = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record(
        {
          video,
          layers: fc.oneof(
            fc.array(fc.oneof(fc.constantFrom('foreground', 'mask', 'background'), anyString), {
              maxLength: 4,
            }),
            anyJson,
          ),
          title: fc.oneof(fc.string({ maxLength: 20 }), hugeString, fc.constant(null)),
          request_id: fc.oneof(fc.string({ maxLength: 20 }), hugeString, fc.constant(null), anyJson),
        },
        { requiredKeys: [] },
      ),
    },
    { weight: 1, arbitrary: jsonBodyFor(bodySchemaOf('BackgroundRemovalCreate')) },
    { weight: 1, arbitrary: fc.dictionary(fieldName, wildValue, { maxKeys: 6 }) },
  );

  it('any body', async () => {
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(body as fc.Arbitrary<unknown>, async (payload) => {
        const attempt = {
          method: 'POST',
          path: '/v3/background-removals',
          body: JSON.stringify(payload),
          headers: { 'Content-Type': 'application/json', 'X-Api-Key': brokeKey },
        };
        const reply = await send(attempt);
        expectWellFormed(reply, attempt);
        seen.add(reply.status);
      }),
      {
        numRuns: NUM_RUNS,
        examples: [[{ video: { type: 'base64', media_type: 'video/mp4', data: 'AAAA' }, layers: ['mask'] }]],
      },
    );
    expectReached(seen, 402, 400);
  });
});

describe('POST /v3/avatar-realtime never fails with 5xx', () => {
  // Looks that do not exist (a real look would start a stream, which a fuzz run must not pile up):
  // bodies that pass validation end in 404 `avatar_not_found`.
  const body = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record(
        {
          type: fc.oneof(fc.constantFrom('tts', 'audio', 'text_stream'), anyString),
          avatar_id: fc.oneof(wellFormedId, anyString),
          voice_id: fc.oneof(fc.string({ maxLength: 20 }), anyJson),
          text: fc.oneof(fc.string({ maxLength: 40 }), hugeString, anyJson),
          audio: fc.oneof(fc.record({ type: fc.constant('url'), url: plausibleUrl }), anyJson),
          speed: fc.oneof(fc.double(), anyJson),
          backdrop_color: fc.oneof(fc.constantFrom('#ffffff', 'red'), anyString),
        },
        { requiredKeys: [] },
      ),
    },
    { weight: 1, arbitrary: jsonBodyFor(bodySchemaOf('AvatarRealtimeCreate')) },
    { weight: 1, arbitrary: fc.dictionary(fieldName, wildValue, { maxKeys: 6 }) },
  );

  it('any body', async () => {
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(body as fc.Arbitrary<unknown>, async (payload) => {
        if (isRealLook(payload)) return;
        const attempt = {
          method: 'POST',
          path: '/v3/avatar-realtime',
          body: JSON.stringify(payload),
          headers: { 'Content-Type': 'application/json', 'X-Api-Key': fuzzTarget.api.apiKey },
        };
        const reply = await send(attempt);
        expectWellFormed(reply, attempt);
        seen.add(reply.status);
      }),
      { numRuns: NUM_RUNS, examples: [[{ type: 'tts', avatar_id: 'no-such-look', text: 'Hello.' }]] },
    );
    expectReached(seen, 404, 400);
  });
});

/** Whether a fuzzed body names a stock look (it would start a real stream). */
function isRealLook(payload: unknown): boolean {
  const avatarId = (payload as { avatar_id?: unknown } | null)?.avatar_id;
  return typeof avatarId === 'string' && findStockLook(avatarId) !== undefined;
}

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
    const { apiKey } = await fuzzTarget.api.newWorkspace({ plan: 'enterprise' });
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
    key = (await fuzzTarget.api.newWorkspace({ plan: 'enterprise' })).apiKey;
    const engine = createEspeakEngine();
    const speech = await engine.synthesize({
      text: 'This is a short recording of my voice, read slowly and clearly.',
      voiceId: 'espeak-en-us-m2',
    });
    await engine.close();
    recording = Buffer.from(speech.audio).toString('base64');
    const created = await fuzzTarget.api.call<{ data: { voice_id: string } }>(
      'POST',
      '/v3/models/audio/voices',
      {
        key,
        body: {
          mode: 'instant',
          name: 'Fuzz',
          audio: [{ type: 'base64', media_type: 'audio/wav', data: recording }],
        },
      },
    );
    expect(created.status).toBe(202);
    speakingVoiceId = created.body.data.voice_id;
    // The text to speech cases speak with it: it must be ACTIVE, however long training takes here.
    let status = 'PENDING';
    for (let attempt = 0; attempt < 1200 && status === 'PENDING'; attempt++) {
      const voice = await fuzzTarget.api.call<{ data: { status: string } }>(
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
    const enabled = await fuzzTarget.api.call('PATCH', `/v3/webhooks/endpoints/${fuzzTarget.endpointId}`, {
      body: { status: 'enabled' },
    });
    expect(enabled.status).toBe(200);
    // A recorded event of the fuzzing workspace (as the dispatcher records one), to redeliver.
    await recordEvent(
      {
        event_id: eventId,
        event_type: 'avatar_video.success',
        workspace_id: fuzzTarget.api.workspaceId,
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
    { weight: 3, arbitrary: fc.constant(null).map(() => fuzzTarget.endpointId) },
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
            JSON.stringify({ endpoint_id: fuzzTarget.endpointId }),
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

describe('AI clipping creates never fail with 5xx', () => {
  // A workspace without credits: bodies that pass validation end in 402 instead of clipping.
  let brokeKey: string;
  beforeAll(async () => {
    brokeKey = (await fuzzTarget.api.newWorkspace({ included_credits: 0 })).apiKey;
  });
  const video = fc.oneof(
    {
      weight: 3,
      arbitrary: fc.constant({
        type: 'base64',
        media_type: 'video/mp4',
        data: mp4Header().toString('base64'),
      }),
    },
    { weight: 1, arbitrary: fc.record({ type: fc.constant('url'), url: plausibleUrl }) },
    {
      weight: 1,
      arbitrary: fc.record({ type: fc.constant('asset_id'), asset_id: fc.oneof(wellFormedId, anyString) }),
    },
    { weight: 1, arbitrary: anyJson },
  );
  const outputSettings = fc.record(
    {
      aspect_ratio: fc.oneof(fc.constantFrom('landscape', 'portrait', 'square', 'wide'), anyJson),
      captions: fc.oneof(fc.boolean(), anyJson),
      caption_style: fc.oneof(fc.constantFrom('outline_classic', 'pop_single', 'comic', null), anyString),
      duration_types: fc.oneof(fc.uniqueArray(fc.constantFrom('30', '60', '180', 'long', '45')), anyJson),
      prompt: fc.oneof(fc.constantFrom('the best moments', null), anyString, hugeString),
    },
    { requiredKeys: [] },
  );
  const body = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record(
        {
          video,
          title: fc.oneof(fc.string({ maxLength: 20 }), fc.constant(null), hugeString),
          input_language: fc.oneof(fc.constantFrom('en', 'pt-BR', 'English', null), anyString),
          output_settings: fc.oneof(
            { weight: 4, arbitrary: outputSettings },
            { weight: 1, arbitrary: anyJson },
          ),
          callback_url: plausibleUrl,
          callback_id: fc.oneof(fc.string({ maxLength: 20 }), fc.constant(null)),
        },
        { requiredKeys: ['video'] },
      ),
    },
    { weight: 1, arbitrary: anyJson },
    { weight: 1, arbitrary: fc.dictionary(fieldName, wildValue, { maxKeys: 6 }) },
  );

  it('POST /v3/ai-clipping: any body and Idempotency-Key', async () => {
    const seen = new Set<number>();
    await fc.assert(
      fc.asyncProperty(body, idempotencyHeader, async (payload, key) => {
        const attempt = {
          method: 'POST',
          path: '/v3/ai-clipping',
          body: JSON.stringify(payload),
          headers: { ...headersOf('application/json', key), 'X-Api-Key': brokeKey },
        };
        const reply = await send(attempt);
        expectWellFormed(reply, attempt);
        seen.add(reply.status);
      }),
      {
        numRuns: NUM_RUNS,
        examples: [
          [
            { video: { type: 'base64', media_type: 'video/mp4', data: mp4Header().toString('base64') } },
            undefined,
          ],
        ],
      },
    );
    expectReached(seen, 402, 400);
  });
});

describe('Models API generation creates never fail with 5xx', () => {
  // A workspace without credits: bodies that pass validation end in 402 before any media is fetched.
  let brokeKey: string;
  beforeAll(async () => {
    brokeKey = (await fuzzTarget.api.newWorkspace({ included_credits: 0 })).apiKey;
  });
  const mediaInput = fc.oneof(
    fc.record({
      type: fc.constant('base64'),
      media_type: fc.constantFrom('image/png', 'video/mp4', 'audio/wav', ''),
      data: fc.oneof(fc.base64String({ maxLength: 64 }), anyString),
    }),
    fc.record({ type: fc.constant('url'), url: plausibleUrl }),
    fc.record({ type: fc.constant('asset_id'), asset_id: fc.oneof(wellFormedId, anyString) }),
    anyJson,
  );
  const inputs = (max: number) => fc.oneof(fc.array(mediaInput, { maxLength: max }), anyJson);
  const videoBody = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record(
        {
          mode: fc.oneof(fc.constantFrom('text_to_video', 'image_to_video', 'reference_to_video'), anyString),
          model: fc.oneof(fc.constant('service-video-1'), anyString),
          prompt: fc.oneof(fc.string({ maxLength: 40 }), hugeString, anyJson),
          duration: fc.oneof(fc.integer({ min: 0, max: 20 }), anyJson),
          resolution: fc.oneof(fc.constantFrom('480p', '768p', '1080p', '2k'), anyString),
          aspect_ratio: fc.oneof(
            fc.constantFrom('21:9', '16:9', '4:3', '1:1', '3:4', '9:16', 'adaptive', null),
            anyString,
          ),
          prompt_enhancement: fc.oneof(fc.constantFrom('turbo', 'quality', 'default', 'disabled'), anyString),
          seed: fc.oneof(fc.integer(), fc.constant(null), anyJson),
          image: mediaInput,
          reference_images: inputs(10),
          reference_videos: inputs(4),
          reference_audio: inputs(4),
          callback_url: plausibleUrl,
          callback_id: fc.oneof(fc.string({ maxLength: 20 }), fc.constant(null)),
        },
        { requiredKeys: ['mode', 'model', 'prompt'] },
      ),
    },
    { weight: 1, arbitrary: jsonBodyFor(bodySchemaOf('ModelVideosCreate')) },
    { weight: 1, arbitrary: fc.dictionary(fieldName, wildValue, { maxKeys: 6 }) },
  );
  const imageBody = fc.oneof(
    {
      weight: 4,
      arbitrary: fc.record(
        {
          model: fc.oneof(fc.constant('service-image-1'), anyString),
          mode: fc.oneof(fc.constant('identity_remix'), anyString),
          identity_images: inputs(6),
          reference_images: inputs(2),
          num_images: fc.oneof(fc.integer({ min: 0, max: 6 }), anyJson),
          aspect_ratio: fc.oneof(
            fc.constantFrom('1:1', '2:3', '3:2', '3:4', '4:3', '4:5', '5:4', '9:16', '16:9', null),
            anyString,
          ),
          seed: fc.oneof(fc.integer(), fc.constant(null), anyJson),
        },
        { requiredKeys: ['model', 'identity_images', 'reference_images'] },
      ),
    },
    { weight: 1, arbitrary: jsonBodyFor(bodySchemaOf('ModelImagesCreate')) },
    { weight: 1, arbitrary: fc.dictionary(fieldName, wildValue, { maxKeys: 6 }) },
  );
  const picture = { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' };
  const cases = [
    {
      label: 'POST /v3/models/images',
      path: '/v3/models/images',
      body: imageBody,
      example: { model: 'service-image-1', identity_images: [picture], reference_images: [picture] },
    },
    {
      label: 'POST /v3/models/videos',
      path: '/v3/models/videos',
      body: videoBody,
      example: { mode: 'text_to_video', model: 'service-video-1', prompt: 'A kite' },
    },
  ] as const;

  it.each(cases.map((route) => [route.label, route] as const))(
    '%s: any body and Idempotency-Key',
    async (_label, route) => {
      const seen = new Set<number>();
      await fc.assert(
        fc.asyncProperty(route.body as fc.Arbitrary<unknown>, idempotencyHeader, async (payload, key) => {
          const attempt = {
            method: 'POST',
            path: route.path,
            body: JSON.stringify(payload),
            headers: { ...headersOf('application/json', key), 'X-Api-Key': brokeKey },
          };
          const reply = await send(attempt);
          expectWellFormed(reply, attempt);
          seen.add(reply.status);
        }),
        { numRuns: NUM_RUNS, examples: [[route.example, undefined]] },
      );
      expectReached(seen, 402, 400);
    },
  );
});
