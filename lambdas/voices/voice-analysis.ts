/**
 * What a voice recording sounds like, measured: the speaker's pitch, speaking rate and loudness, and
 * the engine voice and settings that come nearest to it. Voice cloning (`POST /v3/voices/clone`) and
 * audio-model voices use it; it is the whole of what the reference engines can "clone".
 *
 * Measured (`analyseRecording`):
 * - the audio is decoded by ffmpeg (a child process, see engines/composition/ffmpeg-binaries.ts) to
 *   16 kHz mono PCM, optionally through a high-pass filter and an FFT denoiser (`denoise`);
 * - loudness: the RMS level of every 10 ms frame in dBFS; frames above an adaptive gate (the louder
 *   of -60 dBFS, 30 dB under the loud frames (95th percentile), and 6 dB over the noise floor
 *   (10th percentile) when that is 6 dB under the loud frames) are speech. `loudnessDb` is the mean power of those frames, in dBFS;
 * - pitch (F0): the YIN estimator (de Cheveigné and Kawahara, 2002: a normalised autocorrelation-style
 *   difference function, first dip under 0.15, parabolic interpolation) on 25 ms windows every 10 ms of
 *   speech, 60 to 500 Hz. `pitchHz` is the median over voiced frames, robust against octave slips;
 * - speaking rate: syllable nuclei, counted as in de Jong and Wempe (2009): peaks of the smoothed
 *   loudness contour that are voiced and stand at least 2 dB above the dip before them, at least 80 ms
 *   apart. `speakingRate` is syllables per second of speaking time (pauses of 250 ms or more left out),
 *   i.e. the articulation rate, which does not depend on how long the speaker paused.
 *
 * Not captured: timbre (the shape of the vocal tract, formants, breathiness), accent, intonation
 * patterns and emotion. An engine voice cannot be reshaped into another person's voice; the derived
 * voice is the catalog voice of the right language and gender whose own pitch is nearest, moved to the
 * speaker's pitch and pace.
 *
 * Derived (`deriveVoice`): pure, no I/O. The engine's candidate voices of the language (eSpeak: the
 * four variants of the speaker's gender on the language's voice; Polly: the catalog's voices), the one
 * whose normal pitch is nearest the speaker's, with the pitch offset that moves it onto the speaker's
 * pitch and the speed that matches the speaker's rate. The engines' pitch and rate are calibrated by
 * running this same analysis over their own speech (see `ESPEAK_VARIANT_PITCH_HZ`).
 */
import {
  engineVoiceOf,
  findStockVoice,
  STOCK_VOICES,
  type StockVoice,
  voiceCatalogEngine,
} from '../catalog/stock-voices.js';
import { JobFailure } from '../core/errors.js';
import { decodeMonoPcm16 } from '../engines/composition/audio-decode.js';
import { CompositionError } from '../engines/composition/composition-engine.js';
import { lastLine, ProcessError } from '../engines/composition/ffmpeg-binaries.js';
import { languageMatches } from './voice-filter.js';

/** Sample rate the analysis decodes to. */
export const ANALYSIS_SAMPLE_RATE = 16_000;
const HOP = ANALYSIS_SAMPLE_RATE / 100; // 10 ms
const FRAME_SECONDS = HOP / ANALYSIS_SAMPLE_RATE;
const ENERGY_WINDOW = 400; // 25 ms
const YIN_WINDOW = 400; // 25 ms
const MIN_F0 = 60;
const MAX_F0 = 500;
const YIN_THRESHOLD = 0.15;
/** A frame whose best YIN dip is above this is unvoiced (noise, a fricative). */
const YIN_VOICED_LIMIT = 0.35;
const SILENCE_DB = -120;
const MIN_SYLLABLE_GAP_FRAMES = 8; // 80 ms: faster than anyone speaks
const SYLLABLE_PROMINENCE_DB = 2;
const PAUSE_FRAMES = 25; // 250 ms

