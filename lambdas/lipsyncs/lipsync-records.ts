/**
 * Lipsyncs: one record per `POST /v3/lipsyncs` (or `POST /v3/overdubs`, the same resource under its
 * name before April 2026, or a batch item), each one run of the `lipsync` job (lipsync-job.ts). A record
 * holds what the request asked for, where its media is, what the step made, and how it ended.
 *
 * Statuses are the reference's: `pending` (accepted, not started), `running`, `completed`, `failed`.
 */
import { createHash } from 'node:crypto';
import { type BatchFamily, batchStatuses } from '../batches/batch-members.js';
import { BATCH_KINDS } from '../batches/batches.js';
import { type BulkStatusEntry, mediaJobEntry } from '../batches/bulk-status.js';
import type { JobBilling } from '../billing/credits.js';
import { NotFoundError } from '../core/errors.js';
import { nowSeconds } from '../core/ids.js';
import { RESOURCE_TYPES } from '../core/table-schema.js';
import type { DubOutputs } from '../engines/dub-render.js';
import { discardJobMedia, jobRecords, listJobRecords } from '../jobs/job-records.js';
import type { JobSource } from '../videos/source-transcript.js';

export const LIPSYNC_STATUS = {
  pending: 'pending',
  running: 'running',
  completed: 'completed',
  failed: 'failed',
} as const;
export type LipsyncStatus = (typeof LIPSYNC_STATUS)[keyof typeof LIPSYNC_STATUS];

export const LIPSYNC_MODES = ['speed', 'precision'] as const;
export type LipsyncMode = (typeof LIPSYNC_MODES)[number];
export const LIPSYNC_FPS_MODES = ['vfr', 'cfr', 'passthrough'] as const;

/**
 * The route family a record was created through: it picks the webhook events (`lipsync.*` or
 * `overdub.*`). Every record is readable through both families.
 */
export const LIPSYNC_ORIGINS = { lipsyncs: 'lipsyncs', overdubs: 'overdubs' } as const;
export type LipsyncOrigin = (typeof LIPSYNC_ORIGINS)[keyof typeof LIPSYNC_ORIGINS];

export interface LipsyncOptions {
  mode: LipsyncMode;
  start_ms: number | null;
  end_ms: number | null;
  fps_mode: (typeof LIPSYNC_FPS_MODES)[number] | null;
  enable_caption: boolean;
  keep_the_same_format: boolean;
  enable_dynamic_duration: boolean;
  disable_music_track: boolean;
  enable_speech_enhancement: boolean;
  enable_watermark: boolean;
}

/** A lipsync's video or audio. */
export type LipsyncMedia = JobSource;

export interface LipsyncRecord extends JobBilling {
  lipsync_id: string;
  workspace_id: string;
  origin: LipsyncOrigin;
  status: LipsyncStatus;
  title: string;
  options: LipsyncOptions;
  video: LipsyncMedia;
  audio: LipsyncMedia;
  folder_id: string | null;
  callback_url: string | null;
  callback_id: string | null;
  batch_id: string | null;
  item_index: number | null;
  progress: number;
  /** What did each part, and what was found (`lips`, `visemes`, `captions`, `audio`). */
  engines: Record<string, string>;
  outputs: DubOutputs | null;
  /** Seconds of the output video. */
  duration: number | null;
  /**
   * Seconds of the given audio left out because it was longer than the part re-dubbed and the picture
   * could not grow (`enable_dynamic_duration: false`, or an `end_time` before the video's end); 0 when
   * none was; null until known.
   */
  audio_cut_seconds: number | null;
  /** What the lipsync costs once the step has measured the video (at most what was reserved). */
  credits_due?: number;
  failure_code: string | null;
  failure_message: string | null;
  created_at: number;
  completed_at: number | null;
}

export type LipsyncItem = LipsyncRecord & { pk: string; sk: string };
type LipsyncIds = Pick<LipsyncRecord, 'workspace_id' | 'lipsync_id'>;

export const lipsyncMediaKeys = {
  prefix: (record: LipsyncIds) => `workspaces/${record.workspace_id}/lipsyncs/${record.lipsync_id}/`,
  work: (record: LipsyncIds, name: string) =>
    `workspaces/${record.workspace_id}/lipsyncs/${record.lipsync_id}/work/${name}`,
  output: (record: LipsyncIds, name: string) =>
    `workspaces/${record.workspace_id}/lipsyncs/${record.lipsync_id}/${name}`,
};

