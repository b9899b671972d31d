/** Filler word removal: this area's rows of the route table (lambdas/api/routes.ts). */
import { createFillerRemoval } from '../../filler-removals/create-filler-removal.js';
import { requireFillerRemoval } from '../../filler-removals/filler-removal-records.js';
import { fillerRemovalView } from '../../filler-removals/filler-removal-views.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { areaRoutes, paidCreate, row } from '../route-rows.js';
import { createFillerRemovalBody, fillerRemovalBody, fillerRemovalIdPath } from './schemas.js';

const fillerRemovalCreate = endpoint(
  { body: createFillerRemovalBody },
  async ({ body, principal }) =>
    respond.ok(await fillerRemovalView(await createFillerRemoval(principal.workspaceId, body))),
  { response: fillerRemovalBody },
);

const fillerRemovalGet = endpoint(
  { path: fillerRemovalIdPath },
  async ({ path, principal }) =>
    respond.ok(
      await fillerRemovalView(await requireFillerRemoval(principal.workspaceId, path.filler_word_removal_id)),
    ),
  { response: fillerRemovalBody },
);

export const AREA_ROUTES = areaRoutes('filler-word-removals', [
  row(
    'POST',
    '/v3/filler-word-removals',
    'FillerWordRemovalCreate',
    'Remove filler words from media',
    ['filler_removal:write'],
    'heavy',
    { ...paidCreate, endpoint: fillerRemovalCreate },
  ),
  row(
    'GET',
    '/v3/filler-word-removals/{filler_word_removal_id}',
    'FillerWordRemovalGet',
    'Get a filler word removal',
    ['filler_removal:read'],
    'status',
    { endpoint: fillerRemovalGet },
  ),
]);
