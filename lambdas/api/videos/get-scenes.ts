import { videoIdPath } from '../../videos/video-requests.js';
import { scenesDocument } from '../../videos/video-views.js';
import { requireVideo } from '../../videos/videos.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';

/** The scenes document, with the spec's `{error: null, data}` envelope. */
export const handler = apiHandler('VideoScenesGet', { path: videoIdPath }, async ({ path, principal }) =>
  respond.okWithNullError(scenesDocument(await requireVideo(principal.workspaceId, path.video_id))),
);
