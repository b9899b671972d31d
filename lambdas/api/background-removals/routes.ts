/** Background removal: this area's rows of the route table (lambdas/api/routes.ts). */
import {
  deleteBackgroundRemoval,
  listBackgroundRemovals,
  requireBackgroundRemoval,
} from '../../background-removals/background-removal-records.js';
import { backgroundRemovalView } from '../../background-removals/background-removal-views.js';
import { createBackgroundRemoval } from '../../background-removals/create-background-removal.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { areaRoutes, paidCreate, row } from '../route-rows.js';
import {
  backgroundRemovalBody,
  backgroundRemovalDeletedBody,
  backgroundRemovalIdPath,
  backgroundRemovalListBody,
  createBackgroundRemovalBody,
  listBackgroundRemovalsQuery,
} from './schemas.js';

const backgroundRemovalList = endpoint(
  { query: listBackgroundRemovalsQuery },
  async ({ query, principal }) => {
    const page = await listBackgroundRemovals(principal.workspaceId, query);
    return respond.list(await Promise.all(page.items.map(backgroundRemovalView)), page.nextToken);
  },
  { response: backgroundRemovalListBody },
);

const backgroundRemovalCreate = endpoint(
  { body: createBackgroundRemovalBody },
  async ({ body, principal }) => {
    const record = await createBackgroundRemoval(principal.workspaceId, {
      video: body.video,
      layers: body.layers,
      title: body.title ?? undefined,
      request_id: body.request_id ?? undefined,
    });
    return respond.ok(await backgroundRemovalView(record));
  },
  { response: backgroundRemovalBody },
);

const backgroundRemovalGet = endpoint(
  { path: backgroundRemovalIdPath },
  async ({ path, principal }) =>
    respond.ok(
      await backgroundRemovalView(await requireBackgroundRemoval(principal.workspaceId, path.job_id)),
    ),
  { response: backgroundRemovalBody },
);

const backgroundRemovalDelete = endpoint(
  { path: backgroundRemovalIdPath },
  async ({ path, principal }) => {
    await deleteBackgroundRemoval(principal.workspaceId, path.job_id);
    return respond.ok({ id: path.job_id, deleted: true as const });
  },
  { response: backgroundRemovalDeletedBody },
);

export const AREA_ROUTES = areaRoutes('background-removals', [
  row(
    'GET',
    '/v3/background-removals',
    'BackgroundRemovalList',
    'List background removals',
    ['background_removal:read'],
    'read',
    { endpoint: backgroundRemovalList },
  ),
  row(
    'POST',
    '/v3/background-removals',
    'BackgroundRemovalCreate',
    'Remove the background of a video',
    ['background_removal:write'],
    'heavy',
    { ...paidCreate, endpoint: backgroundRemovalCreate },
  ),
  row(
    'GET',
    '/v3/background-removals/{job_id}',
    'BackgroundRemovalGet',
    'Get a background removal',
    ['background_removal:read'],
    'status',
    { endpoint: backgroundRemovalGet },
  ),
  row(
    'DELETE',
    '/v3/background-removals/{job_id}',
    'BackgroundRemovalDelete',
    'Delete a background removal',
    ['background_removal:write'],
    'write',
    { endpoint: backgroundRemovalDelete },
  ),
]);
