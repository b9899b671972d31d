import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { EVENT_TYPES } from '../../lambdas/events/event-types.js';
import { decryptSecret } from '../../lambdas/webhooks/endpoint-secrets.js';
import { getEndpointItem } from '../../lambdas/webhooks/endpoints.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

let api: TestStack;
beforeAll(async () => {
  api = await startTestStack();
});
afterAll(() => api.stop());

interface Endpoint {
  endpoint_id: string;
  url: string;
  events: string[] | null;
  status: string;
  created_at: string;
  secret: string | null;
  entity_id: string | null;
}

async function createEndpoint(body: Record<string, unknown>, key?: string) {
  return api.call<{ data: Endpoint }>('POST', '/v3/webhooks/endpoints', { body, ...(key ? { key } : {}) });
}

describe('webhook endpoints', () => {
  it('shows the secret once, on create', async () => {
    const created = await createEndpoint({
      url: 'https://hooks.example.com/video',
      events: ['avatar_video.success'],
    });
    expect(created.status).toBe(201);
    const endpoint = created.body.data;
    expect(endpoint).toMatchObject({
      url: 'https://hooks.example.com/video',
      events: ['avatar_video.success'],
      status: 'enabled',
    });
    expect(endpoint.secret).toMatch(/^whsec_[A-Za-z0-9_-]{40,}$/);
    expect(new Date(endpoint.created_at).toISOString()).toBe(endpoint.created_at);

    const list = await api.call<{ data: Endpoint[]; has_more: boolean; next_token: string | null }>(
      'GET',
      '/v3/webhooks/endpoints',
    );
    const listed = list.body.data.find((item) => item.endpoint_id === endpoint.endpoint_id);
    expect(listed?.secret).toBeNull();
    expect(list.body).toMatchObject({ has_more: false, next_token: null });
  });

  it('stores the secret encrypted, bound to its endpoint', async () => {
    const { body } = await createEndpoint({ url: 'https://hooks.example.com/enc' });
    const item = await getEndpointItem(api.workspaceId, body.data.endpoint_id);
    expect(JSON.stringify(item)).not.toContain(body.data.secret);
    expect(await decryptSecret(api.workspaceId, body.data.endpoint_id, item?.secret_ciphertext ?? '')).toBe(
      body.data.secret,
    );
    await expect(
      decryptSecret(api.workspaceId, 'f'.repeat(32), item?.secret_ciphertext ?? ''),
    ).rejects.toThrow();
  });

  it('subscribes to all events when events is omitted or null', async () => {
    expect((await createEndpoint({ url: 'https://hooks.example.com/a' })).body.data.events).toBeNull();
    expect(
      (await createEndpoint({ url: 'https://hooks.example.com/b', events: null })).body.data.events,
    ).toBeNull();
  });

  it('keeps an entity scope', async () => {
    const created = await createEndpoint({ url: 'https://hooks.example.com/scoped', entity_id: 'video-123' });
    expect(created.body.data.entity_id).toBe('video-123');
  });

  it.each([
    [{ url: 'http://hooks.example.com/' }, 'url'],
    [{ url: 'https://127.0.0.1/hook' }, 'url'],
    [{ url: 'https://169.254.169.254/latest' }, 'url'],
    [{ url: 'https://10.1.2.3/' }, 'url'],
    [{ url: 'https://localhost/hook' }, 'url'],
    [{ url: 'not a url' }, 'url'],
    [{}, 'url'],
    [{ url: 'https://hooks.example.com/', events: ['avatar_video.success', 'video.exploded'] }, 'events[1]'],
    [{ url: 'https://hooks.example.com/', events: [] }, 'events'],
    [{ url: 'https://hooks.example.com/', secret: 'mine' }, 'secret'],
  ])('rejects %j naming %s', async (body, param) => {
    const result = await createEndpoint(body);
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
  });

  it('replaces events entirely on PATCH and keeps what is not sent', async () => {
    const { body } = await createEndpoint({
      url: 'https://hooks.example.com/p',
      events: ['avatar_video.success', 'avatar_video.fail'],
    });
    const id = body.data.endpoint_id;
    const patched = await api.call<{ data: Endpoint }>('PATCH', `/v3/webhooks/endpoints/${id}`, {
      body: { events: ['video_translate.success'] },
    });
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      events: ['video_translate.success'],
      url: 'https://hooks.example.com/p',
      secret: null,
    });

    const moved = await api.call<{ data: Endpoint }>('PATCH', `/v3/webhooks/endpoints/${id}`, {
      body: { url: 'https://hooks.example.com/q' },
    });
    expect(moved.body.data).toMatchObject({
      events: ['video_translate.success'],
      url: 'https://hooks.example.com/q',
    });

    const all = await api.call<{ data: Endpoint }>('PATCH', `/v3/webhooks/endpoints/${id}`, {
      body: { events: null },
    });
    expect(all.body.data.events).toBeNull();

    const bad = await api.call('PATCH', `/v3/webhooks/endpoints/${id}`, {
      body: { url: 'https://192.168.0.1/' },
    });
    expect(errorOf(bad).param).toBe('url');
  });

  it.each([
    ['an empty object', '{}'],
    ['null', 'null'],
    ['no body at all', ''],
  ])('refuses a PATCH of %s with 400 invalid_parameter, changing nothing', async (_label, rawBody) => {
    const { body } = await createEndpoint({ url: 'https://hooks.example.com/empty-patch' });
    const id = body.data.endpoint_id;
    const result = await api.call('PATCH', `/v3/webhooks/endpoints/${id}`, {
      rawBody,
      headers: { 'Content-Type': 'application/json' },
    });
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param: null });
    expect(errorOf(result).message).toBe(
      'The request body: must change at least one field: url, events or status',
    );
    const list = await api.call<{ data: Endpoint[] }>('GET', '/v3/webhooks/endpoints?limit=100');
    expect(list.body.data.find((item) => item.endpoint_id === id)).toMatchObject({
      url: 'https://hooks.example.com/empty-patch',
      events: null,
    });
  });

  it('rotates the secret: the new one is returned once and the old one is gone at once', async () => {
    const { body } = await createEndpoint({ url: 'https://hooks.example.com/r' });
    const id = body.data.endpoint_id;
    const rotated = await api.call<{ data: { endpoint_id: string; secret: string } }>(
      'POST',
      `/v3/webhooks/endpoints/${id}/rotate-secret`,
    );
    expect(rotated.status).toBe(200);
    expect(rotated.body.data.endpoint_id).toBe(id);
    expect(rotated.body.data.secret).toMatch(/^whsec_/);
    expect(rotated.body.data.secret).not.toBe(body.data.secret);
    const item = await getEndpointItem(api.workspaceId, id);
    expect(await decryptSecret(api.workspaceId, id, item?.secret_ciphertext ?? '')).toBe(
      rotated.body.data.secret,
    );
  });

  it('deletes an endpoint; later calls answer 404 webhook_not_found', async () => {
    const { body } = await createEndpoint({ url: 'https://hooks.example.com/d' });
    const id = body.data.endpoint_id;
    const deleted = await api.call('DELETE', `/v3/webhooks/endpoints/${id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ error: null, data: { endpoint_id: id } });
    for (const [method, path] of [
      ['DELETE', `/v3/webhooks/endpoints/${id}`],
      ['PATCH', `/v3/webhooks/endpoints/${id}`],
      ['POST', `/v3/webhooks/endpoints/${id}/rotate-secret`],
    ] as const) {
      const result = await api.call(method, path, method === 'PATCH' ? { body: { events: null } } : {});
      expect(result.status, `${method} ${path}`).toBe(404);
      expect(errorOf(result)).toMatchObject({ code: 'webhook_not_found', param: 'endpoint_id' });
    }
  });

  it('never lets another workspace see, change or rotate an endpoint', async () => {
    const { body } = await createEndpoint({ url: 'https://hooks.example.com/mine' });
    const other = await api.newWorkspace();
    const id = body.data.endpoint_id;
    const list = await api.call<{ data: Endpoint[] }>('GET', '/v3/webhooks/endpoints', { key: other.apiKey });
    expect(list.body.data).toEqual([]);
    expect(
      (await api.call('PATCH', `/v3/webhooks/endpoints/${id}`, { key: other.apiKey, body: { events: null } }))
        .status,
    ).toBe(404);
    expect(
      (await api.call('POST', `/v3/webhooks/endpoints/${id}/rotate-secret`, { key: other.apiKey })).status,
    ).toBe(404);
    expect((await api.call('DELETE', `/v3/webhooks/endpoints/${id}`, { key: other.apiKey })).status).toBe(
      404,
    );
  });

  it('pages endpoint lists with the default of 10', async () => {
    const { apiKey } = await api.newWorkspace();
    for (let index = 0; index < 12; index++)
      await createEndpoint({ url: `https://hooks.example.com/${index}` }, apiKey);
    const first = await api.call<{ data: Endpoint[]; has_more: boolean; next_token: string }>(
      'GET',
      '/v3/webhooks/endpoints',
      { key: apiKey },
    );
    expect(first.body.data).toHaveLength(10);
    expect(first.body.has_more).toBe(true);
    const second = await api.call<{ data: Endpoint[]; has_more: boolean }>(
      'GET',
      `/v3/webhooks/endpoints?token=${encodeURIComponent(first.body.next_token)}`,
      { key: apiKey },
    );
    expect(second.body.data).toHaveLength(2);
    expect(second.body.has_more).toBe(false);
  });
});

