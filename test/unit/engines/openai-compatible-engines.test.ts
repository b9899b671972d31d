/**
 * Contract tests of the engines that talk to OpenAI-compatible servers, against a real HTTP server on
 * loopback that speaks the documented protocol: what is sent (multipart transcription uploads, chat
 * completions), what is read back, and what a user reads when the server refuses, fails, stalls or asks
 * to wait. Loopback is reached through MODEL_HOSTS_ALLOW_PRIVATE, as a self-hoster's server would be.
 */
import {
  GetSecretValueCommand,
  ResourceNotFoundException,
  SecretsManagerClient,
} from '@aws-sdk/client-secrets-manager';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { z } from 'zod';
import { resetModelEnginesConfig } from '../../../lambdas/core/config.js';
import { resetApiKeys } from '../../../lambdas/engines/openai-compatible/api-keys.js';
import { retryAfterMs } from '../../../lambdas/engines/openai-compatible/index.js';
import {
  createSpeechRecognitionEngine,
  type RecognitionRequest,
} from '../../../lambdas/engines/recognition/index.js';
import { createTextGenerationEngine } from '../../../lambdas/engines/text-generation/index.js';
import { createTranslationEngine } from '../../../lambdas/engines/translation/index.js';
import {
  type ModelServer,
  type ModelServerAnswer,
  type ModelServerRequest,
  startModelServer,
} from '../../support/model-server.js';

let server: ModelServer | undefined;

async function modelServer(
  respond: (request: ModelServerRequest) => ModelServerAnswer,
): Promise<ModelServer> {
  server = await startModelServer(respond);
  return server;
}

/** Settings of one capability pointed at the test server; retries and waits in milliseconds. */
function useServer(prefix: 'SPEECH_RECOGNITION' | 'TRANSLATION' | 'TEXT_GENERATION', baseUrl: string) {
  vi.stubEnv(`${prefix}_ENGINE`, 'openai');
  vi.stubEnv(`${prefix}_BASE_URL`, baseUrl);
  vi.stubEnv(`${prefix}_MODEL`, 'test-model');
  vi.stubEnv(`${prefix}_API_KEY`, 'sk-test');
  vi.stubEnv(`${prefix}_TIMEOUT_MS`, '300');
  resetModelEnginesConfig();
}

beforeEach(() => {
  vi.stubEnv('MODEL_HOSTS_ALLOW_PRIVATE', 'true');
  vi.stubEnv('MODEL_HTTP_RETRIES', '2');
  vi.stubEnv('MODEL_HTTP_RETRY_BASE_MS', '5');
  vi.stubEnv('MODEL_HTTP_MAX_RETRY_AFTER_MS', '1000');
  resetModelEnginesConfig();
});

afterEach(async () => {
  await server?.close();
  server = undefined;
  vi.unstubAllEnvs();
  resetModelEnginesConfig();
});

const WAV = new Uint8Array([82, 73, 70, 70, 0, 0, 0, 0, 87, 65, 86, 69]);

const recognition = (overrides: Partial<RecognitionRequest> = {}): RecognitionRequest => ({
  media: { bucket: 'media', key: 'workspaces/w/assets/a/interview.wav', mediaType: 'audio/wav', bytes: WAV },
  runId: 'run-1',
  workPrefix: 'workspaces/w/work/',
  ...overrides,
});

const VERBOSE_JSON = {
  task: 'transcribe',
  language: 'english',
  duration: 1.6,
  text: ' Hello, world again.',
  words: [
    { word: ' Hello,', start: 0.12, end: 0.5 },
    { word: 'world', start: 0.52, end: 0.9 },
    { word: 'again.', start: 0.95, end: 1.4 },
  ],
};

const chat = (content: string, finishReason = 'stop') => ({
  id: 'chatcmpl-1',
  object: 'chat.completion',
  choices: [{ index: 0, message: { role: 'assistant', content }, finish_reason: finishReason }],
  usage: { prompt_tokens: 12, completion_tokens: 7 },
});

