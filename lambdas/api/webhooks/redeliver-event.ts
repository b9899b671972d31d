import { redeliverEvent } from '../../webhooks/dispatch.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { eventIdPath, redeliverEventBody } from './schemas.js';

export const handler = apiHandler(
  'WebhookEventRedeliver',
  { path: eventIdPath, body: redeliverEventBody },
  async ({ path, body, principal }) =>
    respond.accepted(await redeliverEvent(principal.workspaceId, path.event_id, body.endpoint_id)),
  { successStatus: 202 },
);
