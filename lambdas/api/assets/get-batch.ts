import { assetBatchView } from '../../assets/asset-batches.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { batchIdPath, batchItemsQuery } from './batch-schemas.js';

export const handler = apiHandler(
  'AssetBatchesGet',
  { path: batchIdPath, query: batchItemsQuery },
  async ({ path, query, principal }) =>
    respond.ok(await assetBatchView(principal.workspaceId, path.batch_id, query.limit, query.token)),
);
