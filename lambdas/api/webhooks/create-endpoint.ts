import { apiHandler } from '../../core/api-handler.js';
import { respond } from '../../core/http.js';
import { createEndpoint } from '../../webhooks/endpoints.js';
import { createEndpointBody } from './schemas.js';

export const handler = apiHandler(
  'WebhookEndpointsCreate',
  { body: createEndpointBody },
  async ({ body, principal }) => respond.created(await createEndpoint(principal.workspaceId, body)),
  { successStatus: 201 },
);