/** Least speech a recording needs to be measured at all. */
export const MIN_SPEECH_SECONDS = 1;
/** Least voiced (pitched) speech a recording needs for a reliable pitch. */
export const MIN_VOICED_SECONDS = 0.5;
/** Quieter speech than this (mean over speech frames) is refused: the measures would be noise. */
export const MIN_LOUDNESS_DB = -50;
/** Longest stretch analysed, from the start; longer recordings are measured on their first part. */
export const DEFAULT_MAX_ANALYSIS_SECONDS = 120;

export interface RecordingAnalysis {
  /** Median fundamental frequency of the voiced speech, Hz; 0 when nothing was voiced. */
  pitchHz: number;
  /** 10th and 90th percentile of the voiced F0, Hz: the speaker's range; 0 when nothing was voiced. */
  pitchLowHz: number;
  pitchHighHz: number;
  /** Syllables per second of speaking time (the articulation rate); 0 when there is no speech. */
  speakingRate: number;
  /** Mean power of the speech frames, dBFS (a full-scale square wave is 0); -120 for silence. */
  loudnessDb: number;
  /** Length of the decoded audio that was analysed, seconds. */
  durationSeconds: number;
  /** Time spent speaking (pauses of 250 ms or more left out), seconds. */
  speechSeconds: number;
  /** Time with a measurable pitch, seconds. */
  voicedSeconds: number;
  /** Syllable nuclei counted. */
  syllables: number;
  /** Gender the pitch suggests: median F0 under 165 Hz is `male` (the usual boundary; 145 to 185 Hz is ambiguous). */
  likelyGender: 'male' | 'female';
  /** Whether the measures are trustworthy enough to derive a voice from. */
  usable: boolean;
  /** Why not, in words for the user, when `usable` is false. */
  reason?: string;
}

export interface AnalyseOptions {
  /** High-pass at 70 Hz and FFT denoising (ffmpeg `afftdn`) before measuring. @default false */
  denoise?: boolean;
  /** Only the first this many seconds are analysed. @default DEFAULT_MAX_ANALYSIS_SECONDS */
  maxSeconds?: number;
  /** ffmpeg is killed after this long. @default 60 s */
  timeoutMs?: number;
  /** Where the decoded audio is written for a moment. @default os.tmpdir() */
  workDir?: string;
}

/** The analysis could not run at all (ffmpeg missing or killed); a bad recording is `usable: false` instead. */
export class VoiceAnalysisError extends JobFailure<'engine_unavailable'> {}

/**
 * Measures the speaker of a recording (any audio or video file ffmpeg decodes; its first audio
 * stream). Never throws for a bad recording: an undecodable, silent, too short or too quiet one comes
 * back with `usable: false` and a `reason`. Throws `VoiceAnalysisError` only when ffmpeg cannot run.
 */
export async function analyseRecording(
  path: string,
  options: AnalyseOptions = {},
): Promise<RecordingAnalysis> {
  const samples = await decodeToPcm(path, options);
  if (typeof samples === 'string') return unusableAnalysis(samples);
  return analysePcm(samples, ANALYSIS_SAMPLE_RATE);
}

async function decodeToPcm(path: string, options: AnalyseOptions): Promise<Float32Array | string> {
  try {
    const pcm = await decodeMonoPcm16(path, {
      sampleRate: ANALYSIS_SAMPLE_RATE,
      maxSeconds: options.maxSeconds ?? DEFAULT_MAX_ANALYSIS_SECONDS,
      ...(options.denoise ? { audioFilter: 'highpass=f=70,afftdn=nf=-30' } : {}),
      ...(options.timeoutMs !== undefined ? { timeoutMs: options.timeoutMs } : {}),
      ...(options.workDir !== undefined ? { workDir: options.workDir } : {}),
    });
    return Float32Array.from(pcm, (sample) => sample / 32768);
  } catch (error) {
    if (error instanceof ProcessError && error.reason === 'exit_code') {
      const why = lastLine(error.stderr);
      return /matches no streams/i.test(why)
        ? 'The file has no audio.'
        : `The file cannot be decoded as audio (${why.replace(/file:\S+/g, 'the file')}).`;
    }
    if (error instanceof ProcessError || error instanceof CompositionError) {
      throw new VoiceAnalysisError(
        'engine_unavailable',
        `ffmpeg could not decode the recording: ${error.message}`,
        {
          cause: error,
        },
      );
    }
    throw error;
  }
}

