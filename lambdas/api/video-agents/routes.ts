/** Video agent: this area's rows of the route table (lambdas/api/routes.ts), with the endpoints that serve them. */

import { stylePreviewUrl } from '../../catalog/style-preview-media.js';
import { decodeCursor, encodeCursor } from '../../core/cursor.js';
import { InvalidParameterError, NotFoundError } from '../../core/errors.js';
import { presignMediaDownload } from '../../media/media-store.js';
import { listSessions, requireSession, stopRun } from '../../video-agents/agent-sessions.js';
import { stylesTagged, styleThumbnailKey } from '../../video-agents/agent-styles.js';
import {
  resourceView,
  sessionCreatedView,
  sessionListItem,
  sessionView,
  styleView,
} from '../../video-agents/agent-views.js';
import { createSession, sendFollowUp } from '../../video-agents/video-agent-requests.js';
import { videoView } from '../../videos/video-views.js';
import { getVideo } from '../../videos/videos.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { areaRoutes, paidCreate, row } from '../route-rows.js';
import { videoListBody } from '../videos/schemas.js';
import {
  createSessionBody,
  followUpBody,
  followUpResultBody,
  listDraftsQuery,
  listSessionsQuery,
  listStylesQuery,
  resourceBody,
  resourceNotFoundMessage,
  resourcePath,
  sessionBody,
  sessionCreatedBody,
  sessionIdPath,
  sessionListBody,
  stoppedBody,
  styleListBody,
} from './schemas.js';

/** A page of an in-memory list (styles, a session's drafts): the cursor holds the offset, bound to the list. */
async function pageOf<T>(items: readonly T[], binding: string, limit: number, token: string | undefined) {
  let offset = 0;
  if (token !== undefined) {
    const position = await decodeCursor(binding, token);
    if (typeof position.offset !== 'number' || !Number.isInteger(position.offset) || position.offset < 0)
      throw new InvalidParameterError(
        'The pagination token is invalid: pass a next_token of this same list.',
        'token',
      );
    offset = position.offset;
  }
  const page = items.slice(offset, offset + limit);
  const nextToken =
    offset + limit < items.length ? await encodeCursor(binding, { offset: offset + limit }) : null;
  return { page, nextToken };
}

const videoAgentCreate = endpoint(
  { body: createSessionBody },
  async ({ body, principal }) =>
    respond.ok(sessionCreatedView(await createSession(principal.workspaceId, body))),
  { response: sessionCreatedBody },
);

const videoAgentList = endpoint(
  { query: listSessionsQuery },
  async ({ query, principal }) => {
    const page = await listSessions(principal.workspaceId, query.limit, query.token);
    return respond.list(page.items.map(sessionListItem), page.nextToken);
  },
  { response: sessionListBody },
);

const videoAgentGet = endpoint(
  { path: sessionIdPath },
  async ({ path, principal }) =>
    respond.ok(sessionView(await requireSession(principal.workspaceId, path.session_id))),
  { response: sessionBody },
);

const videoAgentSend = endpoint(
  { path: sessionIdPath, body: followUpBody },
  async ({ path, body, principal }) => {
    const session = await requireSession(principal.workspaceId, path.session_id);
    const { session: after, runId, videoId } = await sendFollowUp(session, body);
    return respond.ok({
      run_id: runId,
      session_id: after.session_id,
      ...(after.title ? { title: after.title } : {}),
      ...(videoId ? { video_id: videoId } : {}),
      status: after.status,
    });
  },
  { response: followUpResultBody },
);

const videoAgentStop = endpoint(
  { path: sessionIdPath },
  async ({ path, principal }) => {
    const stopped = await stopRun(await requireSession(principal.workspaceId, path.session_id));
    return respond.ok({ session_id: stopped.session_id, status: stopped.status });
  },
  { response: stoppedBody },
);

