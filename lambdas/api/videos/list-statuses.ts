import { checkStatusIdCount } from '../../batches/bulk-status.js';
import { videoStatuses } from '../../videos/video-batches.js';
import { videoStatusesQuery } from '../../videos/video-requests.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';

/** `GET /v3/videos/statuses?video_ids=…&batch_ids=…`: one entry per video, batches expanded. */
export const handler = apiHandler(
  'VideoStatusesList',
  { query: videoStatusesQuery },
  async ({ query, principal }) => {
    checkStatusIdCount(query.video_ids, query.batch_ids, 'video_ids');
    return respond.list(await videoStatuses(principal.workspaceId, query.video_ids, query.batch_ids), null);
  },
);
