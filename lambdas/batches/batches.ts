/**
 * Batches: many items created by one request, each running independently. A batch counts its
 * items' terminal outcomes with atomic counters; the update that brings the count to the total
 * also closes the batch (a conditional write, so exactly one caller does) and publishes
 * `batch.completed` once, which carries the batch's one-off callback.
 */
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documents } from '../core/aws-clients.js';
import { config } from '../core/config.js';
import { NotFoundError } from '../core/errors.js';
import { ID_PATTERN, newId, nowSeconds } from '../core/ids.js';
import { getItem, putNewItem, updateExistingItem } from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import { publishEvent } from '../events/domain-events.js';

export const BATCH_STATUS = { processing: 'processing', completed: 'completed', failed: 'failed' } as const;
export type BatchStatus = (typeof BATCH_STATUS)[keyof typeof BATCH_STATUS];

export const BATCH_KINDS = { assetUploads: 'asset_uploads' } as const;
export type BatchKind = (typeof BATCH_KINDS)[keyof typeof BATCH_KINDS];

export interface BatchRecord {
  batch_id: string;
  workspace_id: string;
  kind: BatchKind;
  title: string | null;
  callback_url: string | null;
  total_items: number;
  succeeded: number;
  failed: number;
  status: BatchStatus;
  created_at: number;
  completed_at: number | null;
}

type BatchItem = BatchRecord & { pk: string; sk: string };

const batchKey = (workspaceId: string, batchId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.batch, batchId);

/** GSI1 partition holding a batch's items in `item_index` order. */
export const batchItemsPartition = (workspaceId: string, batchId: string) =>
  `WS#${workspaceId}#BATCH_ITEMS#${batchId}`;
export const batchItemSortKey = (itemIndex: number) => `ITEM#${String(itemIndex).padStart(6, '0')}`;

function toRecord(item: BatchItem): BatchRecord {
  const { pk: _pk, sk: _sk, ...record } = item;
  return record;
}

export const batchNotFound = (batchId: string) =>
  new NotFoundError(`Batch ${batchId} not found.`, 'batch_not_found', 'batch_id');

export interface NewBatch {
  kind: BatchKind;
  totalItems: number;
  title?: string | undefined;
  callbackUrl?: string | undefined;
}

export async function createBatch(workspaceId: string, input: NewBatch): Promise<BatchRecord> {
  const batch: BatchRecord = {
    batch_id: newId(),
    workspace_id: workspaceId,
    kind: input.kind,
    title: input.title ?? null,
    callback_url: input.callbackUrl ?? null,
    total_items: input.totalItems,
    succeeded: 0,
    failed: 0,
    status: BATCH_STATUS.processing,
    created_at: nowSeconds(),
    completed_at: null,
  };
  if (!(await putNewItem({ ...batchKey(workspaceId, batch.batch_id), ...batch }))) {
    throw new Error(`Batch id collision: ${batch.batch_id}`);
  }
  return batch;
}

export async function getBatch(workspaceId: string, batchId: string): Promise<BatchRecord | undefined> {
  if (!ID_PATTERN.test(batchId)) return undefined;
  const item = await getItem<BatchItem>(batchKey(workspaceId, batchId), true);
  return item ? toRecord(item) : undefined;
}

/**
 * Counts one item's terminal outcome. Call exactly once per item, from the transition that made it
 * terminal (a conditional write), so a retried message never counts twice.
 */
export async function recordBatchItemOutcome(
  workspaceId: string,
  batchId: string,
  outcome: 'succeeded' | 'failed',
): Promise<void> {
  const result = await documents().send(
    new UpdateCommand({
      TableName: config().tableName,
      Key: batchKey(workspaceId, batchId),
      UpdateExpression: 'ADD #outcome :one',
      ExpressionAttributeNames: { '#outcome': outcome },
      ExpressionAttributeValues: { ':one': 1 },
      ConditionExpression: 'attribute_exists(pk)',
      ReturnValues: 'ALL_NEW',
    }),
  );
  const batch = result.Attributes as BatchItem | undefined;
  if (!batch || batch.succeeded + batch.failed < batch.total_items) return;
  const status = batch.succeeded > 0 ? BATCH_STATUS.completed : BATCH_STATUS.failed;
  // Only the writer that moves the batch out of `processing` publishes: exactly one callback.
  const closed = await updateExistingItem<BatchItem>(
    batchKey(workspaceId, batchId),
    { status, completed_at: nowSeconds() },
    [],
    { status: BATCH_STATUS.processing },
  );
  if (!closed) return;
  await publishEvent({
    event_type: 'batch.completed',
    workspace_id: workspaceId,
    entity_id: batchId,
    ...(closed.callback_url ? { callback: { url: closed.callback_url, id: null } } : {}),
    event_data: {
      batch_id: batchId,
      kind: closed.kind,
      status,
      total_items: closed.total_items,
      succeeded: closed.succeeded,
      failed: closed.failed,
    },
  });
}