/** The session's drafts, newest first, as videos. */
const videoAgentVideos = endpoint(
  { path: sessionIdPath, query: listDraftsQuery },
  async ({ path, query, principal }) => {
    const session = await requireSession(principal.workspaceId, path.session_id);
    const newestFirst = [...session.drafts].reverse();
    const { page, nextToken } = await pageOf(
      newestFirst,
      `${principal.workspaceId}:VideoAgentVideos:${session.session_id}`,
      query.limit,
      query.token,
    );
    const videos = await Promise.all(page.map((videoId) => getVideo(principal.workspaceId, videoId)));
    // A draft deleted through DELETE /v3/videos is no longer listed.
    const views = await Promise.all(videos.flatMap((video) => (video ? [videoView(video)] : [])));
    return respond.list(views, nextToken);
  },
  { response: videoListBody },
);

const videoAgentResource = endpoint(
  { path: resourcePath },
  async ({ path, principal }) => {
    const session = await requireSession(principal.workspaceId, path.session_id);
    const resource = session.resources.find((entry) => entry.resource_id === path.resource_id);
    if (!resource)
      throw new NotFoundError(resourceNotFoundMessage(path.resource_id), 'resource_not_found', 'resource_id');
    return respond.ok(await resourceView(session, resource));
  },
  { response: resourceBody },
);

const videoAgentStyles = endpoint(
  { query: listStylesQuery },
  async ({ query }) => {
    const { page, nextToken } = await pageOf(
      stylesTagged(query.tag),
      `VideoAgentStyles:${query.tag ?? ''}`,
      query.limit,
      query.token,
    );
    const views = await Promise.all(
      page.map(async (style) => {
        const [thumbnailUrl, previewVideoUrl] = await Promise.all([
          presignMediaDownload(styleThumbnailKey(style.style_id)),
          stylePreviewUrl(style),
        ]);
        return styleView(style, { thumbnailUrl, previewVideoUrl }, '16:9');
      }),
    );
    return respond.list(views, nextToken);
  },
  { response: styleListBody },
);

export const AREA_ROUTES = areaRoutes('video-agents', [
  row(
    'GET',
    '/v3/video-agents',
    'VideoAgentList',
    'List video agent sessions',
    ['video_agent:read'],
    'read',
    {
      endpoint: videoAgentList,
    },
  ),
  row(
    'POST',
    '/v3/video-agents',
    'VideoAgentCreate',
    'Create a video from a prompt',
    ['video_agent:write'],
    'heavy',
    { ...paidCreate, endpoint: videoAgentCreate },
  ),
  row(
    'GET',
    '/v3/video-agents/styles',
    'VideoAgentStylesList',
    'List video agent styles',
    ['video_agent:read'],
    'read',
    { endpoint: videoAgentStyles },
  ),
  row(
    'GET',
    '/v3/video-agents/{session_id}',
    'VideoAgentGet',
    'Get a video agent session',
    ['video_agent:read'],
    'status',
    { endpoint: videoAgentGet },
  ),
  row(
    'POST',
    '/v3/video-agents/{session_id}',
    'VideoAgentSend',
    'Revise a session (message or edit plan)',
    ['video_agent:write'],
    'heavy',
    { billing: 'credits', endpoint: videoAgentSend },
  ),
  row(
    'GET',
    '/v3/video-agents/{session_id}/resources/{resource_id}',
    'VideoAgentResourcesGet',
    'Get a session resource',
    ['video_agent:read'],
    'read',
    { endpoint: videoAgentResource },
  ),
  row(
    'POST',
    '/v3/video-agents/{session_id}/stop',
    'VideoAgentStop',
    'Stop a session',
    ['video_agent:write'],
    'write',
    { endpoint: videoAgentStop },
  ),
  row(
    'GET',
    '/v3/video-agents/{session_id}/videos',
    'VideoAgentVideosList',
    'List videos of a session',
    ['video_agent:read'],
    'read',
    { endpoint: videoAgentVideos },
  ),
]);
