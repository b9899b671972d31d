/**
 * Overdubs: this area's rows of the route table (lambdas/api/routes.ts). The spec's Overdub resource,
 * renamed to lipsyncs upstream in April 2026: served over the lipsync records with the Overdub shape,
 * every route marked deprecated. Records created here send `overdub.*` events.
 */
import { createLipsync } from '../../lipsyncs/create-lipsync.js';
import {
  deleteLipsync,
  LIPSYNC_ORIGINS,
  listLipsyncs,
  renameLipsync,
  requireLipsync,
} from '../../lipsyncs/lipsync-records.js';
import { overdubView } from '../../lipsyncs/lipsync-views.js';
import {
  createdOverdubBody,
  createLipsyncBody,
  lipsyncDeletedBody,
  listLipsyncsQuery,
  overdubBody,
  overdubIdPath,
  overdubListBody,
  updateLipsyncBody,
} from '../lipsyncs/schemas.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { areaRoutes, paidCreate, row } from '../route-rows.js';

const ORIGIN = LIPSYNC_ORIGINS.overdubs;

const overdubList = endpoint(
  { query: listLipsyncsQuery },
  async ({ query, principal }) => {
    const page = await listLipsyncs(principal.workspaceId, query, 'OverdubList');
    return respond.list(await Promise.all(page.items.map(overdubView)), page.nextToken);
  },
  { response: overdubListBody },
);

const overdubCreate = endpoint(
  { body: createLipsyncBody },
  async ({ body, principal }) => {
    const record = await createLipsync({ workspaceId: principal.workspaceId, origin: ORIGIN }, body);
    return respond.ok({ overdub_id: record.lipsync_id });
  },
  { response: createdOverdubBody },
);

const overdubGet = endpoint(
  { path: overdubIdPath },
  async ({ path, principal }) =>
    respond.ok(await overdubView(await requireLipsync(principal.workspaceId, path.overdub_id, ORIGIN))),
  { response: overdubBody },
);

const overdubUpdate = endpoint(
  { path: overdubIdPath, body: updateLipsyncBody },
  async ({ path, body, principal }) =>
    respond.ok(
      await overdubView(await renameLipsync(principal.workspaceId, path.overdub_id, body.title, ORIGIN)),
    ),
  { response: overdubBody },
);

const overdubDelete = endpoint(
  { path: overdubIdPath },
  async ({ path, principal }) => {
    await deleteLipsync(principal.workspaceId, path.overdub_id, ORIGIN);
    return respond.ok({ id: path.overdub_id });
  },
  { response: lipsyncDeletedBody },
);

export const AREA_ROUTES = areaRoutes('overdubs', [
  row('GET', '/v3/overdubs', 'OverdubList', 'List overdubs', ['lipsync:read'], 'read', {
    endpoint: overdubList,
    deprecated: { replacement: 'GET /v3/lipsyncs' },
  }),
  row('POST', '/v3/overdubs', 'OverdubCreate', 'Dub a video into another voice', ['lipsync:write'], 'heavy', {
    ...paidCreate,
    endpoint: overdubCreate,
    deprecated: { replacement: 'POST /v3/lipsyncs' },
  }),
  row('GET', '/v3/overdubs/{overdub_id}', 'OverdubGet', 'Get an overdub', ['lipsync:read'], 'status', {
    endpoint: overdubGet,
    deprecated: { replacement: 'GET /v3/lipsyncs/{lipsync_id}' },
  }),
  row(
    'PATCH',
    '/v3/overdubs/{overdub_id}',
    'OverdubUpdate',
    'Update an overdub',
    ['lipsync:write'],
    'write',
    {
      endpoint: overdubUpdate,
      deprecated: { replacement: 'PATCH /v3/lipsyncs/{lipsync_id}' },
    },
  ),
  row(
    'DELETE',
    '/v3/overdubs/{overdub_id}',
    'OverdubDelete',
    'Delete an overdub',
    ['lipsync:write'],
    'write',
    { endpoint: overdubDelete, deprecated: { replacement: 'DELETE /v3/lipsyncs/{lipsync_id}' } },
  ),
]);
