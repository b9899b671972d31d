import { z } from 'zod';
import { limitParam, tokenParam } from '../../core/validation.js';
import { EVENT_TYPES, type EventType, isEventType } from '../../events/event-types.js';
import { DELIVERY_STATUS, DELIVERY_TARGETS, DELIVERY_TRIGGERS } from '../../webhooks/deliveries.js';
import { ENDPOINT_STATUS } from '../../webhooks/endpoints.js';
import { dataEnvelope, dataWithNullErrorEnvelope, listEnvelope } from '../pipeline/response-envelopes.js';

export const endpointIdPath = z.strictObject({ endpoint_id: z.string().min(1) });

const eventList = z
  .array(
    z.string().refine(isEventType, {
      error: `is not an event type this service emits (see GET /v3/webhooks/event-types): one of ${Object.keys(EVENT_TYPES).join(', ')}`,
    }),
  )
  .min(1, { error: 'must list at least one event type; send null or omit it to subscribe to all' })
  .max(Object.keys(EVENT_TYPES).length)
  .nullable();

const url = z.string().min(1).max(2048, { error: 'must be at most 2048 characters' });

export const createEndpointBody = z.strictObject({
  url,
  events: eventList.optional(),
  entity_id: z.string().min(1).max(256).optional(),
});

export const updateEndpointBody = z
  .strictObject({
    url: url.optional(),
    events: eventList.optional(),
    status: z.enum(['enabled', 'disabled']).optional(),
  })
  // An empty (or `null`) body would answer 200 and change nothing: a client that meant to change
  // something (a misspelt field is refused as unknown; a missing one lands here) would not notice.
  .refine((body) => Object.keys(body).length > 0, {
    error: 'must change at least one field: url, events or status',
  });

export const listEndpointsQuery = z.strictObject({
  limit: limitParam(100, 10),
  token: tokenParam,
});

export const listEventTypesQuery = z.strictObject({
  limit: limitParam(100, 100),
  token: tokenParam,
});

/** Event ids are the service's own (`avatar_video.success:<video_id>`, UUIDs); never longer than this. */
const eventId = z.string().min(1).max(512);

export const eventIdPath = z.strictObject({ event_id: eventId });

/**
 * Event types of the hosted API that this service does not emit (or names otherwise). Its clients send
 * them as `event_type` filters: accepted, and they match no event here, instead of a 400.
 */
const HOSTED_EVENT_TYPES = [
  'avatar_video.success',
  'avatar_video.fail',
  'avatar_video_gif.success',
  'avatar_video_gif.fail',
  'video_translate.success',
  'video_translate.fail',
  'video_translate.preflight.validation_failed',
  'video_translate.preflight.download_failed',
  'personalized_video',
  'instant_avatar.success',
  'instant_avatar.fail',
  'photo_avatar_generation.success',
  'photo_avatar_generation.fail',
  'photo_avatar_train.success',
  'photo_avatar_train.fail',
  'photo_avatar_add_motion.success',
  'photo_avatar_add_motion.fail',
  'proofread_creation.success',
  'proofread_creation.fail',
  'live_avatar.success',
  'live_avatar.fail',
  'avatar_video_caption.success',
  'avatar_video_caption.fail',
  'video_agent.success',
  'video_agent.fail',
  'hyperframes_video.success',
  'hyperframes_video.fail',
  'ai_clipping.success',
  'ai_clipping.fail',
  'batch.finished',
] as const;

const LISTED_EVENT_TYPES = [...new Set<string>([...Object.keys(EVENT_TYPES), ...HOSTED_EVENT_TYPES])] as [
  string,
  ...string[],
];

export const listEventsQuery = z.strictObject({
  event_type: z.enum(LISTED_EVENT_TYPES).optional().meta({
    description: "An event type of GET /v3/webhooks/event-types (the hosted API's names are accepted too)",
  }),
  entity_id: z.string().min(1).max(256).optional(),
  limit: limitParam(100, 10),
  token: tokenParam,
});

export const redeliverEventBody = z.strictObject({ endpoint_id: z.string().min(1).max(64) });

// ---------------------------------------------------------------------------------------------
// Responses

