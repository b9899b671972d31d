/**
 * The webhook dispatcher's logic: fan-out of a domain event to its targets, and the attempts of each
 * delivery.
 *
 * Fan-out: the workspace's enabled endpoints that subscribe to the event's type (`events: null` =
 * all) and whose `entity_id`, when set, is the event's, plus the job's one-off `callback_url`. An event
 * with no target is not recorded. The first attempts are sent at once by the fan-out itself (the
 * lowest latency from job completion to receipt); past `FAN_OUT_INLINE_LIMIT` targets, the rest go
 * through the queue so one invocation stays bounded.
 *
 * Attempts: the endpoint (URL, status, secret) is read at send time with a consistent read, so a
 * rotated secret signs every attempt made after the rotation, and a deleted or disabled endpoint gets
 * no more attempts. 2xx is success; 410 disables the endpoint; a destination the guard refuses ends
 * the delivery; anything else (timeout, 3xx, 4xx, 5xx, connection errors) is retried on the schedule
 * of `retry-schedule.ts`, and the last failure sends the delivery to the dead-letter queue.
 */

import { MetricUnit } from '@aws-lambda-powertools/metrics';
import { config } from '../core/config.js';
import { ConflictError, NotFoundError } from '../core/errors.js';
import { newId, nowSeconds } from '../core/ids.js';
import { outboundPolicy } from '../core/network-guard.js';
import { logger, metrics } from '../core/observability.js';
import type { DomainEvent } from '../events/domain-events.js';
import { CALLBACK_SECRET_CONTEXT_ID, getCallbackSecretItem } from './callback-secret.js';
import {
  type AttemptOutcome,
  beginDispatch,
  type Claim,
  cancelDelivery,
  claimAttempt,
  createClaimedDelivery,
  createDelivery,
  DELIVERY_STATUS,
  DELIVERY_TARGETS,
  DELIVERY_TRIGGERS,
  type DeliveryItem,
  type DeliveryRef,
  type DeliveryTarget,
  type DeliveryView,
  type EventItem,
  fanOutDeliveryId,
  findEvent,
  finishDispatch,
  getDelivery,
  getEventBySeq,
  markDeadLettered,
  type NewDelivery,
  recordAttempt,
  refOf,
  toDeliveryView,
} from './deliveries.js';
import { decryptSecret } from './endpoint-secrets.js';
import {
  disableGoneEndpoint,
  ENDPOINT_STATUS,
  type EndpointItem,
  getEndpointItem,
  listEndpointItems,
} from './endpoints.js';
import { nextRetryDelay, parseRetryAfter, retryPolicy } from './retry-schedule.js';
import { SEND_OUTCOMES, sendWebhook, type WebhookSendResult } from './sender.js';
import { deliveryHeaders } from './signatures.js';
import { enqueueDelivery, sendToDeadLetterQueue } from './webhook-queue.js';

/** First attempts a fan-out sends itself; further targets are driven through the queue. */
export const FAN_OUT_INLINE_LIMIT = 10;

/**
 * A delivery due within this much is waited for in the worker; a later one goes back on the queue
 * with its remaining delay (SQS delays are whole seconds, at most 900).
 */
export const INLINE_WAIT_MS = 1000;

/** How much longer than the attempt's deadline its claim is held before another worker may take it over. */
const LEASE_MARGIN_MS = 5000;

const leaseMs = () => config().webhookTimeoutMs + LEASE_MARGIN_MS;

// ---------------------------------------------------------------------------------------------
// Secrets

/**
 * Decrypted secrets by ciphertext. The endpoint (and so the ciphertext) is read at every attempt, and
 * a rotation stores a new ciphertext, so a cached entry can never sign for a rotated secret; the cache
 * only saves KMS calls for the same secret.
 */
const secretCache = new Map<string, { secret: string; expiresAt: number }>();
const SECRET_CACHE_TTL_MS = 5 * 60_000;
const SECRET_CACHE_SIZE = 1000;

async function secretFor(workspaceId: string, contextId: string, ciphertext: string): Promise<string> {
  const cached = secretCache.get(ciphertext);
  if (cached && cached.expiresAt > Date.now()) return cached.secret;
  const secret = await decryptSecret(workspaceId, contextId, ciphertext);
  if (secretCache.size >= SECRET_CACHE_SIZE) {
    const oldest = secretCache.keys().next().value;
    if (oldest !== undefined) secretCache.delete(oldest);
  }
  secretCache.set(ciphertext, { secret, expiresAt: Date.now() + SECRET_CACHE_TTL_MS });
  return secret;
}

// ---------------------------------------------------------------------------------------------
// Fan-out

