/** Lipsync: this area's rows of the route table (lambdas/api/routes.ts). */
import { checkStatusIdCount } from '../../batches/bulk-status.js';
import { createLipsync } from '../../lipsyncs/create-lipsync.js';
import { createLipsyncBatch, lipsyncBatchView } from '../../lipsyncs/lipsync-batches.js';
import {
  deleteLipsync,
  LIPSYNC_ORIGINS,
  lipsyncStatuses,
  listLipsyncs,
  renameLipsync,
  requireLipsync,
} from '../../lipsyncs/lipsync-records.js';
import { lipsyncView } from '../../lipsyncs/lipsync-views.js';
import { batchIdPath, batchItemsQuery } from '../assets/batch-schemas.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { apiCreditCreate, areaRoutes, paidCreate, row } from '../route-rows.js';
import {
  createdLipsyncBody,
  createLipsyncBatchBody,
  createLipsyncBody,
  lipsyncBatchBody,
  lipsyncBatchCreatedBody,
  lipsyncBody,
  lipsyncDeletedBody,
  lipsyncIdPath,
  lipsyncListBody,
  lipsyncStatusesQuery,
  lipsyncStatusListBody,
  listLipsyncsQuery,
  updateLipsyncBody,
} from './schemas.js';

const ORIGIN = LIPSYNC_ORIGINS.lipsyncs;

const lipsyncList = endpoint(
  { query: listLipsyncsQuery },
  async ({ query, principal }) => {
    const page = await listLipsyncs(principal.workspaceId, query);
    return respond.list(await Promise.all(page.items.map(lipsyncView)), page.nextToken);
  },
  { response: lipsyncListBody },
);

const lipsyncCreate = endpoint(
  { body: createLipsyncBody },
  async ({ body, principal }) => {
    const record = await createLipsync({ workspaceId: principal.workspaceId, origin: ORIGIN }, body);
    return respond.ok({ lipsync_id: record.lipsync_id });
  },
  { response: createdLipsyncBody },
);

const lipsyncBatchCreate = endpoint(
  { body: createLipsyncBatchBody },
  async ({ body, principal }) => {
    const batch = await createLipsyncBatch(principal.workspaceId, body);
    return respond.accepted({ batch_id: batch.batch_id });
  },
  { successStatus: 202, response: lipsyncBatchCreatedBody },
);

const lipsyncBatchGet = endpoint(
  { path: batchIdPath, query: batchItemsQuery },
  async ({ path, query, principal }) =>
    respond.ok(await lipsyncBatchView(principal.workspaceId, path.batch_id, query.limit, query.token)),
  { response: lipsyncBatchBody },
);

const lipsyncStatusesList = endpoint(
  { query: lipsyncStatusesQuery },
  async ({ query, principal }) => {
    checkStatusIdCount(query.lipsync_ids, query.batch_ids, 'lipsync_ids');
    return respond.list(
      await lipsyncStatuses(principal.workspaceId, query.lipsync_ids, query.batch_ids),
      null,
    );
  },
  { response: lipsyncStatusListBody },
);

const lipsyncGet = endpoint(
  { path: lipsyncIdPath },
  async ({ path, principal }) =>
    respond.ok(await lipsyncView(await requireLipsync(principal.workspaceId, path.lipsync_id, ORIGIN))),
  { response: lipsyncBody },
);

const lipsyncUpdate = endpoint(
  { path: lipsyncIdPath, body: updateLipsyncBody },
  async ({ path, body, principal }) =>
    respond.ok(
      await lipsyncView(await renameLipsync(principal.workspaceId, path.lipsync_id, body.title, ORIGIN)),
    ),
  { response: lipsyncBody },
);

const lipsyncDelete = endpoint(
  { path: lipsyncIdPath },
  async ({ path, principal }) => {
    await deleteLipsync(principal.workspaceId, path.lipsync_id, ORIGIN);
    return respond.ok({ id: path.lipsync_id });
  },
  { response: lipsyncDeletedBody },
);

export const AREA_ROUTES = areaRoutes('lipsyncs', [
  row('GET', '/v3/lipsyncs', 'LipsyncList', 'List lipsyncs', ['lipsync:read'], 'read', {
    endpoint: lipsyncList,
  }),
  row(
    'POST',
    '/v3/lipsyncs',
    'LipsyncCreate',
    'Replace audio and re-animate lips',
    ['lipsync:write'],
    'heavy',
    { ...paidCreate, endpoint: lipsyncCreate },
  ),
  row(
    'POST',
    '/v3/lipsyncs/batches',
    'LipsyncBatchesCreate',
    'Create lipsyncs in a batch',
    ['lipsync:write'],
    'heavy',
    { ...apiCreditCreate, endpoint: lipsyncBatchCreate },
  ),
  row(
    'GET',
    '/v3/lipsyncs/batches/{batch_id}',
    'LipsyncBatchesGet',
    'Get a lipsync batch',
    ['lipsync:read'],
    'status',
    { endpoint: lipsyncBatchGet },
  ),
  row(
    'GET',
    '/v3/lipsyncs/statuses',
    'LipsyncStatusesList',
    'Bulk lipsync statuses',
    ['lipsync:read'],
    'status',
    { endpoint: lipsyncStatusesList },
  ),
  row('GET', '/v3/lipsyncs/{lipsync_id}', 'LipsyncGet', 'Get a lipsync', ['lipsync:read'], 'status', {
    endpoint: lipsyncGet,
  }),
  row('PATCH', '/v3/lipsyncs/{lipsync_id}', 'LipsyncUpdate', 'Update a lipsync', ['lipsync:write'], 'write', {
    endpoint: lipsyncUpdate,
  }),
  row(
    'DELETE',
    '/v3/lipsyncs/{lipsync_id}',
    'LipsyncDelete',
    'Delete a lipsync',
    ['lipsync:write'],
    'write',
    {
      endpoint: lipsyncDelete,
    },
  ),
]);
