import { z } from 'zod';
import { BULK_STATUS } from '../../batches/bulk-status.js';
import { idListParam, limitParam, outboundUrlParam, tokenParam, userText } from '../../core/validation.js';
import { batchStatusResponse, batchViewBody, bulkStatusListBody } from '../batch-responses.js';
import { dataEnvelope } from '../pipeline/response-envelopes.js';
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

/** `POST /v3/assets/complete/batches`: accepted; the items complete asynchronously. */
export const completeBatchResponseBody = dataEnvelope(
  z.object({ batch_id: z.string(), status: batchStatusResponse }),
);

/** An asset's status: an item waits for its upload (`queued`) and completes in one step. */
const ASSET_ITEM_STATUSES = [BULK_STATUS.queued, BULK_STATUS.completed, BULK_STATUS.failed] as const;
const ASSET_ID = "The asset's id (the field is named so for every job family)";

export const assetBatchBody = batchViewBody(ASSET_ITEM_STATUSES, ASSET_ID);
export const assetStatusesBody = bulkStatusListBody(ASSET_ITEM_STATUSES, ASSET_ID);
