/** Background removal: this area's rows of the route table (lambdas/api/routes.ts). */
import { areaRoutes, paidCreate, row } from '../route-rows.js';

export const AREA_ROUTES = areaRoutes('background-removals', [
  row(
    'GET',
    '/v3/background-removals',
    'BackgroundRemovalList',
    'List background removals',
    ['background_removal:read'],
    'read',
  ),
  row(
    'POST',
    '/v3/background-removals',
    'BackgroundRemovalCreate',
    'Remove the background of a video or image',
    ['background_removal:write'],
    'heavy',
    paidCreate,
  ),
  row(
    'GET',
    '/v3/background-removals/{job_id}',
    'BackgroundRemovalGet',
    'Get a background removal',
    ['background_removal:read'],
    'status',
  ),
  row(
    'DELETE',
    '/v3/background-removals/{job_id}',
    'BackgroundRemovalDelete',
    'Delete a background removal',
    ['background_removal:write'],
    'write',
  ),
]);