/** A recording that cannot be measured, with what could be measured of it and why (for the user). */
export function unusableAnalysis(
  reason: string,
  partial: Partial<RecordingAnalysis> = {},
): RecordingAnalysis {
  return {
    pitchHz: 0,
    pitchLowHz: 0,
    pitchHighHz: 0,
    speakingRate: 0,
    loudnessDb: SILENCE_DB,
    durationSeconds: 0,
    speechSeconds: 0,
    voicedSeconds: 0,
    syllables: 0,
    likelyGender: 'female',
    ...partial,
    usable: false,
    reason,
  };
}

function percentile(sorted: readonly number[], p: number): number {
  if (sorted.length === 0) return 0;
  const index = Math.min(sorted.length - 1, Math.max(0, Math.round(p * (sorted.length - 1))));
  return sorted[index] ?? 0;
}

const round = (value: number, digits = 2) => Math.round(value * 10 ** digits) / 10 ** digits;
const clamp = (value: number, min: number, max: number) => Math.max(min, Math.min(max, value));

/** RMS level of each 10 ms frame (a 25 ms window centred on it), dBFS. */
function frameLevels(samples: Float32Array): Float64Array {
  const frames = Math.floor(samples.length / HOP);
  const levels = new Float64Array(frames);
  for (let f = 0; f < frames; f++) {
    const start = Math.max(0, f * HOP + HOP / 2 - ENERGY_WINDOW / 2);
    const end = Math.min(samples.length, start + ENERGY_WINDOW);
    let power = 0;
    for (let i = start; i < end; i++) power += (samples[i] ?? 0) ** 2;
    power /= Math.max(1, end - start);
    levels[f] = power > 0 ? Math.max(SILENCE_DB, 10 * Math.log10(power)) : SILENCE_DB;
  }
  return levels;
}

/** YIN's F0 of the window starting at `start`, or 0 when it is not voiced. */
export function yinPitch(samples: Float32Array, start: number, sampleRate: number): number {
  const minLag = Math.floor(sampleRate / MAX_F0);
  const maxLag = Math.ceil(sampleRate / MIN_F0);
  if (start + YIN_WINDOW + maxLag > samples.length) return 0;
  const cmnd = new Float64Array(maxLag + 2);
  cmnd[0] = 1;
  let running = 0;
  for (let lag = 1; lag <= maxLag + 1; lag++) {
    let d = 0;
    for (let j = start; j < start + YIN_WINDOW; j++) {
      const delta = (samples[j] ?? 0) - (samples[j + lag] ?? 0);
      d += delta * delta;
    }
    running += d;
    cmnd[lag] = running > 0 ? (d * lag) / running : 1;
  }
  let best = -1;
  for (let lag = minLag; lag <= maxLag; lag++) {
    if ((cmnd[lag] ?? 1) < YIN_THRESHOLD) {
      // Walk down to the bottom of this dip.
      while (lag + 1 <= maxLag && (cmnd[lag + 1] ?? 1) < (cmnd[lag] ?? 1)) lag++;
      best = lag;
      break;
    }
  }
  if (best < 0) {
    let lowest = Number.POSITIVE_INFINITY;
    for (let lag = minLag; lag <= maxLag; lag++) {
      if ((cmnd[lag] ?? 1) < lowest) {
        lowest = cmnd[lag] ?? 1;
        best = lag;
      }
    }
    if (lowest > YIN_VOICED_LIMIT) return 0;
  }
  const before = cmnd[best - 1] ?? 1;
  const at = cmnd[best] ?? 1;
  const after = cmnd[best + 1] ?? 1;
  const curvature = before - 2 * at + after;
  const shift = curvature > 0 ? (0.5 * (before - after)) / curvature : 0;
  const period = best + Math.max(-1, Math.min(1, shift));
  return period > 0 ? sampleRate / period : 0;
}

