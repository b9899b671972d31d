import { videoBatchView } from '../../videos/video-batches.js';
import { batchIdPath, batchItemsQuery } from '../../videos/video-requests.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';

export const handler = apiHandler(
  'VideoBatchesGet',
  { path: batchIdPath, query: batchItemsQuery },
  async ({ path, query, principal }) =>
    respond.ok(await videoBatchView(principal.workspaceId, path.batch_id, query.limit, query.token)),
);
