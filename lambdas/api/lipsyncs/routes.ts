/** Lipsync: this area's rows of the route table (lambdas/api/routes.ts). */
import { apiCreditCreate, areaRoutes, paidCreate, row } from '../route-rows.js';

export const AREA_ROUTES = areaRoutes('lipsyncs', [
  row('GET', '/v3/lipsyncs', 'LipsyncList', 'List lipsyncs', ['lipsync:read'], 'read'),
  row(
    'POST',
    '/v3/lipsyncs',
    'LipsyncCreate',
    'Replace audio and re-animate lips',
    ['lipsync:write'],
    'heavy',
    paidCreate,
  ),
  row(
    'POST',
    '/v3/lipsyncs/batches',
    'LipsyncBatchesCreate',
    'Create lipsyncs in a batch',
    ['lipsync:write'],
    'heavy',
    apiCreditCreate,
  ),
  row(
    'GET',
    '/v3/lipsyncs/batches/{batch_id}',
    'LipsyncBatchesGet',
    'Get a lipsync batch',
    ['lipsync:read'],
    'status',
  ),
  row(
    'GET',
    '/v3/lipsyncs/statuses',
    'LipsyncStatusesList',
    'Bulk lipsync statuses',
    ['lipsync:read'],
    'status',
  ),
  row('GET', '/v3/lipsyncs/{lipsync_id}', 'LipsyncGet', 'Get a lipsync', ['lipsync:read'], 'status'),
  row('PATCH', '/v3/lipsyncs/{lipsync_id}', 'LipsyncUpdate', 'Update a lipsync', ['lipsync:write'], 'write'),
  row('DELETE', '/v3/lipsyncs/{lipsync_id}', 'LipsyncDelete', 'Delete a lipsync', ['lipsync:write'], 'write'),
]);