/**
 * The measures of `analyseRecording` on decoded mono samples in [-1, 1] at `sampleRate`
 * (`ANALYSIS_SAMPLE_RATE`: the frame sizes assume it). Pure; exported for tests and for callers that
 * already hold PCM.
 */
export function analysePcm(
  samples: Float32Array,
  sampleRate: number = ANALYSIS_SAMPLE_RATE,
): RecordingAnalysis {
  const durationSeconds = round(samples.length / sampleRate, 3);
  const levels = frameLevels(samples);
  if (levels.length === 0) return unusableAnalysis('The recording is empty.', { durationSeconds });
  const sortedLevels = [...levels].sort((a, b) => a - b);
  const floor = percentile(sortedLevels, 0.1);
  const loud = percentile(sortedLevels, 0.95);
  // A recording without quiet parts (continuous speech, steady noise) has no floor to stand above.
  const gate = Math.max(-60, loud - 30, Math.min(floor + 6, loud - 6));
  const active = Array.from(levels, (level) => level > gate && level > SILENCE_DB);

  const pitches = new Float64Array(levels.length);
  for (let f = 0; f < levels.length; f++) {
    if (active[f]) pitches[f] = yinPitch(samples, f * HOP, sampleRate);
  }

  // Speaking time: active frames, with gaps shorter than a pause (stop closures) counted as speech.
  let speechFrames = 0;
  let lastActive = -1;
  let speechPower = 0;
  let activeFrames = 0;
  for (let f = 0; f < levels.length; f++) {
    if (!active[f]) continue;
    speechFrames += lastActive >= 0 && f - lastActive <= PAUSE_FRAMES ? f - lastActive : 1;
    lastActive = f;
    speechPower += 10 ** ((levels[f] ?? SILENCE_DB) / 10);
    activeFrames++;
  }
  const speechSeconds = round(speechFrames * FRAME_SECONDS, 3);
  const loudnessDb = activeFrames > 0 ? round(10 * Math.log10(speechPower / activeFrames), 1) : SILENCE_DB;

  const voiced = [...pitches].filter((pitch) => pitch > 0).sort((a, b) => a - b);
  const voicedSeconds = round(voiced.length * FRAME_SECONDS, 3);
  const pitchHz = round(percentile(voiced, 0.5), 1);

  const syllables = countSyllables(levels, pitches, gate);
  const measured = {
    pitchHz,
    pitchLowHz: round(percentile(voiced, 0.1), 1),
    pitchHighHz: round(percentile(voiced, 0.9), 1),
    speakingRate: speechSeconds > 0 ? round(syllables / speechSeconds) : 0,
    loudnessDb,
    durationSeconds,
    speechSeconds,
    voicedSeconds,
    syllables,
    likelyGender: pitchHz > 0 && pitchHz < GENDER_BOUNDARY_HZ ? ('male' as const) : ('female' as const),
  };
  if (activeFrames === 0 || loudnessDb < MIN_LOUDNESS_DB) {
    return unusableAnalysis(
      `The recording is too quiet to measure (speech at ${loudnessDb} dBFS; at least ${MIN_LOUDNESS_DB} dBFS is needed).`,
      measured,
    );
  }
  if (speechSeconds < MIN_SPEECH_SECONDS) {
    return unusableAnalysis(
      `The recording holds ${speechSeconds} s of speech; at least ${MIN_SPEECH_SECONDS} s is needed.`,
      measured,
    );
  }
  if (voicedSeconds < MIN_VOICED_SECONDS) {
    return unusableAnalysis(
      `No voice could be measured in the recording (${voicedSeconds} s with a pitch; at least ${MIN_VOICED_SECONDS} s is needed). Is it speech?`,
      measured,
    );
  }
  return { ...measured, usable: true };
}

