import { updateEndpoint } from '../../webhooks/endpoints.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { endpointNotFound } from './not-found.js';
import { endpointIdPath, updateEndpointBody } from './schemas.js';

export const handler = apiHandler(
  'WebhookEndpointsUpdate',
  { path: endpointIdPath, body: updateEndpointBody },
  async ({ path, body, principal }) => {
    const endpoint = await updateEndpoint(principal.workspaceId, path.endpoint_id, body);
    if (!endpoint) throw endpointNotFound(path.endpoint_id);
    return respond.ok(endpoint);
  },
);
