import { completeBatch } from '../../assets/asset-batches.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { completeBatchBody } from './batch-schemas.js';

/** `POST /v3/assets/complete/batches`: completes every pending item of a batch, asynchronously. */
export const handler = apiHandler(
  'AssetCompleteBatchesCreate',
  { body: completeBatchBody },
  async ({ body, principal }) => {
    const batch = await completeBatch(principal.workspaceId, body.batch_id);
    return respond.accepted({ batch_id: batch.batch_id, status: batch.status });
  },
  { successStatus: 202 },
);
