/**
 * Training an audio voice: the steps of the `model-voice-training` workflow
 * (`state-machines/model-voice-training.asl.json`).
 *
 * What the reference engines can learn from recordings is what `voices/voice-analysis.ts` measures:
 * the speaker's pitch, pitch range, speaking rate and loudness. Training measures every recording,
 * refuses what cannot be learnt from (`INVALID_AUDIO`: undecodable, silent, noise, too quiet, or not
 * the same speaker as the other recordings; `INSUFFICIENT_AUDIO`: a professional voice with less than
 * `MIN_PROFESSIONAL_SPEECH_SECONDS` of speech), derives the engine voice and settings nearest to the
 * speaker (`deriveVoice`), and makes the voice speak a sentence before it becomes `ACTIVE`
 * (`ARTIFACT_VALIDATION_FAILED` when it cannot). Timbre is not learnt: no engine here can take on
 * another person's voice, and nothing pretends to.
 *
 * An instant voice follows the speaker as far as its `similarity` asks (`max` all the way, `medium`
 * half way from the engine voice's own pitch and pace); a professional voice all the way, from every
 * recording (measures weighted by speaking time). Recordings the service stored are removed when the
 * training ends, either way: the voice keeps only its measures.
 *
 * Writes are conditional on the training the record waits for (`training_id`) and on `PENDING`, so a
 * training overtaken by a retrain, or a voice deleted meanwhile, records nothing.
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { findStockVoice } from '../catalog/stock-voices.js';
import { config } from '../core/config.js';
import { JobFailure } from '../core/errors.js';
import { nowSeconds } from '../core/ids.js';
import { updateExistingItem } from '../core/repository.js';
import { speechEngine } from '../engines/speech/index.js';
import { isSpeechEngineError } from '../engines/speech/speech-engine.js';
import { finishJob, resumeJob } from '../jobs/job-lifecycle.js';
import { jobStep } from '../jobs/job-steps.js';
import { downloadMediaObject } from '../media/media-store.js';
import { voiceAnalyser } from '../voices/voice-analysers.js';
import { deriveVoice, type RecordingAnalysis, VoiceDerivationError } from '../voices/voice-analysis.js';
import {
  MODEL_VOICE_STATUS,
  type ModelVoiceAnalysis,
  type ModelVoiceRecord,
  type ModelVoiceSettings,
  modelVoiceKey,
  primaryLanguage,
  SIMILARITY_LEVELS,
} from './model-voices.js';
import { type TrainingRef, voiceTrainingJob } from './voice-training-job.js';

/** Least speech (all recordings together) a professional voice is trained on, in seconds. */
export const MIN_PROFESSIONAL_SPEECH_SECONDS = 30;
/**
 * Longest stretch of each recording measured, in seconds (instant, professional). The measuring is
 * plain JavaScript on the function's thread: bounded per recording, so one recording holds it (and,
 * in the local stack, the API in the same process) for a few seconds at most.
 */
export const ANALYSED_SECONDS = { instant: 60, professional: 120 } as const;
/** Recordings of one speaker whose pitches differ by more than this many semitones are refused. */
export const MAX_SPEAKER_PITCH_SPREAD_SEMITONES = 5;
/** Language of a voice created without one: nothing here can recognise a recording's language. */
export const DEFAULT_VOICE_LANGUAGE = 'en-US';

export interface TrainingResult {
  /** `active`: the voice is ACTIVE; `skipped`: the voice was deleted or retrained meanwhile. */
  outcome: 'active' | 'skipped';
}

const semitones = (from: number, to: number) => 12 * Math.log2(to / from);