/** Whether an endpoint gets an event: enabled, subscribed to its type, and scoped to its entity if at all. */
export function subscribes(
  endpoint: EndpointItem,
  event: Pick<DomainEvent, 'event_type' | 'entity_id'>,
): boolean {
  return (
    endpoint.status === ENDPOINT_STATUS.enabled &&
    (endpoint.events === null ||
      endpoint.events === undefined ||
      endpoint.events.includes(event.event_type)) &&
    (!endpoint.entity_id || endpoint.entity_id === event.entity_id)
  );
}

interface FanOutTarget {
  target: DeliveryTarget;
  endpointId: string | null;
  callbackUrl: string | null;
  /** Names the target within the event: the delivery id derives from it. */
  key: string;
}

/** Dispatches one domain event (at least once from the bus; a repeat is dropped by its id). */
export async function dispatchEvent(event: DomainEvent): Promise<void> {
  const endpoints = (await listEndpointItems(event.workspace_id)).filter((endpoint) =>
    subscribes(endpoint, event),
  );
  const targets: FanOutTarget[] = endpoints.map((endpoint) => ({
    target: DELIVERY_TARGETS.endpoint,
    endpointId: endpoint.endpoint_id,
    callbackUrl: null,
    key: `endpoint:${endpoint.endpoint_id}`,
  }));
  if (event.callback) {
    targets.push({
      target: DELIVERY_TARGETS.callback,
      endpointId: null,
      callbackUrl: event.callback.url,
      key: 'callback',
    });
  }
  if (targets.length === 0) return;
  const record = await beginDispatch(event);
  if (!record) {
    logger.debug('Dropping an event that was dispatched before', { eventId: event.event_id });
    return;
  }
  await Promise.all(
    targets.map(async (target, index) => {
      const input: NewDelivery = {
        workspaceId: event.workspace_id,
        event: record,
        deliveryId: fanOutDeliveryId(record.event_seq, target.key),
        target: target.target,
        endpointId: target.endpointId,
        callbackUrl: target.callbackUrl,
        trigger: DELIVERY_TRIGGERS.event,
      };
      const ref = {
        workspaceId: event.workspace_id,
        eventSeq: record.event_seq,
        deliveryId: input.deliveryId,
      };
      if (index < FAN_OUT_INLINE_LIMIT) {
        const created = await createClaimedDelivery(input, leaseMs());
        // Made by an earlier run of this fan-out (it crashed, or runs concurrently): drive it as it is.
        if (!created) return driveDelivery(ref, record);
        return attempt(created.delivery, created.claim, record);
      }
      await createDelivery(input);
      await enqueueDelivery(ref, 0);
    }),
  );
  await finishDispatch(event.workspace_id, event.event_id);
}

// ---------------------------------------------------------------------------------------------
// Driving one delivery

const sleep = (ms: number) => new Promise((resolve) => setTimeout(resolve, ms));

/**
 * Makes a delivery's next attempt if it is due (waiting up to `INLINE_WAIT_MS` for it), re-queues it
 * with its remaining delay if not, and otherwise leaves it: terminal, or an attempt in flight under a
 * live claim. Safe to call any number of times: the claim lets one caller make each attempt.
 */
export async function driveDelivery(ref: DeliveryRef, event?: EventItem): Promise<void> {
  const delivery = await getDelivery(ref);
  if (!delivery) return;
  switch (delivery.status) {
    case DELIVERY_STATUS.exhausted:
      if (!delivery.dead_lettered) await deadLetter(delivery);
      return;
    case DELIVERY_STATUS.pending: {
      const wait = (delivery.next_attempt_at ?? 0) - Date.now();
      if (wait > INLINE_WAIT_MS) {
        await enqueueDelivery(ref, wait);
        return;
      }
      if (wait > 0) await sleep(wait);
      break;
    }
    case DELIVERY_STATUS.sending:
      if ((delivery.lease_until ?? 0) > Date.now()) return;
      break;
    default:
      return;
  }
  const claimed = await claimAttempt(delivery, leaseMs());
  if (!claimed) return;
  await attempt(claimed.delivery, claimed.claim, event);
}

interface ResolvedTarget {
  url: string;
  /** null: an unsigned callback (the workspace has no callback secret). */
  secret: string | null;
}

