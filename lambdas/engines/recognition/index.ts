/**
 * The process's speech recognition engine, chosen by configuration (`SPEECH_RECOGNITION_ENGINE`, see
 * `modelEnginesConfig` in core/config.ts): `openai`, `transcribe`, `none` (the default: every call fails
 * with `engine_unavailable` naming the settings) or `test-double` (tests only). `known_transcript` is
 * not configured: job code picks it for media this service made (`recognitionEngineFor`). Job code
 * records the engine's `name` on the job.
 */
import {
  modelEnginesConfig,
  type SpeechRecognitionEngineName,
  UNCONFIGURED_ENGINE,
} from '../../core/config.js';
import { onProcessReset } from '../../core/process-state.js';
import { createKnownTranscriptEngine, KNOWN_TRANSCRIPT_ENGINE } from './known-transcript-engine.js';
import { createOpenAiRecognitionEngine } from './openai-recognition-engine.js';
import {
  type RecognitionRequest,
  type SpeechRecognitionEngine,
  SpeechRecognitionError,
} from './speech-recognition-engine.js';
import { createTestDoubleRecognitionEngine } from './test-double-recognition-engine.js';
import { createTranscribeRecognitionEngine } from './transcribe-recognition-engine.js';

export { KNOWN_TRANSCRIPT_ENGINE } from './known-transcript-engine.js';
export * from './speech-recognition-engine.js';

/** What a deployer reads when speech recognition is asked for and none is configured. */
export const SPEECH_RECOGNITION_NOT_CONFIGURED =
  "Speech recognition is not configured: set SPEECH_RECOGNITION_ENGINE=openai with SPEECH_RECOGNITION_BASE_URL (an OpenAI-compatible transcription server; CDK option speechRecognition: { engine: 'openai', baseUrl }) or deploy with speechRecognition: { engine: 'transcribe' } (Amazon Transcribe). Nothing was charged.";

/** The engine of an unconfigured deployment: says what to configure, on every call. */
function createUnconfiguredRecognitionEngine(): SpeechRecognitionEngine {
  return {
    name: UNCONFIGURED_ENGINE,
    async recognize() {
      throw new SpeechRecognitionError('engine_unavailable', SPEECH_RECOGNITION_NOT_CONFIGURED);
    },
  };
}

/** A new engine of that name, with its settings from the configuration. */
export function createSpeechRecognitionEngine(
  name: SpeechRecognitionEngineName | typeof KNOWN_TRANSCRIPT_ENGINE = modelEnginesConfig().speechRecognition
    .engine,
): SpeechRecognitionEngine {
  const settings = modelEnginesConfig().speechRecognition;
  switch (name) {
    case 'openai':
      if (!settings.baseUrl) {
        return {
          name,
          async recognize() {
            throw new SpeechRecognitionError(
              'engine_unavailable',
              'Speech recognition is set to an OpenAI-compatible server (SPEECH_RECOGNITION_ENGINE=openai) but SPEECH_RECOGNITION_BASE_URL is empty (CDK option speechRecognition.baseUrl). Nothing was charged.',
            );
          },
        };
      }
      return createOpenAiRecognitionEngine(settings);
    case 'transcribe':
      return createTranscribeRecognitionEngine({
        pollIntervalMs: settings.transcribePollIntervalMs,
        timeoutMs: settings.transcribeTimeoutMs,
      });
    case KNOWN_TRANSCRIPT_ENGINE:
      return createKnownTranscriptEngine();
    case 'test-double':
      return createTestDoubleRecognitionEngine();
    case UNCONFIGURED_ENGINE:
      return createUnconfiguredRecognitionEngine();
    default:
      throw new Error(`unknown speech recognition engine ${String(name satisfies never)}`);
  }
}

/** Whether the deployment has a speech recognition engine configured (anything but `none`). */
export function speechRecognitionConfigured(): boolean {
  return modelEnginesConfig().speechRecognition.engine !== UNCONFIGURED_ENGINE;
}

let shared: SpeechRecognitionEngine | undefined;

/** The process's configured speech recognition engine, created on first use and kept. */
export function speechRecognitionEngine(): SpeechRecognitionEngine {
  shared ??= createSpeechRecognitionEngine();
  return shared;
}

/**
 * The engine for one request: the stored words when the job has them (media this service made),
 * else the configured engine.
 */
export function recognitionEngineFor(
  request: Pick<RecognitionRequest, 'knownTranscript'>,
): SpeechRecognitionEngine {
  return request.knownTranscript ? createKnownTranscriptEngine() : speechRecognitionEngine();
}

/** Forgets the process's engine (tests, and the local stack after it changes settings). */
export function resetSpeechRecognitionEngine(): void {
  shared = undefined;
}
onProcessReset(resetSpeechRecognitionEngine);
