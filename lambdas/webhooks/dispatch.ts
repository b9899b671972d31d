/**
 * The webhook dispatcher's logic: fan-out of a domain event to its targets, and the attempts of each
 * delivery.
 *
 * Fan-out: the workspace's enabled endpoints that subscribe to the event's type (`events: null` =
 * all) and whose `entity_id`, when set, is the event's, plus the job's one-off `callback_url`. An event
 * with no target is not recorded. The holder of the event's fan-out (see `deliveries.ts`) sends the
 * first attempts itself, at once and concurrently (the lowest latency from job completion to
 * receipt), then records every delivery with its first attempt in one batch; past
 * `FAN_OUT_INLINE_LIMIT` targets, the rest go through the queue so one invocation stays bounded.
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
import { onProcessReset } from '../core/process-state.js';
import type { DomainEvent } from '../events/domain-events.js';
import { CALLBACK_SECRET_CONTEXT_ID, getCallbackSecretItem } from './callback-secret.js';
import {
  type AttemptOutcome,
  attemptedDeliveryItem,
  type Claim,
  cancelDelivery,
  claimAttempt,
  completeFanOut,
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
  getDelivery,
  listDeliveries,
  markDeadLettered,
  type NewDelivery,
  pendingDeliveryItem,
  recordAttempt,
  recordDeliveries,
  recordEvent,
  refOf,
  TERMINAL_DELIVERY_STATUSES,
  takeOverFanOut,
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
import { enqueueDeliveries, enqueueDelivery, sendToDeadLetterQueue } from './webhook-queue.js';

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
// A restarted local stack has new KMS keys, so its ciphertexts could repeat earlier ones.
onProcessReset(() => secretCache.clear());

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
  /** Endpoints: as read by the fan-out, right before their first attempts. */
  endpoint: EndpointItem | null;
  callbackUrl: string | null;
  /** Names the target within the event: the delivery id derives from it. */
  key: string;
}

/**
 * Dispatches one domain event (at least once from the bus: a repeat sends nothing twice). The
 * endpoints are read once, consistently, right before the first attempts, which sign with the secrets
 * of that read; every later attempt reads its endpoint again.
 */
export async function dispatchEvent(event: DomainEvent): Promise<void> {
  const endpoints = (await listEndpointItems(event.workspace_id, true)).filter((endpoint) =>
    subscribes(endpoint, event),
  );
  const targets: FanOutTarget[] = endpoints.map((endpoint) => ({
    target: DELIVERY_TARGETS.endpoint,
    endpoint,
    callbackUrl: null,
    key: `endpoint:${endpoint.endpoint_id}`,
  }));
  if (event.callback) {
    targets.push({
      target: DELIVERY_TARGETS.callback,
      endpoint: null,
      callbackUrl: event.callback.url,
      key: 'callback',
    });
  }
  if (targets.length === 0) return;
  const { event: record, owner } = await recordEvent(event, leaseMs());
  const inputs = targets.map(
    (target): NewDelivery => ({
      workspaceId: event.workspace_id,
      event: record,
      deliveryId: fanOutDeliveryId(record.event_id, target.key),
      target: target.target,
      endpointId: target.endpoint?.endpoint_id ?? null,
      callbackUrl: target.callbackUrl,
      trigger: DELIVERY_TRIGGERS.event,
    }),
  );
  if (!owner) {
    // A repeat: of a dispatched event (its deliveries are driven on, which sends nothing twice and
    // queues again what a failed follow-up did not), of a fan-out in progress (dropped), or of one
    // that crashed (taken over once its lease has run out).
    if (record.fanned_out) return driveRecorded(record);
    const resumed = await takeOverFanOut(record, leaseMs());
    if (resumed) await resumeFanOut(resumed, inputs);
    else
      logger.debug('Dropping a repeat of an event whose fan-out is in progress', { eventId: event.event_id });
    return;
  }

  const queued = inputs.slice(FAN_OUT_INLINE_LIMIT).map(pendingDeliveryItem);
  if (queued.length > 0) {
    await recordDeliveries(queued);
    await enqueueDeliveries(queued.map((delivery) => ({ ref: refOf(delivery), delayMs: 0 })));
  }
  const attempted = await Promise.all(
    inputs.slice(0, FAN_OUT_INLINE_LIMIT).map(async (input, index) => {
      const result = await makeAttempt(input, 1, record, targets[index]?.endpoint ?? null);
      return 'cancel' in result
        ? pendingDeliveryItem(input)
        : { item: attemptedDeliveryItem(input, result.outcome), outcome: result.outcome };
    }),
  );
  const items = attempted.map((entry) => ('item' in entry ? entry.item : entry));
  await completeFanOut(record, items);
  // Not sent (unexpected for targets just read): the queue drives them from their records.
  await enqueueDeliveries(
    attempted.flatMap((entry) => ('item' in entry ? [] : [{ ref: refOf(entry), delayMs: 0 }])),
  );
  await followUp(
    attempted.flatMap((entry) => ('item' in entry ? [{ delivery: entry.item, outcome: entry.outcome }] : [])),
  );
}

