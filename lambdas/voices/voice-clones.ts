/**
 * Voice clones (`POST /v3/voices/clone`): a record plus a Step Functions execution
 * (`state-machines/voice-clone.asl.json`), as every job (docs/architecture.md, "Jobs").
 *
 * Create: check the language and the clone slots, fetch the recording (a media input: URL, asset or
 * base64, audio or video), write the clone `processing` while taking a slot (one transaction), start
 * the workflow (execution name = voice id), answer 202 with `voice_clone_id`.
 *
 * Build (one step, the media container on AWS, clone-build.ts): measure the recording
 * (voice-analysis.ts), derive for each speech engine the voice and settings nearest the speaker, speak a
 * preview, then `complete`; `voice_clone.success` is published. A recording that cannot be measured fails the clone with
 * `invalid_audio` and the analysis's reason; any failure gives the slot back and publishes
 * `voice_clone.fail` (voice-clone-job.ts). The recording itself is deleted once the clone has ended (the clone keeps only
 * the measures), unless it is one of the workspace's assets.
 *
 * Every step reads the clone fresh and writes with conditions on its status, so a retried or restarted
 * step repeats nothing; a clone deleted meanwhile ends the workflow quietly.
 */
import { getWorkspace } from '../accounts/workspaces.js';
import { type MediaInput, resolveMediaInput } from '../assets/media-inputs.js';
import { availableStockVoices, engineVoiceOf } from '../catalog/stock-voices.js';
import { config } from '../core/config.js';
import { InvalidParameterError, PaymentRequiredError } from '../core/errors.js';
import { newId, nowSeconds } from '../core/ids.js';
import { getItem } from '../core/repository.js';
import { startJob } from '../jobs/job-lifecycle.js';
import { deleteMediaObject } from '../media/media-store.js';
import { catalogVoicesOfLanguage } from './voice-analysis.js';
import { voiceCloneJob } from './voice-clone-job.js';
import { cloneSlotLimit, cloneSlotsKey } from './voice-clone-slots.js';
import { createCloneRecord, VOICE_KINDS, VOICE_STATUS, type VoiceRecord } from './workspace-voices.js';

/** Largest recording a clone takes. */
export const MAX_CLONE_RECORDING_BYTES = 50 * 1024 * 1024;
/** The language of a clone when the request names none: the service cannot recognise languages. */
export const DEFAULT_CLONE_LANGUAGE = 'en-US';

export interface CloneRequest {
  audio: MediaInput;
  voice_name: string;
  language?: string | undefined;
  remove_background_noise: boolean;
}

/** The catalog language a request's `language` names on this deployment's engine, or a 400. */
function cloneLanguage(language: string | undefined): string {
  if (language === undefined) return DEFAULT_CLONE_LANGUAGE;
  const engine = config().speechEngine;
  const voice = catalogVoicesOfLanguage(language).find(
    (candidate) => engineVoiceOf(candidate, engine) !== undefined,
  );
  if (!voice) {
    const languages = [...new Set(availableStockVoices().map((candidate) => candidate.language))].join(', ');
    throw new InvalidParameterError(
      `There is no voice of the language ${language} on this deployment to clone into; use one of ${languages}.`,
      'language',
    );
  }
  return voice.language;
}

async function slotsInUse(workspaceId: string): Promise<number> {
  const item = await getItem<{ pk: string; sk: string; used?: number }>(cloneSlotsKey(workspaceId), true);
  return item?.used ?? 0;
}

/**
 * Creates a clone and starts its workflow.
 * @throws ServiceError 400 (`audio`, `language`), 402 `plan_upgrade_required` when every slot is in use
 */
export async function createVoiceClone(workspaceId: string, request: CloneRequest): Promise<VoiceRecord> {
  const workspace = await getWorkspace(workspaceId, true);
  if (!workspace) throw new Error(`Workspace ${workspaceId} vanished`);
  const language = cloneLanguage(request.language);
  // Refuse before fetching the recording when the slots are obviously full (the write checks again).
  const limit = cloneSlotLimit(workspace.plan);
  if ((await slotsInUse(workspaceId)) >= limit) {
    throw new PaymentRequiredError(
      `All ${limit} voice clone slots of the ${workspace.plan} plan are in use; delete a cloned voice (DELETE /v3/voices/{voice_id}) or move to a larger plan.`,
      'plan_upgrade_required',
    );
  }
  const media = await resolveMediaInput(workspaceId, request.audio, {
    param: 'audio',
    accept: ['audio', 'video'],
    maxBytes: MAX_CLONE_RECORDING_BYTES,
  });
  const sourceOwned = media.source !== 'asset';
  const record: VoiceRecord = {
    voice_id: newId(),
    workspace_id: workspaceId,
    kind: VOICE_KINDS.clone,
    name: request.voice_name,
    language,
    gender: null,
    status: VOICE_STATUS.processing,
    created_at: nowSeconds(),
    base_voice_id: null,
    engine_voices: {},
    preview_key: null,
    failure_code: null,
    failure_message: null,
    holds_slot: true,
    source_key: media.objectKey,
    source_owned: sourceOwned,
    remove_background_noise: request.remove_background_noise,
    measures: null,
  };
  try {
    await createCloneRecord(record, workspace.plan);
  } catch (error) {
    if (sourceOwned) await deleteMediaObject(media.objectKey);
    throw error;
  }
  await startJob(voiceCloneJob, voiceCloneJob.refOf(record));
  return record;
}
