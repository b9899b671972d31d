/**
 * The model video job (docs/architecture.md, "Jobs"): `state-machines/model-video.asl.json` runs
 * Generate (`model-video-steps.ts`, in the media container on AWS) and the framework's failure step from
 * its Catch. Created `pending` with its credits reserved, `processing` from Generate, `completed`
 * (charged what was reserved) or `failed` (refunded) with the step's reason. Events `model_video.success`
 * / `.fail`, and the request's `callback_url`.
 */
import { z } from 'zod';
import { GRANTS } from '../core/grants.js';
import { chargedOnRecord, defineJob, outcomeByStatus, refundedJobWording } from '../jobs/job-definition.js';
import { TASK_PACKAGING } from '../jobs/task-deployment.js';
import { deleteMediaObject, deleteMediaPrefix } from '../media/media-store.js';
import {
  failModelVideo,
  getModelVideo,
  inputsOf,
  MODEL_VIDEO_STATUS,
  type ModelVideoRecord,
  modelVideoKey,
  modelVideoMediaKeys,
} from './model-video-records.js';
import { modelVideoView } from './model-video-views.js';

export const MODEL_VIDEO_FAILURE = {
  /** The request or an input cannot be made into a video (an engine's refusal of the prompt included). */
  invalidInput: 'invalid_input',
  /** No engine of this deployment can make it; the message names the setting. */
  engineUnavailable: 'engine_unavailable',
  /** The engine ran and failed, or did not finish in time. */
  generationFailed: 'media_generation_failed',
  timeout: 'generation_timeout',
  internalError: 'internal_error',
} as const;

export const modelVideoRef = z.object({
  workspace_id: z.string().min(1),
  video_id: z.string().min(1),
});
export type ModelVideoRef = z.infer<typeof modelVideoRef>;

export const modelVideoJob = defineJob({
  name: 'model-video',
  taskPrefix: 'ModelVideo',
  ref: modelVideoRef,
  executionName: (ref) => ref.video_id,
  refOf: (record: ModelVideoRecord) => ({ workspace_id: record.workspace_id, video_id: record.video_id }),
  stepsModule: 'model-videos/model-video-steps',
  steps: {
    Generate: {
      description:
        'Model video: the engine films the prompt (from its first frame or references), the result fitted to the frame and length asked for and stored',
      input: modelVideoRef,
      output: z.null(),
      deployment: {
        access: [GRANTS.jobItems, GRANTS.jobMedia, GRANTS.publishEvents, GRANTS.generateMedia],
        packaging: TASK_PACKAGING.mediaImage,
        memorySize: 2048,
        timeoutSeconds: 900,
      },
    },
  },
  record: {
    get: (ref) => getModelVideo(ref.workspace_id, ref.video_id, true),
    outcome: outcomeByStatus({
      succeeded: MODEL_VIDEO_STATUS.completed,
      failed: MODEL_VIDEO_STATUS.failed,
    }),
    fail: (record, failure) => failModelVideo(record, failure),
  },
  wording: refundedJobWording({
    codes: MODEL_VIDEO_FAILURE,
    job: 'The model video',
    again: 'Submit the video again',
    startAgain: 'Submit it again',
    report: 'the video id',
    faster: 'Submit the video again.',
  }),
  events: {
    entityId: (record) => record.video_id,
    success: { type: 'model_video.success', data: modelVideoView },
    failure: { type: 'model_video.fail', data: modelVideoView },
    callback: (record) =>
      record.callback_url ? { url: record.callback_url, id: record.callback_id } : undefined,
  },
  billing: chargedOnRecord<ModelVideoRecord>((record) => modelVideoKey(record.workspace_id, record.video_id)),
  // The inputs the request stored and the engine's raw output are not kept once the video ended.
  release: async (record) => {
    await deleteMediaPrefix(modelVideoMediaKeys.engineOutput(record));
    await Promise.all(
      inputsOf(record)
        .filter((input) => input.owned)
        .map((input) => deleteMediaObject(input.key)),
    );
  },
  cleanUpGone: (ref) => deleteMediaPrefix(modelVideoMediaKeys.prefix(ref)),
  failureAccess: [GRANTS.jobMedia],
  concurrencyLimited: true,
});
