import { apiHandler } from '../../core/api-handler.js';
import { respond } from '../../core/http.js';
import { deleteVideo } from '../../videos/delete-video.js';
import { videoIdPath } from '../../videos/video-requests.js';
import { videoNotFound } from '../../videos/videos.js';

export const handler = apiHandler('VideoDelete', { path: videoIdPath }, async ({ path, principal }) => {
  if (!(await deleteVideo(principal.workspaceId, path.video_id))) throw videoNotFound();
  return respond.ok({ id: path.video_id, deleted: true });
});
