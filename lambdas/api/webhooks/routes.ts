/** Webhooks: this area's rows of the route table (lambdas/api/routes.ts), with the endpoints that serve them. */
import { decodeCursor, encodeCursor } from '../../core/cursor.js';
import { NotFoundError } from '../../core/errors.js';
import { listEventTypes } from '../../events/event-types.js';
import { rotateCallbackSecret } from '../../webhooks/callback-secret.js';
import {
  findEvent,
  listDeliveries,
  listEvents,
  toDeliveryView,
  toEventView,
} from '../../webhooks/deliveries.js';
import { redeliverEvent, webhookEventNotFound } from '../../webhooks/dispatch.js';
import {
  deleteEndpoint,
  listEndpoints,
  rotateEndpointSecret,
  updateEndpoint,
} from '../../webhooks/endpoints.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { areaRoutes, create, row } from '../route-rows.js';
import { webhookEndpointsCreate } from './create-endpoint.js';
import {
  callbackSecretBody,
  endpointIdPath,
  eventIdPath,
  listEndpointsQuery,
  listEventsQuery,
  listEventTypesQuery,
  redeliverEventBody,
  updateEndpointBody,
  webhookDeliveryBody,
  webhookEndpointBody,
  webhookEndpointDeletedBody,
  webhookEndpointListBody,
  webhookEndpointSecretBody,
  webhookEventBody,
  webhookEventListBody,
  webhookEventTypeListBody,
} from './schemas.js';

const endpointNotFound = (endpointId: string) =>
  new NotFoundError(`Webhook endpoint ${endpointId} not found.`, 'webhook_not_found', 'endpoint_id');

const webhookEndpointsList = endpoint(
  { query: listEndpointsQuery },
  async ({ query, principal }) => {
    const page = await listEndpoints(principal.workspaceId, query.limit, query.token);
    return respond.list(page.items, page.nextToken);
  },
  { response: webhookEndpointListBody },
);

const webhookEndpointsUpdate = endpoint(
  { path: endpointIdPath, body: updateEndpointBody },
  async ({ path, body, principal }) => {
    const updated = await updateEndpoint(principal.workspaceId, path.endpoint_id, body);
    if (!updated) throw endpointNotFound(path.endpoint_id);
    return respond.ok(updated);
  },
  { response: webhookEndpointBody },
);

const webhookEndpointsDelete = endpoint(
  { path: endpointIdPath },
  async ({ path, principal }) => {
    if (!(await deleteEndpoint(principal.workspaceId, path.endpoint_id)))
      throw endpointNotFound(path.endpoint_id);
    return respond.okWithNullError({ endpoint_id: path.endpoint_id });
  },
  { response: webhookEndpointDeletedBody },
);

const webhookEndpointsRotateSecret = endpoint(
  { path: endpointIdPath },
  async ({ path, principal }) => {
    const rotated = await rotateEndpointSecret(principal.workspaceId, path.endpoint_id);
    if (!rotated) throw endpointNotFound(path.endpoint_id);
    return respond.ok(rotated);
  },
  { response: webhookEndpointSecretBody },
);

/** What the list's cursors are bound to: a token of another list is refused. */
const EVENT_TYPES_CURSOR_BINDING = 'WebhookEventTypesList';

const webhookEventTypesList = endpoint(
  { query: listEventTypesQuery },
  async ({ query }) => {
    const all = listEventTypes();
    const start = query.token
      ? Number((await decodeCursor(EVENT_TYPES_CURSOR_BINDING, query.token)).offset)
      : 0;
    const page = all.slice(start, start + query.limit);
    const next = start + page.length;
    return respond.list(
      page,
      next < all.length ? await encodeCursor(EVENT_TYPES_CURSOR_BINDING, { offset: next }) : null,
    );
  },
  { response: webhookEventTypeListBody },
);

const webhookEventsList = endpoint(
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
  { response: webhookEventListBody },
);

const webhookEventGet = endpoint(
  { path: eventIdPath },
  async ({ path, principal }) => {
    const event = await findEvent(principal.workspaceId, path.event_id);
    if (!event) throw webhookEventNotFound(path.event_id);
    const deliveries = await listDeliveries(principal.workspaceId, event.event_id);
    return respond.ok({
      ...toEventView(event),
      deliveries: deliveries.sort((a, b) => a.created_at.localeCompare(b.created_at)).map(toDeliveryView),
    });
  },
  { response: webhookEventBody },
);

const webhookEventRedeliver = endpoint(
  { path: eventIdPath, body: redeliverEventBody },
  async ({ path, body, principal }) =>
    respond.accepted(await redeliverEvent(principal.workspaceId, path.event_id, body.endpoint_id)),
  { successStatus: 202, response: webhookDeliveryBody },
);

const webhookCallbackSecretRotate = endpoint(
  {},
  async ({ principal }) => respond.ok(await rotateCallbackSecret(principal.workspaceId)),
  { response: callbackSecretBody },
);

export const AREA_ROUTES = areaRoutes('webhooks', [
  row(
    'GET',
    '/v3/webhooks/endpoints',
    'WebhookEndpointsList',
    'List webhook endpoints',
    ['webhooks:read'],
    'read',
    { endpoint: webhookEndpointsList },
  ),
  row(
    'POST',
    '/v3/webhooks/endpoints',
    'WebhookEndpointsCreate',
    'Register a webhook endpoint',
    ['webhooks:write'],
    'write',
    { ...create, endpoint: webhookEndpointsCreate },
  ),
  row(
    'PATCH',
    '/v3/webhooks/endpoints/{endpoint_id}',
    'WebhookEndpointsUpdate',
    'Update a webhook endpoint',
    ['webhooks:write'],
    'write',
    { endpoint: webhookEndpointsUpdate },
  ),
  row(
    'DELETE',
    '/v3/webhooks/endpoints/{endpoint_id}',
    'WebhookEndpointsDelete',
    'Delete a webhook endpoint',
    ['webhooks:write'],
    'write',
    { endpoint: webhookEndpointsDelete },
  ),
  row(
    'POST',
    '/v3/webhooks/endpoints/{endpoint_id}/rotate-secret',
    'WebhookEndpointsRotateSecret',
    'Rotate an endpoint secret',
    ['webhooks:write'],
    'write',
    { endpoint: webhookEndpointsRotateSecret },
  ),
  row(
    'GET',
    '/v3/webhooks/event-types',
    'WebhookEventTypesList',
    'List the event types the service emits',
    ['webhooks:read'],
    'read',
    { endpoint: webhookEventTypesList },
  ),
  row(
    'GET',
    '/v3/webhooks/events',
    'WebhookEventsList',
    'Browse delivered events',
    ['webhooks:read'],
    'read',
    { endpoint: webhookEventsList },
  ),
  // Beyond the contract: each event's deliveries and attempts, manual redelivery, callback signing.
  row(
    'GET',
    '/v3/webhooks/events/{event_id}',
    'WebhookEventGet',
    'An event with its deliveries and every attempt',
    ['webhooks:read'],
    'read',
    { endpoint: webhookEventGet },
  ),
  row(
    'POST',
    '/v3/webhooks/events/{event_id}/redeliver',
    'WebhookEventRedeliver',
    'Deliver an event again to an endpoint',
    ['webhooks:write'],
    'write',
    { ...create, endpoint: webhookEventRedeliver },
  ),
  row(
    'POST',
    '/v3/webhooks/callback-secret',
    'WebhookCallbackSecretRotate',
    'Create or rotate the secret that signs one-off callbacks',
    ['webhooks:write'],
    'write',
    { endpoint: webhookCallbackSecretRotate },
  ),
]);
