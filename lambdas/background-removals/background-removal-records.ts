/**
 * Background removals: one record per `POST /v3/background-removals`, each one run of the
 * `background-removal` job (background-removal-job.ts). A record holds what the request asked for
 * (the layers), where its source is, what the job made, and how it ended.
 *
 * Statuses are the reference's: `pending` (accepted, not started), `processing`, `completed`,
 * `failed`, and `deleted` (a soft delete: the record stays, its media is gone, it is no longer listed).
 */
import { createHash } from 'node:crypto';
import { BILLING_STATE, type JobBilling, refundReservation } from '../billing/credits.js';
import { NotFoundError } from '../core/errors.js';
import { ID_PATTERN, nowSeconds } from '../core/ids.js';
import {
  deleteExistingItem,
  getItem,
  putNewItem,
  queryPage,
  type StoredItem,
  updateExistingItem,
} from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import { deleteMediaObject, deleteMediaPrefix } from '../media/media-store.js';
import type { JobSource } from '../videos/source-transcript.js';

export const BACKGROUND_REMOVAL_STATUS = {
  pending: 'pending',
  processing: 'processing',
  completed: 'completed',
  failed: 'failed',
  deleted: 'deleted',
} as const;
export type BackgroundRemovalStatus =
  (typeof BACKGROUND_REMOVAL_STATUS)[keyof typeof BACKGROUND_REMOVAL_STATUS];

/** The layers a removal can make (`LAYER_FORMATS` of the segmentation engine says as what). */
export const BACKGROUND_REMOVAL_LAYERS = ['foreground', 'mask', 'background'] as const;
export type BackgroundRemovalLayer = (typeof BACKGROUND_REMOVAL_LAYERS)[number];

/**
 * The longest source one run processes: all three layers of 720p run at 8–14 frames per second on two
 * cores (bench/background-removal.ts), so 180 s of 25 fps takes 5–10 minutes; longer could outlast
 * the step's 15 minutes.
 */
export const MAX_SOURCE_SECONDS = 180;

/** The source video of a background removal. */
export type BackgroundRemovalSource = JobSource;

export interface BackgroundRemovalRecord extends JobBilling {
  background_removal_id: string;
  workspace_id: string;
  status: BackgroundRemovalStatus;
  title: string | null;
  /** The layers asked for, in the engine's order. */
  layers: BackgroundRemovalLayer[];
  /** The caller's dedup key (`request_id`), claimed for this removal (`claimRequestId`). */
  request_id: string | null;
  source: BackgroundRemovalSource;
  progress: number;
  /** Object keys of the layers made; null until completed. */
  outputs: Partial<Record<BackgroundRemovalLayer, string>> | null;
  /** Seconds of the source processed. */
  duration: number | null;
  /** What did the work, and how (for the curious and for support). */
  engines: Record<string, string>;
  /** The source minutes processed, charged at completion (at most the reservation). */
  credits_due?: number;
  failure_code: string | null;
  failure_message: string | null;
  created_at: number;
  completed_at: number | null;
  deleted_at?: number | null;
}

export type BackgroundRemovalItem = BackgroundRemovalRecord & { pk: string; sk: string };
type BackgroundRemovalIds = Pick<BackgroundRemovalRecord, 'workspace_id' | 'background_removal_id'>;

export const backgroundRemovalKey = (workspaceId: string, id: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.backgroundRemoval, id);

export const backgroundRemovalMediaKeys = {
  prefix: (record: BackgroundRemovalIds) =>
    `workspaces/${record.workspace_id}/background-removals/${record.background_removal_id}/`,
  output: (record: BackgroundRemovalIds, name: string) =>
    `workspaces/${record.workspace_id}/background-removals/${record.background_removal_id}/${name}`,
};

export const backgroundRemovalNotFound = (id: string) =>
  new NotFoundError(`Background removal ${id} not found.`, 'not_found', 'job_id');

const requestKey = (workspaceId: string, requestId: string) =>
  keys.resource(
    workspaceId,
    RESOURCE_TYPES.backgroundRemovalRequest,
    createHash('sha256').update(requestId).digest('hex'),
  );

/**
 * Records that `requestId` of the workspace made removal `id` (a conditional write): undefined when
 * this call claimed it, else the id of the removal that claimed it first.
 */
export async function claimRequestId(
  workspaceId: string,
  requestId: string,
  id: string,
): Promise<string | undefined> {
  const key = requestKey(workspaceId, requestId);
  if (await putNewItem({ ...key, background_removal_id: id, created_at: nowSeconds() })) return undefined;
  const claim = await getItem<{ pk: string; sk: string; background_removal_id: string }>(key, true);
  return claim?.background_removal_id ?? id;
}

/** Forgets a claim whose removal was never admitted (refused, or its media bad). */
export async function releaseRequestId(workspaceId: string, requestId: string): Promise<void> {
  await deleteExistingItem(requestKey(workspaceId, requestId));
}

/** The removal a `request_id` of the workspace made, if any (deleted ones included). */
export async function removalOfRequest(
  workspaceId: string,
  requestId: string,
): Promise<BackgroundRemovalRecord | undefined> {
  const claim = await getItem<{ pk: string; sk: string; background_removal_id: string }>(
    requestKey(workspaceId, requestId),
    true,
  );
  return claim ? getBackgroundRemoval(workspaceId, claim.background_removal_id, true) : undefined;
}