/** The measures of several recordings as one speaker, weighted by how long each one speaks. */
export function combineAnalyses(analyses: readonly RecordingAnalysis[]): RecordingAnalysis {
  const total = analyses.reduce((sum, analysis) => sum + analysis.speechSeconds, 0);
  const weighted = (value: (analysis: RecordingAnalysis) => number) =>
    analyses.reduce((sum, analysis) => sum + value(analysis) * analysis.speechSeconds, 0) / total;
  // Pitches average on a log scale (semitones), as they are heard.
  const logPitch = (hz: (analysis: RecordingAnalysis) => number) =>
    Math.round(2 ** weighted((analysis) => Math.log2(hz(analysis))) * 10) / 10;
  const pitchHz = logPitch((analysis) => analysis.pitchHz);
  const first = analyses[0] as RecordingAnalysis;
  return {
    ...first,
    pitchHz,
    pitchLowHz: logPitch((analysis) => analysis.pitchLowHz),
    pitchHighHz: logPitch((analysis) => analysis.pitchHighHz),
    speakingRate: Math.round(weighted((analysis) => analysis.speakingRate) * 100) / 100,
    loudnessDb: Math.round(weighted((analysis) => analysis.loudnessDb) * 10) / 10,
    durationSeconds: analyses.reduce((sum, analysis) => sum + analysis.durationSeconds, 0),
    speechSeconds: total,
    voicedSeconds: analyses.reduce((sum, analysis) => sum + analysis.voicedSeconds, 0),
    syllables: analyses.reduce((sum, analysis) => sum + analysis.syllables, 0),
    likelyGender: pitchHz < 165 ? 'male' : 'female',
    usable: true,
  };
}

function recordingName(voice: ModelVoiceRecord, index: number): string {
  return voice.mode === 'instant' ? 'The recording' : `Recording audio[${index}]`;
}

/** Checks and combines the measures of a voice's recordings. @throws JobFailure */
export function learnableSpeaker(
  voice: ModelVoiceRecord,
  analyses: readonly RecordingAnalysis[],
): RecordingAnalysis {
  analyses.forEach((analysis, index) => {
    if (!analysis.usable) {
      throw new JobFailure(
        'invalid_audio',
        `${recordingName(voice, index)} cannot be learnt from: ${analysis.reason ?? 'it holds no usable speech'}`,
      );
    }
  });
  const speaker = combineAnalyses(analyses);
  if (voice.mode === 'professional') {
    if (speaker.speechSeconds < MIN_PROFESSIONAL_SPEECH_SECONDS) {
      throw new JobFailure(
        'insufficient_audio',
        `The recordings hold ${speaker.speechSeconds.toFixed(1)} s of speech; a professional voice needs at least ${MIN_PROFESSIONAL_SPEECH_SECONDS} s.`,
      );
    }
    analyses.forEach((analysis, index) => {
      if (Math.abs(semitones(speaker.pitchHz, analysis.pitchHz)) > MAX_SPEAKER_PITCH_SPREAD_SEMITONES) {
        throw new JobFailure(
          'invalid_audio',
          `${recordingName(voice, index)} (voice pitch ${analysis.pitchHz} Hz) does not sound like the same speaker as the others (${speaker.pitchHz} Hz); a professional voice is trained on recordings of one speaker.`,
        );
      }
    });
  }
  return speaker;
}

/** The engine voice and settings of a speaker, moved towards them as far as `similarity` asks. */
export function voiceSettingsFor(
  speaker: RecordingAnalysis,
  voice: Pick<ModelVoiceRecord, 'gender' | 'similarity'>,
  languageTag: string,
  engine: string,
): ModelVoiceSettings {
  let derived: ReturnType<typeof deriveVoice>;
  try {
    derived = deriveVoice(speaker, { language: languageTag, gender: voice.gender ?? undefined, engine });
  } catch (error) {
    if (error instanceof VoiceDerivationError)
      throw new JobFailure('design_failed', error.message, { cause: error });
    throw error;
  }
  const follow = SIMILARITY_LEVELS[voice.similarity];
  return {
    engine,
    engine_voice_id: derived.engineVoiceId,
    speed: Math.round((1 + (derived.speed - 1) * follow) * 100) / 100,
    pitch: Math.round(derived.pitch * follow),
    gender: derived.gender,
    language_tag: derived.language,
    base_voice_id: derived.baseVoiceId,
  };
}

export function analysisRecord(speaker: RecordingAnalysis): ModelVoiceAnalysis {
  return {
    pitch_hz: speaker.pitchHz,
    pitch_low_hz: speaker.pitchLowHz,
    pitch_high_hz: speaker.pitchHighHz,
    speaking_rate: speaker.speakingRate,
    loudness_db: speaker.loudnessDb,
    speech_seconds: speaker.speechSeconds,
    voiced_seconds: speaker.voicedSeconds,
    likely_gender: speaker.likelyGender,
  };
}