/** Drives the recorded deliveries of a dispatched event that are not done. */
async function driveRecorded(record: EventItem): Promise<void> {
  const deliveries = await listDeliveries(record.workspace_id, record.event_id);
  await Promise.all(
    deliveries
      .filter(
        (delivery) =>
          !TERMINAL_DELIVERY_STATUSES.has(delivery.status) ||
          (delivery.status === DELIVERY_STATUS.exhausted && !delivery.dead_lettered),
      )
      .map((delivery) => driveDelivery(refOf(delivery), record)),
  );
}

/**
 * The fan-out of an event whose first holder stopped before recording it: each target's delivery is
 * made if it is missing, and driven on from where it is otherwise. An attempt the first holder sent
 * but did not record is sent again (receivers de-duplicate by the event id).
 */
async function resumeFanOut(record: EventItem, inputs: readonly NewDelivery[]): Promise<void> {
  logger.info('Resuming the fan-out of an event', { eventId: record.event_id });
  const refOfInput = (input: NewDelivery) => ({
    workspaceId: input.workspaceId,
    eventId: record.event_id,
    deliveryId: input.deliveryId,
  });
  const queued = inputs.slice(FAN_OUT_INLINE_LIMIT);
  for (const input of queued) await createDelivery(input);
  await enqueueDeliveries(queued.map((input) => ({ ref: refOfInput(input), delayMs: 0 })));
  await Promise.all(
    inputs.slice(0, FAN_OUT_INLINE_LIMIT).map(async (input) => {
      const created = await createClaimedDelivery(input, leaseMs());
      if (created) return attempt(created.delivery, created.claim, { event: record });
      return driveDelivery(refOfInput(input), record);
    }),
  );
  await completeFanOut(record, []);
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
  await attempt(claimed.delivery, claimed.claim, { event });
}

interface ResolvedTarget {
  url: string;
  /** null: an unsigned callback (the workspace has no callback secret). */
  secret: string | null;
}

async function resolveTarget(
  delivery: AttemptTarget,
  known: EndpointItem | null | undefined,
): Promise<ResolvedTarget | { cancel: string }> {
  if (delivery.target === DELIVERY_TARGETS.callback) {
    const stored = await getCallbackSecretItem(delivery.workspace_id);
    return {
      url: delivery.callback_url ?? '',
      secret: stored
        ? await secretFor(delivery.workspace_id, CALLBACK_SECRET_CONTEXT_ID, stored.secret_ciphertext)
        : null,
    };
  }
  const endpoint = known ?? (await getEndpointItem(delivery.workspace_id, delivery.endpoint_id ?? '', true));
  if (!endpoint) return { cancel: 'the endpoint was deleted' };
  if (endpoint.status !== ENDPOINT_STATUS.enabled) return { cancel: 'the endpoint is disabled' };
  return {
    url: endpoint.url,
    secret: await secretFor(delivery.workspace_id, endpoint.endpoint_id, endpoint.secret_ciphertext),
  };
}

/** The body sent: `{event_type, event_data}`; a callback's data always carries its `callback_id`. */
function bodyOf(event: EventItem, target: DeliveryTarget): string {
  const eventData =
    target === DELIVERY_TARGETS.callback && !('callback_id' in event.event_data)
      ? { ...event.event_data, callback_id: event.callback?.id ?? null }
      : event.event_data;
  return JSON.stringify({ event_type: event.event_type, event_data: eventData });
}

type AttemptTarget = Pick<DeliveryItem, 'workspace_id' | 'target' | 'endpoint_id' | 'callback_url'>;

