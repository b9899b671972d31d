/**
 * The background removal job (docs/architecture.md, "Jobs"): `state-machines/background-removal.asl.json`
 * runs Separate (`background-removal-steps.ts`, in the media container on AWS) and the framework's
 * failure step from its Catch. Created `pending` with its credits reserved, `processing` from Separate,
 * `completed` (charged for the source minutes) or `failed` (refunded) with the step's reason.
 *
 * Separate decodes the source once; each frame is segmented once (person segmentation smoothed over
 * time) and handed to the encoder of every requested layer: the foreground (the person on transparency),
 * the mask (the matte) and the background (the scene without the person, filled from other frames).
 * Events `background_removal.success` / `.fail`.
 */
import { z } from 'zod';
import { GRANTS } from '../core/grants.js';
import { chargedOnRecord, defineJob, outcomeByStatus, refundedJobWording } from '../jobs/job-definition.js';
import { TASK_PACKAGING } from '../jobs/task-deployment.js';
import { deleteMediaObject, deleteMediaPrefix } from '../media/media-store.js';
import {
  BACKGROUND_REMOVAL_STATUS,
  type BackgroundRemovalRecord,
  backgroundRemovalKey,
  backgroundRemovalMediaKeys,
  failBackgroundRemoval,
  getBackgroundRemoval,
} from './background-removal-records.js';
import { presignedLayers } from './background-removal-views.js';

export const BACKGROUND_REMOVAL_FAILURE = {
  invalidMedia: 'invalid_media',
  /** Longer than one run processes (`MAX_SOURCE_SECONDS` of the steps). */
  sourceTooLong: 'source_too_long',
  /** No frame shows a person: there is no foreground to separate. */
  noPerson: 'no_person_found',
  engineUnavailable: 'engine_unavailable',
  timeout: 'background_removal_timeout',
  internalError: 'internal_error',
} as const;

export const backgroundRemovalRef = z.object({
  workspace_id: z.string().min(1),
  background_removal_id: z.string().min(1),
});
export type BackgroundRemovalRef = z.infer<typeof backgroundRemovalRef>;

const eventData = async (record: BackgroundRemovalRecord) => ({
  id: record.background_removal_id,
  title: record.title,
  status: record.status,
  request_id: record.request_id,
  ...(record.status === BACKGROUND_REMOVAL_STATUS.completed
    ? { layers: await presignedLayers(record), duration: record.duration }
    : {
        failure_code: record.failure_code,
        failure_message: record.failure_message,
        error: record.failure_message,
      }),
});

export const backgroundRemovalJob = defineJob({
  name: 'background-removal',
  taskPrefix: 'BackgroundRemoval',
  ref: backgroundRemovalRef,
  executionName: (ref) => ref.background_removal_id,
  refOf: (record: BackgroundRemovalRecord) => ({
    workspace_id: record.workspace_id,
    background_removal_id: record.background_removal_id,
  }),
  stepsModule: 'background-removals/background-removal-steps',
  steps: {
    Separate: {
      description:
        'Background removal: decode the source once, segment each frame, write the foreground, mask and background layers asked for',
      input: backgroundRemovalRef,
      output: z.null(),
      deployment: {
        access: [GRANTS.jobItems, GRANTS.jobMedia, GRANTS.publishEvents],
        packaging: TASK_PACKAGING.mediaImage,
        memorySize: 3008,
        timeoutSeconds: 900,
      },
    },
  },
  record: {
    // A deleted removal is gone as far as its run is concerned: the run stops and removes what it made.
    get: async (ref) => {
      const record = await getBackgroundRemoval(ref.workspace_id, ref.background_removal_id, true);
      return record?.status === BACKGROUND_REMOVAL_STATUS.deleted ? undefined : record;
    },
    outcome: outcomeByStatus({
      succeeded: BACKGROUND_REMOVAL_STATUS.completed,
      failed: BACKGROUND_REMOVAL_STATUS.failed,
    }),
    fail: (record, failure) => failBackgroundRemoval(record, failure),
  },
  wording: refundedJobWording({
    codes: BACKGROUND_REMOVAL_FAILURE,
    job: 'The background removal',
    again: 'Submit the video again',
    report: 'the background removal id',
    faster: 'A shorter or smaller video is processed faster.',
  }),
  events: {
    entityId: (record) => record.background_removal_id,
    success: { type: 'background_removal.success', data: eventData },
    failure: { type: 'background_removal.fail', data: eventData },
  },
  billing: chargedOnRecord<BackgroundRemovalRecord>((record) =>
    backgroundRemovalKey(record.workspace_id, record.background_removal_id),
  ),
  // The source the request stored is not kept once the removal ended (assets stay).
  release: async (record) => {
    if (record.source.owned) await deleteMediaObject(record.source.key);
  },
  cleanUpGone: (ref) =>
    deleteMediaPrefix(
      backgroundRemovalMediaKeys.prefix({
        workspace_id: ref.workspace_id,
        background_removal_id: ref.background_removal_id,
      }),
    ),
  failureAccess: [GRANTS.jobMedia],
  concurrencyLimited: true,
});
