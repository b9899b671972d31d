/**
 * The voice clone's build step (the `Build` task of `state-machines/voice-clone.asl.json`, in the media
 * container on AWS): measure the recording (voice-analysis.ts), derive for each speech engine the voice
 * and settings nearest the speaker, speak a preview, then `complete` and publish `voice_clone.success`.
 * A recording that cannot be measured throws `JobFailure` `invalid_audio` with the analysis's reason;
 * the job framework's failure step records it (voice-clone-job.ts).
 */
import { mkdir, mkdtemp, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { NoSuchKey } from '@aws-sdk/client-s3';
import { findStockVoice } from '../catalog/stock-voices.js';
import { config, SPEECH_ENGINE_NAMES } from '../core/config.js';
import { JobFailure } from '../core/errors.js';
import { getItem } from '../core/repository.js';
import { speechEngine } from '../engines/speech/index.js';
import { endJob, finishJob, resumeJob } from '../jobs/job-lifecycle.js';
import { jobStep } from '../jobs/job-steps.js';
import { deleteMediaObject, downloadMediaObject } from '../media/media-store.js';
import { storeVoicePreview } from './designed-voices.js';
import { voiceAnalyser } from './voice-analysers.js';
import {
  type DerivedVoice,
  deriveVoice,
  type RecordingAnalysis,
  VoiceAnalysisError,
  VoiceDerivationError,
} from './voice-analysis.js';
import { CLONE_FAILURE, type CloneRef, voiceCloneJob } from './voice-clone-job.js';
import {
  completeCloneRecord,
  type EngineVoiceSettings,
  type VoiceRecord,
  voiceKey,
} from './workspace-voices.js';

/** What a clone's preview says: its base voice's introduction, with the clone's name in it. */
function previewTextOf(derived: DerivedVoice, cloneName: string): string {
  const base = findStockVoice(derived.baseVoiceId);
  if (!base) return cloneName;
  return base.previewText.includes(base.name)
    ? base.previewText.replace(base.name, cloneName)
    : base.previewText;
}

/** For every speech engine that has a voice of the language: its voice and settings for the speaker. */
function engineVoicesFor(analysis: RecordingAnalysis, language: string): Record<string, DerivedVoice> {
  const derived: Record<string, DerivedVoice> = {};
  for (const engine of SPEECH_ENGINE_NAMES) {
    try {
      derived[engine] = deriveVoice(analysis, { language, engine });
    } catch (error) {
      if (!(error instanceof VoiceDerivationError)) throw error;
    }
  }
  return derived;
}

async function buildVoiceClone(ref: CloneRef): Promise<{ status: string }> {
  // A workflow started again after a crash finds its clone ended (its ending is finished) or gone.
  const record = await resumeJob(voiceCloneJob, ref);
  if (!record) return { status: 'ended' };
  if (!record.source_key) throw new JobFailure(CLONE_FAILURE.internalError, 'The clone has no recording.');

  await mkdir(config().mediaWorkDir, { recursive: true });
  const workDir = await mkdtemp(join(config().mediaWorkDir, `voice-clone-${record.voice_id}-`));
  try {
    const recording = join(workDir, 'recording');
    try {
      await downloadMediaObject(record.source_key, recording);
    } catch (error) {
      if (error instanceof NoSuchKey || (error as Error).name === 'NoSuchKey') {
        throw new JobFailure(
          CLONE_FAILURE.invalidAudio,
          'The recording is gone (its asset was deleted before the clone started); clone again with the recording.',
        );
      }
      throw error;
    }
    let analysis: RecordingAnalysis;
    try {
      analysis = await voiceAnalyser().analyse(recording, {
        denoise: record.remove_background_noise ?? true,
        workDir,
      });
    } catch (error) {
      if (error instanceof VoiceAnalysisError) {
        throw new JobFailure(
          CLONE_FAILURE.engineUnavailable,
          `The recording could not be analysed: ${error.message}`,
        );
      }
      throw error;
    }
    if (!analysis.usable) {
      throw new JobFailure(
        CLONE_FAILURE.invalidAudio,
        analysis.reason ?? 'The recording cannot be measured.',
      );
    }
    const derived = engineVoicesFor(analysis, record.language);
    const here = derived[speechEngine().name];
    if (!here) {
      throw new JobFailure(
        CLONE_FAILURE.engineUnavailable,
        `This deployment's speech engine has no voice of ${record.language} to clone into.`,
      );
    }
    const engineVoices: Record<string, EngineVoiceSettings> = Object.fromEntries(
      Object.entries(derived).map(([engine, voice]) => [
        engine,
        { voice_id: voice.engineVoiceId, speed: voice.speed, pitch: voice.pitch },
      ]),
    );
    const complete: VoiceRecord = {
      ...record,
      gender: here.gender,
      language: here.language,
      base_voice_id: here.baseVoiceId,
      engine_voices: engineVoices,
    };
    const previewKey = await storeVoicePreview(complete, previewTextOf(here, record.name));
    const stored = await completeCloneRecord(ref.workspace_id, ref.voice_id, {
      gender: here.gender,
      language: here.language,
      base_voice_id: here.baseVoiceId,
      engine_voices: engineVoices,
      preview_key: previewKey,
      measures: {
        pitch_hz: analysis.pitchHz,
        speaking_rate: analysis.speakingRate,
        loudness_db: analysis.loudnessDb,
        duration_seconds: analysis.durationSeconds,
        speech_seconds: analysis.speechSeconds,
      },
    });
    if (!stored) {
      // Deleted (or ended) while it was being built: leave nothing behind, and end the run the
      // framework's way (a deleted job gives back its slot; one that ended has its ending finished).
      if (previewKey && !(await getItem(voiceKey(ref.workspace_id, ref.voice_id), true))) {
        await deleteMediaObject(previewKey);
      }
      await endJob(voiceCloneJob, ref, undefined);
      return { status: 'deleted' };
    }
    await finishJob(voiceCloneJob, stored);
    return { status: stored.status };
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

export const Build = /* @__PURE__ */ jobStep(voiceCloneJob, 'Build', buildVoiceClone);
