/**
 * The voice clone job (docs/architecture.md, "Jobs"): `state-machines/voice-clone.asl.json` runs one
 * step, Build (`clone-build.ts`, in the media container on AWS), and the framework's failure step from
 * its Catch. A clone is created `processing` holding one of the plan's clone slots; it ends `complete`
 * (`voice_clone.success`) or `failed` (its slot given back in the same write, `voice_clone.fail`).
 * Either way its recording is deleted once it has ended (the clone keeps only the measures), unless it
 * is one of the workspace's assets.
 */
import { z } from 'zod';
import { GRANTS } from '../core/grants.js';
import { updateExistingItem } from '../core/repository.js';
import { defineJob, outcomeByStatus } from '../jobs/job-definition.js';
import { TASK_PACKAGING } from '../jobs/task-deployment.js';
import { deleteMediaObject } from '../media/media-store.js';
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
  /** The Build step ran out of time. */
  timeout: 'clone_timeout',
  internalError: 'internal_error',
} as const;

export const cloneRef = z.object({ workspace_id: z.string().min(1), voice_id: z.string().min(1) });
export type CloneRef = z.infer<typeof cloneRef>;

/**
 * Deletes an ended clone's recording (unless it is an asset of the workspace) and forgets it. Run after
 * the clone's terminal write, and again by a restarted step, so a crash in between leaves nothing.
 */
async function dropSource(record: VoiceRecord): Promise<void> {
  if (!record.source_key) return;
  if (record.source_owned) await deleteMediaObject(record.source_key);
  await updateExistingItem(voiceKey(record.workspace_id, record.voice_id), { source_key: null });
}

export const voiceCloneJob = defineJob({
  name: 'voice-clone',
  taskPrefix: 'VoiceClone',
  ref: cloneRef,
  executionName: (ref) => ref.voice_id,
  refOf: (record: VoiceRecord) => ({ workspace_id: record.workspace_id, voice_id: record.voice_id }),
  stepsModule: 'voices/clone-build',
  steps: {
    Build: {
      description:
        'Voice clone: measure the recording (ffmpeg), derive the voice, speak its preview, complete',
      input: cloneRef,
      output: z.object({ status: z.string() }),
      deployment: {
        access: [GRANTS.jobItems, GRANTS.jobMedia, GRANTS.publishEvents, GRANTS.synthesizeSpeech],
        packaging: TASK_PACKAGING.mediaImage,
        memorySize: 1024,
        timeoutSeconds: 300,
      },
    },
  },
  record: {
    get: (ref) => getVoiceRecord(ref.workspace_id, ref.voice_id, true),
    outcome: outcomeByStatus({ succeeded: VOICE_STATUS.complete, failed: VOICE_STATUS.failed }),
    fail: (record, failure) => failCloneRecord(record.workspace_id, record.voice_id, failure),
  },
  wording: {
    timeout: (step) => ({
      code: CLONE_FAILURE.timeout,
      message: `The ${step} step took longer than allowed and was stopped; the clone slot is free again.`,
    }),
    fault: (step) => ({
      code: CLONE_FAILURE.internalError,
      message: `The ${step} step failed unexpectedly; the clone slot is free again. Clone the voice again; if it keeps failing, report the voice id.`,
    }),
    notStarted: {
      code: CLONE_FAILURE.internalError,
      message: 'The clone could not be started; its slot is free again. Create the clone again.',
    },
  },
  events: {
    entityId: (record) => record.voice_id,
    success: {
      type: 'voice_clone.success',
      data: (record) => ({
        voice_clone_id: record.voice_id,
        voice_id: record.voice_id,
        name: record.name,
        language: record.language,
        gender: record.gender,
      }),
    },
    failure: {
      type: 'voice_clone.fail',
      data: (record) => ({
        voice_clone_id: record.voice_id,
        voice_id: record.voice_id,
        failure_code: record.failure_code,
        failure_message: record.failure_message,
      }),
    },
  },
  release: dropSource,
  failureAccess: [GRANTS.jobMedia],
  concurrencyLimited: true,
});
