/**
 * Records of webhook dispatch, all under the workspace's partition:
 *
 * | sort key                                       | what                                                  |
 * | ---------------------------------------------- | ----------------------------------------------------- |
 * | `WEBHOOK_EVENT#<event_id>`                     | the event as dispatched (type, entity, data, callback) |
 * | `WEBHOOK_DELIVERY#<event_id>#<delivery_id>`    | one delivery to one target, with every attempt         |
 *
 * The event item is written with a condition, so an event published again (events are at least
 * once, with stable ids) is recorded once per workspace, and the writer holds the event's fan-out
 * (a token and a lease on the record) until it records the deliveries with their first attempts and
 * marks the event `fanned_out`. A repeat drops the event, or, once a crashed fan-out's lease has run
 * out, takes the fan-out over; every delivery id derives from the event and the target, so a
 * takeover finds what was recorded and sends only what was not. Events list newest first through
 * GSI1 (`WS#<ws>#WEBHOOK_EVENTS`, sorted by a time-ordered id).
 *
 * A delivery moves through its states with conditional writes: an attempt is claimed (status
 * `sending`, a claim token and a lease) before it is sent, and its outcome recorded only by the
 * claim's holder, so duplicate queue messages, concurrent workers and crashes never send one attempt
 * twice at once or lose one.
 */
import { createHash, randomBytes } from 'node:crypto';
import { ConditionalCheckFailedException } from '@aws-sdk/client-dynamodb';
import { UpdateCommand } from '@aws-sdk/lib-dynamodb';
import { documents } from '../core/aws-clients.js';
import { config } from '../core/config.js';
import { newId, nowSeconds } from '../core/ids.js';
import {
  getItem,
  putItems,
  putNewItem,
  queryAll,
  queryPage,
  updateExistingItem,
} from '../core/repository.js';
import { keys, RESOURCE_TYPES, TABLE_SCHEMA } from '../core/table-schema.js';
import type { DomainEvent } from '../events/domain-events.js';

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
  gsi1pk: string;
  /** A time-ordered id: the event's place in the newest-first list. */
  gsi1sk: string;
  workspace_id: string;
  event_id: string;
  event_type: string;
  entity_id: string;
  event_data: Record<string, unknown>;
  /** ISO 8601 UTC, from the domain event. */
  created_at: string;
  callback: { url: string; id: string | null } | null;
  /** Whether the fan-out recorded every delivery; repeats of the event are then dropped at once. */
  fanned_out: boolean;
  /** The fan-out's holder and until when (epoch milliseconds) it holds it. */
  fanout_token: string | null;
  fanout_lease_until: number | null;
  expires_at: number;
}

export interface DeliveryItem {
  pk: string;
  sk: string;
  delivery_id: string;
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
  eventId: string;
  deliveryId: string;
}

const eventKey = (workspaceId: string, eventId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.webhookEvent, eventId);
const eventsPartition = (workspaceId: string) => `${keys.workspacePartition(workspaceId)}#WEBHOOK_EVENTS`;
export const deliveryKey = (ref: DeliveryRef) =>
  keys.resource(ref.workspaceId, RESOURCE_TYPES.webhookDelivery, `${ref.eventId}#${ref.deliveryId}`);
export const refOf = (delivery: DeliveryItem): DeliveryRef => ({
  workspaceId: delivery.workspace_id,
  eventId: delivery.event_id,
  deliveryId: delivery.delivery_id,
});

function expiresAt(): number {
  return nowSeconds() + Math.round(config().webhookRetentionDays * 86_400);
}

// ---------------------------------------------------------------------------------------------
// Events

/**
 * Records an event for its workspace and takes its fan-out. `owner` is false for a repeat (the event
 * was recorded before): the record returned is the first one.
 */
