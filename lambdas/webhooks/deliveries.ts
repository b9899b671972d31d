/**
 * Records of webhook dispatch, all under the workspace's partition:
 *
 * | sort key                                   | what                                                        |
 * | ------------------------------------------ | ----------------------------------------------------------- |
 * | `WEBHOOK_EVENT_ID#<event_id>`              | the dedupe marker: event id → sequence id, dispatch state    |
 * | `WEBHOOK_EVENT#<seq>`                      | the event as dispatched (type, entity, data, callback)       |
 * | `WEBHOOK_DELIVERY#<seq>#<delivery_id>`     | one delivery to one target, with every attempt               |
 *
 * `seq` is a time-ordered id (`newId()`), so events list newest first. The marker is written with a
 * condition, so an event published again (events are at least once, with stable ids) is dispatched
 * once per workspace. A delivery moves through its states with conditional writes: an attempt is
 * claimed (status `sending`, a claim token and a lease) before it is sent and its outcome recorded only
 * by the claim's holder, so duplicate queue messages, concurrent workers and crashes never send one
 * attempt twice at once or lose one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documents } from '../core/aws-clients.js';
import { config } from '../core/config.js';
import { newId, nowSeconds } from '../core/ids.js';
import { getItem, putNewItem, queryAll, queryPage, updateExistingItem } from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import type { DomainEvent } from '../events/domain-events.js';

export const DISPATCH_STATES = { dispatching: 'dispatching', dispatched: 'dispatched' } as const;
export type DispatchState = (typeof DISPATCH_STATES)[keyof typeof DISPATCH_STATES];

export const DELIVERY_STATUS = {
  /** Waiting for its next attempt (`next_attempt_at`). */
  pending: 'pending',
  /** An attempt is in flight (claimed until `lease_until`). */
  sending: 'sending',
  /** The receiver answered 2xx. */
  delivered: 'delivered',
  /** Ended without success and without retries: 410 Gone, or a destination the guard refuses. */
  failed: 'failed',
  /** Every attempt of the schedule failed; sent to the dead-letter queue. */
  exhausted: 'exhausted',
  /** Not attempted again: the endpoint was deleted or disabled meanwhile. */
  cancelled: 'cancelled',
} as const;
export type DeliveryStatus = (typeof DELIVERY_STATUS)[keyof typeof DELIVERY_STATUS];

export const TERMINAL_DELIVERY_STATUSES: ReadonlySet<DeliveryStatus> = new Set([
  DELIVERY_STATUS.delivered,
  DELIVERY_STATUS.failed,
  DELIVERY_STATUS.exhausted,
  DELIVERY_STATUS.cancelled,
]);

export const DELIVERY_TARGETS = { endpoint: 'endpoint', callback: 'callback' } as const;
export type DeliveryTarget = (typeof DELIVERY_TARGETS)[keyof typeof DELIVERY_TARGETS];

/** Why a delivery was made. */
export const DELIVERY_TRIGGERS = {
  /** The event's fan-out. */
  event: 'event',
  /** `POST /v3/webhooks/events/{event_id}/redeliver`. */
  manual: 'manual',
  /** An exhausted delivery moved back from the dead-letter queue. */
  redrive: 'redrive',
} as const;
export type DeliveryTrigger = (typeof DELIVERY_TRIGGERS)[keyof typeof DELIVERY_TRIGGERS];

/** One attempt, as recorded and as the API shows it. */
export interface DeliveryAttempt {
  attempt: number;
  /** ISO 8601 UTC. */
  started_at: string;
  duration_ms: number;
  /** The URL the attempt was sent to (an endpoint's URL may change between attempts). */
  url: string;
  /** The receiver's status; null when it did not answer. */
  status_code: number | null;
  /** What went wrong; null on success. */
  error: string | null;
  /** When the next attempt is due (ISO 8601 UTC); null when there is none. */
  next_attempt_at: string | null;
}

export interface EventItem {
  pk: string;
  sk: string;
  event_seq: string;
  event_id: string;
  event_type: string;
  entity_id: string;
  event_data: Record<string, unknown>;
  /** ISO 8601 UTC, from the domain event. */
  created_at: string;
  callback: { url: string; id: string | null } | null;
  expires_at: number;
}

interface EventMarkerItem {
  pk: string;
  sk: string;
  event_id: string;
  event_seq: string;
  state: DispatchState;
  expires_at: number;
}

