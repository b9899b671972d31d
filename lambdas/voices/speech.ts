/**
 * Text to speech (`POST /v3/voices/speech`): plain text or the SSML subset of ssml.ts, spoken by a
 * stock voice or one of the workspace's own, on this deployment's speech engine. The runs of text are
 * synthesized one after another and joined, with silence for pauses, into one 16-bit mono WAV, which
 * is stored in the workspace's media (with its encryption) and returned as a presigned URL with the
 * word timings of the whole file.
 */

import { glossaryForGeneration } from '../brand/brand-glossaries.js';
import { POLLY_ENGINE_TYPES, type PollyEngineType } from '../core/config.js';
import {
  ConflictError,
  ForbiddenError,
  InvalidParameterError,
  NotFoundError,
  type ServiceError,
} from '../core/errors.js';
import { onProcessReset } from '../core/process-state.js';
import { createPollySpeechEngine, type SpeechEngine, speechEngine } from '../engines/speech/index.js';
import { isSpeechEngineError } from '../engines/speech/speech-engine.js';
import { requireSpeakableText } from './speakable-text.js';
import { DEPRECATED_SPEECH_ENGINES } from './speech-options.js';
import {
  collectSpeech,
  type SpeechStep,
  speakSteps,
  storeSpeech,
  type WordTimestamp,
} from './speech-pipeline.js';
import { parseSsml, type SpeechSegment, SsmlError } from './ssml.js';
import { languageMatches } from './voice-filter.js';
import {
  combinedSettings,
  type ResolvedVoice,
  resolveVoice,
  VOICE_RESOLUTION_FAILURE,
  VoiceResolutionError,
} from './voice-resolution.js';

export interface SpeechRequest {
  text: string;
  input_type: 'text' | 'ssml';
  voice_id: string;
  speed: number;
  language?: string | undefined;
  locale?: string | undefined;
  engine?: string | undefined;
  settings?: { model_id?: string | undefined } | undefined;
  /** Its glossary's `terms` say how brand words of the text are pronounced. */
  brand_glossary_id?: string | undefined;
}

export interface SpeechResult {
  audio_url: string;
  /** Seconds. */
  duration: number;
  word_timestamps: WordTimestamp[];
  request_id: string;
  /** Beyond the reference: what spoke it. */
  voice_id: string;
  engine: string;
  model_id: string | null;
  /** Whether the request named a deprecated `engine` value. */
  deprecatedEngine: boolean;
}

export const speechMediaKey = (workspaceId: string, requestId: string) =>
  `workspaces/${workspaceId}/speech/${requestId}.wav`;

function segmentsOf(request: SpeechRequest): SpeechSegment[] {
  if (request.input_type === 'text') {
    requireSpeakableText(request.text);
    return [{ kind: 'text', text: request.text, rate: 1 }];
  }
  try {
    return parseSsml(request.text);
  } catch (error) {
    if (error instanceof SsmlError) {
      throw new InvalidParameterError(`\`text\` is not SSML this service speaks: ${error.message}.`, 'text');
    }
    throw error;
  }
}

/** The 4xx a request naming a voice that cannot speak gets (`param` `voice_id`). */
export function voiceError(error: VoiceResolutionError): ServiceError {
  switch (error.failureCode) {
    case VOICE_RESOLUTION_FAILURE.notFound:
      return new NotFoundError(error.message, 'voice_not_found', 'voice_id');
    case VOICE_RESOLUTION_FAILURE.notReady:
      return new ConflictError(error.message, 'resource_not_ready', { param: 'voice_id' });
    default:
      return new ForbiddenError(error.message, 'voice_not_usable', { param: 'voice_id' });
  }
}

/** A `language` or `locale` the voice does not speak is refused: voices have one accent each. */
function checkLanguage(voice: ResolvedVoice, request: SpeechRequest): void {
  if (request.locale !== undefined && request.locale.toLowerCase() !== voice.language.toLowerCase()) {
    throw new InvalidParameterError(
      `Voice ${voice.voiceId} speaks ${voice.language} only; choose a voice of ${request.locale} (GET /v3/voices?language=${request.locale}) or leave locale out.`,
      'locale',
    );
  }
  if (request.language !== undefined && !languageMatches(request.language, voice.language, voice.language)) {
    throw new InvalidParameterError(
      `Voice ${voice.voiceId} speaks ${voice.language}; choose a voice of ${request.language} (GET /v3/voices?language=${request.language}) or leave language out.`,
      'language',
    );
  }
}

