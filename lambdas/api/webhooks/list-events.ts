import { apiHandler } from '../../core/api-handler.js';
import { respond } from '../../core/http.js';
import { listEvents, toEventView } from '../../webhooks/deliveries.js';
import { listEventsQuery } from './schemas.js';

export const handler = apiHandler(
  'WebhookEventsList',
  { query: listEventsQuery },
  async ({ query, principal }) => {
    const page = await listEvents(
      principal.workspaceId,
      { eventType: query.event_type, entityId: query.entity_id },
      query.limit,
      query.token,
    );
    return respond.list(page.items.map(toEventView), page.nextToken);
  },
);