describe('speech recognition through an OpenAI-compatible transcription server', () => {
  it('uploads the recording as multipart with the documented fields and reads word timings in milliseconds', async () => {
    const { baseUrl, requests, form } = await modelServer(() => ({ json: VERBOSE_JSON }));
    useServer('SPEECH_RECOGNITION', baseUrl);

    const result = await createSpeechRecognitionEngine().recognize(recognition({ language: 'en-US' }));

    expect(result).toEqual({
      engine: 'openai',
      language: 'en',
      text: 'Hello, world again.',
      words: [
        { word: 'Hello,', startMs: 120, endMs: 500 },
        { word: 'world', startMs: 520, endMs: 900 },
        { word: 'again.', startMs: 950, endMs: 1400 },
      ],
    });
    expect(requests).toHaveLength(1);
    expect(requests[0]?.method).toBe('POST');
    expect(requests[0]?.path).toBe('/v1/audio/transcriptions');
    expect(requests[0]?.headers.authorization).toBe('Bearer sk-test');
    const fields = await form();
    const file = fields.get('file') as File;
    expect(file.name).toBe('interview.wav');
    expect(new Uint8Array(await file.arrayBuffer())).toEqual(WAV);
    expect(fields.get('model')).toBe('test-model');
    expect(fields.get('response_format')).toBe('verbose_json');
    expect(fields.getAll('timestamp_granularities[]')).toEqual(['word']);
    expect(fields.get('language')).toBe('en');
  });

  it('lets the server detect the language when none is given, and refuses an answer without word timings', async () => {
    let answer: unknown = { ...VERBOSE_JSON, language: 'de' };
    const { baseUrl, form } = await modelServer(() => ({ json: answer }));
    useServer('SPEECH_RECOGNITION', baseUrl);
    const engine = createSpeechRecognitionEngine();

    expect((await engine.recognize(recognition())).language).toBe('de');
    expect((await form(0)).has('language')).toBe(false);

    answer = { text: 'Hello world', language: 'en' };
    await expect(engine.recognize(recognition())).rejects.toMatchObject({
      failureCode: 'recognition_failed',
      message: expect.stringContaining('gave no word timestamps'),
    });
  });
});

describe('translation through an OpenAI-compatible chat server', () => {
  it('sends the model, the instructions and the segments, and returns one translation per segment in order', async () => {
    const { baseUrl, json } = await modelServer(() => ({
      json: chat(JSON.stringify({ segments: ['Hola, Acme.', 'Adiós.'] })),
    }));
    useServer('TRANSLATION', baseUrl);

    const result = await createTranslationEngine().translate({
      segments: ['Hello, Acme.', 'Goodbye.'],
      sourceLanguage: 'en',
      targetLanguage: 'es',
      glossary: { doNotTranslate: ['Acme'] },
    });

    expect(result).toEqual({ engine: 'openai', segments: ['Hola, Acme.', 'Adiós.'], glossaryViolations: [] });
    const body = json();
    expect(body.model).toBe('test-model');
    expect(body.response_format).toEqual({ type: 'json_object' });
    const messages = body.messages as { role: string; content: string }[];
    expect(messages.map(({ role }) => role)).toEqual(['system', 'user']);
    expect(messages[0]?.content).toContain('from en to es');
    expect(messages[0]?.content).toContain('"Acme"');
    expect(JSON.parse(messages[1]?.content ?? '')).toEqual({ segments: ['Hello, Acme.', 'Goodbye.'] });
  });

  it('substitutes a forced term the model left untranslated, and reports a dropped do-not-translate term', async () => {
    const { baseUrl } = await modelServer(() => ({
      json: chat('```json\n{"segments": ["Abre el dashboard.", "Bienvenido a la nube."]}\n```'),
    }));
    useServer('TRANSLATION', baseUrl);

    const result = await createTranslationEngine().translate({
      segments: ['Open the dashboard.', 'Welcome to Acme Cloud.'],
      sourceLanguage: 'en',
      targetLanguage: 'es',
      glossary: { doNotTranslate: ['Acme Cloud'], terms: [{ source: 'dashboard', target: 'panel' }] },
    });

    expect(result.segments).toEqual(['Abre el panel.', 'Bienvenido a la nube.']);
    expect(result.glossaryViolations).toEqual([
      { segment: 1, kind: 'do_not_translate', term: 'Acme Cloud', expected: 'Acme Cloud' },
    ]);
  });

  it('fails the translation when the model returns a different number of segments', async () => {
    const { baseUrl } = await modelServer(() => ({ json: chat('{"segments": ["Hola. Adiós."]}') }));
    useServer('TRANSLATION', baseUrl);

    await expect(
      createTranslationEngine().translate({
        segments: ['Hello.', 'Goodbye.'],
        sourceLanguage: 'en',
        targetLanguage: 'es',
      }),
    ).rejects.toMatchObject({
      failureCode: 'translation_failed',
      message: expect.stringContaining('returned 1 segment(s) for 2'),
    });
  });
});

