/**
 * Webhook deliveries through the whole local stack: events published on the bus reach the dispatcher
 * through the webhook queue and are POSTed to receivers on loopback, with millisecond retry schedules
 * and a 300 ms deadline. Each test has a workspace of its own, so they run concurrently.
 */
import { randomUUID } from 'node:crypto';
import { ReceiveMessageCommand, SendMessageCommand, SQSClient } from '@aws-sdk/client-sqs';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { updateExistingItem } from '../../lambdas/core/repository.js';
import { keys, RESOURCE_TYPES } from '../../lambdas/core/table-schema.js';
import { type DomainEvent, publishEvent } from '../../lambdas/events/domain-events.js';
import type { EventType } from '../../lambdas/events/event-types.js';
import {
  createClaimedDelivery,
  DELIVERY_TARGETS,
  DELIVERY_TRIGGERS,
  fanOutDeliveryId,
  recordEvent,
} from '../../lambdas/webhooks/deliveries.js';
import { dispatchEvent } from '../../lambdas/webhooks/dispatch.js';
import {
  verifyServiceSignature,
  verifyStandardWebhook,
  verifyWebhook,
  WebhookVerificationError,
} from '../../lib/webhooks/verify-webhook.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';
import { type ReceivedWebhook, startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const SCHEDULE_MS = [30, 60, 90];
const TIMEOUT_MS = 300;

let api: TestStack;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  api = await startTestStack({
    allowLoopbackUrls: true,
    environment: {
      WEBHOOK_RETRY_SCHEDULE_MS: SCHEDULE_MS.join(','),
      WEBHOOK_TIMEOUT_MS: String(TIMEOUT_MS),
    },
  });
});
afterAll(async () => {
  for (const receiver of receivers) await receiver.stop();
  await api.stop();
});

async function receiver(...args: Parameters<typeof startReceiver>): Promise<WebhookReceiver> {
  const started = await startReceiver(...args);
  receivers.push(started);
  return started;
}

interface Workspace {
  workspaceId: string;
  apiKey: string;
}

interface Endpoint {
  endpoint_id: string;
  url: string;
  status: string;
  secret: string;
}

