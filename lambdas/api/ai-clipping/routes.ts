/** AI clipping: this area's rows of the route table (lambdas/api/routes.ts). */
import { deleteClipping, listClippings, requireClipping } from '../../clipping/clipping-records.js';
import { clippingView } from '../../clipping/clipping-views.js';
import { createClipping } from '../../clipping/create-clipping.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { areaRoutes, paidCreate, row } from '../route-rows.js';
import {
  clippingBody,
  clippingDeletedBody,
  clippingIdPath,
  clippingListBody,
  createClippingBody,
  listClippingsQuery,
} from './schemas.js';

const clippingList = endpoint(
  { query: listClippingsQuery },
  async ({ query, principal }) => {
    const page = await listClippings(principal.workspaceId, query);
    return respond.list(
      await Promise.all(page.items.map((record) => clippingView(record, { coarse: true }))),
      page.nextToken,
    );
  },
  { response: clippingListBody },
);

const clippingCreate = endpoint(
  { body: createClippingBody },
  async ({ body, principal }) =>
    respond.ok(await clippingView(await createClipping(principal.workspaceId, body))),
  { response: clippingBody },
);

const clippingGet = endpoint(
  { path: clippingIdPath },
  async ({ path, principal }) =>
    respond.ok(await clippingView(await requireClipping(principal.workspaceId, path.job_id))),
  { response: clippingBody },
);

const clippingDelete = endpoint(
  { path: clippingIdPath },
  async ({ path, principal }) => {
    await deleteClipping(principal.workspaceId, path.job_id);
    return respond.ok({ id: path.job_id });
  },
  { response: clippingDeletedBody },
);

export const AREA_ROUTES = areaRoutes('ai-clipping', [
  row('GET', '/v3/ai-clipping', 'AiClippingList', 'List AI clipping jobs', ['ai_clipping:read'], 'read', {
    endpoint: clippingList,
  }),
  row(
    'POST',
    '/v3/ai-clipping',
    'AiClippingCreate',
    'Clip a long video into shorts',
    ['ai_clipping:write'],
    'heavy',
    { ...paidCreate, endpoint: clippingCreate },
  ),
  row(
    'GET',
    '/v3/ai-clipping/{job_id}',
    'AiClippingGet',
    'Get an AI clipping job',
    ['ai_clipping:read'],
    'status',
    { endpoint: clippingGet },
  ),
  row(
    'DELETE',
    '/v3/ai-clipping/{job_id}',
    'AiClippingDelete',
    'Delete an AI clipping job',
    ['ai_clipping:write'],
    'write',
    { endpoint: clippingDelete },
  ),
]);
