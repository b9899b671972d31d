import { createVideoBatch } from '../../videos/video-batches.js';
import { createVideoBatchBody } from '../../videos/video-requests.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';

/** 202: the batch and one placeholder video per item; each is created by the batch worker. */
export const handler = apiHandler(
  'VideoBatchesCreate',
  { body: createVideoBatchBody },
  async ({ body, principal }) => {
    const { batch, items } = await createVideoBatch(principal.workspaceId, body);
    return respond.accepted({
      batch_id: batch.batch_id,
      status: batch.status,
      total_items: batch.total_items,
      items: items.map((item) => ({
        item_index: item.item_index,
        video_id: item.video_id,
        status: 'queued',
      })),
    });
  },
  { successStatus: 202 },
);
