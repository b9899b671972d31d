/**
 * Text to speech with an audio voice (`POST /v3/models/audio/tts` and `/tts/stream`).
 *
 * The voices spoken are the workspace's audio voices (`/v3/models/audio/voices`) that are `ACTIVE`,
 * as the reference says ("an ACTIVE voice clone in your workspace"); stock voices speak through the
 * other speech route. A voice speaks with the engine voice and settings its training derived; the
 * request's options move them: `speed` multiplies its pace, `pitch_shift` moves its pitch by semitones
 * (on the engine's calibrated pitch scale), `pitch_variance` and `expressiveness_boost` scale its
 * intonation range. `language` other than the voice's own re-derives the voice for that language
 * from the same measures (the speaker's pitch and pace, in the other language's engine voice).
 *
 * Audio is produced unit by unit (sentences, see tts-text.ts), each spoken by the engine, resampled
 * to 44.1 kHz, and handed on as soon as it is ready, with the next unit already queued at the engine:
 * the buffered route collects them into one WAV file, the stream route sends each as it comes.
 * Word timings are those of the engine (eSpeak: exact), shifted to their place in the whole audio.
 */

import { findStockVoice, voiceCatalogEngine } from '../catalog/stock-voices.js';
import { config } from '../core/config.js';
import { ConflictError, InvalidParameterError, NotFoundError } from '../core/errors.js';
import { TTS_SAMPLE_RATE } from '../engines/speech/pcm.js';
import { POLLY_SEMITONES_PER_PITCH_STEP } from '../engines/speech/polly-engine.js';
import { isSpeechEngineError, type SpeechEngine } from '../engines/speech/speech-engine.js';
import { isSpeakable } from '../voices/speakable-text.js';
import { type SpeechStep, type SpokenChunk, speakSteps } from '../voices/speech-pipeline.js';
import { espeakOffsetFor, espeakPitchHz } from '../voices/voice-analysis.js';
import {
  engineSpeaks,
  getModelVoice,
  MODEL_VOICE_STATUS,
  type ModelVoiceRecord,
  type ModelVoiceSettings,
  primaryLanguage,
} from './model-voices.js';
import type { TtsRequestPlan } from './tts-request.js';
import { synthesisUnits } from './tts-text.js';
import { recordingAnalysisOf, voiceSettingsFor } from './voice-training.js';

/** Unit sizes by model: the turbo model speaks shorter pieces, so its first audio comes sooner. */
const UNIT_OPTIONS = {
  'service-voice-1': { maxUnitCharacters: 300, splitClauses: false },
  'service-voice-1-turbo': { maxUnitCharacters: 120, splitClauses: true },
} as const;

/** Units at the engine at once: the one being handed on and the next, queued behind it. */
const UNITS_IN_FLIGHT = 2;

/** A speakable (`ACTIVE`) audio voice of the workspace. @throws 404, 409, 400 naming `voice_id` */
export async function requireSpeakableVoice(workspaceId: string, voiceId: string): Promise<ModelVoiceRecord> {
  const voice = await getModelVoice(workspaceId, voiceId);
  if (!voice) {
    const stock = findStockVoice(voiceId)
      ? ' It is a stock voice: stock voices speak through POST /v3/voices/speech.'
      : '';
    throw new NotFoundError(
      `No audio voice ${voiceId} exists in this workspace (GET /v3/models/audio/voices lists them).${stock}`,
      'voice_not_found',
      'voice_id',
    );
  }
  if (voice.status === MODEL_VOICE_STATUS.pending) {
    throw new ConflictError(
      `Audio voice ${voiceId} is still being trained; it can speak once it is ACTIVE.`,
      'resource_not_ready',
      { param: 'voice_id' },
    );
  }
  if (voice.status === MODEL_VOICE_STATUS.failed || !voice.settings || !voice.analysis) {
    throw new InvalidParameterError(
      `\`voice_id\`: audio voice ${voiceId} failed (${voice.failure_reason ?? 'INTERNAL_ERROR'}) and cannot speak; ${
        voice.mode === 'professional' ? 'retrain it' : 'create it again'
      } with other recordings.`,
      'voice_id',
    );
  }
  return voice;
}

/** What the engine is asked for: the voice's settings moved by the request's options. */
export interface EngineSettings {
  engineVoiceId: string;
  speed: number;
  pitch: number;
  intonation: number;
  /** The primary language spoken (`Content-Language`). */
  language: string;
}

