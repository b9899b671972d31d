import { createEndpoint, revealSecretOnReplay, type WebhookEndpoint } from '../../webhooks/endpoints.js';
import { endpoint } from '../pipeline/endpoint.js';
import { type ApiResponse, respond } from '../pipeline/http.js';
import { createEndpointBody, webhookEndpointBody } from './schemas.js';

export const webhookEndpointsCreate = endpoint(
  { body: createEndpointBody },
  async ({ body, principal }) => respond.created(await createEndpoint(principal.workspaceId, body)),
  {
    successStatus: 201,
    response: webhookEndpointBody,
    // The idempotency record must never hold the plaintext secret: it is stored without it, and a
    // replay shows the secret again only while it is still the endpoint's first one.
    replayCodec: {
      toRecord: (response) => withEndpoint(response, (endpoint) => ({ ...endpoint, secret: null })),
      fromRecord: async (record, request) => {
        const endpoint = (record.body as { data: WebhookEndpoint }).data;
        const secret = await revealSecretOnReplay(request.principal.workspaceId, endpoint.endpoint_id);
        return withEndpoint(record, () => ({ ...endpoint, secret }));
      },
    },
  },
);

function withEndpoint(
  response: ApiResponse,
  change: (endpoint: WebhookEndpoint) => WebhookEndpoint,
): ApiResponse {
  const { data } = response.body as { data: WebhookEndpoint };
  return { ...response, body: { data: change(data) } };
}