async function resolveTarget(delivery: DeliveryItem): Promise<ResolvedTarget | { cancel: string }> {
  if (delivery.target === DELIVERY_TARGETS.callback) {
    const stored = await getCallbackSecretItem(delivery.workspace_id);
    return {
      url: delivery.callback_url ?? '',
      secret: stored
        ? await secretFor(delivery.workspace_id, CALLBACK_SECRET_CONTEXT_ID, stored.secret_ciphertext)
        : null,
    };
  }
  const endpoint = await getEndpointItem(delivery.workspace_id, delivery.endpoint_id ?? '', true);
  if (!endpoint) return { cancel: 'the endpoint was deleted' };
  if (endpoint.status !== ENDPOINT_STATUS.enabled) return { cancel: 'the endpoint is disabled' };
  return {
    url: endpoint.url,
    secret: await secretFor(delivery.workspace_id, endpoint.endpoint_id, endpoint.secret_ciphertext),
  };
}

/** The body sent: `{event_type, event_data}`; a callback's data always carries its `callback_id`. */
function bodyOf(event: EventItem, delivery: DeliveryItem): string {
  const eventData =
    delivery.target === DELIVERY_TARGETS.callback && !('callback_id' in event.event_data)
      ? { ...event.event_data, callback_id: event.callback?.id ?? null }
      : event.event_data;
  return JSON.stringify({ event_type: event.event_type, event_data: eventData });
}

/** Makes one claimed attempt and records it; schedules the next, or ends the delivery. */
async function attempt(delivery: DeliveryItem, claim: Claim, known?: EventItem): Promise<void> {
  const event = known ?? (await getEventBySeq(delivery.workspace_id, delivery.event_seq));
  if (!event) {
    await cancelDelivery(delivery, claim, 'the event is no longer stored');
    return;
  }
  const target = await resolveTarget(delivery);
  if ('cancel' in target) {
    await cancelDelivery(delivery, claim, target.cancel);
    countDelivery(DELIVERY_STATUS.cancelled);
    return;
  }
  const body = bodyOf(event, delivery);
  const startedAt = new Date();
  const result = await sendWebhook({
    url: target.url,
    body,
    headers: deliveryHeaders({
      eventId: event.event_id,
      timestamp: nowSeconds(),
      body,
      secret: target.secret,
    }),
    timeoutMs: config().webhookTimeoutMs,
    policy: outboundPolicy(),
  });
  const gone = result.outcome === SEND_OUTCOMES.response && result.statusCode === 410;
  if (gone && delivery.target === DELIVERY_TARGETS.endpoint && delivery.endpoint_id) {
    await disableGoneEndpoint(delivery.workspace_id, delivery.endpoint_id, target.url);
  }
  const outcome = judge(result, claim.attempt, startedAt, target.url, delivery.target);
  const recorded = await recordAttempt(delivery, claim, outcome);
  if (!recorded) {
    logger.warn('A webhook attempt finished after its claim was taken over; its outcome is not recorded', {
      deliveryId: delivery.delivery_id,
      attempt: claim.attempt,
    });
    return;
  }
  countDelivery(outcome.status);
  if (outcome.status === DELIVERY_STATUS.pending && outcome.nextAttemptAt !== null) {
    await enqueueDelivery(refOf(recorded), outcome.nextAttemptAt - Date.now());
  } else if (outcome.status === DELIVERY_STATUS.exhausted) {
    await deadLetter(recorded);
  }
}

/** What an attempt's result means for the delivery. */
export function judge(
  result: WebhookSendResult,
  attemptNumber: number,
  startedAt: Date,
  url: string,
  target: DeliveryTarget,
): AttemptOutcome {
  const base = {
    attempt: attemptNumber,
    started_at: startedAt.toISOString(),
    duration_ms: result.durationMs,
    url,
  };
  if (result.outcome === SEND_OUTCOMES.response && result.statusCode >= 200 && result.statusCode < 300) {
    return {
      status: DELIVERY_STATUS.delivered,
      nextAttemptAt: null,
      attempt: { ...base, status_code: result.statusCode, error: null, next_attempt_at: null },
    };
  }
  if (result.outcome === SEND_OUTCOMES.response && result.statusCode === 410) {
    const error =
      target === DELIVERY_TARGETS.endpoint
        ? '410 Gone: the endpoint was disabled; enable it again with PATCH status "enabled"'
        : '410 Gone: the callback is not retried';
    return {
      status: DELIVERY_STATUS.failed,
      nextAttemptAt: null,
      attempt: { ...base, status_code: 410, error, next_attempt_at: null },
    };
  }
  if (result.outcome === SEND_OUTCOMES.refused) {
    return {
      status: DELIVERY_STATUS.failed,
      nextAttemptAt: null,
      attempt: { ...base, status_code: null, error: result.error, next_attempt_at: null },
    };
  }
  let statusCode: number | null = null;
  let error: string;
  let retryAfterMs: number | null = null;
  if (result.outcome === SEND_OUTCOMES.response) {
    statusCode = result.statusCode;
    retryAfterMs = parseRetryAfter(result.retryAfter);
    error =
      statusCode >= 300 && statusCode < 400
        ? `redirect (${statusCode}${result.location ? ` to ${result.location.slice(0, 200)}` : ''}) not followed`
        : `the receiver answered ${statusCode}, not 2xx`;
  } else {
    error = result.error;
  }
  const delay = nextRetryDelay(retryPolicy(), attemptNumber, retryAfterMs);
  if (delay === null) {
    return {
      status: DELIVERY_STATUS.exhausted,
      nextAttemptAt: null,
      attempt: {
        ...base,
        status_code: statusCode,
        error: `${error}; no attempts left`,
        next_attempt_at: null,
      },
    };
  }
  const nextAttemptAt = startedAt.getTime() + result.durationMs + delay;
  return {
    status: DELIVERY_STATUS.pending,
    nextAttemptAt,
    attempt: {
      ...base,
      status_code: statusCode,
      error,
      next_attempt_at: new Date(nextAttemptAt).toISOString(),
    },
  };
}

