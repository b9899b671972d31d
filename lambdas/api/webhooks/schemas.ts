import { z } from 'zod';
import { limitParam, tokenParam } from '../../core/validation.js';
import { EVENT_TYPES, isEventType } from '../../events/event-types.js';

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