/** Median F0 below which a speaker is taken to be male. */
export const GENDER_BOUNDARY_HZ = 165;

function countSyllables(levels: Float64Array, pitches: Float64Array, gate: number): number {
  // Smooth over 50 ms so that one vowel is one peak.
  const smooth = new Float64Array(levels.length);
  for (let f = 0; f < levels.length; f++) {
    let sum = 0;
    let count = 0;
    for (let k = Math.max(0, f - 2); k <= Math.min(levels.length - 1, f + 2); k++) {
      sum += levels[k] ?? SILENCE_DB;
      count++;
    }
    smooth[f] = sum / count;
  }
  const voicedNear = (f: number) => {
    for (let k = Math.max(0, f - 2); k <= Math.min(pitches.length - 1, f + 2); k++) {
      if ((pitches[k] ?? 0) > 0) return true;
    }
    return false;
  };
  let count = 0;
  let lastPeak = -MIN_SYLLABLE_GAP_FRAMES;
  let dip = Number.POSITIVE_INFINITY; // lowest level since the last counted peak
  for (let f = 1; f < smooth.length - 1; f++) {
    const level = smooth[f] ?? SILENCE_DB;
    dip = Math.min(dip, level);
    const isPeak = level >= (smooth[f - 1] ?? SILENCE_DB) && level > (smooth[f + 1] ?? SILENCE_DB);
    if (!isPeak || level <= gate) continue;
    if (level - dip < SYLLABLE_PROMINENCE_DB || f - lastPeak < MIN_SYLLABLE_GAP_FRAMES) continue;
    if (!voicedNear(f)) continue;
    count++;
    lastPeak = f;
    dip = level;
  }
  return count;
}

// ---------------------------------------------------------------------------------------------------
// Deriving an engine voice

/** Pitch offsets at which the eSpeak variants were measured. */
const ESPEAK_CALIBRATION_OFFSETS = [-50, -25, 0, 25, 50] as const;

/**
 * Median F0 (Hz, by `analyseRecording`) of each eSpeak variant at the pitch offsets
 * `ESPEAK_CALIBRATION_OFFSETS`, measured on an English sentence with this module's analysis. eSpeak's
 * pitch scale is close to exponential (about 0.18 semitone per step, flatter at the low end); between
 * measured points the pitch is interpolated in semitones. Other languages share the variants: their
 * normal pitch is within about 10% of these.
 */
export const ESPEAK_VARIANT_PITCH_HZ: Readonly<Record<string, readonly number[]>> = {
  m1: [65.1, 75.3, 93.2, 119.9, 156.6],
  m2: [64.6, 77.8, 100.2, 132.7, 176.5],
  m3: [69.9, 83.4, 104.1, 133.1, 172.2],
  m4: [68.4, 76.4, 92.9, 117.7, 151.7],
  f1: [112.5, 139.7, 177.8, 231.8, 304.9],
  f2: [128.4, 156.3, 194.4, 248.7, 322.2],
  f3: [144.6, 171.8, 209.4, 262.8, 335.3],
  f4: [112.5, 140.2, 178.3, 233, 307.4],
};

/** The F0 an eSpeak variant speaks with at a pitch offset, Hz (interpolated in semitones). */
export function espeakPitchHz(variant: string, offset: number): number {
  const points = ESPEAK_VARIANT_PITCH_HZ[variant] ?? ESPEAK_VARIANT_PITCH_HZ.f1 ?? [];
  const clamped = clamp(offset, -50, 50);
  const segment = Math.min(ESPEAK_CALIBRATION_OFFSETS.length - 2, Math.floor((clamped + 50) / 25));
  const x0 = ESPEAK_CALIBRATION_OFFSETS[segment] ?? -50;
  const low = Math.log2(points[segment] ?? 1);
  const high = Math.log2(points[segment + 1] ?? 1);
  return 2 ** (low + ((high - low) * (clamped - x0)) / 25);
}

