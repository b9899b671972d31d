import { z } from 'zod';
import { idListParam, limitParam, outboundUrlParam, tokenParam, userText } from '../../core/validation.js';
import { directUploadFile } from './schemas.js';

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
