/**
 * HyperFrames renders: one record per `POST /v3/hyperframes/renders`, each one run of the
 * `hyperframes-render` job (hyperframes-job.ts). A record holds what the request asked for, where its
 * project zip is, how far the render got (frames captured of how many), what it made, and how it ended.
 *
 * Statuses are the hosted API's: `queued` (accepted, not started), `rendering`, `completed`, `failed`;
 * and `deleted`, a soft delete: the record stays (credits history) but is neither read nor listed, and
 * its media is gone.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import type { JobBilling } from '../billing/credits.js';
import { documents } from '../core/aws-clients.js';
import { config } from '../core/config.js';
import { NotFoundError } from '../core/errors.js';
import { nowSeconds } from '../core/ids.js';
import { RESOURCE_TYPES } from '../core/table-schema.js';
import type { HyperframesFormat, HyperframesQuality } from '../engines/hyperframes/hyperframes-engine.js';
import { discardJobMedia, jobRecords, listJobRecords } from '../jobs/job-records.js';
import type { HyperframesAspectRatio, HyperframesResolution } from './render-size.js';

export const HYPERFRAMES_RENDER_STATUS = {
  queued: 'queued',
  rendering: 'rendering',
  completed: 'completed',
  failed: 'failed',
  deleted: 'deleted',
} as const;
export type HyperframesRenderStatus =
  (typeof HYPERFRAMES_RENDER_STATUS)[keyof typeof HYPERFRAMES_RENDER_STATUS];

/** The project zip of a render. */
export interface HyperframesProject {
  /** Its object in the media bucket. */
  key: string;
  /** Whether the render stored it (a URL or inline zip) and deletes it; an asset stays. */
  owned: boolean;
  size_bytes: number;
}

export interface HyperframesRenderRecord extends JobBilling {
  render_id: string;
  workspace_id: string;
  status: HyperframesRenderStatus;
  title: string | null;
  project: HyperframesProject;
  /** The entry file inside the zip. */
  composition: string;
  fps: number;
  quality: HyperframesQuality;
  format: HyperframesFormat;
  resolution: HyperframesResolution;
  aspect_ratio: HyperframesAspectRatio;
  variables: Record<string, unknown>;
  /** HyperFrames' upsampling preset (render-size.ts); null when authored at the output size. */
  output_preset: string | null;
  /** The output frame, pixels. */
  width: number;
  height: number;
  callback_url: string | null;
  callback_id: string | null;
  /** 0 to 100. */
  progress: number;
  /** Frames captured so far and of how many, once the render knows. */
  frames_rendered: number | null;
  total_frames: number | null;
  outputs: { video_key: string; thumbnail_key: string } | null;
  /** Seconds of the video made. */
  duration: number | null;
  /** What rendered it. */
  engines: Record<string, string>;
  /** What the render costs once measured (at most the reservation). */
  credits_due?: number;
  failure_code: string | null;
  failure_message: string | null;
  created_at: number;
  completed_at: number | null;
  deleted_at?: number | null;
}

type RenderIds = Pick<HyperframesRenderRecord, 'workspace_id' | 'render_id'>;

export const hyperframesMediaKeys = {
  prefix: (record: RenderIds) => `workspaces/${record.workspace_id}/hyperframes-renders/${record.render_id}/`,
  output: (record: RenderIds, name: string) =>
    `workspaces/${record.workspace_id}/hyperframes-renders/${record.render_id}/${name}`,
  /** The work files of a chunked render (the plan, the chunks), removed when it is assembled. */
  work: (record: RenderIds) =>
    `workspaces/${record.workspace_id}/hyperframes-renders/${record.render_id}/work/`,
  /** A file of the plan, by its path inside the plan directory. */
  plan: (record: RenderIds, file: string) => `${hyperframesMediaKeys.work(record)}plan/${file}`,
  chunk: (record: RenderIds, index: number, format: HyperframesFormat) =>
    `${hyperframesMediaKeys.work(record)}chunks/${String(index).padStart(5, '0')}.${format}`,
};

export const hyperframesRenderNotFound = (renderId: string) =>
  new NotFoundError(`HyperFrames render ${renderId} not found.`, 'not_found', 'render_id');

/** The fields of a record nothing has run for yet. */
export function notStarted() {
  return {
    status: HYPERFRAMES_RENDER_STATUS.queued,
    progress: 0,
    frames_rendered: null,
    total_frames: null,
    outputs: null,
    duration: null,
    engines: {},
    failure_code: null,
    failure_message: null,
    created_at: nowSeconds(),
    completed_at: null,
  } satisfies Partial<HyperframesRenderRecord>;
}

export const hyperframesRenderRecords = jobRecords<HyperframesRenderRecord, 'render_id'>({
  resourceType: RESOURCE_TYPES.hyperframesRender,
  idField: 'render_id',
  listName: 'HyperframesRenderList',
  notFound: hyperframesRenderNotFound,
  statuses: {
    ...HYPERFRAMES_RENDER_STATUS,
    pending: HYPERFRAMES_RENDER_STATUS.queued,
    running: HYPERFRAMES_RENDER_STATUS.rendering,
  },
  deletedFields: { outputs: null },
  discard: (record) =>
    discardJobMedia(
      record.workspace_id,
      [record.project.owned ? record.project.key : null],
      hyperframesMediaKeys.prefix(record),
    ),
});

export const {
  key: hyperframesRenderKey,
  item: hyperframesRenderItem,
  get: getHyperframesRender,
  require: requireHyperframesRender,
  updateRunning: updateRunningHyperframesRender,
  complete: completeHyperframesRender,
  fail: failHyperframesRender,
  remove: deleteHyperframesRender,
} = hyperframesRenderRecords;

/**
 * A chunk rendered: its frames and its share of the progress points added to the record's, atomically
 * (chunks end in any order, several at once), while the render runs.
 */
export async function addRenderedChunk(
  record: RenderIds,
  chunk: { frames: number; progressPoints: number },
): Promise<void> {
  await documents()
    .send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: hyperframesRenderKey(record.workspace_id, record.render_id),
        UpdateExpression: 'ADD frames_rendered :frames, progress :points',
        ConditionExpression: '#status = :rendering',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':frames': chunk.frames,
          ':points': chunk.progressPoints,
          ':rendering': HYPERFRAMES_RENDER_STATUS.rendering,
        },
      }),
    )
    .catch((error: unknown) => {
      // A render that ended meanwhile (failed by another chunk, deleted) keeps its record as it is.
      if ((error as { name?: string }).name !== 'ConditionalCheckFailedException') throw error;
    });
}

/** Newest first. */
export const listHyperframesRenders = (
  workspaceId: string,
  page: { limit: number; token?: string | undefined },
) => listJobRecords(hyperframesRenderRecords, workspaceId, page);
