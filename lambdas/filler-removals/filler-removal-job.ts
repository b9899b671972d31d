/**
 * The filler-word removal job (docs/architecture.md, "Jobs"): `state-machines/filler-word-removal.asl.json`
 * runs Clean (`filler-removal-steps.ts`, in the media container on AWS) and the framework's failure step
 * from its Catch. Created `pending` with its credits reserved, `running` from Clean, `completed`
 * (charged for the source minutes; refunded when nothing was cut) or `failed` (refunded) with the
 * step's reason. Events `filler_word_removal.success` / `.fail`.
 */
import { z } from 'zod';
import { GRANTS } from '../core/grants.js';
import { chargedOnRecord, defineJob, outcomeByStatus, refundedJobWording } from '../jobs/job-definition.js';
import { TASK_PACKAGING } from '../jobs/task-deployment.js';
import { deleteMediaObject, deleteMediaPrefix } from '../media/media-store.js';
import {
  FILLER_REMOVAL_STATUS,
  type FillerRemovalRecord,
  failFillerRemoval,
  fillerRemovalKey,
  fillerRemovalMediaKeys,
  getFillerRemoval,
} from './filler-removal-records.js';
import { fillerRemovalView } from './filler-removal-views.js';

export const FILLER_REMOVAL_FAILURE = {
  invalidMedia: 'invalid_media',
  /** Every part of the source is a filler word or a long silence: nothing would be left. */
  nothingLeft: 'nothing_left',
  engineUnavailable: 'engine_unavailable',
  timeout: 'filler_removal_timeout',
  internalError: 'internal_error',
} as const;

export const fillerRemovalRef = z.object({
  workspace_id: z.string().min(1),
  filler_word_removal_id: z.string().min(1),
});
export type FillerRemovalRef = z.infer<typeof fillerRemovalRef>;

/** The event's data: the job as GET answers it (`filler_word_removal_id` named too, as other events name their resource). */
const eventData = async (record: FillerRemovalRecord) => ({
  filler_word_removal_id: record.filler_word_removal_id,
  ...(await fillerRemovalView(record)),
});

export const fillerRemovalJob = defineJob({
  name: 'filler-word-removal',
  taskPrefix: 'FillerRemoval',
  ref: fillerRemovalRef,
  executionName: (ref) => ref.filler_word_removal_id,
  refOf: (record: FillerRemovalRecord) => ({
    workspace_id: record.workspace_id,
    filler_word_removal_id: record.filler_word_removal_id,
  }),
  stepsModule: 'filler-removals/filler-removal-steps',
  steps: {
    Clean: {
      description:
        'Filler-word removal: hear the words (or read the stored words of a video made here), find the long silences, cut fillers and silences on frame boundaries with crossfaded sound, store the cleaned video',
      input: fillerRemovalRef,
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
    get: (ref) => getFillerRemoval(ref.workspace_id, ref.filler_word_removal_id, true),
    outcome: outcomeByStatus({
      succeeded: FILLER_REMOVAL_STATUS.completed,
      failed: FILLER_REMOVAL_STATUS.failed,
    }),
    fail: (record, failure) => failFillerRemoval(record, failure),
  },
  wording: refundedJobWording({
    codes: FILLER_REMOVAL_FAILURE,
    job: 'The filler-word removal',
    again: 'Submit the video again',
    report: 'the filler_word_removal id',
    faster: 'A shorter video is cleaned faster.',
  }),
  events: {
    entityId: (record) => record.filler_word_removal_id,
    success: { type: 'filler_word_removal.success', data: eventData },
    failure: { type: 'filler_word_removal.fail', data: eventData },
    callback: (record) =>
      record.callback_url ? { url: record.callback_url, id: record.callback_id } : undefined,
  },
  billing: chargedOnRecord<FillerRemovalRecord>((record) =>
    fillerRemovalKey(record.workspace_id, record.filler_word_removal_id),
  ),
  // The source the request stored and the step's work files are not kept once the job ended.
  release: async (record) => {
    await deleteMediaPrefix(fillerRemovalMediaKeys.work(record, ''));
    if (record.source.owned) await deleteMediaObject(record.source.key);
  },
  cleanUpGone: (ref) =>
    deleteMediaPrefix(
      fillerRemovalMediaKeys.prefix({
        workspace_id: ref.workspace_id,
        filler_word_removal_id: ref.filler_word_removal_id,
      }),
    ),
  failureAccess: [GRANTS.jobMedia],
  concurrencyLimited: true,
});