/** Webhook timestamps are ISO 8601 UTC strings (as the hosted API's webhook routes send them). */
const isoTimestamp = z.iso.datetime().meta({ description: 'ISO 8601 UTC' });

const EVENT_TYPE_NAMES = Object.keys(EVENT_TYPES) as [EventType, ...EventType[]];

const eventTypeList = z
  .array(z.enum(EVENT_TYPE_NAMES))
  .nullable()
  .meta({ description: 'Subscribed event types; null: every type.' });

/** An endpoint as its create, update and list answer it (`WebhookEndpoint` of webhooks/endpoints.ts). */
export const webhookEndpointResponse = z.object({
  endpoint_id: z.string(),
  url: z.string(),
  events: eventTypeList,
  entity_id: z.string().nullable().meta({ description: 'Only events of this entity are sent; null: all.' }),
  status: z.enum(Object.values(ENDPOINT_STATUS)),
  created_at: isoTimestamp,
  secret: z.string().nullable().meta({
    description:
      'The signing secret: shown on create only (and on a replay of it while unrotated); null otherwise.',
  }),
});
export const webhookEndpointBody = dataEnvelope(webhookEndpointResponse);
export const webhookEndpointListBody = listEnvelope(webhookEndpointResponse);

export const webhookEndpointDeletedBody = dataWithNullErrorEnvelope(z.object({ endpoint_id: z.string() }));

export const webhookEndpointSecretBody = dataEnvelope(
  z.object({
    endpoint_id: z.string(),
    secret: z.string().meta({ description: 'The new signing secret; it is not shown again.' }),
  }),
);

export const webhookEventTypeListBody = listEnvelope(
  z.object({
    event_type: z.enum(EVENT_TYPE_NAMES),
    description: z.string(),
  }),
);

/** An event as the events list answers it (`WebhookEventView` of webhooks/deliveries.ts). */
const webhookEventResponse = z.object({
  event_id: z.string(),
  event_type: z.string(),
  entity_id: z
    .string()
    .meta({ description: 'The resource the event is about (a video id, a batch id, ...).' }),
  event_data: z.record(z.string(), z.unknown()).meta({ description: 'The payload sent to the receivers.' }),
  created_at: isoTimestamp,
});
export const webhookEventListBody = listEnvelope(webhookEventResponse);

const deliveryAttemptResponse = z.object({
  attempt: z.number().int().positive(),
  started_at: isoTimestamp,
  duration_ms: z.number().nonnegative(),
  url: z.string().meta({ description: 'Where the attempt was sent (empty when it was not sent).' }),
  status_code: z
    .number()
    .int()
    .nullable()
    .meta({ description: "The receiver's status; null when it did not answer." }),
  error: z.string().nullable().meta({ description: 'What went wrong; null on success.' }),
  next_attempt_at: isoTimestamp
    .nullable()
    .meta({ description: 'When the next attempt is due; null when none is.' }),
});

/** A delivery of an event (`DeliveryView` of webhooks/deliveries.ts). */
const deliveryResponse = z.object({
  delivery_id: z.string(),
  target: z.enum(Object.values(DELIVERY_TARGETS)),
  endpoint_id: z.string().nullable().meta({ description: 'Null for a callback delivery.' }),
  callback_url: z
    .string()
    .nullable()
    .meta({ description: "Callbacks: the job's callback URL; endpoints: null (each attempt has the URL)." }),
  trigger: z.enum(Object.values(DELIVERY_TRIGGERS)),
  status: z.enum(Object.values(DELIVERY_STATUS)),
  attempt_count: z.number().int().nonnegative(),
  next_attempt_at: isoTimestamp.nullable().meta({ description: 'Null once the delivery is terminal.' }),
  created_at: isoTimestamp,
  completed_at: isoTimestamp.nullable(),
  attempts: z.array(deliveryAttemptResponse),
});
export const webhookDeliveryBody = dataEnvelope(deliveryResponse);

export const webhookEventBody = dataEnvelope(
  webhookEventResponse.extend({
    deliveries: z.array(deliveryResponse).meta({ description: 'Oldest first.' }),
  }),
);

export const callbackSecretBody = dataEnvelope(
  z.object({
    secret: z.string().meta({ description: 'Signs one-off callbacks from now on; it is not shown again.' }),
    rotated_at: isoTimestamp,
  }),
);
