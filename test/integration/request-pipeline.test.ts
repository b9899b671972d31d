import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { revokeApiKey } from '../../lambdas/accounts/api-keys.js';
import { updateWorkspace } from '../../lambdas/accounts/workspaces.js';
import { type ApiResult, errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

let api: TestStack;
beforeAll(async () => {
  api = await startTestStack();
});
afterAll(() => api.stop());

describe('gateway behaviour', () => {
  it('answers unknown paths with 404 not_found in the envelope', async () => {
    const result = await api.call('GET', '/v3/nothing-here');
    expect(result.status).toBe(404);
    expect(errorOf(result)).toMatchObject({ code: 'not_found', param: null });
  });

  it('answers a known path with the wrong method with 405 and Allow', async () => {
    const result = await api.call('PUT', '/v3/folders');
    expect(result.status).toBe(405);
    expect(errorOf(result).code).toBe('method_not_allowed');
    expect(result.headers.get('allow')).toBe('GET, POST');
  });

  it('answers removed /v1 brand-voice routes with 410 naming the replacement', async () => {
    const result = await api.call('GET', '/v1/brand_voice/list', { key: null });
    expect(result.status).toBe(410);
    expect(errorOf(result).code).toBe('gone');
    expect(errorOf(result).message).toContain('/v3/brand-glossaries');
  });

  it('serves the OpenAPI document without credentials: every operation answers, none is a placeholder', async () => {
    const result = await api.call<{
      openapi: string;
      paths: Record<string, Record<string, { responses: Record<string, unknown>; deprecated?: boolean }>>;
    }>('GET', '/v3/openapi.json', { key: null });
    expect(result.status).toBe(200);
    expect(result.body.openapi).toBe('3.1.0');
    const operations = Object.values(result.body.paths).flatMap((path) => Object.values(path));
    expect(operations.length).toBeGreaterThanOrEqual(147);
    // A success answer, or 410 for the two removed routes; no 501 anywhere.
    const answers = operations.map((operation) => Object.keys(operation.responses));
    expect(answers.filter((codes) => codes.includes('501'))).toEqual([]);
    expect(
      answers.filter((codes) => !codes.some((code) => /^2/.test(code))).map((codes) => codes[0]),
    ).toEqual(['410', '410']);
  });

  it('rejects a body that is not JSON', async () => {
    const result = await api.call('POST', '/v3/folders', {
      rawBody: '{"name": ',
      headers: { 'Content-Type': 'application/json' },
    });
    expect(result.status).toBe(400);
    expect(errorOf(result).code).toBe('invalid_parameter');
  });

  it('sends a request id on every response', async () => {
    const result = await api.call('GET', '/v3/users/me');
    expect(result.headers.get('x-request-id')).toMatch(/^[0-9a-f-]{36}$/);
  });
});

describe('authentication', () => {
  it.each([
    ['no key', null],
    ['an unknown key', 'vcs_not-a-real-key'],
  ])('answers %s with 401 unauthorized', async (_label, key) => {
    const result = await api.call('GET', '/v3/users/me', { key });
    expect(result.status).toBe(401);
    expect(errorOf(result).code).toBe('unauthorized');
  });

  it('refuses an expired key', async () => {
    const key = await api.newKey(api.workspaceId, 'full', undefined, Math.floor(Date.now() / 1000) - 1);
    const result = await api.call('GET', '/v3/users/me', { key });
    expect(result.status).toBe(401);
    expect(errorOf(result).code).toBe('unauthorized');
  });

  it('refuses a revoked key', async () => {
    const { workspaceId } = await api.newWorkspace();
    const key = await api.newKey(workspaceId, 'full');
    expect((await api.call('GET', '/v3/users/me', { key })).status).toBe(200);
    const { listApiKeys } = await import('../../lambdas/accounts/api-keys.js');
    const keys = await listApiKeys(workspaceId);
    for (const listed of keys.items) await revokeApiKey(workspaceId, listed.key_id);
    expect((await api.call('GET', '/v3/users/me', { key })).status).toBe(401);
  });

  it('answers 401 api_key_owner_workspace_access_revoked once the workspace is deleted', async () => {
    const { workspaceId, apiKey } = await api.newWorkspace();
    await updateWorkspace(workspaceId, { status: 'deleted' });
    const result = await api.call('GET', '/v3/users/me', { key: apiKey });
    expect(result.status).toBe(401);
    expect(errorOf(result).code).toBe('api_key_owner_workspace_access_revoked');
  });

  it('prefers the API key when both credentials are sent', async () => {
    const result = await api.call('GET', '/v3/api_keys/self', {
      headers: { Authorization: 'Bearer not-a-jwt' },
    });
    expect(result.status).toBe(200);
  });
});

describe('rate limits', () => {
  it('answers 429 with Retry-After and X-RateLimit headers past the class limit', async () => {
    const { apiKey } = await api.newWorkspace({ rate_limits: { read: 3 } });
    const statuses: number[] = [];
    let limited: ApiResult | undefined;
    for (let index = 0; index < 5; index++) {
      const result = await api.call('GET', '/v3/folders', { key: apiKey });
      statuses.push(result.status);
      if (result.status === 429) limited = result;
    }
    expect(statuses.slice(0, 3)).toEqual([200, 200, 200]);
    expect(statuses.slice(3)).toEqual([429, 429]);
    if (!limited) throw new Error('expected a 429');
    expect(errorOf(limited).code).toBe('rate_limit_exceeded');
    expect(Number(limited.headers.get('retry-after'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('x-ratelimit-limit')).toBe('3');
    expect(limited.headers.get('x-ratelimit-remaining')).toBe('0');
    expect(Number(limited.headers.get('x-ratelimit-reset'))).toBeGreaterThanOrEqual(1);
    expect(limited.headers.get('x-ratelimit-scope')).toBe('workspace:read');
  });

  it('counts each class separately and each workspace separately', async () => {
    const limitedWorkspace = await api.newWorkspace({ rate_limits: { read: 1 } });
    expect((await api.call('GET', '/v3/folders', { key: limitedWorkspace.apiKey })).status).toBe(200);
    expect((await api.call('GET', '/v3/folders', { key: limitedWorkspace.apiKey })).status).toBe(429);
    // Writes are another class; other workspaces have their own counters.
    expect(
      (await api.call('POST', '/v3/folders', { key: limitedWorkspace.apiKey, body: { name: 'w' } })).status,
    ).toBe(201);
    expect((await api.call('GET', '/v3/folders')).status).toBe(200);
  });

  it('reports the remaining budget on successful responses', async () => {
    const { apiKey } = await api.newWorkspace({ rate_limits: { read: 10 } });
    const result = await api.call('GET', '/v3/folders', { key: apiKey });
    expect(result.headers.get('x-ratelimit-limit')).toBe('10');
    expect(result.headers.get('x-ratelimit-remaining')).toBe('9');
  });
});

describe('rate-limit headers on refusals', () => {
  const rateHeaders = (result: ApiResult) => ({
    limit: result.headers.get('x-ratelimit-limit'),
    remaining: result.headers.get('x-ratelimit-remaining'),
    reset: result.headers.get('x-ratelimit-reset'),
    scope: result.headers.get('x-ratelimit-scope'),
  });

  it('sends them on a 404 of a resource that does not exist', async () => {
    const { apiKey } = await api.newWorkspace({ rate_limits: { read: 10 } });
    const result = await api.call('GET', `/v3/folders/${'f'.repeat(32)}`, { key: apiKey });
    expect(result.status).toBe(404);
    expect(rateHeaders(result)).toMatchObject({ limit: '10', remaining: '9', scope: 'workspace:read' });
    // A slot comes back a window (60 s) after it was taken, rounded up to a step of the window.
    expect(Number(rateHeaders(result).reset)).toBeGreaterThanOrEqual(60);
    expect(Number(rateHeaders(result).reset)).toBeLessThanOrEqual(63);
  });

  it('sends them on a 403 for a missing scope, which counts against the limit', async () => {
    const { workspaceId } = await api.newWorkspace({ rate_limits: { write: 2 } });
    const readOnly = await api.newKey(workspaceId, 'custom', ['folders:read']);
    const statuses: number[] = [];
    for (let index = 0; index < 3; index++) {
      const result = await api.call('POST', '/v3/folders', { key: readOnly, body: { name: 'x' } });
      statuses.push(result.status);
      if (index === 0) {
        expect(errorOf(result).code).toBe('insufficient_api_key_scope');
        expect(rateHeaders(result)).toMatchObject({ limit: '2', remaining: '1', scope: 'workspace:write' });
      }
    }
    expect(statuses).toEqual([403, 403, 429]);
  });

  it('sends none where no workspace is known: 401, unknown paths, wrong methods', async () => {
    const answers = [
      await api.call('GET', '/v3/folders', { key: 'not-a-key' }),
      await api.call('GET', '/v3/nothing-here'),
      await api.call('PUT', '/v3/folders'),
    ];
    expect(answers.map((result) => result.status)).toEqual([401, 404, 405]);
    for (const result of answers) expect(result.headers.get('x-ratelimit-limit')).toBeNull();
  });
});

describe('payload limit', () => {
  it('answers a body over 10 MiB with 413 payload_too_large', async () => {
    const result = await api.call('POST', '/v3/folders', {
      rawBody: JSON.stringify({ name: 'x'.repeat(10 * 1024 * 1024 + 1) }),
      headers: { 'Content-Type': 'application/json' },
    });
    expect(result.status).toBe(413);
    expect(errorOf(result).code).toBe('payload_too_large');
  });
});

describe('paths and headers as API Gateway reads them', () => {
  /** A raw request: fetch would normalise the path and merge repeated headers before sending. */
  async function rawGet(path: string, headers: string[]): Promise<number> {
    const { request } = await import('node:http');
    const url = new URL(api.baseUrl);
    return new Promise<number>((resolve, reject) => {
      const outgoing = request(
        // A raw header list gets no Host of its own.
        { host: url.hostname, port: url.port, path, method: 'GET', headers: ['Host', url.host, ...headers] },
        (response) => {
          response.resume();
          resolve(response.statusCode ?? 0);
        },
      );
      outgoing.on('error', reject);
      outgoing.end();
    });
  }

  it('does not resolve dot segments', async () => {
    expect(await rawGet('/v3/folders/../users/me', ['X-Api-Key', api.apiKey])).toBe(404);
  });

  it('uses the last value of a repeated X-Api-Key header', async () => {
    expect(await rawGet('/v3/api_keys/self', ['X-Api-Key', 'vcs_wrong', 'X-Api-Key', api.apiKey])).toBe(200);
    expect(await rawGet('/v3/api_keys/self', ['X-Api-Key', api.apiKey, 'X-Api-Key', 'vcs_wrong'])).toBe(401);
  });
});
