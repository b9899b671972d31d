/** HyperFrames: this area's rows of the route table (lambdas/api/routes.ts). */
import { areaRoutes, paidCreate, row } from '../route-rows.js';

export const AREA_ROUTES = areaRoutes('hyperframes', [
  row(
    'GET',
    '/v3/hyperframes/renders',
    'HyperframesRenderList',
    'List renders',
    ['hyperframes:read'],
    'read',
  ),
  row(
    'POST',
    '/v3/hyperframes/renders',
    'HyperframesRenderCreate',
    'Render a composition bundle',
    ['hyperframes:write'],
    'heavy',
    paidCreate,
  ),
  row(
    'GET',
    '/v3/hyperframes/renders/{render_id}',
    'HyperframesRenderGet',
    'Get a render',
    ['hyperframes:read'],
    'status',
  ),
  row(
    'DELETE',
    '/v3/hyperframes/renders/{render_id}',
    'HyperframesRenderDelete',
    'Delete a render',
    ['hyperframes:write'],
    'write',
  ),
]);
