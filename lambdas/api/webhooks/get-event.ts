import { findEvent, listDeliveries, toDeliveryView, toEventView } from '../../webhooks/deliveries.js';
import { webhookEventNotFound } from '../../webhooks/dispatch.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { eventIdPath } from './schemas.js';

export const handler = apiHandler('WebhookEventGet', { path: eventIdPath }, async ({ path, principal }) => {
  const event = await findEvent(principal.workspaceId, path.event_id);
  if (!event) throw webhookEventNotFound(path.event_id);
  const deliveries = await listDeliveries(principal.workspaceId, event.event_id);
  return respond.ok({
    ...toEventView(event),
    deliveries: deliveries.sort((a, b) => a.created_at.localeCompare(b.created_at)).map(toDeliveryView),
  });
});
