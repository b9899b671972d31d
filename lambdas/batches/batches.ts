/**
 * Batches: many items created by one request, each running independently. A batch counts its
 * items' terminal outcomes with atomic counters; the update that brings the count to the total
 * also closes the batch (a conditional write, so exactly one caller does) and publishes
 * `batch.completed` once, which carries the batch's one-off callback.
 *
 * A batch request's payloads wait in the media bucket for the batch worker (they may carry inline
 * media far larger than a queue message) and are removed when the batch closes.
 */
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { z } from 'zod';
import { documents } from '../core/aws-clients.js';
import { config } from '../core/config.js';
import { NotFoundError } from '../core/errors.js';
import { ID_PATTERN, newId, nowSeconds } from '../core/ids.js';
import { getItem, putNewItem, updateExistingItem } from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import { publishEvent } from '../events/domain-events.js';
import { mediaKeys } from '../media/media-keys.js';
import { deleteMediaObject, putMediaObject, readMediaObject } from '../media/media-store.js';

export const BATCH_STATUS = { processing: 'processing', completed: 'completed', failed: 'failed' } as const;
export type BatchStatus = (typeof BATCH_STATUS)[keyof typeof BATCH_STATUS];

export const BATCH_KINDS = {
  assetUploads: 'asset_uploads',
  videos: 'videos',
  videoTranslations: 'video_translations',
  lipsyncs: 'lipsyncs',
} as const;
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

type BatchItem = BatchRecord & {
  pk: string;
  sk: string;
  /** Ids of the items already counted (a DynamoDB string set). */
  counted_items?: Set<string>;
  /** Whether `batch.completed` was published. */
  announced?: boolean;
};

const batchKey = (workspaceId: string, batchId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.batch, batchId);

/** GSI1 partition holding a batch's items in `item_index` order. */
export const batchItemsPartition = (workspaceId: string, batchId: string) =>
  `WS#${workspaceId}#BATCH_ITEMS#${batchId}`;
export const batchItemSortKey = (itemIndex: number) => `ITEM#${String(itemIndex).padStart(6, '0')}`;

function toRecord(item: BatchItem): BatchRecord {
  const { pk: _pk, sk: _sk, counted_items: _counted, announced: _announced, ...record } = item;
  return record;
}

export const batchNotFound = (batchId: string) =>
  new NotFoundError(`Batch ${batchId} not found.`, 'batch_not_found', 'batch_id');

export interface NewBatch {
  kind: BatchKind;
  totalItems: number;
  /** The request's items, kept for the batch worker until the batch closes (`batchPayloads`). */
  payloads?: readonly unknown[];
  title?: string | undefined;
  callbackUrl?: string | undefined;
}

/** A new batch id: items are written under it before the batch itself (see `createBatch`). */
export function newBatchId(): string {
  return newId();
}

const payloadsKey = (workspaceId: string, batchId: string) =>
  mediaKeys.input(workspaceId, `batch-${batchId}.json`);

/**
 * A batch request's payloads, for the batch worker; undefined once the batch has closed (every item
 * ended and counted, its payloads removed): a late repeat of an item's message has nothing to do.
 */
export async function batchPayloads(workspaceId: string, batchId: string): Promise<unknown[] | undefined> {
  const batch = await getBatch(workspaceId, batchId);
  if (batch && batch.status !== BATCH_STATUS.processing) return undefined;
  const payloads = await readMediaObject(payloadsKey(workspaceId, batchId));
  return z.array(z.unknown()).parse(JSON.parse(payloads.toString('utf8')));
}

/**
 * Records a batch whose items already exist, and keeps its payloads. Written last, so a request that
 * fails halfway leaves no batch that waits for items that were never made (and no payloads).
 */
