/**
 * Asset batches: many direct uploads started by one request, completed one by one or all at once.
 * Completing a batch enqueues one message per pending item; the batch worker completes each, and
 * the batch closes (and fires its callback once) when every item is ready or failed.
 */
import { enqueueBatchItems } from '../batches/batch-queue.js';
import {
  BATCH_KINDS,
  type BatchRecord,
  batchItemsPartition,
  batchNotFound,
  createBatch,
  getBatch,
  newBatchId,
} from '../batches/batches.js';
import { BULK_STATUS, type BulkStatus, type BulkStatusEntry, bulkStatuses } from '../batches/bulk-status.js';
import { ConflictError, InvalidParameterError, NotFoundError } from '../core/errors.js';
import { queryPage } from '../core/repository.js';
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

/** The members of a batch, in item order, one page at a time. */
export async function batchMembers(workspaceId: string, batchId: string, limit: number, token?: string) {
  const page = await queryPage<AssetItem>({
    partition: batchItemsPartition(workspaceId, batchId),
    index: 'gsi1',
    limit,
    token,
    binding: `${workspaceId}:AssetBatchItems:${batchId}`,
    newestFirst: false,
  });
  return { items: page.items.map(toAssetRecord), nextToken: page.nextToken };
}

async function allBatchMembers(workspaceId: string, batchId: string): Promise<AssetRecord[]> {
  const members: AssetRecord[] = [];
  let token: string | undefined;
  do {
    const page = await batchMembers(workspaceId, batchId, 100, token);
    members.push(...page.items);
    token = page.nextToken ?? undefined;
  } while (token);
  return members;
}

async function requireAssetBatch(workspaceId: string, batchId: string): Promise<BatchRecord> {
  const batch = await getBatch(workspaceId, batchId);
  if (!batch || batch.kind !== BATCH_KINDS.assetUploads) throw batchNotFound(batchId);
  return batch;
}

/**
 * Queues completion of every pending item of a batch; returns the batch. Completing a batch that
 * has nothing pending left is a no-op, so the call is safe to repeat.
 */
export async function completeBatch(workspaceId: string, batchId: string): Promise<BatchRecord> {
  const batch = await requireAssetBatch(workspaceId, batchId);
  const pending = (await allBatchMembers(workspaceId, batchId)).filter(
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

export async function assetBatchView(workspaceId: string, batchId: string, limit: number, token?: string) {
  const batch = await requireAssetBatch(workspaceId, batchId);
  const page = await batchMembers(workspaceId, batchId, limit, token);
  // Counts come from the batch's own counters: one read however large the batch.
  const completed = batch.succeeded;
  const failed = batch.failed;
  return {
    batch_id: batch.batch_id,
    title: batch.title,
    status: batch.status,
    total_items: batch.total_items,
    counts_by_status: { queued: batch.total_items - completed - failed, processing: 0, completed, failed },
    created_at: batch.created_at,
    completed_at: batch.completed_at,
    items: page.items.map((asset) => {
      const { batch_id: _batchId, ...entry } = bulkEntry(asset);
      return entry;
    }),
    has_more: page.nextToken !== null,
    next_token: page.nextToken,
  };
}

export function assetStatuses(workspaceId: string, assetIds: readonly string[], batchIds: readonly string[]) {
  return bulkStatuses(
    {
      get: (assetId) => getAsset(workspaceId, assetId),
      members: async (batchId) => {
        const batch = await getBatch(workspaceId, batchId);
        return batch?.kind === BATCH_KINDS.assetUploads ? allBatchMembers(workspaceId, batchId) : undefined;
      },
      entry: bulkEntry,
    },
    assetIds,
    batchIds,
  );
}
