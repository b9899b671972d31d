/**
 * The Models API's generation routes on a deployment without a generation engine (the default: no npm
 * package ships generation models, and this service returns no canned media): the request is accepted,
 * the job fails `engine_unavailable` with a message naming the setting that would enable it, and the
 * credits reserved at creation come back (the status is written a moment before the refund lands, so
 * the balance is polled). The `model_video.fail` event carries the same reason.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWorkspace } from '../../lambdas/accounts/workspaces.js';
import { type EventCapture, eventCapture } from '../support/event-capture.js';
import { png } from '../support/sample-media.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

let api: TestStack;
let events: EventCapture;

beforeAll(async () => {
  events = eventCapture();
  api = await startTestStack({ ...events.stackOptions });
  await events.subscribe(api);
});

afterAll(async () => {
  await api?.stop();
});

const credits = async () => (await getWorkspace(api.workspaceId, true))?.remaining_credits as number;

async function settled(path: string): Promise<Record<string, unknown>> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const result = await api.call<{ data: Record<string, unknown> }>('GET', path);
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    // Images stay `pending` while they are made (the reference has no `processing`).
    if (['completed', 'failed', 'cancelled'].includes(result.body.data.status as string))
      return result.body.data;
    if (Date.now() > deadline) throw new Error(`${path} still ${String(result.body.data.status)}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

describe('model generation without an engine', () => {
  it.each([
    ['text_to_video', {}],
    [
      'image_to_video',
      { image: { type: 'base64', media_type: 'image/png', data: png(32, 18).toString('base64') } },
    ],
  ])('a %s video fails engine_unavailable naming the setting, and charges nothing', async (mode, extra) => {
    const before = await credits();
    const created = await api.call<{ data: { video_id: string } }>('POST', '/v3/models/videos', {
      body: {
        mode,
        model: 'service-video-1',
        prompt: 'A red kite over a field',
        resolution: '1080p',
        ...extra,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const id = created.body.data.video_id;
    const video = await settled(`/v3/models/videos/${id}`);
    expect(video).toMatchObject({ status: 'failed', failure_code: 'engine_unavailable', video_url: null });
    expect(video.failure_message).toMatch(/MEDIA_GENERATION_ENGINE=bedrock/);
    await expect.poll(() => credits(), { timeout: 10_000 }).toBe(before);
    await expect
      .poll(
        () =>
          events.events.find(
            (event) =>
              (event.detail as { entity_id?: string }).entity_id === id &&
              event['detail-type'] === 'model_video.fail',
          ),
        { timeout: 10_000 },
      )
      .toBeDefined();
  });

  it('an image generation fails engine_unavailable naming the setting, and charges nothing', async () => {
    const before = await credits();
    const picture = { type: 'base64', media_type: 'image/png', data: png(32, 32).toString('base64') };
    const created = await api.call<{ data: { generation_id: string } }>('POST', '/v3/models/images', {
      body: {
        model: 'service-image-1',
        identity_images: [picture],
        reference_images: [picture],
        num_images: 4,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const id = created.body.data.generation_id;
    const generation = await settled(`/v3/models/images/${id}`);
    expect(generation).toMatchObject({ status: 'failed', failure_code: 'engine_unavailable', images: [] });
    expect(generation.failure_message).toMatch(/MEDIA_GENERATION_ENGINE=bedrock/);
    await expect.poll(() => credits(), { timeout: 10_000 }).toBe(before);
    await expect
      .poll(
        () =>
          events.events.find(
            (event) =>
              (event.detail as { entity_id?: string }).entity_id === id &&
              event['detail-type'] === 'model_image.fail',
          ),
        { timeout: 10_000 },
      )
      .toBeDefined();
  });
});