describe('text generation through an OpenAI-compatible chat server', () => {
  it('asks for JSON matching the schema and returns the parsed answer', async () => {
    const { baseUrl, json } = await modelServer(() => ({
      json: chat('{"title": "Launch day", "scenes": 3}'),
    }));
    useServer('TEXT_GENERATION', baseUrl);
    const schema = z.object({ title: z.string(), scenes: z.number().int() });

    const result = await createTextGenerationEngine().generate({
      system: 'You plan short videos.',
      prompt: 'Plan a video about our launch.',
      maxTokens: 200,
      json: schema,
    });

    expect(result.json).toEqual({ title: 'Launch day', scenes: 3 });
    expect(result).toMatchObject({
      engine: 'openai',
      model: 'test-model',
      truncated: false,
      usage: { inputTokens: 12, outputTokens: 7 },
    });
    const body = json();
    expect(body).toMatchObject({
      model: 'test-model',
      max_tokens: 200,
      response_format: { type: 'json_object' },
    });
    const messages = body.messages as { role: string; content: string }[];
    expect(messages[0]?.content).toContain('You plan short videos.');
    expect(messages[0]?.content).toContain('"title"');
    expect(messages[1]).toEqual({ role: 'user', content: 'Plan a video about our launch.' });
  });

  it('fails when the answer does not match the schema, or was cut at maxTokens', async () => {
    let answer = chat('{"title": 7}');
    const { baseUrl } = await modelServer(() => ({ json: answer }));
    useServer('TEXT_GENERATION', baseUrl);
    const engine = createTextGenerationEngine();
    const request = { prompt: 'Title?', json: z.object({ title: z.string() }) };

    await expect(engine.generate(request)).rejects.toMatchObject({
      failureCode: 'text_generation_failed',
      message: expect.stringContaining('does not match the schema (title:'),
    });
    answer = chat('{"title": "La', 'length');
    await expect(engine.generate(request)).rejects.toMatchObject({
      failureCode: 'text_generation_failed',
      message: expect.stringContaining('cut at 1024 tokens'),
    });
  });
});

