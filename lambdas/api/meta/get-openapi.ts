import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import document from './openapi.generated.json' with { type: 'json' };

export const handler = apiHandler('OpenApiGet', {}, async () => ({
  ...respond.raw('application/json; charset=utf-8', JSON.stringify(document)),
  headers: { 'Cache-Control': 'public, max-age=300' },
}));
