/** Avatar realtime: this area's rows of the route table (lambdas/api/routes.ts). */
import {
  appendText,
  createStream,
  endStream,
  getStream,
  streamView,
  streamWordEvents,
} from '../../realtime/realtime-streams.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { areaRoutes, create, row } from '../route-rows.js';
import { createStreamBody, streamBody, streamIdPath, streamTextBody } from './schemas.js';

const realtimeCreate = endpoint(
  { body: createStreamBody },
  async ({ body, principal }) =>
    respond.ok(await streamView(await createStream(principal.workspaceId, body))),
  { response: streamBody },
);

const realtimeGet = endpoint(
  { path: streamIdPath },
  async ({ path, principal }) =>
    respond.ok(await streamView(await getStream(principal.workspaceId, path.stream_id))),
  { response: streamBody },
);

const realtimeDelete = endpoint(
  { path: streamIdPath },
  async ({ path, principal }) =>
    respond.ok(await streamView(await endStream(principal.workspaceId, path.stream_id))),
  { response: streamBody },
);

const realtimeText = endpoint(
  { path: streamIdPath, body: streamTextBody },
  async ({ path, body, principal }) =>
    respond.ok(
      await streamView(
        await appendText(principal.workspaceId, path.stream_id, body.delta, body.final ?? false),
      ),
    ),
  { response: streamBody },
);

const realtimeWords = endpoint({ path: streamIdPath }, async ({ path, principal, headers }) => {
  // Refuses an unknown stream before the event stream starts, while a status can still be sent.
  await getStream(principal.workspaceId, path.stream_id);
  // A reconnecting EventSource names the last word it got (deployed, one response lasts at most the
  // streaming function's timeout); anything else starts from the first word.
  const lastEventId = /^\d{1,9}$/.test(headers['last-event-id'] ?? '')
    ? Number(headers['last-event-id'])
    : -1;
  return respond.stream(
    'text/event-stream',
    streamWordEvents(principal.workspaceId, path.stream_id, lastEventId),
    { 'Cache-Control': 'no-cache' },
  );
});

export const AREA_ROUTES = areaRoutes('realtime', [
  row(
    'POST',
    '/v3/avatar-realtime',
    'AvatarRealtimeCreate',
    'Start a realtime avatar stream',
    ['realtime:write'],
    'heavy',
    // The spec prices no realtime streams: they are free (see README, "Realtime avatars").
    { ...create, endpoint: realtimeCreate },
  ),
  row(
    'GET',
    '/v3/avatar-realtime/{stream_id}',
    'AvatarRealtimeGet',
    'Get a realtime session',
    ['realtime:read'],
    'status',
    { endpoint: realtimeGet },
  ),
  row(
    'DELETE',
    '/v3/avatar-realtime/{stream_id}',
    'AvatarRealtimeDelete',
    'End a realtime session',
    ['realtime:write'],
    'write',
    { endpoint: realtimeDelete },
  ),
  row(
    'POST',
    '/v3/avatar-realtime/{stream_id}/text',
    'AvatarRealtimeTextCreate',
    'Send text for the avatar to speak',
    ['realtime:write'],
    'write',
    { endpoint: realtimeText },
  ),
  row(
    'GET',
    '/v3/avatar-realtime/{stream_id}/words',
    'AvatarRealtimeWordsList',
    'Word timings of a stream',
    ['realtime:read'],
    'read',
    { endpoint: realtimeWords, responseStreaming: true },
  ),
]);
