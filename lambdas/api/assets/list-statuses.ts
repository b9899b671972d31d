import { assetStatuses } from '../../assets/asset-batches.js';
import { checkStatusIdCount } from '../../batches/bulk-status.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { statusesQuery } from './batch-schemas.js';

/** `GET /v3/assets/statuses?asset_ids=…&batch_ids=…`: one entry per asset, batches expanded. */
export const handler = apiHandler(
  'AssetStatusesList',
  { query: statusesQuery },
  async ({ query, principal }) => {
    checkStatusIdCount(query.asset_ids, query.batch_ids, 'asset_ids');
    return respond.list(await assetStatuses(principal.workspaceId, query.asset_ids, query.batch_ids), null);
  },
);