/** 404 naming the path parameter of the family asked through. */
export const lipsyncNotFound = (lipsyncId: string, origin: LipsyncOrigin = LIPSYNC_ORIGINS.lipsyncs) =>
  origin === LIPSYNC_ORIGINS.overdubs
    ? new NotFoundError(`Overdub ${lipsyncId} not found.`, 'not_found', 'overdub_id')
    : new NotFoundError(`Lipsync ${lipsyncId} not found.`, 'not_found', 'lipsync_id');

export function notStarted() {
  return {
    status: LIPSYNC_STATUS.pending,
    progress: 0,
    engines: {},
    outputs: null,
    duration: null,
    audio_cut_seconds: null,
    failure_code: null,
    failure_message: null,
    created_at: nowSeconds(),
    completed_at: null,
  } satisfies Partial<LipsyncRecord>;
}

/** The id of a batch's item: the same for every delivery of its message. */
export function batchItemLipsyncId(batchId: string, itemIndex: number): string {
  return createHash('sha256').update(`lipsync:${batchId}:${itemIndex}`).digest('hex').slice(0, 32);
}

/** The records of lipsyncs (and overdubs, the same records). */
export const lipsyncRecords = jobRecords<LipsyncRecord, 'lipsync_id'>({
  resourceType: RESOURCE_TYPES.lipsync,
  idField: 'lipsync_id',
  listName: 'LipsyncList',
  notFound: (id) => lipsyncNotFound(id),
  statuses: LIPSYNC_STATUS,
  // The media the request stored (assets and videos it used stay), and everything the job wrote.
  discard: (record) =>
    discardJobMedia(
      record.workspace_id,
      [record.video, record.audio].map((media) => (media.owned ? media.key : null)),
      lipsyncMediaKeys.prefix(record),
    ),
});

export const {
  key: lipsyncKey,
  item: lipsyncItem,
  toRecord: toLipsyncRecord,
  get: getLipsync,
  updateRunning: updateRunningLipsync,
  complete: completeLipsync,
  fail: failLipsync,
  isEnded,
} = lipsyncRecords;

/** Newest first. */
export const listLipsyncs = (
  workspaceId: string,
  page: { limit: number; token?: string | undefined },
  listName?: string,
) => listJobRecords(lipsyncRecords, workspaceId, page, listName);

/** 404s name the path parameter of the family asked through. */
export const requireLipsync = (
  workspaceId: string,
  lipsyncId: string,
  origin: LipsyncOrigin = LIPSYNC_ORIGINS.lipsyncs,
): Promise<LipsyncRecord> =>
  lipsyncRecords.require(workspaceId, lipsyncId, (id) => lipsyncNotFound(id, origin));

/**
 * Deletes the record, its outputs and the media the request stored. A lipsync deleted before it ended
 * gets its credits back and counts as failed in its batch; its workflow finds no record at its next
 * step and removes what it had written.
 */
export const deleteLipsync = (workspaceId: string, lipsyncId: string, origin: LipsyncOrigin) =>
  lipsyncRecords.remove(workspaceId, lipsyncId, { notFound: (id) => lipsyncNotFound(id, origin) });

export const renameLipsync = (workspaceId: string, lipsyncId: string, title: string, origin: LipsyncOrigin) =>
  lipsyncRecords.rename(workspaceId, lipsyncId, title, {
    notFound: (id) => lipsyncNotFound(id, origin),
  });

/** Lipsyncs as batch members (`POST /v3/lipsyncs/batches`), for batch views and statuses. */
export const LIPSYNC_BATCH_FAMILY: BatchFamily<LipsyncRecord, LipsyncItem> = {
  kind: BATCH_KINDS.lipsyncs,
  listName: 'LipsyncBatchItems',
  get: (workspaceId, id) => getLipsync(workspaceId, id),
  toRecord: toLipsyncRecord,
  entry: (record) => mediaJobEntry(record.lipsync_id, record),
  uncounted: 'members',
};

/** `GET /v3/lipsyncs/statuses`: one entry per id, then the items of each batch. */
export function lipsyncStatuses(
  workspaceId: string,
  ids: readonly string[],
  batchIds: readonly string[],
): Promise<BulkStatusEntry[]> {
  return batchStatuses(LIPSYNC_BATCH_FAMILY, workspaceId, ids, batchIds);
}
