/**
 * The HyperFrames render job (docs/architecture.md, "Jobs"): `state-machines/hyperframes-render.asl.json`
 * runs Render (hyperframes-steps.ts, in the media container on AWS: the producer, Chromium and ffmpeg
 * do not fit a zip bundle) and the framework's failure step from its Catch. Created `queued` with its
 * credits reserved (the composition's stated length), `rendering` from Render, `completed` (charged
 * for the minutes rendered) or `failed` (refunded) with the step's reason. Events
 * `hyperframes_video.success` / `.fail`.
 */
import { z } from 'zod';
import { GRANTS } from '../core/grants.js';
import { chargedOnRecord, defineJob, outcomeByStatus, refundedJobWording } from '../jobs/job-definition.js';
import { TASK_PACKAGING } from '../jobs/task-deployment.js';
import { deleteMediaObject, deleteMediaPrefix } from '../media/media-store.js';
import {
  failHyperframesRender,
  getHyperframesRender,
  HYPERFRAMES_RENDER_STATUS,
  type HyperframesRenderRecord,
  hyperframesMediaKeys,
  hyperframesRenderKey,
} from './hyperframes-records.js';
import { hyperframesRenderView } from './hyperframes-views.js';

export const HYPERFRAMES_JOB_FAILURE = {
  timeout: 'hyperframes_render_timeout',
  internalError: 'internal_error',
} as const;

export const hyperframesRenderRef = z.object({
  workspace_id: z.string().min(1),
  render_id: z.string().min(1),
});
export type HyperframesRenderRef = z.infer<typeof hyperframesRenderRef>;

export const hyperframesRenderJob = defineJob({
  name: 'hyperframes-render',
  taskPrefix: 'HyperframesRender',
  ref: hyperframesRenderRef,
  executionName: (ref) => ref.render_id,
  refOf: (record: HyperframesRenderRecord) => ({
    workspace_id: record.workspace_id,
    render_id: record.render_id,
  }),
  stepsModule: 'hyperframes/hyperframes-steps',
  steps: {
    Render: {
      description:
        'HyperFrames render: unpack the project zip, render the composition with the producer in Chromium (no network: CDN scripts of GSAP served from the gsap package), probe the video, store it with a thumbnail',
      input: hyperframesRenderRef,
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
    get: (ref) => getHyperframesRender(ref.workspace_id, ref.render_id, true),
    outcome: outcomeByStatus({
      succeeded: HYPERFRAMES_RENDER_STATUS.completed,
      failed: HYPERFRAMES_RENDER_STATUS.failed,
    }),
    fail: (record, failure) => failHyperframesRender(record, failure),
  },
  wording: refundedJobWording({
    codes: HYPERFRAMES_JOB_FAILURE,
    job: 'The render',
    again: 'Create the render again',
    report: 'the render_id',
    faster: 'A shorter composition, a lower fps or quality "draft" renders faster.',
  }),
  events: {
    entityId: (record) => record.render_id,
    success: { type: 'hyperframes_video.success', data: hyperframesRenderView },
    failure: { type: 'hyperframes_video.fail', data: hyperframesRenderView },
    callback: (record) =>
      record.callback_url ? { url: record.callback_url, id: record.callback_id } : undefined,
  },
  billing: chargedOnRecord<HyperframesRenderRecord>((record) =>
    hyperframesRenderKey(record.workspace_id, record.render_id),
  ),
  // The project zip the request stored is not kept once the render ended (an asset stays).
  release: async (record) => {
    if (record.project.owned) await deleteMediaObject(record.project.key);
  },
  cleanUpGone: (ref) => deleteMediaPrefix(hyperframesMediaKeys.prefix(ref)),
  failureAccess: [GRANTS.jobMedia],
  concurrencyLimited: true,
});
