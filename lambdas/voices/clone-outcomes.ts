/**
 * How a voice clone ends (voice-clones.ts): its terminal event, the recording dropped, the failure
 * path of the workflow. Kept apart from the build step, so that the functions that only record an
 * outcome carry no speech engine or ffmpeg.
 */
import { updateExistingItem } from '../core/repository.js';
import { publishEvent } from '../events/domain-events.js';
import { deleteMediaObject } from '../media/media-store.js';
import type { JobFailureDetails } from '../workflows/job-failure.js';
import {
  failCloneRecord,
  getVoiceRecord,
  VOICE_STATUS,
  type VoiceRecord,
  voiceKey,
} from './workspace-voices.js';

export const CLONE_FAILURE = {
  /** The recording cannot be measured: not audio, silent, too short, too quiet, not speech. */
  invalidAudio: 'invalid_audio',
  /** ffmpeg or the speech engine could not run. */
  engineUnavailable: 'engine_unavailable',
  internalError: 'internal_error',
} as const;

export interface CloneRef {
  workspace_id: string;
  voice_id: string;
}

/**
 * Deletes an ended clone's recording (unless it is an asset of the workspace) and forgets it. Run after
 * the clone's terminal write, and again by a restarted step, so a crash in between leaves nothing.
 */
export async function dropSource(record: VoiceRecord): Promise<void> {
  if (!record.source_key) return;
  if (record.source_owned) await deleteMediaObject(record.source_key);
  await updateExistingItem(voiceKey(record.workspace_id, record.voice_id), { source_key: null });
}

/** Publishes the terminal event of a clone that has ended (again, with the same id, after a restart). */
export async function announceCloneOutcome(record: VoiceRecord): Promise<void> {
  if (record.status === VOICE_STATUS.complete) {
    await publishEvent({
      event_id: `voice_clone.success:${record.voice_id}`,
      event_type: 'voice_clone.success',
      workspace_id: record.workspace_id,
      entity_id: record.voice_id,
      event_data: {
        voice_clone_id: record.voice_id,
        voice_id: record.voice_id,
        name: record.name,
        language: record.language,
        gender: record.gender,
      },
    });
  } else if (record.status === VOICE_STATUS.failed) {
    await publishEvent({
      event_id: `voice_clone.fail:${record.voice_id}`,
      event_type: 'voice_clone.fail',
      workspace_id: record.workspace_id,
      entity_id: record.voice_id,
      event_data: {
        voice_clone_id: record.voice_id,
        voice_id: record.voice_id,
        failure_code: record.failure_code,
        failure_message: record.failure_message,
      },
    });
  }
}

/** The workflow's failure path (and a create that could not start it): failed, slot back, event. */
export async function recordCloneFailure(ref: CloneRef, failure: JobFailureDetails): Promise<void> {
  await failCloneRecord(ref.workspace_id, ref.voice_id, failure);
  // Failed now, or before (a repeated step), or deleted meanwhile (nothing left to do).
  const ended = await getVoiceRecord(ref.workspace_id, ref.voice_id, true);
  if (!ended || ended.status === VOICE_STATUS.processing) return;
  await dropSource(ended);
  await announceCloneOutcome(ended);
}
