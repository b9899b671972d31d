/**
 * Webhooks end to end: a registered endpoint receives a correctly signed `avatar_video.success` for a
 * video rendered by the service, and a receiver that was down for a while still gets every event once
 * it is back.
 */
import { randomUUID } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { publishEvent } from '../../lambdas/events/domain-events.js';
import { getVideo } from '../../lambdas/videos/videos.js';
import { verifyServiceSignature, verifyStandardWebhook } from '../../lib/webhooks/verify-webhook.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';
import { startReceiver, type WebhookReceiver } from '../support/webhook-receiver.js';

const SCHEDULE_MS = [50, 100, 200, 400, 800];

let api: TestStack;
const receivers: WebhookReceiver[] = [];

beforeAll(async () => {
  api = await startTestStack({
    allowLoopbackUrls: true,
    stepFunctionsTimeScale: 0.001,
    environment: { WEBHOOK_RETRY_SCHEDULE_MS: SCHEDULE_MS.join(','), WEBHOOK_TIMEOUT_MS: '1000' },
  });
}, 60_000);
afterAll(async () => {
  for (const receiver of receivers) await receiver.stop();
  await api.stop();
});

async function endpointFor(
  receiver: WebhookReceiver,
  workspace: { apiKey: string },
  events: string[] | null,
) {
  const created = await api.call<{ data: { endpoint_id: string; secret: string } }>(
    'POST',
    '/v3/webhooks/endpoints',
    { key: workspace.apiKey, body: { url: receiver.url, events } },
  );
  expect(created.status).toBe(201);
  return created.body.data;
}

describe('webhooks end to end', () => {
  it('delivers a signed avatar_video.success when a video finishes rendering', async () => {
    const workspace = await api.newWorkspace();
    const receiver = await startReceiver();
    receivers.push(receiver);
    const endpoint = await endpointFor(receiver, workspace, ['avatar_video.success']);
    const looks = await api.call<{ data: { id: string }[] }>('GET', '/v3/avatars/looks?limit=1', {
      key: workspace.apiKey,
    });
    const created = await api.call<{ data: { video_id: string } }>('POST', '/v3/videos', {
      key: workspace.apiKey,
      body: {
        type: 'avatar',
        avatar_id: looks.body.data[0]?.id,
        script: 'Hello from a webhook.',
        callback_id: 'job-7',
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const videoId = created.body.data.video_id;

    const [webhook] = await receiver.waitFor(1, 90_000);
    if (!webhook) throw new Error('no webhook');
    expect(verifyStandardWebhook(webhook.rawBody, webhook.headers, endpoint.secret).eventId).toBe(
      `avatar_video.success:${videoId}`,
    );
    expect(verifyServiceSignature(webhook.rawBody, webhook.headers, endpoint.secret).eventId).toBe(
      `avatar_video.success:${videoId}`,
    );
    expect(webhook.body.event_type).toBe('avatar_video.success');
    expect(webhook.body.event_data).toMatchObject({
      video_id: videoId,
      callback_id: 'job-7',
      url: expect.stringMatching(/^http/),
      gif_download_url: expect.stringMatching(/^http/),
      video_page_url: null,
      video_share_page_url: null,
    });
    // The pre-signed URL in the event serves the video.
    const video = await fetch(webhook.body.event_data.url as string);
    expect(video.status).toBe(200);
    expect(video.headers.get('content-type')).toBe('video/mp4');
    expect((await video.arrayBuffer()).byteLength).toBeGreaterThan(1000);
    const status = await api.call<{ data: { status: string } }>('GET', `/v3/videos/${videoId}`, {
      key: workspace.apiKey,
    });
    expect(status.body.data.status).toBe('completed');
    // Made by the engines' test doubles (this file is not about the media), and recorded as such.
    expect((await getVideo(workspace.workspaceId, videoId, true))?.engines).toEqual({
      speech: 'test-double',
      composition: 'test-double',
      presenter: 'stock_sprites',
    });
  }, 120_000);

  it('gets every event to a receiver that was down for a while, once it is back', async () => {
    const workspace = await api.newWorkspace();
    const receiver = await startReceiver();
    receivers.push(receiver);
    await endpointFor(receiver, workspace, null);
    await receiver.stop();

    const eventIds = await Promise.all(
      Array.from({ length: 5 }, async (_, index) => {
        const entityId = `down-${index}-${randomUUID()}`;
        const event = await publishEvent({
          event_id: `avatar_video.fail:${entityId}`,
          event_type: 'avatar_video.fail',
          workspace_id: workspace.workspaceId,
          entity_id: entityId,
          event_data: { video_id: entityId, failure_code: 'internal_error', failure_message: 'Down test.' },
        });
        return event.event_id;
      }),
    );
    // Down until every delivery has failed twice (connection refused), then back on the same port.
    const deadline = Date.now() + 15_000;
    for (const eventId of eventIds) {
      for (;;) {
        const detail = await api.call<{
          data: { deliveries: { attempt_count: number; attempts: { error: string }[] }[] };
        }>('GET', `/v3/webhooks/events/${encodeURIComponent(eventId)}`, { key: workspace.apiKey });
        const delivery = detail.status === 200 ? detail.body.data.deliveries[0] : undefined;
        if (delivery && delivery.attempts.length >= 2) {
          expect(delivery.attempts[0]?.error).toContain('refused the connection');
          break;
        }
        if (Date.now() > deadline)
          throw new Error(`${eventId} was not retried: ${JSON.stringify(detail.body)}`);
        await new Promise((resolve) => setTimeout(resolve, 20));
      }
    }
    await receiver.start();
    const received = await receiver.waitFor(eventIds.length);
    expect(received.map((webhook) => webhook.headers['service-event-id']).sort()).toEqual(
      [...eventIds].sort(),
    );
  });
});
