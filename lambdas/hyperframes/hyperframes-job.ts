/**
 * The HyperFrames render job (docs/architecture.md, "Jobs" and "HyperFrames renders"):
 * `state-machines/hyperframes-render.asl.json` runs Plan, RenderChunk once per chunk in a Map state
 * (`max_concurrency` at a time, from the plan), then Assemble (hyperframes-steps.ts, all in the media
 * container on AWS: the producer, Chromium and ffmpeg do not fit a zip bundle), and the framework's
 * failure step from their Catch. Created `queued` with its credits reserved (the composition's stated
 * length), `rendering` from Plan, `completed` (charged for the minutes rendered) or `failed` (refunded)
 * with the step's reason. Events `hyperframes_video.success` / `.fail`.
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

/** What the Plan step hands the Map state: the chunks to render, and how many at once. */
export const hyperframesRenderPlan = z.object({
  chunk_indexes: z.array(z.number().int().nonnegative()),
  max_concurrency: z.number().int().positive(),
});
export type HyperframesRenderPlan = z.infer<typeof hyperframesRenderPlan>;

/** One iteration of the Map state: the render and the chunk (an item of `chunk_indexes`). */
export const hyperframesChunkRef = hyperframesRenderRef.extend({
  chunk_index: z.number().int().nonnegative(),
});
export type HyperframesChunkRef = z.infer<typeof hyperframesChunkRef>;

/** Every step renders with Chromium and ffmpeg, in the media image. */
const RENDER_DEPLOYMENT = {
  access: [GRANTS.jobItems, GRANTS.jobMedia, GRANTS.publishEvents],
  packaging: TASK_PACKAGING.mediaImage,
  memorySize: 3008,
  timeoutSeconds: 900,
};

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
    Plan: {
      description:
        'HyperFrames render, plan: unpack the project zip, compile and probe the composition in Chromium (no network: CDN scripts of GSAP served from the gsap package), mix its audio, cut its frames into chunks, store the plan',
      input: hyperframesRenderRef,
      output: hyperframesRenderPlan,
      deployment: RENDER_DEPLOYMENT,
    },
    RenderChunk: {
      description:
        "HyperFrames render, one chunk: fetch the plan's files of the chunk, render and encode its frames in Chromium, store the chunk",
      input: hyperframesChunkRef,
      output: z.null(),
      deployment: RENDER_DEPLOYMENT,
    },
    Assemble: {
      description:
        'HyperFrames render, assemble: join the chunks without re-encoding with the audio laid once, probe the video, store it with a thumbnail',
      input: hyperframesRenderRef,
      output: z.null(),
      deployment: RENDER_DEPLOYMENT,
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
  // The project zip the request stored is not kept once the render ended (an asset stays), nor the
  // plan and chunks of its run.
  release: async (record) => {
    if (record.project.owned) await deleteMediaObject(record.project.key);
    await deleteMediaPrefix(hyperframesMediaKeys.work(record));
  },
  cleanUpGone: (ref) => deleteMediaPrefix(hyperframesMediaKeys.prefix(ref)),
  failureAccess: [GRANTS.jobMedia],
  concurrencyLimited: true,
});
