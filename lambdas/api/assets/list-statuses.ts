import { assetStatuses, MAX_STATUS_IDS } from '../../assets/asset-batches.js';
import { apiHandler } from '../../core/api-handler.js';
import { InvalidParameterError } from '../../core/errors.js';
import { respond } from '../../core/http.js';
import { statusesQuery } from './batch-schemas.js';

/** `GET /v3/assets/statuses?asset_ids=…&batch_ids=…`: one entry per asset, batches expanded. */
export const handler = apiHandler(
  'AssetStatusesList',
  { query: statusesQuery },
  async ({ query, principal }) => {
    if (query.asset_ids.length + query.batch_ids.length > MAX_STATUS_IDS) {
      // The spec's own wording.
      throw new InvalidParameterError(
        'At most 100 ids per request.',
        query.asset_ids.length > 0 ? 'asset_ids' : 'batch_ids',
      );
    }
    return respond.list(await assetStatuses(principal.workspaceId, query.asset_ids, query.batch_ids), null);
  },
);
