import { decodeCursor, encodeCursor } from '../../core/cursor.js';
import { listEventTypes } from '../../events/event-types.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
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