export interface DeliveryItem {
  pk: string;
  sk: string;
  delivery_id: string;
  event_seq: string;
  event_id: string;
  workspace_id: string;
  target: DeliveryTarget;
  endpoint_id: string | null;
  /** Callbacks only: the job's `callback_url` (endpoints are read at every attempt). */
  callback_url: string | null;
  trigger: DeliveryTrigger;
  status: DeliveryStatus;
  attempt_count: number;
  /** Epoch milliseconds; null once terminal. */
  next_attempt_at: number | null;
  claim_token: string | null;
  /** Epoch milliseconds until which a `sending` claim is held. */
  lease_until: number | null;
  attempts: DeliveryAttempt[];
  /** ISO 8601 UTC. */
  created_at: string;
  completed_at: string | null;
  /** Whether an exhausted delivery's dead-letter message was sent. */
  dead_lettered: boolean;
  expires_at: number;
}

export interface DeliveryRef {
  workspaceId: string;
  eventSeq: string;
  deliveryId: string;
}

const eventKey = (workspaceId: string, eventSeq: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.webhookEvent, eventSeq);
const markerKey = (workspaceId: string, eventId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.webhookEventId, eventId);
export const deliveryKey = (ref: DeliveryRef) =>
  keys.resource(ref.workspaceId, RESOURCE_TYPES.webhookDelivery, `${ref.eventSeq}#${ref.deliveryId}`);
export const refOf = (delivery: DeliveryItem): DeliveryRef => ({
  workspaceId: delivery.workspace_id,
  eventSeq: delivery.event_seq,
  deliveryId: delivery.delivery_id,
});

function expiresAt(): number {
  return nowSeconds() + Math.round(config().webhookRetentionDays * 86_400);
}

// ---------------------------------------------------------------------------------------------
// Events

/**
 * Claims the dispatch of an event for its workspace. Returns the sequence id to dispatch under, or
 * undefined when the event was dispatched before (a repeat to drop). A marker left `dispatching` (a
 * dispatch that crashed or is still running) is resumed under its sequence id: every later step is
 * idempotent.
 */
export async function beginDispatch(event: DomainEvent): Promise<EventItem | undefined> {
  const marker: EventMarkerItem = {
    ...markerKey(event.workspace_id, event.event_id),
    event_id: event.event_id,
    event_seq: newId(),
    state: DISPATCH_STATES.dispatching,
    expires_at: expiresAt(),
  };
  let seq = marker.event_seq;
  if (!(await putNewItem({ ...marker }))) {
    const existing = await getItem<EventMarkerItem>(markerKey(event.workspace_id, event.event_id), true);
    if (!existing) throw new Error(`The dispatch marker of event ${event.event_id} vanished`);
    if (existing.state === DISPATCH_STATES.dispatched) return undefined;
    seq = existing.event_seq;
  }
  const item: EventItem = {
    ...eventKey(event.workspace_id, seq),
    event_seq: seq,
    event_id: event.event_id,
    event_type: event.event_type,
    entity_id: event.entity_id,
    event_data: event.event_data,
    created_at: event.created_at,
    callback: event.callback ?? null,
    expires_at: marker.expires_at,
  };
  // A resumed dispatch keeps the record the first one wrote (the same event, perhaps older data).
  if (!(await putNewItem({ ...item }))) {
    return (await getItem<EventItem>(eventKey(event.workspace_id, seq), true)) ?? item;
  }
  return item;
}

export async function finishDispatch(workspaceId: string, eventId: string): Promise<void> {
  await updateExistingItem(markerKey(workspaceId, eventId), { state: DISPATCH_STATES.dispatched });
}

export async function getEventBySeq(workspaceId: string, eventSeq: string): Promise<EventItem | undefined> {
  return getItem<EventItem>(eventKey(workspaceId, eventSeq));
}

export async function findEvent(workspaceId: string, eventId: string): Promise<EventItem | undefined> {
  const marker = await getItem<EventMarkerItem>(markerKey(workspaceId, eventId));
  return marker ? getEventBySeq(workspaceId, marker.event_seq) : undefined;
}

export interface EventFilters {
  eventType?: string | undefined;
  entityId?: string | undefined;
}