/** The fields of a record nothing has run for yet. */
export function notStarted() {
  return {
    status: BACKGROUND_REMOVAL_STATUS.pending,
    progress: 0,
    outputs: null,
    duration: null,
    engines: {},
    failure_code: null,
    failure_message: null,
    created_at: nowSeconds(),
    completed_at: null,
  } satisfies Partial<BackgroundRemovalRecord>;
}

export function backgroundRemovalItem(record: Omit<BackgroundRemovalRecord, keyof JobBilling>): StoredItem {
  return { ...backgroundRemovalKey(record.workspace_id, record.background_removal_id), ...record };
}

function toRecord(item: BackgroundRemovalItem): BackgroundRemovalRecord {
  const { pk: _pk, sk: _sk, ...record } = item;
  return record;
}

/** A removal of the workspace, deleted ones included. */
export async function getBackgroundRemoval(
  workspaceId: string,
  id: string,
  consistent = false,
): Promise<BackgroundRemovalRecord | undefined> {
  if (!ID_PATTERN.test(id)) return undefined;
  const item = await getItem<BackgroundRemovalItem>(backgroundRemovalKey(workspaceId, id), consistent);
  return item ? toRecord(item) : undefined;
}

export async function requireBackgroundRemoval(
  workspaceId: string,
  id: string,
): Promise<BackgroundRemovalRecord> {
  const record = await getBackgroundRemoval(workspaceId, id);
  if (!record) throw backgroundRemovalNotFound(id);
  return record;
}

/** Newest first; deleted removals are not listed. */
export async function listBackgroundRemovals(
  workspaceId: string,
  page: { limit: number; token?: string | undefined },
) {
  const result = await queryPage<BackgroundRemovalItem>({
    partition: keys.workspacePartition(workspaceId),
    sortKeyPrefix: `${RESOURCE_TYPES.backgroundRemoval}#`,
    limit: page.limit,
    token: page.token,
    binding: `${workspaceId}:BackgroundRemovalList`,
    keep: (item) => item.status !== BACKGROUND_REMOVAL_STATUS.deleted,
  });
  return { items: result.items.map(toRecord), nextToken: result.nextToken };
}

/** Sets fields of a record that is still running (not ended, not deleted); the record after, else undefined. */
export async function updateRunningBackgroundRemoval(
  record: BackgroundRemovalIds,
  fields: Partial<BackgroundRemovalRecord>,
): Promise<BackgroundRemovalRecord | undefined> {
  for (const status of [BACKGROUND_REMOVAL_STATUS.processing, BACKGROUND_REMOVAL_STATUS.pending]) {
    const item = await updateExistingItem<BackgroundRemovalItem>(
      backgroundRemovalKey(record.workspace_id, record.background_removal_id),
      fields,
      [],
      { status },
    );
    if (item) return toRecord(item);
  }
  return undefined;
}

export function failBackgroundRemoval(
  record: BackgroundRemovalRecord,
  failure: { code: string; message: string },
): Promise<BackgroundRemovalRecord | undefined> {
  return updateRunningBackgroundRemoval(record, {
    status: BACKGROUND_REMOVAL_STATUS.failed,
    failure_code: failure.code,
    failure_message: failure.message,
    completed_at: nowSeconds(),
  });
}

/**
 * Soft delete: the record stays as `deleted` (a repeated `request_id` still finds it), its layers and
 * the source the request stored are removed. A removal deleted before it ended gets its credits back;
 * its workflow finds no running record at its next write and removes what it had made.
 */
export async function deleteBackgroundRemoval(workspaceId: string, id: string): Promise<void> {
  const key = backgroundRemovalKey(workspaceId, id);
  // The status is written first, on the condition that it is still the one read: a run that ends
  // meanwhile then finds its removal gone (and removes what it stored), and a removal that had
  // ended keeps its charge. Only one deleted while it was still queued or running is refunded.
  for (let attempt = 0; attempt < 5; attempt++) {
    const record = await getBackgroundRemoval(workspaceId, id, true);
    if (!record) throw backgroundRemovalNotFound(id);
    if (record.status === BACKGROUND_REMOVAL_STATUS.deleted) return;
    const deleted = await updateExistingItem<BackgroundRemovalItem>(
      key,
      { status: BACKGROUND_REMOVAL_STATUS.deleted, outputs: null, deleted_at: nowSeconds() },
      [],
      { status: record.status },
    );
    if (!deleted) continue;
    const ended =
      record.status === BACKGROUND_REMOVAL_STATUS.completed ||
      record.status === BACKGROUND_REMOVAL_STATUS.failed;
    if (!ended && record.billing_state === BILLING_STATE.reserved)
      await refundReservation(key, workspaceId, record);
    await Promise.all([
      deleteMediaPrefix(backgroundRemovalMediaKeys.prefix(record)),
      record.source.owned ? deleteMediaObject(record.source.key) : Promise.resolve(),
    ]);
    return;
  }
  throw new Error(`Background removal ${id} kept changing while it was deleted`);
}
