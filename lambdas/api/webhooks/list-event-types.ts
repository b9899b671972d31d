import { apiHandler } from '../../core/api-handler.js';
import { respond } from '../../core/http.js';
import { listEventTypes } from '../../webhooks/event-types.js';

// The catalog is short and fixed: one page holds all of it.
export const handler = apiHandler('WebhookEventTypesList', {}, async () =>
  respond.list(listEventTypes(), null),
);
