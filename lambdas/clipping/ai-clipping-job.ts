/**
 * The AI clipping job (docs/architecture.md, "Jobs"): `state-machines/ai-clipping.asl.json` runs Plan
 * then Render (`clipping-steps.ts`, in the media container on AWS), and the framework's failure step
 * from their Catch. Created `pending` with its credits reserved (the source's estimated minutes),
 * `running` from Plan, `completed` (charged for the source's measured minutes) or `failed` (refunded)
 * with the step's reason.
 *
 * - Plan: the source is measured, its words read (the stored words of a video this service made, or
 *   the speech recognition engine), candidates of the requested durations found and scored
 *   (clip-planner.ts), judged and titled by the text engine when one is configured; the chosen clips
 *   are recorded `pending`.
 * - Render: each clip cut from the source, reframed to the aspect ratio following the face, captions
 *   burned in the chosen style, a thumbnail; each clip `completed` as it is stored.
 *
 * Events `ai_clipping.success` / `ai_clipping.fail` carry the job as GET answers it.
 */
import { z } from 'zod';
import { GRANTS } from '../core/grants.js';
import { chargedOnRecord, defineJob, outcomeByStatus, refundedJobWording } from '../jobs/job-definition.js';
import { TASK_PACKAGING } from '../jobs/task-deployment.js';
import { deleteMediaObject, deleteMediaPrefix } from '../media/media-store.js';
import {
  type AiClippingRecord,
  CLIPPING_STATUS,
  clippingKey,
  clippingMediaKeys,
  failClipping,
  getClipping,
} from './clipping-records.js';
import { clippingView } from './clipping-views.js';

export const CLIPPING_FAILURE = {
  invalidMedia: 'invalid_media',
  /** Nothing is said in the source: there is nothing to choose clips by. */
  noSpeech: 'no_speech',
  /** No run of whole sentences fits a requested duration. */
  noClips: 'no_clips',
  engineUnavailable: 'engine_unavailable',
  timeout: 'ai_clipping_timeout',
  internalError: 'internal_error',
} as const;

export const clippingRef = z.object({
  workspace_id: z.string().min(1),
  clipping_id: z.string().min(1),
});
export type ClippingRef = z.infer<typeof clippingRef>;

const CLIPPING_MEDIA = [GRANTS.jobItems, GRANTS.jobMedia, GRANTS.publishEvents] as const;

const eventData = (record: AiClippingRecord) => clippingView(record);

export const aiClippingJob = defineJob({
  name: 'ai-clipping',
  taskPrefix: 'Clipping',
  ref: clippingRef,
  executionName: (ref) => ref.clipping_id,
  refOf: (record: AiClippingRecord) => ({
    workspace_id: record.workspace_id,
    clipping_id: record.clipping_id,
  }),
  stepsModule: 'clipping/clipping-steps',
  steps: {
    Plan: {
      description:
        'AI clipping: measure the source, read its words (stored script or speech recognition), find and score the candidate clips, title them',
      input: clippingRef,
      output: z.null(),
      deployment: {
        access: [...CLIPPING_MEDIA, GRANTS.recognizeSpeech, GRANTS.generateText],
        packaging: TASK_PACKAGING.mediaImage,
        memorySize: 3008,
        timeoutSeconds: 900,
      },
    },
    Render: {
      description:
        'AI clipping: cut each clip, reframe it to the aspect ratio following the face, burn the captions, thumbnails, store',
      input: clippingRef,
      output: z.null(),
      deployment: {
        access: [...CLIPPING_MEDIA],
        packaging: TASK_PACKAGING.mediaImage,
        memorySize: 3008,
        timeoutSeconds: 900,
      },
    },
  },
  record: {
    get: (ref) => getClipping(ref.workspace_id, ref.clipping_id, true),
    outcome: outcomeByStatus({ succeeded: CLIPPING_STATUS.completed, failed: CLIPPING_STATUS.failed }),
    fail: (record, failure) => failClipping(record, failure),
  },
  wording: refundedJobWording({
    codes: CLIPPING_FAILURE,
    job: 'The AI clipping job',
    again: 'Clip the video again',
    report: 'the job id',
    faster: 'Fewer duration_types, or a shorter video, clip faster.',
  }),
  events: {
    entityId: (record) => record.clipping_id,
    success: { type: 'ai_clipping.success', data: eventData },
    failure: { type: 'ai_clipping.fail', data: eventData },
    callback: (record) =>
      record.callback_url ? { url: record.callback_url, id: record.callback_id } : undefined,
  },
  billing: chargedOnRecord<AiClippingRecord>((record) =>
    clippingKey(record.workspace_id, record.clipping_id),
  ),
  // The source the request stored and the steps' work files are not kept once the job ended.
  release: async (record) => {
    await deleteMediaPrefix(clippingMediaKeys.work(record, ''));
    if (record.source.owned) await deleteMediaObject(record.source.key);
  },
  cleanUpGone: (ref) =>
    deleteMediaPrefix(
      clippingMediaKeys.prefix({ workspace_id: ref.workspace_id, clipping_id: ref.clipping_id }),
    ),
  failureAccess: [GRANTS.jobMedia],
  concurrencyLimited: true,
});
