/**
 * Background removals: one record per `POST /v3/background-removals`, each one run of the
 * `background-removal` job (background-removal-job.ts). A record holds what the request asked for
 * (the layers), where its source is, what the job made, and how it ended.
 *
 * Statuses are the reference's: `pending` (accepted, not started), `processing`, `completed`,
 * `failed`, and `deleted` (a soft delete: the record stays, its media is gone, it is no longer listed).
 */
import { createHash } from 'node:crypto';
import type { JobBilling } from '../billing/credits.js';
import { NotFoundError } from '../core/errors.js';
import { nowSeconds } from '../core/ids.js';
import { deleteExistingItem, getItem, putNewItem } from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import { discardJobMedia, jobRecords, listJobRecords } from '../jobs/job-records.js';
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

type BackgroundRemovalIds = Pick<BackgroundRemovalRecord, 'workspace_id' | 'background_removal_id'>;

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

/**
 * The records of background removals. Soft-deleted: a `deleted` removal is still read (a repeated
 * `request_id` finds it, and `GET` says it was deleted), its layers and stored source are gone.
 */
export const backgroundRemovalRecords = jobRecords<BackgroundRemovalRecord, 'background_removal_id'>({
  resourceType: RESOURCE_TYPES.backgroundRemoval,
  idField: 'background_removal_id',
  listName: 'BackgroundRemovalList',
  notFound: backgroundRemovalNotFound,
  statuses: { ...BACKGROUND_REMOVAL_STATUS, running: BACKGROUND_REMOVAL_STATUS.processing },
  deletedReadable: true,
  deletedFields: { outputs: null },
  discard: (record) =>
    discardJobMedia(
      record.workspace_id,
      [record.source.owned ? record.source.key : null],
      backgroundRemovalMediaKeys.prefix(record),
    ),
});

export const {
  key: backgroundRemovalKey,
  item: backgroundRemovalItem,
  get: getBackgroundRemoval,
  require: requireBackgroundRemoval,
  updateRunning: updateRunningBackgroundRemoval,
  fail: failBackgroundRemoval,
  remove: deleteBackgroundRemoval,
} = backgroundRemovalRecords;

/** Newest first. */
export const listBackgroundRemovals = (
  workspaceId: string,
  page: { limit: number; token?: string | undefined },
  listName?: string,
) => listJobRecords(backgroundRemovalRecords, workspaceId, page, listName);
