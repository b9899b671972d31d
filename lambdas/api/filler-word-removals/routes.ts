/** Filler word removal: this area's rows of the route table (lambdas/api/routes.ts). */
import { areaRoutes, paidCreate, row } from '../route-rows.js';

export const AREA_ROUTES = areaRoutes('filler-word-removals', [
  row(
    'POST',
    '/v3/filler-word-removals',
    'FillerWordRemovalCreate',
    'Remove filler words from media',
    ['filler_removal:write'],
    'heavy',
    paidCreate,
  ),
  row(
    'GET',
    '/v3/filler-word-removals/{filler_word_removal_id}',
    'FillerWordRemovalGet',
    'Get a filler word removal',
    ['filler_removal:read'],
    'status',
  ),
]);
