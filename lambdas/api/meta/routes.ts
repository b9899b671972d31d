/** Meta: this area's rows of the route table (lambdas/api/routes.ts), with the endpoints that serve them. */
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { areaRoutes, row } from '../route-rows.js';
import document from './openapi.generated.json' with { type: 'json' };

const openApiGet = endpoint({}, async () => ({
  ...respond.raw('application/json; charset=utf-8', JSON.stringify(document)),
  headers: { 'Cache-Control': 'public, max-age=300' },
}));

export const AREA_ROUTES = areaRoutes('meta', [
  row('GET', '/v3/openapi.json', 'OpenApiGet', 'OpenAPI 3.1 description of this API', [], 'read', {
    endpoint: openApiGet,
    auth: 'none',
  }),
]);
