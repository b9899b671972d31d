import { listEndpoints } from '../../webhooks/endpoints.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { listEndpointsQuery } from './schemas.js';

export const handler = apiHandler(
  'WebhookEndpointsList',
  { query: listEndpointsQuery },
  async ({ query, principal }) => {
    const page = await listEndpoints(principal.workspaceId, query.limit, query.token);
    return respond.list(page.items, page.nextToken);
  },
);
