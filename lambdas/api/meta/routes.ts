/** Meta: this area's rows of the route table (lambdas/api/routes.ts), with the endpoints that serve them. */
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { areaRoutes, row } from '../route-rows.js';
import docPages from './doc-pages.generated.json' with { type: 'json' };
import document from './openapi.generated.json' with { type: 'json' };

const openApiGet = endpoint({}, async () => ({
  ...respond.raw('application/json; charset=utf-8', JSON.stringify(document)),
  headers: { 'Cache-Control': 'public, max-age=300' },
}));

/**
 * A documentation page (docs/*.md, rendered by `npm run docs:generate`): the target of every error's
 * `doc_url`, so it needs no credentials. The pages are static HTML without scripts; the policy says so.
 */
function docPage(html: string) {
  return endpoint({}, async () => ({
    ...respond.raw('text/html; charset=utf-8', html),
    headers: {
      'Cache-Control': 'public, max-age=300',
      'Content-Security-Policy': "default-src 'none'; style-src 'unsafe-inline'; frame-ancestors 'none'",
      'X-Content-Type-Options': 'nosniff',
    },
  }));
}

export const AREA_ROUTES = areaRoutes('meta', [
  row('GET', '/v3/openapi.json', 'OpenApiGet', 'OpenAPI 3.1 description of this API', [], 'read', {
    endpoint: openApiGet,
    auth: 'none',
  }),
  row('GET', '/v3/docs/errors', 'ErrorDocsGet', 'The error codes, one anchor per code (HTML)', [], 'read', {
    endpoint: docPage(docPages.errors),
    auth: 'none',
  }),
  row('GET', '/v3/docs/webhooks', 'WebhookDocsGet', 'The webhook guide (HTML)', [], 'read', {
    endpoint: docPage(docPages.webhooks),
    auth: 'none',
  }),
]);
