/**
 * The speech synthesis capability (docs/architecture.md, "Media engines"): one interface, interchangeable engines
 * (the reference eSpeak NG engine from npm, Amazon Polly on AWS), chosen by configuration and recorded
 * on the job. Job code only sees this module: it never imports an engine's implementation details.
 *
 * Units, the same for every engine:
 * - `speed` is a multiplier of the voice's normal speaking rate: 1 = normal, 0.5 = half as fast,
 *   2 = twice as fast (the API's `voice_settings.speed`). Engines accept 0.5 to 2.
 * - `pitch` is an offset of -50 to +50 around the voice's normal pitch (the API's `voice_settings.pitch`,
 *   default 0). How one step maps to Hz is engine-specific and documented by each engine.
 * - `volume` is a linear gain of 0 (silence) to 2; 1 = the engine's normal level. Samples are clipped
 *   to 16 bits, so gains above 1 can clip loud passages.
 * - `intonation` multiplies the voice's pitch range (how far its pitch moves within a sentence): 1 =
 *   normal, 0 = monotone, 2 = twice as lively. An engine that cannot change it refuses any other
 *   value than 1 with `invalid_input`.
 * - Times are integer milliseconds from the first sample of the returned audio.
 */
import { JobFailure } from '../../core/errors.js';
import type { VisemeCue } from './visemes.js';

export interface EngineVoice {
  /** Stable identifier, unique across engines (each engine prefixes its own ids). */
  id: string;
  /** Engine name (`SpeechEngine.name`). */
  engine: string;
  /** Human-readable name. */
  name: string;
  /** BCP-47 language tag, e.g. `en-US`, `en-GB-x-rp`. */
  language: string;
  /** The language's display name, e.g. `English (America)`. */
  languageName: string;
  gender: 'male' | 'female' | 'unknown';
}

/** How a term of a text is said (a brand glossary's `terms`), see pronunciations.ts. */
export interface Pronunciation {
  /** The word or phrase as written; matched as whole words, ignoring case. */
  term: string;
  /** How it is said, written as it sounds. */
  pronunciation: string;
}

export interface SynthesisRequest {
  /** Plain text (not SSML). 1 to `MAX_SYNTHESIS_TEXT_LENGTH` characters, not all whitespace. */
  text: string;
  voiceId: string;
  /** Speaking-rate multiplier, 0.5 to 2. @default 1 */
  speed?: number;
  /** Pitch offset, -50 to +50. @default 0 */
  pitch?: number;
  /** Linear gain, 0 to 2. @default 1 */
  volume?: number;
  /** Pitch-range multiplier, 0 to 2. @default 1 */
  intonation?: number;
  /**
   * How terms of the text are said (a brand glossary's `terms`). Applied the same way for every engine
   * by `withPronunciations` (pronunciations.ts), which the engine factory wraps each engine in; the
   * result's words stay the request's own. @default none
   */
  pronunciations?: readonly Pronunciation[];
}

export interface WordTiming {
  /** The word exactly as it appears in the request text: `text.slice(textOffset, textOffset + textLength)`. */
  word: string;
  startMs: number;
  /** When the word's sound ends (pauses after it are not part of the word). */
  endMs: number;
  /** Offset of the word in the request text, in UTF-16 code units (JavaScript string indexes). */
  textOffset: number;
  textLength: number;
}

export interface SynthesisResult {
  /** A complete RIFF/WAVE file: 16-bit signed PCM, mono. */
  audio: Uint8Array;
  sampleRate: number;
  /** Length of the audio, from its sample count. */
  durationMs: number;
  /**
   * Every word of the request text as script-words.ts defines words (whatever the engine itself
   * reported: `alignScriptWords`), in order, once each, with non-overlapping spans inside
   * `[0, durationMs]`, each at least 1 ms long.
   */
  words: WordTiming[];
  /**
   * The mouth shapes of the speech (visemes.ts): ordered, non-overlapping cues covering exactly
   * `[0, durationMs]`, `rest` where nothing is said, each at least 1 ms long.
   */
  visemes: VisemeCue[];
}

export interface SpeechEngine {
  /** Engine name recorded on jobs, e.g. `espeak`. */
  readonly name: string;
  voices(): Promise<EngineVoice[]>;
  synthesize(request: SynthesisRequest): Promise<SynthesisResult>;
  /** Releases the engine's resources (workers, clients). The engine may be used again afterwards. */
  close(): Promise<void>;
}

/**
 * Why a synthesis could not be done; job code copies it to the job's `failure_code`.
 * - `invalid_input`: the request itself is wrong (empty or too long text, setting out of range).
 * - `voice_not_found`: the engine has no voice with that id.
 * - `engine_unavailable`: the engine cannot run here (not installed, worker failed or timed out).
 * - `synthesis_failed`: the engine ran and reported an error for this text.
 */
export type SpeechFailureCode =
  | 'invalid_input'
  | 'voice_not_found'
  | 'engine_unavailable'
  | 'synthesis_failed';

export class SpeechEngineError extends JobFailure<SpeechFailureCode> {}

export function isSpeechEngineError(error: unknown): error is SpeechEngineError {
  return error instanceof SpeechEngineError;
}

/** Longest text one request takes; callers split longer scripts (per scene, per paragraph). */
export const MAX_SYNTHESIS_TEXT_LENGTH = 20_000;

export interface NormalizedSettings {
  speed: number;
  pitch: number;
  volume: number;
  intonation: number;
}

/** Checks the request's text and settings (not the voice) the same way for every engine. */
export function validateSynthesisRequest(request: SynthesisRequest): NormalizedSettings {
  if (typeof request.text !== 'string' || request.text.trim().length === 0) {
    throw new SpeechEngineError('invalid_input', 'text is empty: give at least one word to speak');
  }
  if (request.text.length > MAX_SYNTHESIS_TEXT_LENGTH) {
    throw new SpeechEngineError(
      'invalid_input',
      `text is ${request.text.length} characters long; at most ${MAX_SYNTHESIS_TEXT_LENGTH} are synthesized at once`,
    );
  }
  const setting = (
    key: 'speed' | 'pitch' | 'volume' | 'intonation',
    fallback: number,
    min: number,
    max: number,
  ) => {
    const value = request[key] ?? fallback;
    if (typeof value !== 'number' || !Number.isFinite(value) || value < min || value > max) {
      throw new SpeechEngineError('invalid_input', `${key} must be a number from ${min} to ${max}`);
    }
    return value;
  };
  return {
    speed: setting('speed', 1, 0.5, 2),
    pitch: setting('pitch', 0, -50, 50),
    volume: setting('volume', 1, 0, 2),
    intonation: setting('intonation', 1, 0, 2),
  };
}