/**
 * Sends attempt `attemptNumber` of a delivery and judges it; an endpoint's 410 disables it here.
 * `{cancel}` when it is not to be sent at all (its endpoint was deleted or disabled meanwhile).
 */
async function makeAttempt(
  delivery: NewDelivery | AttemptTarget,
  attemptNumber: number,
  event: EventItem,
  endpoint: EndpointItem | null | undefined,
): Promise<{ outcome: AttemptOutcome } | { cancel: string }> {
  const target: AttemptTarget =
    'workspaceId' in delivery
      ? {
          workspace_id: delivery.workspaceId,
          target: delivery.target,
          endpoint_id: delivery.endpointId,
          callback_url: delivery.callbackUrl,
        }
      : delivery;
  const resolved = await resolveTarget(target, endpoint);
  if ('cancel' in resolved) return resolved;
  const body = bodyOf(event, target.target);
  const startedAt = new Date();
  const result = await sendWebhook({
    url: resolved.url,
    body,
    headers: deliveryHeaders({
      eventId: event.event_id,
      timestamp: nowSeconds(),
      body,
      secret: resolved.secret,
    }),
    timeoutMs: config().webhookTimeoutMs,
    policy: outboundPolicy(),
  });
  const gone = result.outcome === SEND_OUTCOMES.response && result.statusCode === 410;
  if (gone && target.target === DELIVERY_TARGETS.endpoint && target.endpoint_id) {
    await disableGoneEndpoint(target.workspace_id, target.endpoint_id, resolved.url);
  }
  return { outcome: judge(result, attemptNumber, startedAt, resolved.url, target.target) };
}

/** Makes one claimed attempt and records it; schedules the next, or ends the delivery. */
async function attempt(
  delivery: DeliveryItem,
  claim: Claim,
  known: { event?: EventItem | undefined } = {},
): Promise<void> {
  const event = known.event ?? (await findEvent(delivery.workspace_id, delivery.event_id));
  if (!event) {
    await cancelDelivery(delivery, claim, 'the event is no longer stored');
    return;
  }
  const result = await makeAttempt(delivery, claim.attempt, event, undefined);
  if ('cancel' in result) {
    await cancelDelivery(delivery, claim, result.cancel);
    countDelivery(DELIVERY_STATUS.cancelled);
    return;
  }
  const recorded = await recordAttempt(delivery, claim, result.outcome);
  if (!recorded) {
    logger.warn('A webhook attempt finished after its claim was taken over; its outcome is not recorded', {
      deliveryId: delivery.delivery_id,
      attempt: claim.attempt,
    });
    return;
  }
  await followUp([{ delivery: recorded, outcome: result.outcome }]);
}

/** After recorded attempts: metrics, the next attempts queued, exhausted deliveries dead-lettered. */
async function followUp(
  recorded: readonly { delivery: DeliveryItem; outcome: AttemptOutcome }[],
): Promise<void> {
  const retries: { ref: DeliveryRef; delayMs: number }[] = [];
  for (const { delivery, outcome } of recorded) {
    countDelivery(outcome.status);
    if (outcome.status === DELIVERY_STATUS.pending && outcome.nextAttemptAt !== null) {
      retries.push({ ref: refOf(delivery), delayMs: outcome.nextAttemptAt - Date.now() });
    }
  }
  await enqueueDeliveries(retries);
  await Promise.all(
    recorded
      .filter(({ outcome }) => outcome.status === DELIVERY_STATUS.exhausted)
      .map(({ delivery }) => deadLetter(delivery)),
  );
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
  await sendToDeadLetterQueue(refOf(delivery));
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
  const event = original && (await findEvent(ref.workspaceId, ref.eventId));
  if (!original || !event) {
    logger.warn('Dropping a redriven webhook delivery whose records expired', { ...ref });
    return;
  }
  const input: NewDelivery = {
    workspaceId: ref.workspaceId,
    event,
    deliveryId: fanOutDeliveryId(event.event_id, `redrive:${original.delivery_id}:${messageId}`),
    target: original.target,
    endpointId: original.endpoint_id,
    callbackUrl: original.callback_url,
    trigger: DELIVERY_TRIGGERS.redrive,
  };
  await createDelivery(input);
  await driveDelivery({ ...ref, deliveryId: input.deliveryId }, event);
}