async function deadLetter(delivery: DeliveryItem): Promise<void> {
  await sendToDeadLetterQueue(refOf(delivery), delivery.event_id);
  await markDeadLettered(delivery);
  logger.warn('A webhook delivery ran out of attempts and was sent to the dead-letter queue', {
    workspaceId: delivery.workspace_id,
    eventId: delivery.event_id,
    deliveryId: delivery.delivery_id,
    endpointId: delivery.endpoint_id,
    attempts: delivery.attempt_count,
  });
}

function countDelivery(status: string): void {
  const metric = metrics.singleMetric();
  metric.addDimensions({ outcome: status });
  metric.addMetric('WebhookDeliveries', MetricUnit.Count, 1);
}

// ---------------------------------------------------------------------------------------------
// New deliveries of a recorded event

export const webhookEventNotFound = (eventId: string) =>
  new NotFoundError(`Webhook event ${eventId} not found.`, 'resource_not_found', 'event_id');

/**
 * A new delivery of a recorded event to one of the workspace's endpoints, whether or not the endpoint
 * got it before (for example one registered since). It is queued at once and keeps the event's id,
 * so a receiver that already has it can drop it.
 */
export async function redeliverEvent(
  workspaceId: string,
  eventId: string,
  endpointId: string,
): Promise<DeliveryView> {
  const event = await findEvent(workspaceId, eventId);
  if (!event) throw webhookEventNotFound(eventId);
  const endpoint = await getEndpointItem(workspaceId, endpointId, true);
  if (!endpoint) {
    throw new NotFoundError(`Webhook endpoint ${endpointId} not found.`, 'webhook_not_found', 'endpoint_id');
  }
  if (endpoint.status !== ENDPOINT_STATUS.enabled) {
    throw new ConflictError(
      `Webhook endpoint ${endpointId} is disabled; enable it with PATCH /v3/webhooks/endpoints/${endpointId} {"status": "enabled"} first.`,
      'webhook_endpoint_disabled',
      { param: 'endpoint_id' },
    );
  }
  const delivery = await createDelivery({
    workspaceId,
    event,
    deliveryId: newId(),
    target: DELIVERY_TARGETS.endpoint,
    endpointId,
    callbackUrl: null,
    trigger: DELIVERY_TRIGGERS.manual,
  });
  if (!delivery) throw new Error('Delivery id collision');
  await enqueueDelivery(refOf(delivery), 0);
  return toDeliveryView(delivery);
}

/**
 * An exhausted delivery moved back from the dead-letter queue: a new delivery of the event to the
 * same target, with a full schedule. The SQS message id makes it once per moved message.
 */
export async function redriveDelivery(ref: DeliveryRef, messageId: string): Promise<void> {
  const original = await getDelivery(ref);
  const event = original && (await getEventBySeq(ref.workspaceId, ref.eventSeq));
  if (!original || !event) {
    logger.warn('Dropping a redriven webhook delivery whose records expired', { ...ref });
    return;
  }
  const input: NewDelivery = {
    workspaceId: ref.workspaceId,
    event,
    deliveryId: fanOutDeliveryId(event.event_seq, `redrive:${original.delivery_id}:${messageId}`),
    target: original.target,
    endpointId: original.endpoint_id,
    callbackUrl: original.callback_url,
    trigger: DELIVERY_TRIGGERS.redrive,
  };
  await createDelivery(input);
  await driveDelivery({ ...ref, deliveryId: input.deliveryId }, event);
}
