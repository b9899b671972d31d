import { apiHandler } from '../../core/api-handler.js';
import { decodeCursor, encodeCursor } from '../../core/cursor.js';
import { respond } from '../../core/http.js';
import { listEventTypes } from '../../webhooks/event-types.js';
import { listEventTypesQuery } from './schemas.js';

const BINDING = 'WebhookEventTypesList';

export const handler = apiHandler(
  'WebhookEventTypesList',
  { query: listEventTypesQuery },
  async ({ query }) => {
    const all = listEventTypes();
    const start = query.token ? Number((await decodeCursor(BINDING, query.token)).offset) : 0;
    const page = all.slice(start, start + query.limit);
    const next = start + page.length;
    return respond.list(page, next < all.length ? await encodeCursor(BINDING, { offset: next }) : null);
  },
);