describe('event types', () => {
  it('lists every event type the service emits, with descriptions', async () => {
    const result = await api.call<{
      data: { event_type: string; description: string }[];
      has_more: boolean;
      next_token: null;
    }>('GET', '/v3/webhooks/event-types');
    expect(result.status).toBe(200);
    expect(result.body.data.map((type) => type.event_type).sort()).toEqual(Object.keys(EVENT_TYPES).sort());
    expect(result.body.data.every((type) => type.description.length > 10)).toBe(true);
    expect(result.body.data.map((type) => type.event_type)).toEqual(
      expect.arrayContaining(['avatar_video.success', 'avatar_video.fail', 'video_agent.success']),
    );
    expect(result.body).toMatchObject({ has_more: false, next_token: null });
  });
});

describe('idempotent endpoint creation', () => {
  it('never stores the plaintext secret in the idempotency record, yet a replay shows it', async () => {
    const { QueryCommand } = await import('@aws-sdk/lib-dynamodb');
    const { documents } = await import('../../lambdas/core/aws-clients.js');
    const { config } = await import('../../lambdas/core/config.js');
    const { workspaceId, apiKey } = await api.newWorkspace();
    const headers = { 'Idempotency-Key': 'endpoint-once' };
    const body = { url: 'https://hooks.example.com/idem' };
    const first = await api.call<{ data: Endpoint }>('POST', '/v3/webhooks/endpoints', {
      key: apiKey,
      body,
      headers,
    });
    expect(first.body.data.secret).toMatch(/^whsec_/);

    const records = await documents().send(
      new QueryCommand({
        TableName: config().tableName,
        KeyConditionExpression: 'pk = :pk',
        ExpressionAttributeValues: { ':pk': `WS#${workspaceId}#IDEMPOTENCY` },
      }),
    );
    expect(records.Items).toHaveLength(1);
    expect(JSON.stringify(records.Items)).not.toContain(first.body.data.secret);

    const replay = await api.call<{ data: Endpoint }>('POST', '/v3/webhooks/endpoints', {
      key: apiKey,
      body,
      headers,
    });
    expect(replay.headers.get('idempotent-replayed')).toBe('true');
    expect(replay.body).toEqual(first.body);

    // After a rotation the first secret is dead: a replay no longer shows it.
    await api.call('POST', `/v3/webhooks/endpoints/${first.body.data.endpoint_id}/rotate-secret`, {
      key: apiKey,
    });
    const afterRotation = await api.call<{ data: Endpoint }>('POST', '/v3/webhooks/endpoints', {
      key: apiKey,
      body,
      headers,
    });
    expect(afterRotation.body.data).toMatchObject({ endpoint_id: first.body.data.endpoint_id, secret: null });
  });
});

describe('event type pages', () => {
  it('pages the catalog and ignores query parameters it does not know', async () => {
    const first = await api.call<{ data: { event_type: string }[]; next_token: string | null }>(
      'GET',
      '/v3/webhooks/event-types?limit=20',
    );
    expect(first.body.data).toHaveLength(20);
    const rest = await api.call<{ data: { event_type: string }[]; next_token: string | null }>(
      'GET',
      `/v3/webhooks/event-types?limit=100&token=${encodeURIComponent(first.body.next_token ?? '')}`,
    );
    expect([...first.body.data, ...rest.body.data].map((type) => type.event_type).sort()).toEqual(
      Object.keys(EVENT_TYPES).sort(),
    );
    expect(rest.body.next_token).toBeNull();
    const unknown = await api.call<{ data: unknown[] }>('GET', '/v3/webhooks/event-types?limit=20&foo=bar');
    expect(unknown.status).toBe(200);
    expect(unknown.body.data).toEqual(first.body.data);
  });
});
