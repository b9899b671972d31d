import { deleteVideo } from '../../videos/delete-video.js';
import { videoIdPath } from '../../videos/video-requests.js';
import { videoNotFound } from '../../videos/videos.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';

export const handler = apiHandler('VideoDelete', { path: videoIdPath }, async ({ path, principal }) => {
  if (!(await deleteVideo(principal.workspaceId, path.video_id))) throw videoNotFound();
  return respond.ok({ id: path.video_id, deleted: true });
});
