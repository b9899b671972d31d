/**
 * Lipsyncs: one record per `POST /v3/lipsyncs` (or `POST /v3/overdubs`, the same resource under its
 * name before April 2026, or a batch item), each one run of the `lipsync` job (lipsync-job.ts). A record
 * holds what the request asked for, where its media is, what the step made, and how it ended.
 *
 * Statuses are the reference's: `pending` (accepted, not started), `running`, `completed`, `failed`.
 */
import { createHash } from 'node:crypto';
import { type BatchFamily, batchStatuses } from '../batches/batch-members.js';
import {
  BATCH_KINDS,
  batchItemSortKey,
  batchItemsPartition,
  recordBatchItemOutcome,
} from '../batches/batches.js';
import { type BulkStatusEntry, mediaJobEntry } from '../batches/bulk-status.js';
import { BILLING_STATE, type JobBilling, refundReservation } from '../billing/credits.js';
import { NotFoundError } from '../core/errors.js';
import { ID_PATTERN, nowSeconds } from '../core/ids.js';
import {
  deleteExistingItem,
  getItem,
  queryPage,
  type StoredItem,
  updateExistingItem,
} from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import type { DubOutputs } from '../engines/dub-render.js';
import { mediaKeys } from '../media/media-keys.js';
import { deleteMediaObject, listMediaKeys } from '../media/media-store.js';
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

export const lipsyncKey = (workspaceId: string, lipsyncId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.lipsync, lipsyncId);

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

export function lipsyncItem(record: Omit<LipsyncRecord, keyof JobBilling>): StoredItem {
  return {
    ...lipsyncKey(record.workspace_id, record.lipsync_id),
    ...(record.batch_id !== null && record.item_index !== null
      ? {
          gsi1pk: batchItemsPartition(record.workspace_id, record.batch_id),
          gsi1sk: batchItemSortKey(record.item_index),
        }
      : {}),
    ...record,
  };
}

/** The id of a batch's item: the same for every delivery of its message. */
export function batchItemLipsyncId(batchId: string, itemIndex: number): string {
  return createHash('sha256').update(`lipsync:${batchId}:${itemIndex}`).digest('hex').slice(0, 32);
}

export function toLipsyncRecord(item: LipsyncItem): LipsyncRecord {
  const { pk: _pk, sk: _sk, ...record } = item;
  return record;
}

export async function getLipsync(
  workspaceId: string,
  lipsyncId: string,
  consistent = false,
): Promise<LipsyncRecord | undefined> {
  if (!ID_PATTERN.test(lipsyncId)) return undefined;
  const item = await getItem<LipsyncItem>(lipsyncKey(workspaceId, lipsyncId), consistent);
  return item ? toLipsyncRecord(item) : undefined;
}

export async function requireLipsync(
  workspaceId: string,
  lipsyncId: string,
  origin: LipsyncOrigin = LIPSYNC_ORIGINS.lipsyncs,
): Promise<LipsyncRecord> {
  const record = await getLipsync(workspaceId, lipsyncId);
  if (!record) throw lipsyncNotFound(lipsyncId, origin);
  return record;
}

/** Newest first; both families list every record. */
export async function listLipsyncs(
  workspaceId: string,
  page: { limit: number; token?: string | undefined },
  listName: string,
) {
  const result = await queryPage<LipsyncItem>({
    partition: keys.workspacePartition(workspaceId),
    sortKeyPrefix: `${RESOURCE_TYPES.lipsync}#`,
    limit: page.limit,
    token: page.token,
    binding: `${workspaceId}:${listName}`,
  });
  return { items: result.items.map(toLipsyncRecord), nextToken: result.nextToken };
}

/** Sets fields of a record that is still running (not ended, not deleted); the record after, else undefined. */
export async function updateRunningLipsync(
  record: LipsyncIds,
  fields: Partial<LipsyncRecord>,
): Promise<LipsyncRecord | undefined> {
  for (const status of [LIPSYNC_STATUS.running, LIPSYNC_STATUS.pending]) {
    const item = await updateExistingItem<LipsyncItem>(
      lipsyncKey(record.workspace_id, record.lipsync_id),
      fields,
      [],
      { status },
    );
    if (item) return toLipsyncRecord(item);
  }
  return undefined;
}

export async function renameLipsync(
  workspaceId: string,
  lipsyncId: string,
  title: string,
  origin: LipsyncOrigin,
): Promise<LipsyncRecord> {
  await requireLipsync(workspaceId, lipsyncId, origin);
  const item = await updateExistingItem<LipsyncItem>(lipsyncKey(workspaceId, lipsyncId), { title });
  if (!item) throw lipsyncNotFound(lipsyncId, origin);
  return toLipsyncRecord(item);
}

export async function completeLipsync(
  record: LipsyncRecord,
  fields: Pick<LipsyncRecord, 'outputs' | 'duration' | 'engines' | 'audio_cut_seconds'>,
): Promise<LipsyncRecord | undefined> {
  return updateRunningLipsync(record, {
    ...fields,
    status: LIPSYNC_STATUS.completed,
    progress: 100,
    completed_at: nowSeconds(),
  });
}

export async function failLipsync(
  record: LipsyncRecord,
  failure: { code: string; message: string },
): Promise<LipsyncRecord | undefined> {
  return updateRunningLipsync(record, {
    status: LIPSYNC_STATUS.failed,
    failure_code: failure.code,
    failure_message: failure.message,
    completed_at: nowSeconds(),
  });
}

export const isEnded = (record: Pick<LipsyncRecord, 'status'>) =>
  record.status === LIPSYNC_STATUS.completed || record.status === LIPSYNC_STATUS.failed;

const DELETE_ATTEMPTS = 3;

/**
 * Removes the record, its outputs and the media the request stored (assets and videos it used stay).
 * A lipsync deleted before it ended gets its credits back and counts as failed in its batch; its
 * workflow finds no record at its next step and removes what it had written.
 */
export async function deleteLipsync(
  workspaceId: string,
  lipsyncId: string,
  origin: LipsyncOrigin,
): Promise<void> {
  const key = lipsyncKey(workspaceId, lipsyncId);
  for (let attempt = 1; attempt <= DELETE_ATTEMPTS; attempt++) {
    const record = await getLipsync(workspaceId, lipsyncId, true);
    if (!record) throw lipsyncNotFound(lipsyncId, origin);
    if (record.billing_state === BILLING_STATE.reserved) await refundReservation(key, workspaceId, record);
    if (!(await deleteExistingItem(key, { billing_state: BILLING_STATE.reserved }))) continue;
    if (record.batch_id && !isEnded(record))
      await recordBatchItemOutcome(workspaceId, record.batch_id, lipsyncId, 'failed');
    const objects = [
      ...[record.video, record.audio]
        .filter((media) => media.owned && media.key.startsWith(mediaKeys.input(workspaceId, '')))
        .map((media) => media.key),
      ...(await listMediaKeys(lipsyncMediaKeys.prefix(record))),
    ];
    await Promise.all(objects.map((objectKey) => deleteMediaObject(objectKey)));
    return;
  }
  throw new Error(`Lipsync ${lipsyncId} kept being admitted while it was deleted`);
}

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
