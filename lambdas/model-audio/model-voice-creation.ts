/**
 * Creating and retraining audio voices (`POST /v3/models/audio/voices`): the recordings are stored,
 * the voice is written `PENDING` for its training, and the training job (`voice-training-job.ts`) is
 * started. Records, views and deletes are in model-voices.ts.
 */
import type { Plan } from '../accounts/workspaces.js';
import { type MediaInput, resolveMediaInput } from '../assets/media-inputs.js';
import { config } from '../core/config.js';
import { ConflictError, ForbiddenError, InvalidParameterError } from '../core/errors.js';
import { newId, nowSeconds } from '../core/ids.js';
import { putNewItem, updateExistingItem } from '../core/repository.js';
import { startJob } from '../jobs/job-lifecycle.js';
import {
  type CreateModelVoiceBody,
  engineSpeaks,
  getModelVoice,
  MODEL_VOICE_STATUS,
  type ModelVoiceRecord,
  type ModelVoiceRecording,
  modelVoiceKey,
  modelVoiceNotFound,
  PROFESSIONAL_VOICE_PLANS,
  primaryLanguage,
  professionalCloningEnabled,
  removeRecordings,
} from './model-voices.js';
import { voiceTrainingJob } from './voice-training-job.js';

function checkLanguage(language: string | undefined, param: string): void {
  if (language !== undefined && !engineSpeaks(language)) {
    throw new InvalidParameterError(
      `\`${param}\`: this deployment's speech engine (${config().speechEngine}) does not speak ${language}.`,
      param,
    );
  }
}

async function storeRecordings(
  workspaceId: string,
  audio: readonly MediaInput[],
): Promise<ModelVoiceRecording[]> {
  const stored: ModelVoiceRecording[] = [];
  try {
    for (const [index, input] of audio.entries()) {
      const media = await resolveMediaInput(workspaceId, input, {
        param: `audio[${index}]`,
        accept: ['audio'],
      });
      stored.push({
        object_key: media.objectKey,
        source: media.source,
        mime_type: media.mimeType,
        size_bytes: media.sizeBytes,
      });
    }
  } catch (error) {
    // A refused recording leaves nothing behind: the ones stored before it go too.
    await removeRecordings(stored);
    throw error;
  }
  return stored;
}

export interface CreateModelVoiceContext {
  workspaceId: string;
  plan: Plan;
}

/**
 * Creates an instant or professional voice, or retrains a professional one, and starts its training.
 * @throws ServiceError 400 (fields, recordings), 403 (professional not enabled), 404 (retrain of an
 *   unknown voice), 409 (retrain while training)
 */
export async function createModelVoice(
  context: CreateModelVoiceContext,
  body: CreateModelVoiceBody,
): Promise<ModelVoiceRecord> {
  const { workspaceId } = context;
  if (body.mode === 'professional' && !professionalCloningEnabled(context.plan)) {
    throw new ForbiddenError(
      `Professional voice cloning is not enabled for this workspace (plan ${context.plan}); it comes with the ${PROFESSIONAL_VOICE_PLANS.join(' and ')} plans. Instant voices need no plan.`,
      'forbidden',
      { param: 'mode' },
    );
  }
  if (body.mode === 'professional' && body.voice_id !== undefined)
    return retrain(workspaceId, body.voice_id, body.audio);
  checkLanguage(body.language, 'language');

  const now = nowSeconds();
  const voiceId = newId();
  const trainingId = newId();
  const stored = await storeRecordings(workspaceId, body.audio);
  const record: ModelVoiceRecord = {
    ...modelVoiceKey(workspaceId, voiceId),
    voice_id: voiceId,
    workspace_id: workspaceId,
    mode: body.mode,
    name: body.name ?? `Professional voice ${new Date(now * 1000).toISOString().slice(0, 10)}`,
    language: body.language ? primaryLanguage(body.language) : null,
    language_tag: body.language ?? null,
    status: MODEL_VOICE_STATUS.pending,
    created_at: now,
    updated_at: now,
    training_id: trainingId,
    trainings: 1,
    recordings: stored,
    gender: body.mode === 'instant' ? (body.gender ?? null) : null,
    age: body.mode === 'instant' ? (body.age ?? null) : null,
    // A professional voice is always cleaned up: its recordings are meant to be studio quality anyway.
    remove_background_noise: body.mode === 'instant' ? body.remove_background_noise : true,
    similarity: body.mode === 'instant' ? body.similarity : 'max',
  };
  if (!(await putNewItem(record))) throw new Error(`Audio voice id ${voiceId} collided`);
  await startJob(voiceTrainingJob, voiceTrainingJob.refOf(record));
  return record;
}

async function retrain(
  workspaceId: string,
  voiceId: string,
  audio: readonly MediaInput[],
): Promise<ModelVoiceRecord> {
  const existing = await getModelVoice(workspaceId, voiceId, true);
  if (!existing) throw modelVoiceNotFound(voiceId);
  if (existing.mode !== 'professional') {
    throw new InvalidParameterError(
      `\`voice_id\`: ${voiceId} is an instant voice; instant voices cannot be retrained. Create a new one instead.`,
      'voice_id',
    );
  }
  const trainingInProgress = () =>
    new ConflictError(
      `Audio voice ${voiceId} is still training; retrain it once it is ACTIVE or FAILED.`,
      'resource_not_ready',
      { param: 'voice_id' },
    );
  if (existing.status === MODEL_VOICE_STATUS.pending) throw trainingInProgress();
  const stored = await storeRecordings(workspaceId, audio);
  const trainingId = newId();
  const updated = await updateExistingItem<ModelVoiceRecord>(
    modelVoiceKey(workspaceId, voiceId),
    {
      status: MODEL_VOICE_STATUS.pending,
      training_id: trainingId,
      trainings: existing.trainings + 1,
      recordings: stored,
      updated_at: nowSeconds(),
    },
    ['failure_reason', 'failure_message'],
    // Another retrain (or a delete) got there first: this one changes nothing.
    { training_id: existing.training_id },
  );
  if (!updated) {
    await removeRecordings(stored);
    if (await getModelVoice(workspaceId, voiceId, true)) throw trainingInProgress();
    throw modelVoiceNotFound(voiceId);
  }
  await startJob(voiceTrainingJob, voiceTrainingJob.refOf(updated));
  return updated;
}
