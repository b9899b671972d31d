/** Overdubs: this area's rows of the route table (lambdas/api/routes.ts). */
import { areaRoutes, paidCreate, row } from '../route-rows.js';

export const AREA_ROUTES = areaRoutes('overdubs', [
  row('GET', '/v3/overdubs', 'OverdubList', 'List overdubs', ['lipsync:read'], 'read'),
  row(
    'POST',
    '/v3/overdubs',
    'OverdubCreate',
    'Dub a video into another voice',
    ['lipsync:write'],
    'heavy',
    paidCreate,
  ),
  row('GET', '/v3/overdubs/{overdub_id}', 'OverdubGet', 'Get an overdub', ['lipsync:read'], 'status'),
  row('PATCH', '/v3/overdubs/{overdub_id}', 'OverdubUpdate', 'Update an overdub', ['lipsync:write'], 'write'),
  row(
    'DELETE',
    '/v3/overdubs/{overdub_id}',
    'OverdubDelete',
    'Delete an overdub',
    ['lipsync:write'],
    'write',
  ),
]);
