/**
 * Choosing the model engines by configuration: with nothing configured each capability is an engine
 * that says exactly what to configure (the environment variable and the CDK option) and fails with
 * `engine_unavailable`, so the job fails with that code and is refunded; test doubles only in tests;
 * one engine per process, forgotten on a process reset.
 */
import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { modelEnginesConfig, resetModelEnginesConfig } from '../../../lambdas/core/config.js';
import { JobFailure } from '../../../lambdas/core/errors.js';
import { resetProcessState } from '../../../lambdas/core/process-state.js';
import {
  createGenerationEngine,
  generationEngine,
  MediaGenerationError,
  videoGenerationConfigured,
} from '../../../lambdas/engines/generation/index.js';
import {
  createSpeechRecognitionEngine,
  KNOWN_TRANSCRIPT_ENGINE,
  recognitionEngineFor,
  SpeechRecognitionError,
  speechRecognitionEngine,
} from '../../../lambdas/engines/recognition/index.js';
import {
  createTextGenerationEngine,
  TextGenerationError,
  textGenerationEngine,
} from '../../../lambdas/engines/text-generation/index.js';
import {
  createTranslationEngine,
  TranslationError,
  translationEngine,
} from '../../../lambdas/engines/translation/index.js';

beforeEach(async () => {
  for (const variable of [
    'SPEECH_RECOGNITION_ENGINE',
    'TRANSLATION_ENGINE',
    'TEXT_GENERATION_ENGINE',
    'MEDIA_GENERATION_ENGINE',
    'ALLOW_TEST_DOUBLE_ENGINES',
  ]) {
    vi.stubEnv(variable, undefined);
  }
  await resetProcessState();
});

afterEach(async () => {
  vi.unstubAllEnvs();
  await resetProcessState();
});

const recognitionRequest = {
  media: { bucket: 'b', key: 'workspaces/w/a/hello-world.wav', mediaType: 'audio/wav' },
  runId: 'r',
  workPrefix: 'w/',
};