export async function createBatch(
  workspaceId: string,
  batchId: string,
  input: NewBatch,
): Promise<BatchRecord> {
  const batch: BatchRecord = {
    batch_id: batchId,
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
  const payloads = payloadsKey(workspaceId, batchId);
  if (input.payloads) {
    await putMediaObject(
      workspaceId,
      payloads,
      Buffer.from(JSON.stringify(input.payloads)),
      'application/json',
    );
  }
  try {
    if (!(await putNewItem({ ...batchKey(workspaceId, batch.batch_id), ...batch }))) {
      throw new Error(`Batch id collision: ${batch.batch_id}`);
    }
  } catch (error) {
    if (input.payloads) await deleteMediaObject(payloads);
    throw error;
  }
  return batch;
}

export async function getBatch(workspaceId: string, batchId: string): Promise<BatchRecord | undefined> {
  if (!ID_PATTERN.test(batchId)) return undefined;
  const item = await getItem<BatchItem>(batchKey(workspaceId, batchId), true);
  return item ? toRecord(item) : undefined;
}

/**
 * Counts one item's terminal outcome, once per item however often it is called: the counter update
 * records the item's id and is conditional on not having seen it. Safe to repeat after a crash
 * between an item's transition and its count, which is how every caller recovers.
 */
export async function recordBatchItemOutcome(
  workspaceId: string,
  batchId: string,
  itemId: string,
  outcome: 'succeeded' | 'failed',
): Promise<void> {
  let batch: BatchItem | undefined;
  try {
    const result = await documents().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: batchKey(workspaceId, batchId),
        UpdateExpression: 'ADD #outcome :one, counted_items :item',
        ConditionExpression: 'attribute_exists(pk) AND NOT contains(counted_items, :itemId)',
        ExpressionAttributeNames: { '#outcome': outcome },
        ExpressionAttributeValues: { ':one': 1, ':item': new Set([itemId]), ':itemId': itemId },
        ReturnValues: 'ALL_NEW',
      }),
    );
    batch = result.Attributes as BatchItem | undefined;
  } catch (error) {
    if (!(error instanceof ConditionalCheckFailedException)) throw error;
    // Counted before (or no such batch): the batch may still need closing or announcing.
    batch = await getItem<BatchItem>(batchKey(workspaceId, batchId), true);
  }
  if (batch) await closeIfComplete(batch);
}

/**
 * Closes a batch whose items are all terminal and announces it. The close is a conditional write,
 * so one writer closes; the announcement is retried by any later caller until it is recorded, with
 * a stable event id (`batch.completed:<batch_id>`), so receivers can drop a repeat.
 */
async function closeIfComplete(batch: BatchItem): Promise<void> {
  if ((batch.succeeded ?? 0) + (batch.failed ?? 0) < batch.total_items) return;
  const key = batchKey(batch.workspace_id, batch.batch_id);
  let closed: BatchItem | undefined = batch;
  if (batch.status === BATCH_STATUS.processing) {
    const status = (batch.succeeded ?? 0) > 0 ? BATCH_STATUS.completed : BATCH_STATUS.failed;
    closed =
      (await updateExistingItem<BatchItem>(key, { status, completed_at: nowSeconds() }, [], {
        status: BATCH_STATUS.processing,
      })) ?? (await getItem<BatchItem>(key, true));
  }
  if (!closed || closed.announced) return;
  await deleteMediaObject(payloadsKey(closed.workspace_id, closed.batch_id));
  await publishEvent({
    event_id: `batch.completed:${closed.batch_id}`,
    event_type: 'batch.completed',
    workspace_id: closed.workspace_id,
    entity_id: closed.batch_id,
    ...(closed.callback_url ? { callback: { url: closed.callback_url, id: null } } : {}),
    event_data: {
      batch_id: closed.batch_id,
      kind: closed.kind,
      status: closed.status,
      total_items: closed.total_items,
      succeeded: closed.succeeded ?? 0,
      failed: closed.failed ?? 0,
    },
  });
  await updateExistingItem(key, { announced: true });
}
