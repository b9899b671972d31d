/**
 * The speech recognition capability (docs/architecture.md, "Engines"): what was said in a recording,
 * word by word, and in which language. One interface, interchangeable engines chosen by configuration
 * (`SPEECH_RECOGNITION_ENGINE`) and recorded on the job by `name`:
 * - `openai`: an OpenAI-compatible `POST /audio/transcriptions` server (OpenAI, or a whisper server
 *   a self-hoster runs), openai-recognition-engine.ts;
 * - `transcribe`: Amazon Transcribe on the media bucket's object, transcribe-recognition-engine.ts;
 * - `known_transcript`: media this service produced, whose script and word timings are stored: the job
 *   code hands them over (`knownTranscript`) and this engine returns them (known-transcript-engine.ts).
 *   The job code decides when it applies (`recognitionEngineFor` in index.ts); it is never configured.
 * No npm package ships recognition weights: with nothing configured, every call fails with
 * `engine_unavailable` naming the settings.
 *
 * Units: times are integer milliseconds from the start of the media; languages are BCP-47 tags
 * (`en`, `en-US`, `pt-BR`) as far as the engine tells (whisper servers say `en`, Transcribe `en-US`).
 */
import { JobFailure } from '../../core/errors.js';

/** One recognized word: its text without surrounding whitespace, and when it is heard. */
export interface RecognizedWord {
  word: string;
  startMs: number;
  /** At least `startMs`. */
  endMs: number;
  /** The engine's confidence, 0 to 1, when it gives one. */
  confidence?: number;
  /**
   * The engine heard it as a disfluency (a `like` or `you know` that is not meant), when it says so;
   * filler-word removal cuts such words (filler-removals/filler-words.ts).
   */
  disfluent?: boolean;
}

/** The recording: an object of the media bucket (Transcribe reads it there), and its bytes when held. */
export interface RecognitionMedia {
  bucket: string;
  key: string;
  /** IANA media type, e.g. `audio/wav`, `video/mp4`. */
  mediaType: string;
  /** The file's bytes, when the caller holds them already (engines that upload it skip reading S3). */
  bytes?: Uint8Array;
}

export interface RecognitionRequest {
  media: RecognitionMedia;
  /** BCP-47 language of the speech when known; otherwise the engine detects it. */
  language?: string;
  /**
   * Unique to this run (the job's id): Amazon Transcribe's job name is made from it, so a step that
   * runs again finds its own job instead of starting another.
   */
  runId: string;
  /** Media bucket prefix for the run's work files (Transcribe's result JSON), e.g. `workspaces/w/clips/c/work/`. */
  workPrefix: string;
  /** `known_transcript` only: the words this service already has for the media, and their language. */
  knownTranscript?: { words: RecognizedWord[]; language: string };
}

export interface RecognitionResult {
  /** The engine that heard it (`SpeechRecognitionEngine.name`), for the job's record. */
  engine: string;
  /** BCP-47 language detected (or given). */
  language: string;
  /** The whole transcript as the engine wrote it (with punctuation). */
  text: string;
  /** Every word, in order, non-overlapping. */
  words: RecognizedWord[];
}

export interface SpeechRecognitionEngine {
  /** Engine name recorded on jobs, e.g. `transcribe`. */
  readonly name: string;
  recognize(request: RecognitionRequest): Promise<RecognitionResult>;
}

/**
 * Why recognition could not be done; job code copies it to the job's `failure_code`.
 * - `invalid_input`: the request or the media is wrong (the engine refused it as such).
 * - `engine_unavailable`: no engine is configured, or it cannot be reached or used now (refused key).
 * - `recognition_failed`: the engine ran and failed (server errors after retries, a failed job, timeout).
 */
export const RECOGNITION_FAILURE_CODES = {
  invalidInput: 'invalid_input',
  engineUnavailable: 'engine_unavailable',
  recognitionFailed: 'recognition_failed',
} as const;
export type RecognitionFailureCode =
  (typeof RECOGNITION_FAILURE_CODES)[keyof typeof RECOGNITION_FAILURE_CODES];

export class SpeechRecognitionError extends JobFailure<RecognitionFailureCode> {}

/** Words in time order, rounded to whole milliseconds, each ending no earlier than it starts and no later than the next starts. */
export function orderedWords(words: readonly RecognizedWord[]): RecognizedWord[] {
  const sorted = words
    .map((word) => ({ ...word, word: word.word.trim() }))
    .filter((word) => word.word.length > 0 && Number.isFinite(word.startMs) && Number.isFinite(word.endMs))
    .map((word) => {
      const startMs = Math.max(0, Math.round(word.startMs));
      return { ...word, startMs, endMs: Math.max(startMs, Math.round(word.endMs)) };
    })
    .sort((a, b) => a.startMs - b.startMs);
  for (let index = 0; index < sorted.length - 1; index++) {
    const word = sorted[index] as RecognizedWord;
    const next = sorted[index + 1] as RecognizedWord;
    if (word.endMs > next.startMs) word.endMs = next.startMs;
  }
  return sorted;
}

/**
 * Whisper servers name the detected language in English (`english`) or by code (`en`): the common
 * names as codes; anything else is kept as the server said it.
 */
const WHISPER_LANGUAGE_CODES: Readonly<Record<string, string>> = {
  english: 'en',
  spanish: 'es',
  french: 'fr',
  german: 'de',
  italian: 'it',
  portuguese: 'pt',
  dutch: 'nl',
  russian: 'ru',
  chinese: 'zh',
  japanese: 'ja',
  korean: 'ko',
  arabic: 'ar',
  hindi: 'hi',
  turkish: 'tr',
  polish: 'pl',
  ukrainian: 'uk',
  swedish: 'sv',
  danish: 'da',
  norwegian: 'no',
  finnish: 'fi',
  czech: 'cs',
  greek: 'el',
  hebrew: 'he',
  indonesian: 'id',
  malay: 'ms',
  thai: 'th',
  vietnamese: 'vi',
  romanian: 'ro',
  hungarian: 'hu',
  catalan: 'ca',
  tagalog: 'tl',
  bengali: 'bn',
  persian: 'fa',
  urdu: 'ur',
  tamil: 'ta',
  swahili: 'sw',
};

/** A language as a BCP-47 tag where it can be (`English` → `en`, `en` → `en`). */
export function languageTag(language: string): string {
  const text = language.trim();
  return WHISPER_LANGUAGE_CODES[text.toLowerCase()] ?? text;
}