describe('a capability nobody configured', () => {
  it('speech recognition names SPEECH_RECOGNITION_ENGINE and the speechRecognition CDK option', async () => {
    const engine = createSpeechRecognitionEngine();
    expect(engine.name).toBe('none');
    const failure = engine.recognize(recognitionRequest);
    await expect(failure).rejects.toBeInstanceOf(SpeechRecognitionError);
    await expect(failure).rejects.toMatchObject({
      failureCode: 'engine_unavailable',
      status: 503,
      message:
        "Speech recognition is not configured: set SPEECH_RECOGNITION_ENGINE=openai with SPEECH_RECOGNITION_BASE_URL (an OpenAI-compatible transcription server; CDK option speechRecognition: { engine: 'openai', baseUrl }) or deploy with speechRecognition: { engine: 'transcribe' } (Amazon Transcribe). Nothing was charged.",
    });
  });

  it('translation names TRANSLATION_ENGINE, apertium and the translation CDK option', async () => {
    const failure = createTranslationEngine().translate({
      segments: ['Hi'],
      sourceLanguage: 'en',
      targetLanguage: 'es',
    });
    await expect(failure).rejects.toBeInstanceOf(TranslationError);
    await expect(failure).rejects.toMatchObject({
      failureCode: 'engine_unavailable',
      message: expect.stringMatching(
        /^Translation is not configured: set TRANSLATION_ENGINE=openai with TRANSLATION_BASE_URL .*TRANSLATION_ENGINE=apertium.*translation: \{ engine: 'translate' \}.*Nothing was charged\.$/,
      ),
    });
  });

  it('text generation names TEXT_GENERATION_ENGINE, the textGeneration CDK option, and that local is not an LLM', async () => {
    const failure = createTextGenerationEngine().generate({ prompt: 'Write a script' });
    await expect(failure).rejects.toBeInstanceOf(TextGenerationError);
    await expect(failure).rejects.toMatchObject({
      failureCode: 'engine_unavailable',
      message: expect.stringMatching(
        /^Text generation is not configured: set TEXT_GENERATION_ENGINE=openai with TEXT_GENERATION_BASE_URL .*textGeneration: \{ engine: 'bedrock' \}.*TEXT_GENERATION_ENGINE=local .*not a language model\. Nothing was charged\.$/,
      ),
    });
  });

  it('image and video generation says there is no local engine and names MEDIA_GENERATION_ENGINE=bedrock', async () => {
    const engine = createGenerationEngine();
    expect(videoGenerationConfigured()).toBe(false);
    for (const failure of [
      engine.generateImage({ prompt: 'A cat' }),
      engine.generateVideo({ prompt: 'A cat', output: { bucket: 'b', prefix: 'p' }, runId: 'r' }),
    ]) {
      await expect(failure).rejects.toBeInstanceOf(MediaGenerationError);
      await expect(failure).rejects.toMatchObject({
        failureCode: 'engine_unavailable',
        message: expect.stringMatching(
          /^Image and video generation is not configured: there is no local engine .*MEDIA_GENERATION_ENGINE=bedrock \(CDK option mediaGeneration: \{ engine: 'bedrock' \}\).*Nothing was charged\.$/,
        ),
      });
    }
  });

  it('every such failure is a JobFailure the job framework records as engine_unavailable', async () => {
    const failures = await Promise.allSettled([
      speechRecognitionEngine().recognize(recognitionRequest),
      translationEngine().translate({ segments: ['Hi'], sourceLanguage: 'en', targetLanguage: 'es' }),
      textGenerationEngine().generate({ prompt: 'Hi' }),
      generationEngine().generateImage({ prompt: 'Hi' }),
    ]);
    for (const failure of failures) {
      expect(failure.status).toBe('rejected');
      const reason = (failure as PromiseRejectedResult).reason;
      expect(reason).toBeInstanceOf(JobFailure);
      expect(reason.failureCode).toBe('engine_unavailable');
      expect(reason.headers).toEqual({ 'Retry-After': '5' });
    }
  });

  it('an OpenAI-compatible engine without a base URL names the missing URL setting', async () => {
    vi.stubEnv('TRANSLATION_ENGINE', 'openai');
    resetModelEnginesConfig();
    await expect(
      createTranslationEngine().translate({ segments: ['Hi'], sourceLanguage: 'en', targetLanguage: 'es' }),
    ).rejects.toMatchObject({
      failureCode: 'engine_unavailable',
      message: expect.stringContaining('TRANSLATION_BASE_URL is empty'),
    });
  });
});

