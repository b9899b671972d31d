import { deleteEndpoint } from '../../webhooks/endpoints.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { endpointNotFound } from './not-found.js';
import { endpointIdPath } from './schemas.js';

export const handler = apiHandler(
  'WebhookEndpointsDelete',
  { path: endpointIdPath },
  async ({ path, principal }) => {
    if (!(await deleteEndpoint(principal.workspaceId, path.endpoint_id)))
      throw endpointNotFound(path.endpoint_id);
    return respond.okWithNullError({ endpoint_id: path.endpoint_id });
  },
);
