/** Video agent: this area's rows of the route table (lambdas/api/routes.ts). */
import { areaRoutes, paidCreate, row } from '../route-rows.js';

export const AREA_ROUTES = areaRoutes('video-agents', [
  row('GET', '/v3/video-agents', 'VideoAgentList', 'List video agent sessions', ['video_agent:read'], 'read'),
  row(
    'POST',
    '/v3/video-agents',
    'VideoAgentCreate',
    'Create a video from a prompt',
    ['video_agent:write'],
    'heavy',
    paidCreate,
  ),
  row(
    'GET',
    '/v3/video-agents/styles',
    'VideoAgentStylesList',
    'List video agent styles',
    ['video_agent:read'],
    'read',
  ),
  row(
    'GET',
    '/v3/video-agents/{session_id}',
    'VideoAgentGet',
    'Get a video agent session',
    ['video_agent:read'],
    'status',
  ),
  row(
    'POST',
    '/v3/video-agents/{session_id}',
    'VideoAgentSend',
    'Revise a session (message or edit plan)',
    ['video_agent:write'],
    'heavy',
    { billing: 'credits' },
  ),
  row(
    'GET',
    '/v3/video-agents/{session_id}/resources/{resource_id}',
    'VideoAgentResourcesGet',
    'Get a session resource',
    ['video_agent:read'],
    'read',
  ),
  row(
    'POST',
    '/v3/video-agents/{session_id}/stop',
    'VideoAgentStop',
    'Stop a session',
    ['video_agent:write'],
    'write',
  ),
  row(
    'GET',
    '/v3/video-agents/{session_id}/videos',
    'VideoAgentVideosList',
    'List videos of a session',
    ['video_agent:read'],
    'read',
  ),
]);