/** A page of the workspace's dispatched events, newest first. */
export async function listEvents(
  workspaceId: string,
  filters: EventFilters,
  limit: number,
  token: string | undefined,
) {
  const hasFilters = filters.eventType !== undefined || filters.entityId !== undefined;
  return queryPage<EventItem>({
    partition: keys.workspacePartition(workspaceId),
    sortKeyPrefix: `${RESOURCE_TYPES.webhookEvent}#`,
    limit,
    token,
    binding: `${workspaceId}:WebhookEventsList:${JSON.stringify([filters.eventType ?? null, filters.entityId ?? null])}`,
    ...(hasFilters
      ? {
          keep: (item) =>
            (filters.eventType === undefined || item.event_type === filters.eventType) &&
            (filters.entityId === undefined || item.entity_id === filters.entityId),
        }
      : {}),
  });
}

// ---------------------------------------------------------------------------------------------
// Deliveries

/** The delivery id of an event's fan-out to a target: the same on every run of the fan-out. */
export function fanOutDeliveryId(eventSeq: string, targetKey: string): string {
  return createHash('sha256').update(`${eventSeq}\n${targetKey}`).digest('hex').slice(0, 32);
}

export interface NewDelivery {
  workspaceId: string;
  event: EventItem;
  deliveryId: string;
  target: DeliveryTarget;
  endpointId: string | null;
  callbackUrl: string | null;
  trigger: DeliveryTrigger;
}

export interface Claim {
  token: string;
  attempt: number;
}

function newDeliveryItem(input: NewDelivery, now: number): DeliveryItem {
  return {
    ...deliveryKey({
      workspaceId: input.workspaceId,
      eventSeq: input.event.event_seq,
      deliveryId: input.deliveryId,
    }),
    delivery_id: input.deliveryId,
    event_seq: input.event.event_seq,
    event_id: input.event.event_id,
    workspace_id: input.workspaceId,
    target: input.target,
    endpoint_id: input.endpointId,
    callback_url: input.callbackUrl,
    trigger: input.trigger,
    status: DELIVERY_STATUS.pending,
    attempt_count: 0,
    next_attempt_at: now,
    claim_token: null,
    lease_until: null,
    attempts: [],
    created_at: new Date(now).toISOString(),
    completed_at: null,
    dead_lettered: false,
    expires_at: expiresAt(),
  };
}

/** Records a delivery due now; false when it exists already (a resumed fan-out). */
export async function createDelivery(input: NewDelivery): Promise<DeliveryItem | undefined> {
  const item = newDeliveryItem(input, Date.now());
  return (await putNewItem({ ...item })) ? item : undefined;
}

/**
 * Records a delivery with its first attempt already claimed (the fan-out sends first attempts at
 * once: one write instead of two). Undefined when it exists already.
 */
export async function createClaimedDelivery(
  input: NewDelivery,
  leaseMs: number,
): Promise<{ delivery: DeliveryItem; claim: Claim } | undefined> {
  const now = Date.now();
  const claim = { token: randomBytes(12).toString('hex'), attempt: 1 };
  const item: DeliveryItem = {
    ...newDeliveryItem(input, now),
    status: DELIVERY_STATUS.sending,
    attempt_count: 1,
    claim_token: claim.token,
    lease_until: now + leaseMs,
  };
  return (await putNewItem({ ...item })) ? { delivery: item, claim } : undefined;
}

export async function getDelivery(ref: DeliveryRef): Promise<DeliveryItem | undefined> {
  return getItem<DeliveryItem>(deliveryKey(ref), true);
}

export async function listDeliveries(workspaceId: string, eventSeq: string): Promise<DeliveryItem[]> {
  return queryAll<DeliveryItem>(
    keys.workspacePartition(workspaceId),
    `${RESOURCE_TYPES.webhookDelivery}#${eventSeq}#`,
    true,
  );
}

/**
 * Claims the next attempt of a delivery as read: a `pending` one, or a `sending` one whose holder's
 * lease ran out (it crashed mid-attempt; the attempt is made again under the same number). Undefined
 * when another worker changed it first.
 */
export async function claimAttempt(
  delivery: DeliveryItem,
  leaseMs: number,
): Promise<{ delivery: DeliveryItem; claim: Claim } | undefined> {
  const reclaim = delivery.status === DELIVERY_STATUS.sending;
  const claim = {
    token: randomBytes(12).toString('hex'),
    attempt: reclaim ? delivery.attempt_count : delivery.attempt_count + 1,
  };
  const claimed = await updateExistingItem<DeliveryItem>(
    deliveryKey(refOf(delivery)),
    {
      status: DELIVERY_STATUS.sending,
      attempt_count: claim.attempt,
      claim_token: claim.token,
      lease_until: Date.now() + leaseMs,
    },
    [],
    {
      status: delivery.status,
      attempt_count: delivery.attempt_count,
      ...(reclaim ? { claim_token: delivery.claim_token } : {}),
    },
  );
  return claimed ? { delivery: claimed, claim } : undefined;
}

