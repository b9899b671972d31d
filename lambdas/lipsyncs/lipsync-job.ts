/**
 * The lipsync job (docs/architecture.md, "Jobs"): `state-machines/lipsync.asl.json` runs one step,
 * Lipsync (`lipsync-steps.ts`, in the media container on AWS), and the framework's failure step from
 * its Catch. One run per lipsync: created `pending` with its credits reserved, `running` from the step,
 * `completed` (charged for the minutes re-dubbed) or `failed` (refunded) with the step's reason.
 *
 * Events: `lipsync.success` / `.fail` for records created through `/v3/lipsyncs` (and its batches),
 * `overdub.success` / `.fail` for records created through the deprecated `/v3/overdubs`: one event per
 * outcome, named as the family the caller used.
 */
import { z } from 'zod';
import { GRANTS } from '../core/grants.js';
import { chargedOnRecord, defineJob, outcomeByStatus, refundedJobWording } from '../jobs/job-definition.js';
import { TASK_PACKAGING } from '../jobs/task-deployment.js';
import { deleteMediaObject, deleteMediaPrefix } from '../media/media-store.js';
import {
  failLipsync,
  getLipsync,
  LIPSYNC_ORIGINS,
  LIPSYNC_STATUS,
  type LipsyncRecord,
  lipsyncKey,
  lipsyncMediaKeys,
} from './lipsync-records.js';
import { hasCaptions, presigned } from './lipsync-views.js';

export const LIPSYNC_FAILURE = {
  invalidMedia: 'invalid_media',
  /** `precision` asked, and no face was found to re-animate in the part re-dubbed. */
  noFace: 'no_face',
  engineUnavailable: 'engine_unavailable',
  timeout: 'lipsync_timeout',
  internalError: 'internal_error',
} as const;

export const lipsyncRef = z.object({
  workspace_id: z.string().min(1),
  lipsync_id: z.string().min(1),
});
export type LipsyncRef = z.infer<typeof lipsyncRef>;

async function eventData(record: LipsyncRecord) {
  const overdub = record.origin === LIPSYNC_ORIGINS.overdubs;
  const completed = record.status === LIPSYNC_STATUS.completed;
  const videoUrl = completed ? await presigned(record.outputs?.video_key) : null;
  return {
    ...(overdub ? { overdub_id: record.lipsync_id } : { lipsync_id: record.lipsync_id }),
    title: record.title,
    status: record.status,
    callback_id: record.callback_id,
    folder_id: record.folder_id,
    ...(completed
      ? {
          url: videoUrl,
          video_url: videoUrl,
          ...(overdub
            ? {}
            : { caption_url: await presigned(hasCaptions(record) ? record.outputs?.srt_key : null) }),
          duration: record.duration,
        }
      : { failure_code: record.failure_code, failure_message: record.failure_message }),
  };
}

export const lipsyncJob = defineJob({
  name: 'lipsync',
  taskPrefix: 'Lipsync',
  ref: lipsyncRef,
  executionName: (ref) => ref.lipsync_id,
  refOf: (record: LipsyncRecord) => ({ workspace_id: record.workspace_id, lipsync_id: record.lipsync_id }),
  stepsModule: 'lipsyncs/lipsync-steps',
  steps: {
    Lipsync: {
      description:
        'Lipsync: fit the given audio to the part re-dubbed, find its mouth shapes (audio, or recognised words), re-animate the lips, mix, mux, captions, store the outputs',
      input: lipsyncRef,
      output: z.null(),
      deployment: {
        access: [GRANTS.jobItems, GRANTS.jobMedia, GRANTS.publishEvents, GRANTS.recognizeSpeech],
        packaging: TASK_PACKAGING.mediaImage,
        memorySize: 3008,
        timeoutSeconds: 900,
      },
    },
  },
  record: {
    get: (ref) => getLipsync(ref.workspace_id, ref.lipsync_id, true),
    outcome: outcomeByStatus({ succeeded: LIPSYNC_STATUS.completed, failed: LIPSYNC_STATUS.failed }),
    fail: (record, failure) => failLipsync(record, failure),
  },
  wording: refundedJobWording({
    codes: LIPSYNC_FAILURE,
    job: 'The lipsync',
    again: 'Create the lipsync again',
    startAgain: 'Create it again',
    report: 'its id',
    faster: 'A shorter video (or start_time/end_time) is re-dubbed faster.',
  }),
  events: {
    entityId: (record) => record.lipsync_id,
    success: {
      type: {
        byRecord: (record) =>
          record.origin === LIPSYNC_ORIGINS.overdubs ? 'overdub.success' : 'lipsync.success',
        all: ['lipsync.success', 'overdub.success'],
      },
      data: eventData,
    },
    failure: {
      type: {
        byRecord: (record) => (record.origin === LIPSYNC_ORIGINS.overdubs ? 'overdub.fail' : 'lipsync.fail'),
        all: ['lipsync.fail', 'overdub.fail'],
      },
      data: eventData,
    },
    callback: (record) =>
      record.callback_url ? { url: record.callback_url, id: record.callback_id } : undefined,
  },
  billing: chargedOnRecord<LipsyncRecord>((record) => lipsyncKey(record.workspace_id, record.lipsync_id)),
  batchItem: (record) =>
    record.batch_id ? { batchId: record.batch_id, itemId: record.lipsync_id } : undefined,
  // The media the request stored and the step's work files are not kept once the lipsync ended.
  release: async (record) => {
    await deleteMediaPrefix(lipsyncMediaKeys.work(record, ''));
    for (const media of [record.video, record.audio])
      if (media.owned && media.key) await deleteMediaObject(media.key);
  },
  cleanUpGone: (ref) =>
    deleteMediaPrefix(
      lipsyncMediaKeys.prefix({ workspace_id: ref.workspace_id, lipsync_id: ref.lipsync_id }),
    ),
  failureAccess: [GRANTS.jobMedia],
  concurrencyLimited: true,
});