const pollyEngines = new Map<PollyEngineType, SpeechEngine>();
onProcessReset(async () => {
  const engines = [...pollyEngines.values()];
  pollyEngines.clear();
  await Promise.all(engines.map((engine) => engine.close()));
});

/**
 * The engine for this request: the deployment's, or (on Polly) one restricted to the Polly engine type
 * `settings.model_id` names, for this request only.
 */
function engineFor(request: SpeechRequest): {
  engine: SpeechEngine;
  modelId: string | null;
  deprecated: boolean;
} {
  const deployed = speechEngine();
  const deprecated = (DEPRECATED_SPEECH_ENGINES as readonly string[]).includes(request.engine ?? '');
  if (
    request.engine !== undefined &&
    request.engine !== 'default' &&
    request.engine !== deployed.name &&
    !deprecated
  ) {
    throw new InvalidParameterError(
      `This deployment speaks with the ${deployed.name} engine; engine must be ${deployed.name}, default or left out.`,
      'engine',
    );
  }
  const modelId = request.settings?.model_id;
  if (modelId === undefined) return { engine: deployed, modelId: null, deprecated };
  if (deployed.name === 'polly' && (POLLY_ENGINE_TYPES as readonly string[]).includes(modelId)) {
    const type = modelId as PollyEngineType;
    let engine = pollyEngines.get(type);
    if (!engine) {
      engine = createPollySpeechEngine([type]);
      pollyEngines.set(type, engine);
    }
    return { engine, modelId, deprecated };
  }
  const models = deployed.name === 'polly' ? POLLY_ENGINE_TYPES.join(', ') : 'none (eSpeak NG has one model)';
  throw new InvalidParameterError(
    `The ${deployed.name} engine has no model ${modelId}; models: ${models}.`,
    'settings.model_id',
  );
}

function speechFailure(error: unknown): never {
  if (isSpeechEngineError(error)) {
    switch (error.failureCode) {
      case 'invalid_input':
        throw new InvalidParameterError(`\`text\` cannot be spoken: ${error.message}.`, 'text', {
          cause: error,
        });
      case 'voice_not_found':
        throw new ForbiddenError(
          `The voice cannot be spoken by this deployment's engine (${error.message}); choose another voice.`,
          'voice_not_usable',
          { param: 'voice_id', cause: error },
        );
      default:
        // Unavailable (503 with Retry-After) or failed (500): the error itself says which (JobFailure).
        break;
    }
  }
  throw error;
}

/** Speaks a request and stores the audio. @throws ServiceError 400, 403, 404, 409, 503 */
export async function createSpeech(
  workspaceId: string,
  requestId: string,
  request: SpeechRequest,
): Promise<SpeechResult> {
  const segments = segmentsOf(request);
  const { engine, modelId, deprecated } = engineFor(request);
  let voice: ResolvedVoice;
  try {
    voice = await resolveVoice(workspaceId, request.voice_id, engine.name);
  } catch (error) {
    if (error instanceof VoiceResolutionError) throw voiceError(error);
    throw error;
  }
  checkLanguage(voice, request);
  const pronunciations = request.brand_glossary_id
    ? (await glossaryForGeneration(workspaceId, request.brand_glossary_id, 'brand_glossary_id')).terms
    : [];

  const steps = segments.map(
    (segment): SpeechStep =>
      segment.kind === 'break'
        ? { kind: 'pause', ms: segment.ms }
        : {
            kind: 'speech',
            request: {
              text: segment.text,
              voiceId: voice.engineVoiceId,
              ...combinedSettings(voice, { speed: request.speed * segment.rate }),
              pronunciations,
            },
            // This route answers no offsets into the text.
            textOffset: 0,
          },
  );
  // One run of text at a time, in the engine's own sample rate.
  const audio = await collectSpeech(
    speakSteps(engine, steps, { sampleRate: 'engine', inFlight: 1, engineError: speechFailure }),
  );
  const { sampleRate } = audio;
  if (sampleRate === undefined) throw new InvalidParameterError('`text` has no words to speak.', 'text');
  return {
    ...(await storeSpeech(workspaceId, speechMediaKey(workspaceId, requestId), `speech-${requestId}.wav`, {
      ...audio,
      sampleRate,
    })),
    request_id: requestId,
    voice_id: voice.voiceId,
    engine: engine.name,
    model_id: modelId,
    deprecatedEngine: deprecated,
  };
}
