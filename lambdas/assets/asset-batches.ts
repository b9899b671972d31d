/**
 * Asset batches: many direct uploads started by one request, completed one by one or all at once.
 * Completing a batch enqueues one message per pending item; the batch worker completes each, and
 * the batch closes (and fires its callback once) when every item is ready or failed.
 */

import {
  allBatchMembers,
  type BatchFamily,
  batchStatuses,
  batchView,
  requireBatch,
} from '../batches/batch-members.js';
import { enqueueBatchItems } from '../batches/batch-queue.js';
import { BATCH_KINDS, type BatchRecord, createBatch, newBatchId } from '../batches/batches.js';
import { BULK_STATUS, type BulkStatus, type BulkStatusEntry } from '../batches/bulk-status.js';
import { ConflictError, InvalidParameterError, NotFoundError } from '../core/errors.js';
import { encryptionForMediaWrite } from '../media/encryption-policy.js';
import {
  ASSET_STATUS,
  type AssetItem,
  type AssetRecord,
  completeDirectUpload,
  createPendingAsset,
  type DirectUploadRequest,
  getAsset,
  markUploadFailed,
  toAssetRecord,
} from './assets.js';
import { presignDirectUpload } from './direct-uploads.js';

export function bulkStatusOf(asset: AssetRecord): BulkStatus {
  if (asset.status === ASSET_STATUS.ready) return BULK_STATUS.completed;
  if (asset.status === ASSET_STATUS.failed) return BULK_STATUS.failed;
  return BULK_STATUS.queued;
}

export function bulkEntry(asset: AssetRecord): BulkStatusEntry {
  return {
    video_id: asset.asset_id,
    status: bulkStatusOf(asset),
    batch_id: asset.batch_id,
    item_index: asset.item_index,
    error: asset.failure_message ? { code: 'upload_failed', message: asset.failure_message } : null,
  };
}

export async function createDirectUploadBatch(
  workspaceId: string,
  owner: string,
  files: readonly Omit<DirectUploadRequest, 'batchId' | 'itemIndex'>[],
  options: { title?: string | undefined; callbackUrl?: string | undefined },
) {
  // Refuse before writing anything when the workspace's encryption forbids media writes.
  const encryption = await encryptionForMediaWrite(workspaceId);
  const batchId = newBatchId();
  const items = [];
  for (const [itemIndex, file] of files.entries()) {
    const asset = await createPendingAsset(workspaceId, owner, { ...file, batchId, itemIndex });
    items.push({ item_index: itemIndex, ...(await presignDirectUpload(asset, encryption)) });
  }
  await createBatch(workspaceId, batchId, {
    kind: BATCH_KINDS.assetUploads,
    totalItems: files.length,
    title: options.title,
    callbackUrl: options.callbackUrl,
  });
  return { batch_id: batchId, items };
}

const ASSET_BATCHES: BatchFamily<AssetRecord, AssetItem> = {
  kind: BATCH_KINDS.assetUploads,
  listName: 'AssetBatchItems',
  get: getAsset,
  toRecord: toAssetRecord,
  entry: bulkEntry,
  // An item waits for its upload and is completed in one step: it is never seen processing.
  uncounted: 'queued',
};

/**
 * Queues completion of every pending item of a batch; returns the batch. Completing a batch that
 * has nothing pending left is a no-op, so the call is safe to repeat.
 */
export async function completeBatch(workspaceId: string, batchId: string): Promise<BatchRecord> {
  const batch = await requireBatch(ASSET_BATCHES, workspaceId, batchId);
  const pending = (await allBatchMembers(ASSET_BATCHES, workspaceId, batchId)).filter(
    (asset) => asset.status === ASSET_STATUS.pendingUpload,
  );
  await enqueueBatchItems(
    pending.map((asset) => ({ kind: 'asset.complete', workspace_id: workspaceId, asset_id: asset.asset_id })),
  );
  return batch;
}

/**
 * The batch worker's step for one item: complete it. An item that cannot be completed (nothing was
 * uploaded, or the bytes do not match) ends failed, so the batch always closes; an item already
 * settled is counted again (idempotently), which repairs a count lost to a crash.
 */
export async function completeBatchItem(workspaceId: string, assetId: string): Promise<void> {
  try {
    await completeDirectUpload(workspaceId, assetId);
  } catch (error) {
    if (error instanceof InvalidParameterError || error instanceof NotFoundError) return; // failed, or deleted
    if (error instanceof ConflictError && error.code === 'resource_not_ready') {
      const asset = await getAsset(workspaceId, assetId);
      if (asset)
        await markUploadFailed(asset, 'Nothing was uploaded for this item before its batch was completed.');
      return;
    }
    throw error; // transient: the message is retried
  }
}

export function assetBatchView(workspaceId: string, batchId: string, limit: number, token?: string) {
  return batchView(ASSET_BATCHES, workspaceId, batchId, limit, token);
}

export function assetStatuses(workspaceId: string, assetIds: readonly string[], batchIds: readonly string[]) {
  return batchStatuses(ASSET_BATCHES, workspaceId, assetIds, batchIds);
}
