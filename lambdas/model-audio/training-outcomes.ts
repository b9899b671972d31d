/**
 * How a training ends (voice-training.ts): the recordings removed, the terminal event published,
 * and the workflow's failure path. Kept apart from the training step, so the function that only
 * records a failure carries no speech engine or ffmpeg.
 *
 * Each ending is finished by `finishTraining`, which a restarted or retried step runs again: the
 * recordings' deletes and the event (with a fixed id, `audio_voice.<outcome>:<voice>:<training>`)
 * are repeatable, so a crash between the terminal write and the event loses neither.
 */
import { nowSeconds } from '../core/ids.js';
import { getItem, updateExistingItem } from '../core/repository.js';
import { publishEvent } from '../events/domain-events.js';
import type { JobFailureDetails } from '../workflows/job-failure.js';
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

export interface TrainingRef {
  workspace_id: string;
  voice_id: string;
  training_id: string;
}

/** The voice while `ref` is its training (read consistently); undefined once deleted or retrained. */
export async function voiceOfTraining(ref: TrainingRef): Promise<ModelVoiceRecord | undefined> {
  const voice = await getModelVoice(ref.workspace_id, ref.voice_id, true);
  return voice?.training_id === ref.training_id ? voice : undefined;
}

/**
 * A training whose voice was deleted while it ran (an instant voice cancelled): the delete left the
 * recordings to it, since it may have been reading them, and it removes them now.
 */
export async function cleanUpCancelledTraining(ref: TrainingRef): Promise<void> {
  const key = modelVoiceTombstoneKey(ref.workspace_id, ref.voice_id);
  const cancelled = (await getItem<ModelVoiceTombstone>(key, true))?.cancelled_training;
  if (!cancelled || cancelled.training_id !== ref.training_id) return;
  await removeRecordings(cancelled.recordings);
  await updateExistingItem(key, {}, ['cancelled_training']);
}

/** Removes an ended training's recordings and publishes its terminal event (again, harmlessly). */
export async function finishTraining(voice: ModelVoiceRecord): Promise<void> {
  if (voice.recordings.length > 0) {
    await removeRecordings(voice.recordings);
    await updateExistingItem(modelVoiceKey(voice.workspace_id, voice.voice_id), { recordings: [] }, [], {
      training_id: voice.training_id,
    });
  }
  const outcome = voice.status === MODEL_VOICE_STATUS.active ? 'success' : 'fail';
  if (voice.status === MODEL_VOICE_STATUS.pending) return;
  await publishEvent({
    event_id: `audio_voice.${outcome}:${voice.voice_id}:${voice.training_id}`,
    event_type: `audio_voice.${outcome}`,
    workspace_id: voice.workspace_id,
    entity_id: voice.voice_id,
    event_data: { ...modelVoiceView(voice) },
  });
}

/** The reason a failed training is recorded with, from the workflow's failure code. */
export function failureReasonOf(code: string): ModelVoiceFailureReason {
  if (code === 'render_timeout') return 'TRAINING_FAILED';
  const upper = code.toUpperCase();
  return (MODEL_VOICE_FAILURE_REASONS as readonly string[]).includes(upper)
    ? (upper as ModelVoiceFailureReason)
    : 'INTERNAL_ERROR';
}

/** What the user reads on a failed voice. */
function failureMessageOf(failure: JobFailureDetails, step: string): string {
  if (failure.code === 'render_timeout') {
    return 'Training took longer than allowed and was stopped. Try shorter recordings.';
  }
  if (failure.code === 'internal_error') {
    return `Training failed unexpectedly in its ${step} step. Try again; if it keeps failing, report the voice id.`;
  }
  return failure.message;
}

/** Training, Catch path: `FAILED` with its reason and message, recordings removed, `audio_voice.fail`. */
export async function recordTrainingFailure(
  ref: TrainingRef,
  failure: JobFailureDetails,
  step: string,
): Promise<void> {
  const voice = await voiceOfTraining(ref);
  if (!voice) {
    await cleanUpCancelledTraining(ref);
    return;
  }
  if (voice.status !== MODEL_VOICE_STATUS.pending) {
    // A retried step, or a training that ended meanwhile: finish that ending.
    await finishTraining(voice);
    return;
  }
  const failed = await updateExistingItem<ModelVoiceRecord>(
    modelVoiceKey(voice.workspace_id, voice.voice_id),
    {
      status: MODEL_VOICE_STATUS.failed,
      failure_reason: failureReasonOf(failure.code),
      failure_message: failureMessageOf(failure, step),
      updated_at: nowSeconds(),
    },
    [],
    { training_id: ref.training_id, status: MODEL_VOICE_STATUS.pending },
  );
  const ended = failed ?? (await voiceOfTraining(ref));
  if (ended) await finishTraining(ended);
  else await cleanUpCancelledTraining(ref);
}
