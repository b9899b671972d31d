import { z } from 'zod';
import { BATCH_STATUS } from '../../batches/batches.js';
import { BULK_STATUS } from '../../batches/bulk-status.js';
import { idListParam, limitParam, outboundUrlParam, tokenParam, userText } from '../../core/validation.js';
import { dataEnvelope, listEnvelope, unixSeconds } from '../pipeline/response-envelopes.js';
import { directUploadFile, directUploadResponse } from './schemas.js';

export const directUploadBatchBody = z.strictObject({
  files: z
    .array(directUploadFile)
    .min(1, { error: 'must hold 1 to 100 files' })
    .max(100, { error: 'must hold 1 to 100 files' }),
  title: userText(z.string().min(1).max(500)).optional(),
  callback_url: outboundUrlParam.optional(),
});

export const completeBatchBody = z.strictObject({ batch_id: z.string().min(1) });

export const batchIdPath = z.strictObject({ batch_id: z.string().min(1) });

export const batchItemsQuery = z.strictObject({ limit: limitParam(100, 100), token: tokenParam });

export const statusesQuery = z
  .strictObject({ asset_ids: idListParam, batch_ids: idListParam })
  .refine((query) => query.asset_ids.length + query.batch_ids.length > 0, {
    error: 'name at least one id in asset_ids or batch_ids',
    path: ['asset_ids'],
  });

/** `POST /v3/assets/direct-uploads/batches`: the batch, and each file's direct upload in file order. */
export const directUploadBatchResponseBody = dataEnvelope(
  z.object({
    batch_id: z.string(),
    items: z.array(
      directUploadResponse.extend({
        item_index: z.number().int().nonnegative().meta({ description: 'The index of the file in `files`.' }),
      }),
    ),
  }),
);

const batchStatus = z.enum(Object.values(BATCH_STATUS));

/** `POST /v3/assets/complete/batches`: accepted; the items complete asynchronously. */
export const completeBatchResponseBody = dataEnvelope(
  z.object({ batch_id: z.string(), status: batchStatus }),
);

const itemError = z
  .object({ code: z.string(), message: z.string() })
  .nullable()
  .meta({ description: 'Why the upload failed; null unless `failed`.' });

/** An asset's status: an item waits for its upload (`queued`) and completes in one step. */
const assetBulkStatus = z.enum([BULK_STATUS.queued, BULK_STATUS.completed, BULK_STATUS.failed]);

/** `GET /v3/assets/batches/{batch_id}` (`batchView` of batches/batch-members.ts), one page of its items. */
export const assetBatchBody = dataEnvelope(
  z.object({
    batch_id: z.string(),
    title: z.string().nullable(),
    status: batchStatus,
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
        video_id: z
          .string()
          .meta({ description: "The asset's id (the field is named so for every job family)." }),
        status: assetBulkStatus,
        item_index: z.number().int().nonnegative(),
        error: itemError,
      }),
    ),
    has_more: z.boolean(),
    next_token: z
      .string()
      .nullable()
      .meta({ description: 'Pass as `token` for the next page of items; null on the last.' }),
  }),
);

/** `GET /v3/assets/statuses`: one entry per asset id, then every member of each batch id. */
export const assetStatusesBody = listEnvelope(
  z.object({
    video_id: z.string().nullable().meta({
      description: "The asset's id (the field is named so for every job family); null for an unknown batch.",
    }),
    status: z.enum([...assetBulkStatus.options, BULK_STATUS.notFound]).meta({
      description: '`not_found` for an id or batch id that names nothing of the workspace.',
    }),
    batch_id: z.string().nullable(),
    item_index: z.number().int().nonnegative().nullable(),
    error: itemError,
  }),
);
