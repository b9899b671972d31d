/**
 * The image generation job (docs/architecture.md, "Jobs"): `state-machines/model-image.asl.json` runs
 * Generate (`model-image-steps.ts`, in the media container on AWS) and the framework's failure step from
 * its Catch. Created `pending` with its credits reserved, `completed` with every image asked for
 * (charged what was reserved) or `failed` (refunded) with the step's reason. Events
 * `model_image.success` / `.fail`.
 */
import { z } from 'zod';
import { GRANTS } from '../core/grants.js';
import { chargedOnRecord, defineJob, outcomeByStatus, refundedJobWording } from '../jobs/job-definition.js';
import { TASK_PACKAGING } from '../jobs/task-deployment.js';
import { deleteMediaObject, deleteMediaPrefix } from '../media/media-store.js';
import {
  failModelImage,
  getModelImage,
  inputsOf,
  MODEL_IMAGE_STATUS,
  type ModelImageRecord,
  modelImageKey,
  modelImageMediaKeys,
} from './model-image-records.js';
import { modelImageView } from './model-image-views.js';

export const MODEL_IMAGE_FAILURE = {
  invalidInput: 'invalid_input',
  /** An identity image shows no face (the reference's code: replace that image). */
  noFace: 'no_face_detected',
  /** An identity image shows more than one face: whose identity to keep is not said. */
  multipleFaces: 'multiple_faces_detected',
  engineUnavailable: 'engine_unavailable',
  generationFailed: 'media_generation_failed',
  timeout: 'generation_timeout',
  internalError: 'internal_error',
} as const;

export const modelImageRef = z.object({
  workspace_id: z.string().min(1),
  generation_id: z.string().min(1),
});
export type ModelImageRef = z.infer<typeof modelImageRef>;

export const modelImageJob = defineJob({
  name: 'model-image',
  taskPrefix: 'ModelImage',
  ref: modelImageRef,
  executionName: (ref) => ref.generation_id,
  refOf: (record: ModelImageRecord) => ({
    workspace_id: record.workspace_id,
    generation_id: record.generation_id,
  }),
  stepsModule: 'model-images/model-image-steps',
  steps: {
    Generate: {
      description:
        'Image generation (identity remix): the engine makes each image from the identity and reference images, stored as PNG',
      input: modelImageRef,
      output: z.null(),
      deployment: {
        access: [GRANTS.jobItems, GRANTS.jobMedia, GRANTS.publishEvents, GRANTS.generateMedia],
        packaging: TASK_PACKAGING.mediaImage,
        memorySize: 2048,
        // Five images from a hosted model may take a minute each (MEDIA_GENERATION_HTTP_TIMEOUT_MS per call).
        timeoutSeconds: 900,
      },
    },
  },
  record: {
    get: (ref) => getModelImage(ref.workspace_id, ref.generation_id, true),
    outcome: outcomeByStatus({
      succeeded: MODEL_IMAGE_STATUS.completed,
      failed: MODEL_IMAGE_STATUS.failed,
    }),
    fail: (record, failure) => failModelImage(record, failure),
  },
  wording: refundedJobWording({
    codes: MODEL_IMAGE_FAILURE,
    job: 'The image generation',
    again: 'Submit the generation again',
    startAgain: 'Submit it again',
    report: 'the generation id',
    faster: 'Submit the generation again.',
  }),
  events: {
    entityId: (record) => record.generation_id,
    success: { type: 'model_image.success', data: modelImageView },
    failure: { type: 'model_image.fail', data: modelImageView },
  },
  billing: chargedOnRecord<ModelImageRecord>((record) =>
    modelImageKey(record.workspace_id, record.generation_id),
  ),
  // The images the request stored are not kept once the generation ended (assets stay).
  release: async (record) => {
    await Promise.all(
      inputsOf(record)
        .filter((input) => input.owned)
        .map((input) => deleteMediaObject(input.key)),
    );
  },
  cleanUpGone: (ref) => deleteMediaPrefix(modelImageMediaKeys.prefix(ref)),
  failureAccess: [GRANTS.jobMedia],
  concurrencyLimited: true,
});
