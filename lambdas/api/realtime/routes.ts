/** Avatar realtime: this area's rows of the route table (lambdas/api/routes.ts). */
import { areaRoutes, paidCreate, row } from '../route-rows.js';

export const AREA_ROUTES = areaRoutes('realtime', [
  row(
    'POST',
    '/v3/avatar-realtime',
    'AvatarRealtimeCreate',
    'Start a realtime avatar stream',
    ['realtime:write'],
    'heavy',
    paidCreate,
  ),
  row(
    'GET',
    '/v3/avatar-realtime/{stream_id}',
    'AvatarRealtimeGet',
    'Get a realtime session',
    ['realtime:read'],
    'status',
  ),
  row(
    'DELETE',
    '/v3/avatar-realtime/{stream_id}',
    'AvatarRealtimeDelete',
    'End a realtime session',
    ['realtime:write'],
    'write',
  ),
  row(
    'POST',
    '/v3/avatar-realtime/{stream_id}/text',
    'AvatarRealtimeTextCreate',
    'Send text for the avatar to speak',
    ['realtime:write'],
    'write',
  ),
  row(
    'GET',
    '/v3/avatar-realtime/{stream_id}/words',
    'AvatarRealtimeWordsList',
    'Word timings of a stream',
    ['realtime:read'],
    'read',
  ),
]);