/** The analysis a stored record holds, as `deriveVoice` takes it. */
export function recordingAnalysisOf(analysis: ModelVoiceAnalysis): RecordingAnalysis {
  return {
    pitchHz: analysis.pitch_hz,
    pitchLowHz: analysis.pitch_low_hz,
    pitchHighHz: analysis.pitch_high_hz,
    speakingRate: analysis.speaking_rate,
    loudnessDb: analysis.loudness_db,
    durationSeconds: analysis.speech_seconds,
    speechSeconds: analysis.speech_seconds,
    voicedSeconds: analysis.voiced_seconds,
    syllables: 0,
    likelyGender: analysis.likely_gender,
    usable: true,
  };
}

/**
 * Makes the new voice speak a sentence of its language, and answers the settings it spoke with. An
 * engine voice that cannot change pitch (Amazon Polly's neural-only voices) keeps its own pitch.
 * @throws JobFailure `artifact_validation_failed` when it cannot speak at all
 */
async function checkItSpeaks(settings: ModelVoiceSettings, sentence: string): Promise<ModelVoiceSettings> {
  const attempt = (pitch: number) =>
    speechEngine().synthesize({
      text: sentence,
      voiceId: settings.engine_voice_id,
      speed: settings.speed,
      pitch,
    });
  try {
    try {
      await attempt(settings.pitch);
      return settings;
    } catch (error) {
      if (!(isSpeechEngineError(error) && error.failureCode === 'invalid_input' && settings.pitch !== 0))
        throw error;
      await attempt(0);
      return { ...settings, pitch: 0 };
    }
  } catch (error) {
    if (isSpeechEngineError(error) && error.failureCode !== 'engine_unavailable') {
      throw new JobFailure(
        'artifact_validation_failed',
        `The trained voice could not speak with the ${settings.engine} speech engine: ${error.message}`,
        { cause: error },
      );
    }
    throw error;
  }
}

/** Training, step 1: measure, check, derive, try, and record the voice `ACTIVE`. */
async function trainModelVoice(ref: TrainingRef): Promise<TrainingResult> {
  // A restarted step whose training already ended has that ending finished (recordings, event).
  const voice = await resumeJob(voiceTrainingJob, ref);
  if (!voice) return { outcome: 'skipped' };
  await mkdir(config().mediaWorkDir, { recursive: true });
  const workDir = await mkdtemp(join(config().mediaWorkDir, `voice-${voice.voice_id}-`));
  try {
    const analyses: RecordingAnalysis[] = [];
    for (const [index, recording] of voice.recordings.entries()) {
      const path = join(workDir, `recording-${index}`);
      await downloadMediaObject(recording.object_key, path);
      analyses.push(
        await voiceAnalyser().analyse(path, {
          denoise: voice.remove_background_noise,
          maxSeconds: ANALYSED_SECONDS[voice.mode],
          workDir,
        }),
      );
      // Let other work of the process run between recordings.
      await new Promise((resolve) => setImmediate(resolve));
    }
    const speaker = learnableSpeaker(voice, analyses);
    const languageTag = voice.language_tag ?? DEFAULT_VOICE_LANGUAGE;
    const derived = voiceSettingsFor(speaker, voice, languageTag, config().speechEngine);
    // The stock voice the engine voice was chosen from says a sentence of its language.
    const settings = await checkItSpeaks(
      derived,
      findStockVoice(derived.base_voice_id)?.previewText ?? 'This is my new voice.',
    );
    const now = nowSeconds();
    const active = await updateExistingItem<ModelVoiceRecord>(
      modelVoiceKey(voice.workspace_id, voice.voice_id),
      {
        status: MODEL_VOICE_STATUS.active,
        analysis: analysisRecord(speaker),
        settings,
        language: voice.language ?? primaryLanguage(settings.language_tag),
        language_tag: voice.language_tag ?? settings.language_tag,
        gender: voice.gender ?? settings.gender,
        trained_at: now,
        updated_at: now,
      },
      ['failure_reason', 'failure_message'],
      { training_id: ref.training_id, status: MODEL_VOICE_STATUS.pending },
    );
    if (!active) {
      // Deleted (or retrained) meanwhile.
      await voiceTrainingJob.cleanUpGone?.(ref);
      return { outcome: 'skipped' };
    }
    await finishJob(voiceTrainingJob, active);
    return { outcome: 'active' };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

export const Train = /* @__PURE__ */ jobStep(voiceTrainingJob, 'Train', trainModelVoice);
