import { listVideosQuery } from '../../videos/video-requests.js';
import { videoView } from '../../videos/video-views.js';
import { listVideos } from '../../videos/videos.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';

/** Newest first; `folder_id` and `title` (case-insensitive substring) filter. */
export const handler = apiHandler('VideoList', { query: listVideosQuery }, async ({ query, principal }) => {
  const page = await listVideos(
    principal.workspaceId,
    { folderId: query.folder_id, title: query.title },
    query.limit,
    query.token,
  );
  return respond.list(await Promise.all(page.items.map(videoView)), page.nextToken);
});