describe('what a model server answer means for the job', () => {
  const translate = () =>
    createTranslationEngine().translate({ segments: ['Hello.'], sourceLanguage: 'en', targetLanguage: 'es' });

  it('a 400 is invalid input, with the server own words, and is not retried', async () => {
    const { baseUrl, requests } = await modelServer(() => ({
      status: 400,
      json: {
        error: {
          message: "The model 'test-model' does not support json_object",
          type: 'invalid_request_error',
        },
      },
    }));
    useServer('TRANSLATION', baseUrl);

    await expect(translate()).rejects.toMatchObject({
      failureCode: 'invalid_input',
      message: expect.stringContaining("HTTP 400: The model 'test-model' does not support json_object"),
    });
    expect(requests).toHaveLength(1);
  });

  it('a 401 says the key was refused and which settings hold it, without retrying', async () => {
    const { baseUrl, requests } = await modelServer(() => ({
      status: 401,
      json: { error: { message: 'Incorrect API key' } },
    }));
    useServer('SPEECH_RECOGNITION', baseUrl);

    const failure = createSpeechRecognitionEngine().recognize(recognition());
    await expect(failure).rejects.toMatchObject({
      failureCode: 'engine_unavailable',
      status: 503,
      message: expect.stringMatching(/refused the key .*SPEECH_RECOGNITION_API_KEY/),
    });
    expect(requests).toHaveLength(1);
  });

  it('a 500 is retried with backoff, then fails the capability naming the attempts', async () => {
    const { baseUrl, requests } = await modelServer(() => ({
      status: 500,
      json: { error: 'upstream exploded' },
    }));
    useServer('TRANSLATION', baseUrl);

    await expect(translate()).rejects.toMatchObject({
      failureCode: 'translation_failed',
      message: expect.stringContaining('after 3 attempts (HTTP 500: upstream exploded)'),
    });
    expect(requests).toHaveLength(3);
  });

  it('does not follow a redirect: the URL it points to was never checked', async () => {
    const { baseUrl, requests } = await modelServer(() => ({
      status: 301,
      headers: { Location: 'https://models.example.com/v1/chat/completions' },
    }));
    useServer('TRANSLATION', baseUrl);

    await expect(translate()).rejects.toMatchObject({
      failureCode: 'engine_unavailable',
      message: expect.stringContaining(
        'redirects (HTTP 301 to https://models.example.com/v1/chat/completions)',
      ),
    });
    expect(requests).toHaveLength(1);
  });

  it('recovers when a retry succeeds', async () => {
    const { baseUrl, requests } = await modelServer(({ index }) =>
      index === 0 ? { status: 502, text: 'bad gateway' } : { json: chat('{"segments": ["Hola."]}') },
    );
    useServer('TRANSLATION', baseUrl);

    expect((await translate()).segments).toEqual(['Hola.']);
    expect(requests).toHaveLength(2);
  });

  it('a server that does not answer within the timeout fails after the retries', async () => {
    const { baseUrl, requests } = await modelServer(() => 'hang');
    useServer('TRANSLATION', baseUrl);
    vi.stubEnv('TRANSLATION_TIMEOUT_MS', '40');
    vi.stubEnv('MODEL_HTTP_RETRIES', '1');
    resetModelEnginesConfig();

    const started = performance.now();
    await expect(translate()).rejects.toMatchObject({
      failureCode: 'translation_failed',
      message: expect.stringContaining('no complete answer within 40 ms'),
    });
    expect(requests).toHaveLength(2);
    expect(performance.now() - started).toBeLessThan(1000);
  });

  it('a 429 with Retry-After is retried after that delay', async () => {
    const { baseUrl, requests } = await modelServer(({ index }) =>
      index === 0
        ? {
            status: 429,
            headers: { 'Retry-After': '0.2' },
            json: { error: { message: 'Rate limit reached' } },
          }
        : { json: chat('{"segments": ["Hola."]}') },
    );
    useServer('TRANSLATION', baseUrl);

    expect((await translate()).segments).toEqual(['Hola.']);
    const [first, second] = requests;
    expect((second?.receivedAt ?? 0) - (first?.receivedAt ?? 0)).toBeGreaterThanOrEqual(190);
  });

  it('gives up at once when Retry-After asks for longer than the cap, and a 429 that persists is unavailability', async () => {
    const { baseUrl, requests } = await modelServer(() => ({
      status: 429,
      headers: { 'Retry-After': '120' },
      json: { error: { message: 'Rate limit reached' } },
    }));
    useServer('TEXT_GENERATION', baseUrl);

    await expect(createTextGenerationEngine().generate({ prompt: 'Hi' })).rejects.toMatchObject({
      failureCode: 'engine_unavailable',
      message: expect.stringContaining(
        'asked to retry after 120 s, longer than the 1000 ms this service waits',
      ),
    });
    expect(requests).toHaveLength(1);
  });

  it('a 503 whose Retry-After is an HTTP date waits until then', async () => {
    const { baseUrl, requests } = await modelServer(({ index }) =>
      index === 0
        ? {
            status: 503,
            headers: { 'Retry-After': new Date(Date.now() + 1000).toUTCString() },
            text: 'warming up',
          }
        : { json: chat('{"segments": ["Hola."]}') },
    );
    useServer('TRANSLATION', baseUrl);
    vi.stubEnv('MODEL_HTTP_MAX_RETRY_AFTER_MS', '2000');
    resetModelEnginesConfig();

    expect((await translate()).segments).toEqual(['Hola.']);
    expect(requests).toHaveLength(2);
    // HTTP dates have whole seconds: the wait is what is left of the second named.
    expect((requests[1]?.receivedAt ?? 0) - (requests[0]?.receivedAt ?? 0)).toBeGreaterThan(0);
  });

  it('reads Retry-After as seconds or as an HTTP date', () => {
    const now = Date.parse('2026-11-24T08:00:00Z');
    expect(retryAfterMs('3', now)).toBe(3000);
    expect(retryAfterMs('Tue, 24 Nov 2026 08:00:05 GMT', now)).toBe(5000);
    expect(retryAfterMs('Tue, 24 Nov 2026 07:59:00 GMT', now)).toBe(0);
    expect(retryAfterMs('soon', now)).toBeUndefined();
    expect(retryAfterMs(undefined, now)).toBeUndefined();
  });
});

