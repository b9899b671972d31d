import { videoIdPath } from '../../videos/video-requests.js';
import { videoView } from '../../videos/video-views.js';
import { requireVideo } from '../../videos/videos.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';

export const handler = apiHandler('VideoGet', { path: videoIdPath }, async ({ path, principal }) =>
  respond.ok(await videoView(await requireVideo(principal.workspaceId, path.video_id))),
);
