/**
 * The voice analysis test double (`VOICE_ANALYSIS_ENGINE=test-double`, tests only: see
 * `TEST_DOUBLE_ENGINE` in core/config.ts). For tests whose subject is not the voice measured (clone and
 * training jobs in authorization, fuzzing and webhook tests): one ffprobe run instead of decoding and
 * measuring every 10 ms of the recording.
 *
 * Kept from the contract (voice-analysis.ts): it never throws for a bad recording. A file ffprobe cannot
 * read, or one without audio, comes back `usable: false` with a reason, as does one shorter than
 * `MIN_SPEECH_SECONDS`. Not kept: the measures. Every usable recording is the same speaker,
 * `DOUBLE_SPEAKER`, speaking for most of the analysed length.
 */
import { CompositionError } from '../engines/composition/composition-engine.js';
import { probeMedia } from '../engines/composition/probe.js';
import {
  type AnalyseOptions,
  DEFAULT_MAX_ANALYSIS_SECONDS,
  MIN_SPEECH_SECONDS,
  type RecordingAnalysis,
  unusableAnalysis,
} from './voice-analysis.js';

/** The speaker every usable recording is measured as: a mid-pitched voice at an ordinary pace. */
export const DOUBLE_SPEAKER = {
  pitchHz: 190,
  pitchLowHz: 160,
  pitchHighHz: 230,
  speakingRate: 4.5,
  loudnessDb: -20,
  likelyGender: 'female',
} as const;
/** Shares of the analysed length spent speaking, and with a pitch. */
const SPEECH_SHARE = 0.8;
const VOICED_SHARE = 0.5;

export async function analyseRecordingDouble(
  path: string,
  options: AnalyseOptions = {},
): Promise<RecordingAnalysis> {
  let audioSeconds: number;
  try {
    const media = await probeMedia(path, { timeoutMs: options.timeoutMs ?? 60_000 });
    if (!media.streams.some((stream) => stream.type === 'audio'))
      return unusableAnalysis('The file has no audio.');
    audioSeconds = media.durationSeconds;
  } catch (error) {
    if (error instanceof CompositionError && error.failureCode === 'invalid_media') {
      return unusableAnalysis('The file cannot be decoded as audio.');
    }
    throw error;
  }
  const durationSeconds = Math.min(audioSeconds, options.maxSeconds ?? DEFAULT_MAX_ANALYSIS_SECONDS);
  const speechSeconds = Math.round(durationSeconds * SPEECH_SHARE * 100) / 100;
  const measured = {
    ...DOUBLE_SPEAKER,
    durationSeconds,
    speechSeconds,
    voicedSeconds: Math.round(durationSeconds * VOICED_SHARE * 100) / 100,
    syllables: Math.round(speechSeconds * DOUBLE_SPEAKER.speakingRate),
  };
  if (speechSeconds < MIN_SPEECH_SECONDS) {
    return unusableAnalysis(
      `The recording holds ${speechSeconds} s of speech; at least ${MIN_SPEECH_SECONDS} s is needed.`,
      measured,
    );
  }
  return { ...measured, usable: true };
}