export async function recordEvent(
  event: DomainEvent,
  leaseMs: number,
): Promise<{ event: EventItem; owner: boolean }> {
  const item: EventItem = {
    ...eventKey(event.workspace_id, event.event_id),
    gsi1pk: eventsPartition(event.workspace_id),
    gsi1sk: newId(),
    workspace_id: event.workspace_id,
    event_id: event.event_id,
    event_type: event.event_type,
    entity_id: event.entity_id,
    event_data: event.event_data,
    created_at: event.created_at,
    callback: event.callback ?? null,
    fanned_out: false,
    fanout_token: randomBytes(12).toString('hex'),
    fanout_lease_until: Date.now() + leaseMs,
    expires_at: expiresAt(),
  };
  if (await putNewItem({ ...item })) return { event: item, owner: true };
  const existing = await getItem<EventItem>(eventKey(event.workspace_id, event.event_id), true);
  if (!existing) throw new Error(`The record of event ${event.event_id} vanished`);
  return { event: existing, owner: false };
}

/**
 * Takes over the fan-out of a recorded event whose holder's lease ran out before it was done (it
 * crashed). Undefined when there is nothing to take over: done, still held, or taken by another.
 */
export async function takeOverFanOut(event: EventItem, leaseMs: number): Promise<EventItem | undefined> {
  if (event.fanned_out || (event.fanout_lease_until ?? 0) > Date.now()) return undefined;
  return updateExistingItem<EventItem>(
    eventKey(event.workspace_id, event.event_id),
    { fanout_token: randomBytes(12).toString('hex'), fanout_lease_until: Date.now() + leaseMs },
    [],
    { fanout_token: event.fanout_token, fanned_out: false },
  );
}

/** Records new deliveries the caller owns (the fan-out's holder's). */
export async function recordDeliveries(deliveries: readonly DeliveryItem[]): Promise<void> {
  await putItems(deliveries);
}

/**
 * Records a fan-out's deliveries (with their first attempts) and marks the event fanned out, in one
 * batch: the holder of the fan-out owns these items, so no condition is needed.
 */
export async function completeFanOut(event: EventItem, deliveries: readonly DeliveryItem[]): Promise<void> {
  const done: EventItem = { ...event, fanned_out: true, fanout_token: null, fanout_lease_until: null };
  await putItems([...deliveries, done]);
}

export async function findEvent(workspaceId: string, eventId: string): Promise<EventItem | undefined> {
  return getItem<EventItem>(eventKey(workspaceId, eventId));
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
    partition: eventsPartition(workspaceId),
    index: TABLE_SCHEMA.gsi1.indexName,
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
export function fanOutDeliveryId(eventId: string, targetKey: string): string {
  return createHash('sha256').update(`${eventId}\n${targetKey}`).digest('hex').slice(0, 32);
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
      eventId: input.event.event_id,
      deliveryId: input.deliveryId,
    }),
    delivery_id: input.deliveryId,
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

/** A delivery whose first attempt was made (by the fan-out) with this outcome, as it is recorded. */
export function attemptedDeliveryItem(input: NewDelivery, outcome: AttemptOutcome): DeliveryItem {
  return {
    ...newDeliveryItem(input, Date.parse(outcome.attempt.started_at)),
    status: outcome.status,
    attempt_count: outcome.attempt.attempt,
    next_attempt_at: outcome.nextAttemptAt,
    attempts: [outcome.attempt],
    completed_at: TERMINAL_DELIVERY_STATUSES.has(outcome.status) ? outcome.attempt.started_at : null,
  };
}

/** A delivery due now, to be sent through the queue. */
export function pendingDeliveryItem(input: NewDelivery): DeliveryItem {
  return newDeliveryItem(input, Date.now());
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

export async function listDeliveries(workspaceId: string, eventId: string): Promise<DeliveryItem[]> {
  return queryAll<DeliveryItem>(
    keys.workspacePartition(workspaceId),
    `${RESOURCE_TYPES.webhookDelivery}#${eventId}#`,
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
