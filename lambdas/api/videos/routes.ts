/** Videos: this area's rows of the route table (lambdas/api/routes.ts), with the endpoints that serve them. */
import { checkStatusIdCount } from '../../batches/bulk-status.js';
import { createVideo } from '../../videos/create-video.js';
import { deleteVideo } from '../../videos/delete-video.js';
import { createVideoBatch, videoBatchView, videoStatuses } from '../../videos/video-batches.js';
import {
  batchIdPath,
  batchItemsQuery,
  createVideoBatchBody,
  createVideoBody,
  listVideosQuery,
  videoIdPath,
  videoStatusesQuery,
} from '../../videos/video-requests.js';
import { scenesDocument, videoView } from '../../videos/video-views.js';
import { listVideos, requireVideo, videoNotFound } from '../../videos/videos.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { apiCreditCreate, areaRoutes, paidCreate, row } from '../route-rows.js';
import {
  videoBatchBody,
  videoBatchCreatedBody,
  videoBody,
  videoCreatedBody,
  videoDeletedBody,
  videoListBody,
  videoScenesBody,
  videoStatusListBody,
} from './schemas.js';

/** Newest first; `folder_id` and `title` (case-insensitive substring) filter. */
const videoList = endpoint(
  { query: listVideosQuery },
  async ({ query, principal }) => {
    const page = await listVideos(
      principal.workspaceId,
      { folderId: query.folder_id, title: query.title },
      query.limit,
      query.token,
    );
    return respond.list(await Promise.all(page.items.map(videoView)), page.nextToken);
  },
  { response: videoListBody },
);

/** `POST /v3/videos`: 200 with the new video's id; poll `GET /v3/videos/{video_id}` or wait for the webhook. */
const videoCreate = endpoint(
  { body: createVideoBody },
  async ({ body, principal }) => {
    const video = await createVideo({ workspaceId: principal.workspaceId }, body);
    return respond.ok({ video_id: video.video_id, status: video.status, output_format: video.output_format });
  },
  { response: videoCreatedBody },
);

/** 202: the batch and one placeholder video per item; each is created by the batch worker. */
const videoBatchesCreate = endpoint(
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
  { successStatus: 202, response: videoBatchCreatedBody },
);

const videoBatchesGet = endpoint(
  { path: batchIdPath, query: batchItemsQuery },
  async ({ path, query, principal }) =>
    respond.ok(await videoBatchView(principal.workspaceId, path.batch_id, query.limit, query.token)),
  { response: videoBatchBody },
);

/** `GET /v3/videos/statuses?video_ids=…&batch_ids=…`: one entry per video, batches expanded. */
const videoStatusesList = endpoint(
  { query: videoStatusesQuery },
  async ({ query, principal }) => {
    checkStatusIdCount(query.video_ids, query.batch_ids, 'video_ids');
    return respond.list(await videoStatuses(principal.workspaceId, query.video_ids, query.batch_ids), null);
  },
  { response: videoStatusListBody },
);

const videoGet = endpoint(
  { path: videoIdPath },
  async ({ path, principal }) =>
    respond.ok(await videoView(await requireVideo(principal.workspaceId, path.video_id))),
  { response: videoBody },
);

const videoDelete = endpoint(
  { path: videoIdPath },
  async ({ path, principal }) => {
    if (!(await deleteVideo(principal.workspaceId, path.video_id))) throw videoNotFound();
    return respond.ok({ id: path.video_id, deleted: true });
  },
  { response: videoDeletedBody },
);

/** The scenes document, with the spec's `{error: null, data}` envelope. */
const videoScenesGet = endpoint(
  { path: videoIdPath },
  async ({ path, principal }) =>
    respond.okWithNullError(scenesDocument(await requireVideo(principal.workspaceId, path.video_id))),
  { response: videoScenesBody },
);

export const AREA_ROUTES = areaRoutes('videos', [
  row('GET', '/v3/videos', 'VideoList', 'List videos', ['videos:read'], 'read', { endpoint: videoList }),
  row('POST', '/v3/videos', 'VideoCreate', 'Create a video', ['videos:write'], 'heavy', {
    ...paidCreate,
    endpoint: videoCreate,
  }),
  row(
    'POST',
    '/v3/videos/batches',
    'VideoBatchesCreate',
    'Create videos in a batch',
    ['videos:write'],
    'heavy',
    { ...apiCreditCreate, endpoint: videoBatchesCreate },
  ),
  row(
    'GET',
    '/v3/videos/batches/{batch_id}',
    'VideoBatchesGet',
    'Get a video batch',
    ['videos:read'],
    'status',
    { endpoint: videoBatchesGet },
  ),
  row('GET', '/v3/videos/statuses', 'VideoStatusesList', 'Bulk video statuses', ['videos:read'], 'status', {
    endpoint: videoStatusesList,
  }),
  row('GET', '/v3/videos/{video_id}', 'VideoGet', 'Get a video', ['videos:read'], 'status', {
    endpoint: videoGet,
  }),
  row('DELETE', '/v3/videos/{video_id}', 'VideoDelete', 'Delete a video', ['videos:write'], 'write', {
    endpoint: videoDelete,
  }),
  row(
    'GET',
    '/v3/videos/{video_id}/scenes',
    'VideoScenesGet',
    "Read a video's scenes document",
    ['videos:read'],
    'read',
    { endpoint: videoScenesGet },
  ),
]);