/** The pitch offset (-50 to +50, whole steps) at which an eSpeak variant comes nearest `targetHz`. */
export function espeakOffsetFor(variant: string, targetHz: number): number {
  let best = 0;
  for (let offset = -50; offset <= 50; offset++) {
    if (
      Math.abs(Math.log2(espeakPitchHz(variant, offset) / targetHz)) <
      Math.abs(Math.log2(espeakPitchHz(variant, best) / targetHz))
    )
      best = offset;
  }
  return best;
}

/** eSpeak's articulation rate at speed 1, syllables per second, by `analyseRecording`. */
export const ESPEAK_SYLLABLE_RATE = 4.7;
/**
 * Amazon Polly's voices are not measured here (no Polly in the tests): their normal pitch is taken
 * to be that of typical adult speech (male 115 Hz, female 205 Hz), their rate that of typical read
 * speech, and one pitch step is 0.12 semitone (see polly-engine.ts).
 */
export const POLLY_NOMINAL_PITCH_HZ = { male: 115, female: 205 } as const;
export const POLLY_SYLLABLE_RATE = 4.6;
/** Semitones of one Polly pitch step (see polly-engine.ts). */
export const POLLY_SEMITONES_PER_STEP = 0.12;

export interface DeriveOptions {
  /**
   * The speaker's language: a BCP-47 tag (`en-US`), a primary language (`en`, the first catalog
   * voice of it) or an English name. @default 'en-US'
   */
  language?: string | undefined;
  /** The speaker's gender. @default the gender the pitch suggests (`likelyGender`) */
  gender?: 'male' | 'female' | undefined;
  /** Speech engine to derive for. @default 'espeak' */
  engine?: string | undefined;
}

export interface DerivedVoice {
  /** The engine voice to synthesize with (`SynthesisRequest.voiceId`). */
  engineVoiceId: string;
  /** Speed multiplier, 0.5 to 2. */
  speed: number;
  /** Pitch offset, -50 to +50. */
  pitch: number;
  /** The speaker's gender (given, or from the pitch). */
  gender: 'male' | 'female';
  /** Speech engine the settings are for. */
  engine: string;
  /** The stock voice of the language the engine voice belongs to (its `voice_id`). */
  baseVoiceId: string;
  /** BCP-47 language of the derived voice. */
  language: string;
  /** The pitch the settings should produce, Hz (the speaker's, unless the offset had to be clamped). */
  expectedPitchHz: number;
}

/** The derivation cannot be done: no voice of that language on that engine. */
export class VoiceDerivationError extends JobFailure {
  constructor(message: string) {
    super('voice_not_usable', message);
  }
}

/**
 * The stock voices of a language, best first: an exact tag, else the voices whose tag or name the
 * filter matches (`en` → en-US, en-GB). Empty when the catalog has no such language.
 */
export function catalogVoicesOfLanguage(language: string): StockVoice[] {
  const wanted = language.trim().toLowerCase();
  const exact = STOCK_VOICES.filter((voice) => voice.language.toLowerCase() === wanted);
  if (exact.length > 0) return exact;
  return STOCK_VOICES.filter((voice) => languageMatches(language, voice.language, voice.languageName));
}

/**
 * The engine voice and settings nearest to a measured speaker. Pure. Throws `VoiceDerivationError`
 * when the engine has no voice of the language. A language without a voice of the speaker's gender
 * on that engine (Polly has no male Hindi voice) uses its other voice, moved to the speaker's pitch as
 * far as the ±50 pitch range allows.
 */