describe('the outbound guard on model servers', () => {
  it('refuses a loopback server unless MODEL_HOSTS_ALLOW_PRIVATE is on, and sends it nothing', async () => {
    const { baseUrl, requests } = await modelServer(() => ({ json: chat('{"segments": ["Hola."]}') }));
    useServer('TRANSLATION', baseUrl);
    vi.stubEnv('MODEL_HOSTS_ALLOW_PRIVATE', 'false');
    // The local-development switch of webhooks and media inputs does not open model hosts.
    vi.stubEnv('ALLOW_LOOPBACK_URLS', 'true');
    resetModelEnginesConfig();
    const translate = () =>
      createTranslationEngine().translate({
        segments: ['Hello.'],
        sourceLanguage: 'en',
        targetLanguage: 'es',
      });

    await expect(translate()).rejects.toMatchObject({
      failureCode: 'engine_unavailable',
      message: expect.stringMatching(
        /model server URL http:\/\/127\.0\.0\.1:\d+\/v1\/chat\/completions is refused .*MODEL_HOSTS_ALLOW_PRIVATE=true/,
      ),
    });
    expect(requests).toHaveLength(0);

    vi.stubEnv('MODEL_HOSTS_ALLOW_PRIVATE', 'true');
    resetModelEnginesConfig();
    expect((await translate()).segments).toEqual(['Hola.']);
  });

  it('refuses private and metadata addresses and plain HTTP to public hosts', async () => {
    vi.stubEnv('MODEL_HOSTS_ALLOW_PRIVATE', 'false');
    for (const baseUrl of [
      'https://10.0.0.5/v1',
      'https://169.254.169.254/v1',
      'http://api.example.com/v1',
      'https://whisper.internal/v1',
    ]) {
      useServer('TEXT_GENERATION', baseUrl);
      await expect(createTextGenerationEngine().generate({ prompt: 'Hi' }), baseUrl).rejects.toMatchObject({
        failureCode: 'engine_unavailable',
        message: expect.stringContaining('is refused'),
      });
    }
  });
});

describe('API keys from Secrets Manager', () => {
  const secrets = mockClient(SecretsManagerClient);

  afterEach(() => {
    secrets.reset();
    resetApiKeys();
  });

  it('sends the key the named secret holds (plain or JSON), read once and cached', async () => {
    secrets.on(GetSecretValueCommand).resolves({ SecretString: '{"api_key": "sk-from-secret"}' });
    const { baseUrl, requests } = await modelServer(() => ({ json: chat('{"segments": ["Hola."]}') }));
    useServer('TRANSLATION', baseUrl);
    vi.stubEnv('TRANSLATION_API_KEY', '');
    vi.stubEnv('TRANSLATION_API_KEY_SECRET', 'video/translation-key');
    resetModelEnginesConfig();
    const engine = createTranslationEngine();

    await engine.translate({ segments: ['Hello.'], sourceLanguage: 'en', targetLanguage: 'es' });
    await engine.translate({ segments: ['Hello.'], sourceLanguage: 'en', targetLanguage: 'es' });

    expect(requests.map(({ headers }) => headers.authorization)).toEqual([
      'Bearer sk-from-secret',
      'Bearer sk-from-secret',
    ]);
    expect(secrets.commandCalls(GetSecretValueCommand)).toHaveLength(1);
    expect(secrets.commandCalls(GetSecretValueCommand)[0]?.args[0].input).toMatchObject({
      SecretId: 'video/translation-key',
    });
  });

  it('is unavailable, naming the settings, when the secret cannot be read; nothing is sent', async () => {
    secrets.on(GetSecretValueCommand).rejects(
      new ResourceNotFoundException({
        message: "Secrets Manager can't find the specified secret.",
        $metadata: {},
      }),
    );
    const { baseUrl, requests } = await modelServer(() => ({ json: chat('{}') }));
    useServer('TEXT_GENERATION', baseUrl);
    vi.stubEnv('TEXT_GENERATION_API_KEY', '');
    vi.stubEnv('TEXT_GENERATION_API_KEY_SECRET', 'video/missing');
    resetModelEnginesConfig();

    await expect(createTextGenerationEngine().generate({ prompt: 'Hi' })).rejects.toMatchObject({
      failureCode: 'engine_unavailable',
      message: expect.stringMatching(
        /API key could not be read .*TEXT_GENERATION_API_KEY or the secret TEXT_GENERATION_API_KEY_SECRET names/,
      ),
    });
    expect(requests).toHaveLength(0);
  });
});
