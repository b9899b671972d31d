import { createVideo } from '../../videos/create-video.js';
import { createVideoBody } from '../../videos/video-requests.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';

/** `POST /v3/videos`: 200 with the new video's id; poll `GET /v3/videos/{video_id}` or wait for the webhook. */
export const handler = apiHandler('VideoCreate', { body: createVideoBody }, async ({ body, principal }) => {
  const video = await createVideo({ workspaceId: principal.workspaceId }, body);
  return respond.ok({ video_id: video.video_id, status: video.status, output_format: video.output_format });
});
