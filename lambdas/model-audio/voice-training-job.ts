/**
 * The audio voice training job (docs/architecture.md, "Jobs"): `state-machines/model-voice-training.asl.json`
 * runs one step, Train (`voice-training.ts`, in the media container on AWS), and the framework's failure
 * step from its Catch. A voice waits `PENDING` for the training its record names (`training_id`: a
 * retrain starts a new one), and ends `ACTIVE` (`audio_voice.success`) or `FAILED` with a
 * `failure_reason` (`audio_voice.fail`). Either way the recordings the service stored are removed: the
 * voice keeps only its measures. Every write is conditional on the training, so a training overtaken by
 * a retrain, or a voice deleted meanwhile, records nothing.
 */
import { z } from 'zod';
import { GRANTS } from '../core/grants.js';
import { nowSeconds } from '../core/ids.js';
import { getItem, updateExistingItem } from '../core/repository.js';
import { defineJob, outcomeByStatus } from '../jobs/job-definition.js';
import { TASK_PACKAGING } from '../jobs/task-deployment.js';
import {
  getModelVoice,
  MODEL_VOICE_FAILURE_REASONS,
  MODEL_VOICE_STATUS,
  type ModelVoiceFailureReason,
  type ModelVoiceRecord,
  type ModelVoiceTombstone,
  modelVoiceKey,
  modelVoiceTombstoneKey,
  modelVoiceView,
  removeRecordings,
} from './model-voices.js';

export const trainingRef = z.object({
  workspace_id: z.string().min(1),
  voice_id: z.string().min(1),
  training_id: z.string().min(1),
});
export type TrainingRef = z.infer<typeof trainingRef>;

/** The voice while `ref` is its training (read consistently); undefined once deleted or retrained. */
async function voiceOfTraining(ref: TrainingRef): Promise<ModelVoiceRecord | undefined> {
  const voice = await getModelVoice(ref.workspace_id, ref.voice_id, true);
  return voice?.training_id === ref.training_id ? voice : undefined;
}

/**
 * A training whose voice was deleted while it ran (an instant voice cancelled): the delete left the
 * recordings to it, since it may have been reading them, and it removes them now.
 */
async function cleanUpCancelledTraining(ref: TrainingRef): Promise<void> {
  const key = modelVoiceTombstoneKey(ref.workspace_id, ref.voice_id);
  const cancelled = (await getItem<ModelVoiceTombstone>(key, true))?.cancelled_training;
  if (!cancelled || cancelled.training_id !== ref.training_id) return;
  await removeRecordings(cancelled.recordings);
  await updateExistingItem(key, {}, ['cancelled_training']);
}

/** The reason a failed training is recorded with, from its failure code. */
export function failureReasonOf(code: string): ModelVoiceFailureReason {
  const upper = code.toUpperCase();
  return (MODEL_VOICE_FAILURE_REASONS as readonly string[]).includes(upper)
    ? (upper as ModelVoiceFailureReason)
    : 'INTERNAL_ERROR';
}

export const voiceTrainingJob = defineJob({
  name: 'model-voice-training',
  taskPrefix: 'ModelVoice',
  ref: trainingRef,
  executionName: (ref) => `${ref.voice_id}-${ref.training_id}`,
  refOf: (voice: ModelVoiceRecord) => ({
    workspace_id: voice.workspace_id,
    voice_id: voice.voice_id,
    training_id: voice.training_id,
  }),
  stepsModule: 'model-audio/voice-training',
  steps: {
    Train: {
      description:
        'Audio voice training: decode and measure the recordings with ffmpeg, derive the engine voice, check it speaks, publish audio_voice.success',
      input: trainingRef,
      output: z.object({ outcome: z.enum(['active', 'skipped']) }),
      deployment: {
        access: [GRANTS.jobItems, GRANTS.jobMedia, GRANTS.publishEvents, GRANTS.synthesizeSpeech],
        packaging: TASK_PACKAGING.mediaImage,
        memorySize: 2048,
        timeoutSeconds: 900,
      },
    },
  },
  record: {
    get: voiceOfTraining,
    outcome: outcomeByStatus({ succeeded: MODEL_VOICE_STATUS.active, failed: MODEL_VOICE_STATUS.failed }),
    fail: (voice, failure) =>
      updateExistingItem<ModelVoiceRecord>(
        modelVoiceKey(voice.workspace_id, voice.voice_id),
        {
          status: MODEL_VOICE_STATUS.failed,
          failure_reason: failureReasonOf(failure.code),
          failure_message: failure.message,
          updated_at: nowSeconds(),
        },
        [],
        { training_id: voice.training_id, status: MODEL_VOICE_STATUS.pending },
      ),
  },
  wording: {
    timeout: () => ({
      code: 'training_failed',
      message: 'Training took longer than allowed and was stopped. Try shorter recordings.',
    }),
    fault: (step) => ({
      code: 'internal_error',
      message: `Training failed unexpectedly in its ${step} step. Try again; if it keeps failing, report the voice id.`,
    }),
    notStarted: { code: 'internal_error', message: 'Training could not be started. Try again.' },
  },
  events: {
    entityId: (voice) => voice.voice_id,
    // A voice is trained again by each retrain: each training has its own ending.
    runId: (voice) => `${voice.voice_id}:${voice.training_id}`,
    success: { type: 'audio_voice.success', data: (voice) => ({ ...modelVoiceView(voice) }) },
    failure: { type: 'audio_voice.fail', data: (voice) => ({ ...modelVoiceView(voice) }) },
  },
  release: async (voice) => {
    if (voice.recordings.length === 0) return;
    await removeRecordings(voice.recordings);
    await updateExistingItem(modelVoiceKey(voice.workspace_id, voice.voice_id), { recordings: [] }, [], {
      training_id: voice.training_id,
    });
  },
  cleanUpGone: cleanUpCancelledTraining,
  failureAccess: [GRANTS.jobMedia],
  concurrencyLimited: true,
});