export function deriveVoice(analysis: RecordingAnalysis, options: DeriveOptions = {}): DerivedVoice {
  const engine = options.engine ?? 'espeak';
  const catalog = voiceCatalogEngine(engine);
  const language = options.language ?? 'en-US';
  const gender = options.gender ?? analysis.likelyGender;
  const voices = catalogVoicesOfLanguage(language).filter(
    (voice) => engineVoiceOf(voice, engine) !== undefined,
  );
  if (voices.length === 0) {
    throw new VoiceDerivationError(`The ${engine} speech engine has no voice of the language ${language}.`);
  }
  const tag = voices[0]?.language as string;
  const sameLanguage = voices.filter((voice) => voice.language === tag);
  const base = sameLanguage.find((voice) => voice.gender === gender) ?? (sameLanguage[0] as StockVoice);
  const targetHz = analysis.pitchHz > 0 ? analysis.pitchHz : undefined;
  if (catalog === 'espeak') return deriveEspeak(analysis, base, gender, targetHz);
  return deriveNominal(analysis, base, gender, targetHz, engine);
}

function speedFor(rate: number, reference: number): number {
  return rate > 0 ? round(clamp(rate / reference, 0.5, 2)) : 1;
}

function deriveEspeak(
  analysis: RecordingAnalysis,
  base: StockVoice,
  gender: 'male' | 'female',
  targetHz: number | undefined,
): DerivedVoice {
  const stockEngineVoice = base.engineVoices.espeak as string;
  const languagePart = stockEngineVoice.replace(/-[mf]\d+$/, '');
  // The variants of the voice's own gender (the base voice may be of the other one, see deriveVoice).
  const prefix = base.gender === 'male' ? 'm' : 'f';
  const variants = Object.keys(ESPEAK_VARIANT_PITCH_HZ).filter((variant) => variant.startsWith(prefix));
  // The variant whose own pitch is nearest the speaker's among those that reach it (within a quarter
  // of a semitone), else the one that comes closest.
  const options = variants.map((variant) => {
    const pitch = targetHz === undefined ? 0 : espeakOffsetFor(variant, targetHz);
    const semitones = (hz: number) => (targetHz === undefined ? 0 : Math.abs(12 * Math.log2(hz / targetHz)));
    return {
      variant,
      pitch,
      miss: semitones(espeakPitchHz(variant, pitch)),
      distance: semitones(espeakPitchHz(variant, 0)),
    };
  });
  const reaching = options.filter((option) => option.miss <= 0.25);
  const pool = reaching.length > 0 ? reaching : options;
  const key = (option: (typeof options)[number]) => (reaching.length > 0 ? option.distance : option.miss);
  const best = pool.reduce((a, b) => (key(b) < key(a) ? b : a));
  return {
    engineVoiceId: `${languagePart}-${best.variant}`,
    speed: speedFor(analysis.speakingRate, ESPEAK_SYLLABLE_RATE),
    pitch: best.pitch,
    gender,
    engine: 'espeak',
    baseVoiceId: base.voiceId,
    language: base.language,
    expectedPitchHz: round(espeakPitchHz(best.variant, best.pitch), 1),
  };
}

function deriveNominal(
  analysis: RecordingAnalysis,
  base: StockVoice,
  gender: 'male' | 'female',
  targetHz: number | undefined,
  engine: string,
): DerivedVoice {
  const baseHz = POLLY_NOMINAL_PITCH_HZ[base.gender];
  const target = targetHz ?? baseHz;
  const semitones = 12 * Math.log2(target / baseHz);
  const pitch = Math.round(clamp(semitones / POLLY_SEMITONES_PER_STEP, -50, 50));
  return {
    engineVoiceId: base.engineVoices[engine] as string,
    speed: speedFor(analysis.speakingRate, POLLY_SYLLABLE_RATE),
    pitch,
    gender,
    engine,
    baseVoiceId: base.voiceId,
    language: base.language,
    expectedPitchHz: round(baseHz * 2 ** ((pitch * POLLY_SEMITONES_PER_STEP) / 12), 1),
  };
}

/** The stock voice a derived voice came from (for its name and preview sentence). */
export function baseVoiceOf(derived: Pick<DerivedVoice, 'baseVoiceId'>): StockVoice | undefined {
  return findStockVoice(derived.baseVoiceId);
}