export interface AttemptOutcome {
  status: DeliveryStatus;
  attempt: DeliveryAttempt;
  /** Epoch milliseconds of the next attempt when `status` is pending. */
  nextAttemptAt: number | null;
}

/**
 * Records an attempt's outcome, if the claim is still held (a holder whose lease ran out and was
 * reclaimed records nothing: the newer claim's outcome counts). Returns the updated delivery.
 */
export async function recordAttempt(
  delivery: DeliveryItem,
  claim: Claim,
  outcome: AttemptOutcome,
): Promise<DeliveryItem | undefined> {
  const terminal = TERMINAL_DELIVERY_STATUSES.has(outcome.status);
  try {
    const result = await documents().send(
      new UpdateCommand({
        TableName: config().tableName,
        Key: deliveryKey(refOf(delivery)),
        UpdateExpression:
          'SET #status = :status, next_attempt_at = :next, claim_token = :none, lease_until = :none, attempts = list_append(if_not_exists(attempts, :empty), :attempt), completed_at = :completed',
        ConditionExpression: 'attribute_exists(pk) AND claim_token = :token AND #status = :sending',
        ExpressionAttributeNames: { '#status': 'status' },
        ExpressionAttributeValues: {
          ':status': outcome.status,
          ':next': outcome.nextAttemptAt,
          ':none': null,
          ':empty': [],
          ':attempt': [outcome.attempt],
          ':completed': terminal ? outcome.attempt.started_at : null,
          ':token': claim.token,
          ':sending': DELIVERY_STATUS.sending,
        },
        ReturnValues: 'ALL_NEW',
      }),
    );
    return result.Attributes as DeliveryItem;
  } catch (error) {
    if (error instanceof ConditionalCheckFailedException) return undefined;
    throw error;
  }
}

/** Ends a delivery that will not be attempted again (its endpoint is gone or disabled). */
export async function cancelDelivery(delivery: DeliveryItem, claim: Claim, reason: string): Promise<void> {
  const now = new Date().toISOString();
  await recordAttempt(delivery, claim, {
    status: DELIVERY_STATUS.cancelled,
    nextAttemptAt: null,
    attempt: {
      attempt: claim.attempt,
      started_at: now,
      duration_ms: 0,
      url: '',
      status_code: null,
      error: `not sent: ${reason}`,
      next_attempt_at: null,
    },
  });
}

export async function markDeadLettered(delivery: DeliveryItem): Promise<void> {
  await updateExistingItem(deliveryKey(refOf(delivery)), { dead_lettered: true });
}

// ---------------------------------------------------------------------------------------------
// Views

export interface WebhookEventView {
  event_id: string;
  event_type: string;
  entity_id: string;
  event_data: Record<string, unknown>;
  created_at: string;
}

export interface DeliveryView {
  delivery_id: string;
  target: DeliveryTarget;
  endpoint_id: string | null;
  /** Callbacks: the job's callback URL; endpoints: null (the endpoint's URL is in each attempt). */
  callback_url: string | null;
  trigger: DeliveryTrigger;
  status: DeliveryStatus;
  attempt_count: number;
  next_attempt_at: string | null;
  created_at: string;
  completed_at: string | null;
  attempts: DeliveryAttempt[];
}

export function toEventView(item: EventItem): WebhookEventView {
  return {
    event_id: item.event_id,
    event_type: item.event_type,
    entity_id: item.entity_id,
    event_data: item.event_data,
    created_at: item.created_at,
  };
}

export function toDeliveryView(item: DeliveryItem): DeliveryView {
  return {
    delivery_id: item.delivery_id,
    target: item.target,
    endpoint_id: item.endpoint_id,
    callback_url: item.callback_url,
    trigger: item.trigger,
    status: item.status,
    attempt_count: item.attempt_count,
    next_attempt_at:
      item.next_attempt_at === null || TERMINAL_DELIVERY_STATUSES.has(item.status)
        ? null
        : new Date(item.next_attempt_at).toISOString(),
    created_at: item.created_at,
    completed_at: item.completed_at,
    attempts: item.attempts ?? [],
  };
}