async function createEndpoint(
  workspace: Workspace,
  url: string,
  options: { events?: string[] | null; entity_id?: string } = {},
): Promise<Endpoint> {
  const created = await api.call<{ data: Endpoint }>('POST', '/v3/webhooks/endpoints', {
    key: workspace.apiKey,
    body: { url, ...options },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data;
}

async function publish(
  workspace: Workspace,
  eventType: EventType,
  options: { entityId?: string; eventId?: string; callback?: DomainEvent['callback']; data?: object } = {},
): Promise<string> {
  const entityId = options.entityId ?? randomUUID().replaceAll('-', '');
  const event = await publishEvent({
    event_id: options.eventId ?? `${eventType}:${entityId}`,
    event_type: eventType,
    workspace_id: workspace.workspaceId,
    entity_id: entityId,
    ...(options.callback ? { callback: options.callback } : {}),
    event_data: { video_id: entityId, ...options.data },
  });
  return event.event_id;
}

interface Attempt {
  attempt: number;
  started_at: string;
  duration_ms: number;
  url: string;
  status_code: number | null;
  error: string | null;
  next_attempt_at: string | null;
}
interface Delivery {
  delivery_id: string;
  target: 'endpoint' | 'callback';
  endpoint_id: string | null;
  callback_url: string | null;
  trigger: string;
  status: string;
  attempt_count: number;
  next_attempt_at: string | null;
  attempts: Attempt[];
}
interface EventDetail {
  event_id: string;
  event_type: string;
  entity_id: string;
  event_data: Record<string, unknown>;
  created_at: string;
  deliveries: Delivery[];
}

const TERMINAL = ['delivered', 'failed', 'exhausted', 'cancelled'];

/** The event's record once `done` holds (by default: every delivery terminal). */
async function eventDetail(
  workspace: Workspace,
  eventId: string,
  done: (event: EventDetail) => boolean = (event) =>
    event.deliveries.length > 0 && event.deliveries.every((delivery) => TERMINAL.includes(delivery.status)),
): Promise<EventDetail> {
  const deadline = Date.now() + 15_000;
  let last: unknown;
  for (;;) {
    const result = await api.call<{ data: EventDetail }>(
      'GET',
      `/v3/webhooks/events/${encodeURIComponent(eventId)}`,
      { key: workspace.apiKey },
    );
    last = result.body;
    if (result.status === 200 && done(result.body.data)) return result.body.data;
    if (Date.now() > deadline) throw new Error(`Event ${eventId} not done: ${JSON.stringify(last)}`);
    await new Promise((resolve) => setTimeout(resolve, 20));
  }
}

const eventIdOf = (webhook: ReceivedWebhook) => webhook.headers['service-event-id'];

describe.concurrent('deliveries', () => {
  it('signs every delivery in both schemes: verified in constant time, stale or altered ones refused', async () => {
    const workspace = await api.newWorkspace();
    const verified: string[] = [];
    const hook = await receiver((request) => {
      // What a receiver does: verify the raw body before parsing anything.
      try {
        verifyStandardWebhook(request.rawBody, request.headers, endpoint.secret);
        verifyServiceSignature(request.rawBody, request.headers, endpoint.secret);
        verified.push(String(eventIdOf(request)));
        return 204;
      } catch {
        return 401;
      }
    });
    const endpoint = await createEndpoint(workspace, hook.url, { events: ['avatar_video.success'] });
    const eventId = await publish(workspace, 'avatar_video.success', { data: { note: 'é ✓ "quoted"' } });
    const [webhook] = await hook.waitFor(1);
    if (!webhook) throw new Error('no webhook');
    expect(verified).toEqual([eventId]);

    // The raw body is exactly {event_type, event_data}.
    expect(Object.keys(JSON.parse(webhook.rawBody.toString('utf8')))).toEqual(['event_type', 'event_data']);
    expect(webhook.body).toMatchObject({
      event_type: 'avatar_video.success',
      event_data: { note: 'é ✓ "quoted"' },
    });
    expect(webhook.headers['content-type']).toBe('application/json');
    expect(webhook.headers['service-event-id']).toBe(eventId);
    expect(webhook.headers['webhook-id']).toBe(eventId);
    expect(webhook.headers['service-timestamp']).toBe(webhook.headers['webhook-timestamp']);
    expect(Math.abs(Number(webhook.headers['service-timestamp']) - Date.now() / 1000)).toBeLessThan(60);
    expect(webhook.headers['service-signature']).toMatch(/^[0-9a-f]{64}$/);
    expect(webhook.headers['webhook-signature']).toMatch(/^v1,[A-Za-z0-9+/]+=*$/);
    expect(verifyWebhook(webhook.rawBody, webhook.headers, endpoint.secret)).toEqual({
      eventId,
      timestamp: Number(webhook.headers['webhook-timestamp']),
    });

    // Replayed ten minutes later: refused by both schemes.
    const later = () => Date.now() + 10 * 60_000;
    expect(() =>
      verifyStandardWebhook(webhook.rawBody, webhook.headers, endpoint.secret, { now: later }),
    ).toThrow(WebhookVerificationError);
    expect(() =>
      verifyServiceSignature(webhook.rawBody, webhook.headers, endpoint.secret, { now: later }),
    ).toThrow(/Timestamp/);
    // A fresh timestamp on an old signature: Standard Webhooks signs the timestamp, so it fails.
    const refreshed = { ...webhook.headers, 'webhook-timestamp': String(Math.floor(Date.now() / 1000) + 5) };
    expect(() => verifyStandardWebhook(webhook.rawBody, refreshed, endpoint.secret)).toThrow(/signature/);
    // Another body, another secret, another id: refused.
    const altered = Buffer.from(webhook.rawBody.toString('utf8').replace('quoted', 'QUOTED'));
    expect(() => verifyStandardWebhook(altered, webhook.headers, endpoint.secret)).toThrow(/signature/);
    expect(() => verifyServiceSignature(altered, webhook.headers, endpoint.secret)).toThrow(
      /Service-Signature/,
    );
    const otherSecret = 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    expect(() => verifyWebhook(webhook.rawBody, webhook.headers, otherSecret)).toThrow(
      WebhookVerificationError,
    );
    const otherId = { ...webhook.headers, 'webhook-id': 'another-event' };
    expect(() => verifyStandardWebhook(webhook.rawBody, otherId, endpoint.secret)).toThrow(/signature/);
    const { 'service-signature': _, 'webhook-signature': __, ...unsigned } = webhook.headers;
    expect(() => verifyWebhook(webhook.rawBody, unsigned, endpoint.secret)).toThrow(
      /Missing Service-Signature/,
    );

    const detail = await eventDetail(workspace, eventId);
    expect(detail.deliveries).toHaveLength(1);
    expect(detail.deliveries[0]).toMatchObject({
      status: 'delivered',
      attempt_count: 1,
      next_attempt_at: null,
    });
    expect(detail.deliveries[0]?.attempts).toEqual([
      {
        attempt: 1,
        started_at: expect.any(String),
        duration_ms: expect.any(Number),
        url: hook.url,
        status_code: 204,
        error: null,
        next_attempt_at: null,
      },
    ]);
  });

  it('retries a failing receiver with the same event id until it answers 2xx, recording every attempt', async () => {
    const workspace = await api.newWorkspace();
    const hook = await receiver((request) => (request.index < 2 ? 500 : 200));
    const endpoint = await createEndpoint(workspace, hook.url);
    const eventId = await publish(workspace, 'avatar_video.fail', {
      data: { failure_code: 'invalid_media' },
    });
    const received = await hook.waitFor(3);
    expect(received.map(eventIdOf)).toEqual([eventId, eventId, eventId]);
    expect(new Set(received.map((webhook) => webhook.rawBody.toString('hex'))).size).toBe(1);
    for (const webhook of received) {
      expect(() => verifyWebhook(webhook.rawBody, webhook.headers, endpoint.secret)).not.toThrow();
    }

    const [delivery] = (await eventDetail(workspace, eventId)).deliveries;
    expect(delivery).toMatchObject({
      target: 'endpoint',
      endpoint_id: endpoint.endpoint_id,
      trigger: 'event',
      status: 'delivered',
      attempt_count: 3,
    });
    const attempts = delivery?.attempts ?? [];
    expect(attempts.map((attempt) => attempt.status_code)).toEqual([500, 500, 200]);
    expect(attempts.map((attempt) => attempt.attempt)).toEqual([1, 2, 3]);
    expect(attempts[0]?.error).toContain('500');
    for (const [index, failed] of attempts.slice(0, 2).entries()) {
      // The next attempt was recorded, and made no earlier than announced.
      const next = Date.parse(failed.next_attempt_at ?? '');
      // Jitter (20 % by default) only ever shortens a scheduled wait.
      expect(next - Date.parse(failed.started_at)).toBeGreaterThanOrEqual((SCHEDULE_MS[index] ?? 0) * 0.8);
      expect(Date.parse(attempts[index + 1]?.started_at ?? '')).toBeGreaterThanOrEqual(next);
    }
    // Delivered once more: nothing arrives after the success.
    expect(hook.received).toHaveLength(3);
  });

  it('honours Retry-After, waiting through the queue for longer waits', async () => {
    const workspace = await api.newWorkspace();
    const hook = await receiver((request) =>
      request.index === 0 ? { status: 503, headers: { 'Retry-After': '2' } } : 200,
    );
    await createEndpoint(workspace, hook.url);
    const eventId = await publish(workspace, 'avatar_video.success');
    const [first, second] = await hook.waitFor(2);
    expect(eventIdOf(second as ReceivedWebhook)).toBe(eventId);
    expect((second?.receivedAt ?? 0) - (first?.receivedAt ?? 0)).toBeGreaterThanOrEqual(1900);
    const [delivery] = (await eventDetail(workspace, eventId)).deliveries;
    expect(delivery?.attempts.map((attempt) => attempt.status_code)).toEqual([503, 200]);
  });

  it('never follows a redirect: retried until exhausted, then sent to the dead-letter queue', async () => {
    const workspace = await api.newWorkspace();
    const elsewhere = await receiver();
    let fixed = false;
    const hook = await receiver(() => (fixed ? 200 : { status: 302, headers: { Location: elsewhere.url } }));
    await createEndpoint(workspace, hook.url);
    const eventId = await publish(workspace, 'avatar_video.success');
    const [delivery] = (await eventDetail(workspace, eventId)).deliveries;
    expect(delivery?.status).toBe('exhausted');
    expect(delivery?.attempts).toHaveLength(SCHEDULE_MS.length + 1);
    for (const attempt of delivery?.attempts ?? []) {
      expect(attempt.status_code).toBe(302);
      expect(attempt.error).toContain(`redirect (302 to ${elsewhere.url}) not followed`);
    }
    expect(delivery?.attempts.at(-1)?.error).toContain('no attempts left');
    expect(delivery?.attempts.at(-1)?.next_attempt_at).toBeNull();
    expect(hook.received).toHaveLength(SCHEDULE_MS.length + 1);
    expect(elsewhere.received).toHaveLength(0);

    // The dead-letter queue holds it (the queue's alarm fires on any message there).
    const sqs = new SQSClient({ endpoint: api.stack.environment.AWS_ENDPOINT_URL_SQS, region: 'us-east-1' });
    const deadline = Date.now() + 10_000;
    let found: Record<string, unknown> | undefined;
    while (!found && Date.now() < deadline) {
      const { Messages = [] } = await sqs.send(
        new ReceiveMessageCommand({
          QueueUrl: api.stack.environment.WEBHOOK_DEAD_LETTER_QUEUE_URL,
          MaxNumberOfMessages: 10,
          VisibilityTimeout: 0,
          WaitTimeSeconds: 0,
        }),
      );
      found = Messages.map((message) => JSON.parse(message.Body ?? '{}') as Record<string, unknown>).find(
        (body) => body.delivery_id === delivery?.delivery_id,
      );
    }
    expect(found).toMatchObject({
      kind: 'webhook.exhausted',
      workspace_id: workspace.workspaceId,
      event_id: eventId,
    });

    // Moved back to the queue once the receiver is fixed (an SQS redrive): a new delivery, sent.
    fixed = true;
    await sqs.send(
      new SendMessageCommand({
        QueueUrl: api.stack.environment.WEBHOOK_QUEUE_URL,
        MessageBody: JSON.stringify(found),
      }),
    );
    sqs.destroy();
    const detail = await eventDetail(workspace, eventId, (event) =>
      event.deliveries.some(
        (candidate) => candidate.trigger === 'redrive' && candidate.status === 'delivered',
      ),
    );
    expect(detail.deliveries.map((candidate) => [candidate.trigger, candidate.status])).toEqual([
      ['event', 'exhausted'],
      ['redrive', 'delivered'],
    ]);
    expect(hook.received.at(-1)?.headers['service-event-id']).toBe(eventId);
  });

  it('gives up on a receiver that does not answer within the deadline, and retries it', async () => {
    const workspace = await api.newWorkspace();
    const hook = await receiver((request) => (request.index === 0 ? 'hang' : 200));
    await createEndpoint(workspace, hook.url);
    const eventId = await publish(workspace, 'avatar_video.success');
    const received = await hook.waitFor(2);
    expect(received.map(eventIdOf)).toEqual([eventId, eventId]);
    const [delivery] = (await eventDetail(workspace, eventId)).deliveries;
    expect(delivery?.status).toBe('delivered');
    expect(delivery?.attempts[0]).toMatchObject({
      status_code: null,
      error: `no answer within ${TIMEOUT_MS} ms`,
    });
    expect(delivery?.attempts[0]?.duration_ms).toBeGreaterThanOrEqual(TIMEOUT_MS - 5);
    expect(delivery?.attempts[1]).toMatchObject({ status_code: 200, error: null });
  });

  it('disables an endpoint that answers 410 Gone; enabling it again resumes deliveries', async () => {
    const workspace = await api.newWorkspace();
    const hook = await receiver((request) => (request.index === 0 ? 410 : 200));
    const endpoint = await createEndpoint(workspace, hook.url);
    const first = await publish(workspace, 'avatar_video.success');
    const [delivery] = (await eventDetail(workspace, first)).deliveries;
    expect(delivery).toMatchObject({ status: 'failed', attempt_count: 1 });
    expect(delivery?.attempts[0]?.error).toContain('410 Gone');
    const listed = await api.call<{ data: Endpoint[] }>('GET', '/v3/webhooks/endpoints', {
      key: workspace.apiKey,
    });
    expect(listed.body.data.find((item) => item.endpoint_id === endpoint.endpoint_id)?.status).toBe(
      'disabled',
    );

    // Disabled: a new event has no target, so it is neither recorded nor sent.
    const whileDisabled: DomainEvent = {
      event_id: `avatar_video.success:${randomUUID()}`,
      event_type: 'avatar_video.success',
      workspace_id: workspace.workspaceId,
      entity_id: 'v2',
      event_data: { video_id: 'v2' },
      created_at: new Date().toISOString(),
    };
    await dispatchEvent(whileDisabled);
    const notRecorded = await api.call(
      'GET',
      `/v3/webhooks/events/${encodeURIComponent(whileDisabled.event_id)}`,
      {
        key: workspace.apiKey,
      },
    );
    expect(notRecorded.status).toBe(404);
    expect(errorOf(notRecorded)).toMatchObject({ code: 'resource_not_found', param: 'event_id' });

    const patched = await api.call('PATCH', `/v3/webhooks/endpoints/${endpoint.endpoint_id}`, {
      key: workspace.apiKey,
      body: { status: 'enabled' },
    });
    expect(patched.body).toMatchObject({ data: { status: 'enabled' } });
    const later = await publish(workspace, 'avatar_video.success');
    expect((await eventDetail(workspace, later)).deliveries[0]?.status).toBe('delivered');
    expect(hook.received.map(eventIdOf)).toEqual([first, later]);
  });

  it('refuses to deliver to a private address at send time, and records why', async () => {
    const workspace = await api.newWorkspace();
    const hook = await receiver();
    const endpoint = await createEndpoint(workspace, hook.url);
    // As if the URL had been accepted under other rules: the send-time guard still refuses it.
    for (const url of [
      'https://10.0.0.5/hook',
      'https://169.254.169.254/latest/meta-data',
      'https://metadata.google.internal/',
    ]) {
      await updateExistingItem(
        keys.resource(workspace.workspaceId, RESOURCE_TYPES.webhookEndpoint, endpoint.endpoint_id),
        {
          url,
        },
      );
      const eventId = await publish(workspace, 'avatar_video.success');
      const [delivery] = (await eventDetail(workspace, eventId)).deliveries;
      expect(delivery, url).toMatchObject({ status: 'failed', attempt_count: 1 });
      expect(delivery?.attempts[0], url).toMatchObject({ url, status_code: null });
      expect(delivery?.attempts[0]?.error, url).toMatch(
        /^refused: the URL must (point to a public address|name a public host)/,
      );
    }
    expect(hook.received).toHaveLength(0);
  });

  it('signs with the new secret as soon as a rotation returns, retries included', async () => {
    const workspace = await api.newWorkspace();
    let rotated: Promise<string> | undefined;
    const hook = await receiver((request) => {
      if (request.index > 0) return 200;
      rotated = api
        .call<{ data: { secret: string } }>(
          'POST',
          `/v3/webhooks/endpoints/${endpoint.endpoint_id}/rotate-secret`,
          {
            key: workspace.apiKey,
          },
        )
        .then((result) => result.body.data.secret);
      // Long enough for the rotation to finish before the retry.
      return { status: 503, headers: { 'Retry-After': '1' } };
    });
    const endpoint = await createEndpoint(workspace, hook.url);
    await publish(workspace, 'avatar_video.success');
    const [first, second] = await hook.waitFor(2);
    const newSecret = await (rotated as Promise<string>);
    expect(() => verifyWebhook(first?.rawBody ?? '', first?.headers ?? {}, endpoint.secret)).not.toThrow();
    expect(() => verifyWebhook(second?.rawBody ?? '', second?.headers ?? {}, newSecret)).not.toThrow();
    expect(() => verifyWebhook(second?.rawBody ?? '', second?.headers ?? {}, endpoint.secret)).toThrow();
    expect(() =>
      verifyServiceSignature(second?.rawBody ?? '', second?.headers ?? {}, endpoint.secret),
    ).toThrow();
  });

  it('calls a job’s callback_url with its callback_id, signed once the workspace has a callback secret', async () => {
    const workspace = await api.newWorkspace();
    const callback = await receiver();
    const first = await publish(workspace, 'avatar_video.success', {
      callback: { url: callback.url, id: 'order-17' },
      data: { callback_id: 'order-17' },
    });
    const [unsigned] = await callback.waitFor(1);
    expect(eventIdOf(unsigned as ReceivedWebhook)).toBe(first);
    expect(unsigned?.body.event_data.callback_id).toBe('order-17');
    expect(unsigned?.headers['service-signature']).toBeUndefined();
    expect(unsigned?.headers['webhook-signature']).toBeUndefined();
    expect(unsigned?.headers['service-timestamp']).toMatch(/^\d+$/);

    const secret = await api.call<{ data: { secret: string; rotated_at: string } }>(
      'POST',
      '/v3/webhooks/callback-secret',
      { key: workspace.apiKey },
    );
    expect(secret.status).toBe(200);
    expect(secret.body.data.secret).toMatch(/^whsec_/);
    // A batch's event has no callback id of its own: it is added as null.
    const second = await publish(workspace, 'batch.completed', { callback: { url: callback.url, id: null } });
    const [, signed] = await callback.waitFor(2);
    expect(eventIdOf(signed as ReceivedWebhook)).toBe(second);
    expect(signed?.body.event_data).toHaveProperty('callback_id', null);
    expect(verifyWebhook(signed?.rawBody ?? '', signed?.headers ?? {}, secret.body.data.secret).eventId).toBe(
      second,
    );
    expect(() =>
      verifyServiceSignature(signed?.rawBody ?? '', signed?.headers ?? {}, secret.body.data.secret),
    ).not.toThrow();
    const detail = await eventDetail(workspace, second);
    expect(detail.deliveries).toEqual([
      expect.objectContaining({
        target: 'callback',
        endpoint_id: null,
        callback_url: callback.url,
        status: 'delivered',
      }),
    ]);
  });

  it('fires a batch callback exactly once when every item is terminal, however often it is published', async () => {
    const workspace = await api.newWorkspace();
    const callback = await receiver();
    const endpoint = await receiver();
    await createEndpoint(workspace, endpoint.url, { events: ['batch.completed'] });
    const batch = await api.call<{ data: { batch_id: string } }>(
      'POST',
      '/v3/assets/direct-uploads/batches',
      {
        key: workspace.apiKey,
        body: {
          callback_url: callback.url,
          files: [
            { filename: 'a.png', content_type: 'image/png', size_bytes: 10 },
            { filename: 'b.png', content_type: 'image/png', size_bytes: 10 },
          ],
        },
      },
    );
    expect(batch.status).toBe(201);
    const batchId = batch.body.data.batch_id;
    // Nothing was uploaded: both items fail, and the batch closes.
    const completed = await api.call('POST', '/v3/assets/complete/batches', {
      key: workspace.apiKey,
      body: { batch_id: batchId },
    });
    expect(completed.status).toBe(202);
    const [webhook] = await callback.waitFor(1);
    await endpoint.waitFor(1);
    expect(webhook?.body).toMatchObject({
      event_type: 'batch.completed',
      event_data: { batch_id: batchId, status: 'failed', total_items: 2, failed: 2, succeeded: 0 },
    });
    const eventId = `batch.completed:${batchId}`;
    expect(eventIdOf(webhook as ReceivedWebhook)).toBe(eventId);

    // Published again (events are at least once): dropped by its id, sequentially and concurrently.
    const again: DomainEvent = {
      event_id: eventId,
      event_type: 'batch.completed',
      workspace_id: workspace.workspaceId,
      entity_id: batchId,
      callback: { url: callback.url, id: null },
      event_data: webhook?.body.event_data ?? {},
      created_at: new Date().toISOString(),
    };
    await dispatchEvent(again);
    await Promise.all([dispatchEvent(again), dispatchEvent(again)]);
    const detail = await eventDetail(workspace, eventId);
    expect(detail.deliveries.map((delivery) => delivery.target).sort()).toEqual(['callback', 'endpoint']);
    expect(callback.received).toHaveLength(1);
    expect(endpoint.received).toHaveLength(1);
  });

  it('dispatches an event published twice at once only once', async () => {
    const workspace = await api.newWorkspace();
    const hook = await receiver();
    await createEndpoint(workspace, hook.url);
    const event: DomainEvent = {
      event_id: `avatar_video.success:${randomUUID()}`,
      event_type: 'avatar_video.success',
      workspace_id: workspace.workspaceId,
      entity_id: 'v1',
      event_data: { video_id: 'v1' },
      created_at: new Date().toISOString(),
    };
    await Promise.all(Array.from({ length: 5 }, () => dispatchEvent(event)));
    await publishEvent(event);
    await publishEvent(event);
    const detail = await eventDetail(workspace, event.event_id);
    expect(detail.deliveries).toHaveLength(1);
    expect(hook.received.map(eventIdOf)).toEqual([event.event_id]);
  });
});

describe.concurrent('crashes', () => {
  it('takes over a fan-out whose holder crashed, sending what it had not recorded', async () => {
    const workspace = await api.newWorkspace();
    const first = await receiver();
    const second = await receiver();
    const endpoints = [
      await createEndpoint(workspace, first.url),
      await createEndpoint(workspace, second.url),
    ];
    const event: DomainEvent = {
      event_id: `avatar_video.success:${randomUUID()}`,
      event_type: 'avatar_video.success',
      workspace_id: workspace.workspaceId,
      entity_id: 'v3',
      event_data: { video_id: 'v3' },
      created_at: new Date().toISOString(),
    };
    // The crashed holder: it recorded the event (its lease long gone) and claimed the first endpoint's
    // attempt (that claim's lease gone too), then recorded nothing else.
    const { event: record } = await recordEvent(event, 0);
    const claimed = await createClaimedDelivery(
      {
        workspaceId: workspace.workspaceId,
        event: record,
        deliveryId: fanOutDeliveryId(event.event_id, `endpoint:${endpoints[0]?.endpoint_id}`),
        target: DELIVERY_TARGETS.endpoint,
        endpointId: endpoints[0]?.endpoint_id ?? null,
        callbackUrl: null,
        trigger: DELIVERY_TRIGGERS.event,
      },
      0,
    );
    expect(claimed).toBeDefined();

    // Its message comes back (or the event is published again): the fan-out is taken over.
    await dispatchEvent(event);
    const detail = await eventDetail(
      workspace,
      event.event_id,
      (found) =>
        found.deliveries.length === 2 &&
        found.deliveries.every((delivery) => delivery.status === 'delivered'),
    );
    expect(detail.deliveries.map((delivery) => delivery.attempt_count)).toEqual([1, 1]);
    expect(first.received.map(eventIdOf)).toEqual([event.event_id]);
    expect(second.received.map(eventIdOf)).toEqual([event.event_id]);

    // Done: later repeats send nothing.
    await dispatchEvent(event);
    await publishEvent(event);
    const sentinel = await publish(workspace, 'avatar_video.fail');
    await eventDetail(workspace, sentinel);
    expect(first.received.map(eventIdOf)).toEqual([event.event_id, sentinel]);
  });
});

describe.concurrent('browsing events', () => {
  it('lists events newest first, filtered by type and entity, paged; GET shows deliveries; redelivery', async () => {
    const workspace = await api.newWorkspace();
    const hook = await receiver();
    const late = await receiver();
    const endpoint = await createEndpoint(workspace, hook.url);
    const published: string[] = [];
    for (const [type, entity] of [
      ['avatar_video.success', 'video-a'],
      ['avatar_video.fail', 'video-b'],
      ['avatar_video.success', 'video-c'],
      ['batch.completed', 'video-a'],
    ] as const) {
      const eventId = await publish(workspace, type, {
        entityId: entity,
        eventId: `${type}:${entity}:${randomUUID()}`,
      });
      await eventDetail(workspace, eventId);
      published.push(eventId);
    }
    const list = await api.call<{
      data: { event_id: string; event_type: string; created_at: string }[];
      has_more: boolean;
    }>('GET', '/v3/webhooks/events?limit=100', { key: workspace.apiKey });
    expect(list.status).toBe(200);
    expect(list.body.data.map((event) => event.event_id)).toEqual([...published].reverse());
    expect(list.body.data[0]).toEqual({
      event_id: published[3],
      event_type: 'batch.completed',
      entity_id: 'video-a',
      event_data: { video_id: 'video-a' },
      created_at: expect.stringMatching(/^\d{4}-\d\d-\d\dT.*Z$/),
    });
    expect(list.body.has_more).toBe(false);

    const byType = await api.call<{ data: { event_id: string }[] }>(
      'GET',
      '/v3/webhooks/events?event_type=avatar_video.success',
      { key: workspace.apiKey },
    );
    expect(byType.body.data.map((event) => event.event_id)).toEqual([published[2], published[0]]);
    const byEntity = await api.call<{ data: { event_id: string }[] }>(
      'GET',
      '/v3/webhooks/events?entity_id=video-a',
      {
        key: workspace.apiKey,
      },
    );
    expect(byEntity.body.data.map((event) => event.event_id)).toEqual([published[3], published[0]]);

    const pages: string[] = [];
    let token: string | null = null;
    do {
      const query: string = `limit=3${token ? `&token=${encodeURIComponent(token)}` : ''}`;
      const page = await api.call<{ data: { event_id: string }[]; next_token: string | null }>(
        'GET',
        `/v3/webhooks/events?${query}`,
        { key: workspace.apiKey },
      );
      expect(page.status).toBe(200);
      pages.push(...page.body.data.map((event) => event.event_id));
      token = page.body.next_token;
    } while (token);
    expect(pages).toEqual([...published].reverse());
    // A token is bound to its filters.
    const first = await api.call<{ next_token: string }>('GET', '/v3/webhooks/events?limit=1', {
      key: workspace.apiKey,
    });
    const misused = await api.call(
      'GET',
      `/v3/webhooks/events?limit=1&event_type=avatar_video.fail&token=${first.body.next_token}`,
      {
        key: workspace.apiKey,
      },
    );
    expect(misused.status).toBe(400);
    expect(errorOf(misused).param).toBe('token');

    // Redelivery to an endpoint registered later, and to one that had it: same event id, new deliveries.
    const lateEndpoint = await createEndpoint(workspace, late.url, { events: ['avatar_video.fail'] });
    const target = published[0] as string;
    for (const endpointId of [lateEndpoint.endpoint_id, endpoint.endpoint_id]) {
      const redelivered = await api.call<{ data: Delivery }>(
        'POST',
        `/v3/webhooks/events/${encodeURIComponent(target)}/redeliver`,
        { key: workspace.apiKey, body: { endpoint_id: endpointId } },
      );
      expect(redelivered.status, JSON.stringify(redelivered.body)).toBe(202);
      expect(redelivered.body.data).toMatchObject({
        endpoint_id: endpointId,
        trigger: 'manual',
        status: 'pending',
      });
    }
    const [lateWebhook] = await late.waitFor(1);
    expect(eventIdOf(lateWebhook as ReceivedWebhook)).toBe(target);
    expect(() =>
      verifyWebhook(lateWebhook?.rawBody ?? '', lateWebhook?.headers ?? {}, lateEndpoint.secret),
    ).not.toThrow();
    const detail = await eventDetail(
      workspace,
      target,
      (event) =>
        event.deliveries.length === 3 &&
        event.deliveries.every((delivery) => delivery.status === 'delivered'),
    );
    expect(detail.deliveries.map((delivery) => delivery.trigger)).toEqual(['event', 'manual', 'manual']);
    expect(hook.received.filter((webhook) => eventIdOf(webhook) === target)).toHaveLength(2);

    // Unknown event, unknown endpoint, disabled endpoint, missing body.
    const unknownEvent = await api.call('POST', '/v3/webhooks/events/nope/redeliver', {
      key: workspace.apiKey,
      body: { endpoint_id: endpoint.endpoint_id },
    });
    expect(unknownEvent.status).toBe(404);
    expect(errorOf(unknownEvent).param).toBe('event_id');
    const unknownEndpoint = await api.call(
      'POST',
      `/v3/webhooks/events/${encodeURIComponent(target)}/redeliver`,
      {
        key: workspace.apiKey,
        body: { endpoint_id: 'f'.repeat(32) },
      },
    );
    expect(unknownEndpoint.status).toBe(404);
    expect(errorOf(unknownEndpoint)).toMatchObject({ code: 'webhook_not_found', param: 'endpoint_id' });
    await api.call('PATCH', `/v3/webhooks/endpoints/${endpoint.endpoint_id}`, {
      key: workspace.apiKey,
      body: { status: 'disabled' },
    });
    const disabled = await api.call('POST', `/v3/webhooks/events/${encodeURIComponent(target)}/redeliver`, {
      key: workspace.apiKey,
      body: { endpoint_id: endpoint.endpoint_id },
    });
    expect(disabled.status).toBe(409);
    expect(errorOf(disabled)).toMatchObject({ code: 'webhook_endpoint_disabled', param: 'endpoint_id' });
    const missing = await api.call('POST', `/v3/webhooks/events/${encodeURIComponent(target)}/redeliver`, {
      key: workspace.apiKey,
      body: {},
    });
    expect(missing.status).toBe(400);
    expect(errorOf(missing).param).toBe('endpoint_id');

    // Another workspace sees none of it.
    const other = await api.newWorkspace();
    const foreign = await api.call('GET', `/v3/webhooks/events/${encodeURIComponent(target)}`, {
      key: other.apiKey,
    });
    expect(foreign.status).toBe(404);
    const foreignList = await api.call<{ data: unknown[] }>('GET', '/v3/webhooks/events', {
      key: other.apiKey,
    });
    expect(foreignList.body.data).toEqual([]);
    const foreignRedeliver = await api.call(
      'POST',
      `/v3/webhooks/events/${encodeURIComponent(target)}/redeliver`,
      {
        key: other.apiKey,
        body: { endpoint_id: lateEndpoint.endpoint_id },
      },
    );
    expect(foreignRedeliver.status).toBe(404);
  });

  it('lists every event type with a description', async () => {
    const types = await api.call<{ data: { event_type: string; description: string }[] }>(
      'GET',
      '/v3/webhooks/event-types?limit=100',
    );
    const byType = new Map(types.body.data.map((type) => [type.event_type, type.description]));
    for (const emitted of ['avatar_video.success', 'avatar_video.fail', 'batch.completed']) {
      expect(byType.get(emitted)?.length, emitted).toBeGreaterThan(20);
    }
  });
});

describe('many events to many endpoints at once', () => {
  it('loses none and sends none to an endpoint that did not subscribe', async () => {
    const workspace = await api.newWorkspace();
    const neighbour = await api.newWorkspace();
    const TYPES: EventType[] = ['avatar_video.success', 'avatar_video.fail', 'batch.completed'];
    const subscriptions: { events: EventType[] | null; entity_id?: string }[] = [
      { events: null },
      { events: ['avatar_video.success'] },
      { events: ['avatar_video.fail', 'batch.completed'] },
      { events: null, entity_id: 'entity-3' },
      { events: ['avatar_video.success'], entity_id: 'entity-1' },
      { events: ['batch.completed'] },
    ];
    const hooks = await Promise.all(subscriptions.map(() => receiver()));
    for (const [index, subscription] of subscriptions.entries()) {
      await createEndpoint(workspace, hooks[index]?.url ?? '', subscription);
    }
    const neighbourHook = await receiver();
    await createEndpoint(neighbour, neighbourHook.url);

    const events = Array.from({ length: 90 }, (_, index) => ({
      type: TYPES[index % TYPES.length] as EventType,
      entityId: `entity-${index % 5}`,
      eventId: `${TYPES[index % TYPES.length]}:${index}:${randomUUID()}`,
    }));
    await Promise.all(events.map((event) => publish(workspace, event.type, event)));
    const neighbourEvents = await Promise.all(
      Array.from({ length: 10 }, () => publish(neighbour, 'avatar_video.success')),
    );

    const expected = subscriptions.map((subscription) =>
      events
        .filter(
          (event) =>
            (subscription.events === null || subscription.events.includes(event.type)) &&
            (subscription.entity_id === undefined || subscription.entity_id === event.entityId),
        )
        .map((event) => event.eventId)
        .sort(),
    );
    for (const [index, hook] of hooks.entries()) {
      const want = expected[index] ?? [];
      expect(want.length).toBeGreaterThan(0);
      await hook.waitFor(want.length);
      // Exactly the subscribed events, each once.
      expect(hook.received.map(eventIdOf).sort(), `endpoint ${index}`).toEqual(want);
    }
    await neighbourHook.waitFor(neighbourEvents.length);
    expect(neighbourHook.received.map(eventIdOf).sort()).toEqual([...neighbourEvents].sort());
    const listed = await api.call<{ data: unknown[] }>('GET', '/v3/webhooks/events?limit=100', {
      key: workspace.apiKey,
    });
    expect(listed.body.data).toHaveLength(events.length);
  });
});
