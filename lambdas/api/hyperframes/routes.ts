/** HyperFrames: this area's rows of the route table (lambdas/api/routes.ts). */
import { createHyperframesRender } from '../../hyperframes/create-hyperframes-render.js';
import {
  deleteHyperframesRender,
  listHyperframesRenders,
  requireHyperframesRender,
} from '../../hyperframes/hyperframes-records.js';
import { hyperframesRenderView } from '../../hyperframes/hyperframes-views.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { areaRoutes, paidCreate, row } from '../route-rows.js';
import {
  createRenderBody,
  listRendersQuery,
  renderBody,
  renderCreatedBody,
  renderDeletedBody,
  renderIdPath,
  renderListBody,
} from './schemas.js';

const renderList = endpoint(
  { query: listRendersQuery },
  async ({ query, principal }) => {
    const page = await listHyperframesRenders(principal.workspaceId, query);
    return respond.list(await Promise.all(page.items.map(hyperframesRenderView)), page.nextToken);
  },
  { response: renderListBody },
);

const renderCreate = endpoint(
  { body: createRenderBody },
  async ({ body, principal }) => {
    const record = await createHyperframesRender(principal.workspaceId, body);
    return respond.accepted({ render_id: record.render_id, status: record.status });
  },
  { successStatus: 202, response: renderCreatedBody },
);

const renderGet = endpoint(
  { path: renderIdPath },
  async ({ path, principal }) =>
    respond.ok(
      await hyperframesRenderView(await requireHyperframesRender(principal.workspaceId, path.render_id)),
    ),
  { response: renderBody },
);

const renderDelete = endpoint(
  { path: renderIdPath },
  async ({ path, principal }) => {
    await deleteHyperframesRender(principal.workspaceId, path.render_id);
    return respond.ok({ render_id: path.render_id, deleted: true as const });
  },
  { response: renderDeletedBody },
);

export const AREA_ROUTES = areaRoutes('hyperframes', [
  row(
    'GET',
    '/v3/hyperframes/renders',
    'HyperframesRenderList',
    'List renders',
    ['hyperframes:read'],
    'read',
    {
      endpoint: renderList,
    },
  ),
  row(
    'POST',
    '/v3/hyperframes/renders',
    'HyperframesRenderCreate',
    'Render a composition bundle',
    ['hyperframes:write'],
    'heavy',
    { ...paidCreate, endpoint: renderCreate },
  ),
  row(
    'GET',
    '/v3/hyperframes/renders/{render_id}',
    'HyperframesRenderGet',
    'Get a render',
    ['hyperframes:read'],
    'status',
    { endpoint: renderGet },
  ),
  row(
    'DELETE',
    '/v3/hyperframes/renders/{render_id}',
    'HyperframesRenderDelete',
    'Delete a render',
    ['hyperframes:write'],
    'write',
    { endpoint: renderDelete },
  ),
]);