const clamp = (value: number, min: number, max: number) => Math.max(min, Math.min(max, value));

/** The engine pitch offset that moves a voice at `pitch` by `semitones` (the engine's own scale). */
export function shiftedPitch(
  settings: Pick<ModelVoiceSettings, 'engine' | 'engine_voice_id'>,
  pitch: number,
  semitones: number,
): number {
  if (semitones === 0) return pitch;
  if (voiceCatalogEngine(settings.engine) === 'espeak') {
    const variant = /-([mf]\d)$/.exec(settings.engine_voice_id)?.[1] ?? 'f1';
    return espeakOffsetFor(variant, espeakPitchHz(variant, pitch) * 2 ** (semitones / 12));
  }
  return clamp(Math.round(pitch + semitones / POLLY_SEMITONES_PER_PITCH_STEP), -50, 50);
}

/**
 * How `voice` speaks this request: its trained settings, re-derived when the request's language is
 * another or the deployment's engine changed since training, then moved by the options.
 * @throws InvalidParameterError naming `language` when the engine does not speak it
 */
export function engineSettingsFor(
  voice: ModelVoiceRecord,
  plan: TtsRequestPlan,
  language?: string,
): EngineSettings {
  const trained = voice.settings as ModelVoiceSettings;
  const engine = config().speechEngine;
  if (language !== undefined && !engineSpeaks(language, engine)) {
    throw new InvalidParameterError(
      `\`language\`: this deployment's speech engine (${engine}) does not speak ${language}.`,
      'language',
    );
  }
  const wanted = language ?? voice.language_tag ?? trained.language_tag;
  const sameLanguage =
    language === undefined ||
    (language.includes('-')
      ? language.toLowerCase() === trained.language_tag.toLowerCase()
      : primaryLanguage(language) === primaryLanguage(trained.language_tag));
  const settings =
    sameLanguage && trained.engine === engine
      ? trained
      : voiceSettingsFor(
          recordingAnalysisOf(voice.analysis as NonNullable<ModelVoiceRecord['analysis']>),
          voice,
          wanted,
          engine,
        );
  return {
    engineVoiceId: settings.engine_voice_id,
    speed: Math.round(clamp(settings.speed * plan.speed, 0.5, 2) * 100) / 100,
    pitch: shiftedPitch(settings, settings.pitch, plan.pitchShift),
    intonation: plan.intonation,
    language: primaryLanguage(settings.language_tag),
  };
}

function stepsOf(plan: TtsRequestPlan, settings: EngineSettings): SpeechStep[] {
  const options = UNIT_OPTIONS[plan.model];
  return plan.parts.flatMap((part): SpeechStep[] =>
    part.kind === 'pause'
      ? [{ kind: 'pause', ms: part.ms }]
      : synthesisUnits(part, options)
          // Punctuation alone has nothing to say (and an engine may give no audio for it).
          .filter((unit) => isSpeakable(unit.text))
          .map((unit) => ({
            kind: 'speech',
            request: {
              text: unit.text,
              voiceId: settings.engineVoiceId,
              speed: settings.speed,
              pitch: settings.pitch,
              intonation: settings.intonation,
            },
            textOffset: unit.offset,
          })),
  );
}

/** An engine's refusal of a setting, as a 400 on the request field that set it; anything else as is. */
function mapEngineError(error: unknown, plan: TtsRequestPlan, settings: EngineSettings): never {
  if (isSpeechEngineError(error) && error.failureCode === 'invalid_input') {
    const field =
      settings.intonation !== 1 && /intonation/i.test(error.message)
        ? plan.intonationField
        : plan.pitchShift !== 0 && /pitch/i.test(error.message)
          ? 'pitch_shift'
          : undefined;
    if (field) {
      throw new InvalidParameterError(
        `\`${field}\`: this deployment's speech engine cannot do that with this voice (${error.message}).`,
        field,
        { cause: error },
      );
    }
  }
  throw error;
}

/**
 * The audio of a request at 44.1 kHz, chunk by chunk, in order, with `UNITS_IN_FLIGHT` units at the
 * engine at once.
 */
export function speak(
  engine: SpeechEngine,
  plan: TtsRequestPlan,
  settings: EngineSettings,
): AsyncGenerator<SpokenChunk> {
  return speakSteps(engine, stepsOf(plan, settings), {
    sampleRate: TTS_SAMPLE_RATE,
    inFlight: UNITS_IN_FLIGHT,
    engineError: (error) => mapEngineError(error, plan, settings),
  });
}
