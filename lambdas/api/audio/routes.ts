/** Audio catalog: this area's rows of the route table (lambdas/api/routes.ts), with the endpoints that serve them. */
import { listSounds, listSoundsQuery } from '../../audio/sounds.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { areaRoutes, row } from '../route-rows.js';
import { soundListBody } from './schemas.js';

/** `GET /v3/audio/sounds`: music (default) or sound effects, ranked against `query`, each with a download URL. */
const audioSoundsList = endpoint(
  { query: listSoundsQuery },
  async ({ query, principal }) => {
    const page = await listSounds(principal.workspaceId, {
      type: query.type,
      query: query.query,
      minScore: query.min_score,
      limit: query.limit,
      token: query.token,
    });
    return respond.list(page.items, page.nextToken);
  },
  { response: soundListBody },
);

export const AREA_ROUTES = areaRoutes('audio', [
  row(
    'GET',
    '/v3/audio/sounds',
    'AudioSoundsList',
    'Search music and sound effects',
    ['assets:read'],
    'read',
    { endpoint: audioSoundsList },
  ),
]);
