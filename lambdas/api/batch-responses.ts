/**
 * The answers of the batch routes every job family shares (`lambdas/batches/`: the batch view of
 * batch-members.ts, the bulk status entries of bulk-status.ts), as response schemas. A family names
 * the item statuses it can have and what its ids are; the shape is one.
 */
import { z } from 'zod';
import { BATCH_STATUS } from '../batches/batches.js';
import { BULK_STATUS } from '../batches/bulk-status.js';
import { dataEnvelope, listEnvelope, unixSeconds } from './pipeline/response-envelopes.js';

type BulkStatus = (typeof BULK_STATUS)[keyof typeof BULK_STATUS];
type ItemStatuses = readonly [BulkStatus, ...BulkStatus[]];

export const batchStatusResponse = z
  .enum(Object.values(BATCH_STATUS))
  .meta({ description: '`completed` once every item ended and one succeeded; `failed` if none did.' });

const itemErrorResponse = z
  .object({ code: z.string(), message: z.string() })
  .nullable()
  .meta({ description: 'Why the item failed; null unless `failed`.' });

/** `GET …/batches/{batch_id}`: the batch and one page of its items, by `item_index`. */
export function batchViewBody(itemStatuses: ItemStatuses, itemIdDescription: string) {
  return dataEnvelope(
    z.object({
      batch_id: z.string(),
      title: z.string().nullable(),
      status: batchStatusResponse,
      total_items: z.number().int().nonnegative(),
      counts_by_status: z
        .object({
          queued: z.number().int().nonnegative(),
          processing: z.number().int().nonnegative(),
          completed: z.number().int().nonnegative(),
          failed: z.number().int().nonnegative(),
        })
        .meta({ description: 'Items by status, over the whole batch.' }),
      created_at: unixSeconds,
      completed_at: unixSeconds.nullable().meta({ description: 'Null while the batch is processing.' }),
      items: z.array(
        z.object({
          video_id: z.string().meta({ description: itemIdDescription }),
          status: z.enum(itemStatuses),
          item_index: z.number().int().nonnegative(),
          error: itemErrorResponse,
        }),
      ),
      has_more: z.boolean(),
      next_token: z
        .string()
        .nullable()
        .meta({ description: 'Pass as `token` for the next page of items; null on the last.' }),
    }),
  );
}

/**
 * `GET …/statuses`: one entry per id asked for, then every item of each batch asked for; `not_found`
 * for an id or batch id that names nothing of the workspace.
 */
export function bulkStatusListBody(itemStatuses: ItemStatuses, itemIdDescription: string) {
  return listEnvelope(
    z.object({
      video_id: z
        .string()
        .nullable()
        .meta({ description: `${itemIdDescription}; null for a \`batch_ids\` entry that names no batch.` }),
      status: z.enum([...itemStatuses, BULK_STATUS.notFound]),
      batch_id: z.string().nullable().meta({ description: 'Set for the entries of a batch asked for.' }),
      item_index: z.number().int().nonnegative().nullable(),
      error: itemErrorResponse,
    }),
  );
}
