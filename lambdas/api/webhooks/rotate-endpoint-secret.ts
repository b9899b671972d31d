import { rotateEndpointSecret } from '../../webhooks/endpoints.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { endpointNotFound } from './not-found.js';
import { endpointIdPath } from './schemas.js';

export const handler = apiHandler(
  'WebhookEndpointsRotateSecret',
  { path: endpointIdPath },
  async ({ path, principal }) => {
    const rotated = await rotateEndpointSecret(principal.workspaceId, path.endpoint_id);
    if (!rotated) throw endpointNotFound(path.endpoint_id);
    return respond.ok(rotated);
  },
);
