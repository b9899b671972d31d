/** AI clipping: this area's rows of the route table (lambdas/api/routes.ts). */
import { areaRoutes, paidCreate, row } from '../route-rows.js';

export const AREA_ROUTES = areaRoutes('ai-clipping', [
  row('GET', '/v3/ai-clipping', 'AiClippingList', 'List AI clipping jobs', ['ai_clipping:read'], 'read'),
  row(
    'POST',
    '/v3/ai-clipping',
    'AiClippingCreate',
    'Clip a long video into shorts',
    ['ai_clipping:write'],
    'heavy',
    paidCreate,
  ),
  row(
    'GET',
    '/v3/ai-clipping/{job_id}',
    'AiClippingGet',
    'Get an AI clipping job',
    ['ai_clipping:read'],
    'status',
  ),
  row(
    'DELETE',
    '/v3/ai-clipping/{job_id}',
    'AiClippingDelete',
    'Delete an AI clipping job',
    ['ai_clipping:write'],
    'write',
  ),
]);