describe('choosing engines', () => {
  it('reads every engine name, and refuses an unknown one naming the variable', () => {
    vi.stubEnv('SPEECH_RECOGNITION_ENGINE', 'transcribe');
    vi.stubEnv('TRANSLATION_ENGINE', 'apertium');
    vi.stubEnv('TEXT_GENERATION_ENGINE', 'bedrock');
    vi.stubEnv('MEDIA_GENERATION_ENGINE', 'bedrock');
    resetModelEnginesConfig();
    expect(speechRecognitionEngine().name).toBe('transcribe');
    expect(translationEngine().name).toBe('apertium');
    expect(textGenerationEngine().name).toBe('bedrock');
    expect(generationEngine().name).toBe('bedrock');
    // Bedrock text generation defaults to a Bedrock model.
    expect(modelEnginesConfig().textGeneration.model).toBe('amazon.nova-lite-v1:0');

    vi.stubEnv('TRANSLATION_ENGINE', 'deepl');
    resetModelEnginesConfig();
    expect(() => modelEnginesConfig()).toThrow(
      'Environment variable TRANSLATION_ENGINE must be one of openai, translate, apertium, none, test-double, got "deepl"',
    );
  });

  it('refuses the test doubles unless ALLOW_TEST_DOUBLE_ENGINES=true', () => {
    vi.stubEnv('TEXT_GENERATION_ENGINE', 'test-double');
    resetModelEnginesConfig();
    expect(() => modelEnginesConfig()).toThrow(
      /TEXT_GENERATION_ENGINE is "test-double", an engine for tests only/,
    );
    vi.stubEnv('ALLOW_TEST_DOUBLE_ENGINES', 'true');
    resetModelEnginesConfig();
    expect(textGenerationEngine().name).toBe('test-double');
  });

  it('refuses timings that are not positive', () => {
    vi.stubEnv('TRANSCRIBE_POLL_INTERVAL_MS', '0');
    resetModelEnginesConfig();
    expect(() => modelEnginesConfig()).toThrow(
      'TRANSCRIBE_POLL_INTERVAL_MS must be a positive number of milliseconds, got 0',
    );
  });

  it('keeps one engine per process until the process state is reset', async () => {
    vi.stubEnv('TRANSLATION_ENGINE', 'translate');
    resetModelEnginesConfig();
    const first = translationEngine();
    expect(translationEngine()).toBe(first);
    vi.stubEnv('TRANSLATION_ENGINE', 'apertium');
    await resetProcessState();
    expect(translationEngine()).not.toBe(first);
    expect(translationEngine().name).toBe('apertium');
  });

  it('uses the stored words of media this service made, whatever engine is configured', async () => {
    const known = {
      language: 'en-US',
      words: [
        { word: 'world', startMs: 520, endMs: 900 },
        { word: 'Hello', startMs: 100, endMs: 560 },
      ],
    };
    const engine = recognitionEngineFor({ knownTranscript: known });
    expect(engine.name).toBe(KNOWN_TRANSCRIPT_ENGINE);
    expect(await engine.recognize({ ...recognitionRequest, knownTranscript: known })).toEqual({
      engine: 'known_transcript',
      language: 'en-US',
      text: 'Hello world',
      words: [
        { word: 'Hello', startMs: 100, endMs: 520 },
        { word: 'world', startMs: 520, endMs: 900 },
      ],
    });
    expect(recognitionEngineFor({}).name).toBe('none');
    await expect(
      createSpeechRecognitionEngine(KNOWN_TRANSCRIPT_ENGINE).recognize(recognitionRequest),
    ).rejects.toMatchObject({
      failureCode: 'invalid_input',
    });
  });
});

describe('test doubles', () => {
  beforeEach(() => {
    vi.stubEnv('ALLOW_TEST_DOUBLE_ENGINES', 'true');
    vi.stubEnv('SPEECH_RECOGNITION_ENGINE', 'test-double');
    vi.stubEnv('TRANSLATION_ENGINE', 'test-double');
    vi.stubEnv('TEXT_GENERATION_ENGINE', 'test-double');
    vi.stubEnv('MEDIA_GENERATION_ENGINE', 'test-double');
    resetModelEnginesConfig();
  });

  it('keep each contract with answers nobody could mistake for a model', async () => {
    const heard = await speechRecognitionEngine().recognize(recognitionRequest);
    expect(heard).toMatchObject({ engine: 'test-double', language: 'en', text: 'hello world' });
    expect(heard.words.map(({ startMs, endMs }) => [startMs, endMs])).toEqual([
      [0, 350],
      [400, 750],
    ]);

    const translated = await translationEngine().translate({
      segments: ['Welcome to Acme', 'Open the dashboard'],
      sourceLanguage: 'en',
      targetLanguage: 'es',
      glossary: { doNotTranslate: ['Acme'], terms: [{ source: 'dashboard', target: 'panel' }] },
    });
    expect(translated).toEqual({
      engine: 'test-double',
      segments: ['[es] Welcome to Acme', '[es] Open the panel'],
      glossaryViolations: [],
    });

    expect((await textGenerationEngine().generate({ prompt: 'Write me a poem' })).text).toBe(
      'test-double: Write me a poem',
    );

    const image = await generationEngine().generateImage({ prompt: 'A cat', width: 320, height: 320 });
    expect(
      Buffer.from(image.images[0] ?? [])
        .subarray(1, 4)
        .toString('latin1'),
    ).toBe('PNG');
    expect(videoGenerationConfigured()).toBe(true);
  });
});
