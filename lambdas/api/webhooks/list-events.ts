import { listEvents, toEventView } from '../../webhooks/deliveries.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
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
