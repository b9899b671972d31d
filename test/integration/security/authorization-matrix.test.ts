/**
 * Authentication and authorization of every route of the contract, generated from the route table:
 * credentials (none, unknown, expired), scopes (read-only, unrelated, read-for-write, exact), and
 * tenant isolation of the resources that exist today.
 */
import { randomBytes } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { RouteDefinition, Scope } from '../../../lambdas/api/pipeline/route-types.js';
import { SCOPE_RESOURCES } from '../../../lambdas/api/pipeline/route-types.js';
import { ROUTES } from '../../../lambdas/api/routes.js';
import { decryptSecret } from '../../../lambdas/webhooks/endpoint-secrets.js';
import { getEndpointItem } from '../../../lambdas/webhooks/endpoints.js';
import { type ApiResult, errorOf, startTestStack, type TestStack } from '../../support/test-stack.js';

const label = (route: RouteDefinition) => `${route.method} ${route.path}`;
const cases = (routes: readonly RouteDefinition[]) => routes.map((route) => [label(route), route] as const);

const PROTECTED = ROUTES.filter((route) => route.auth === 'required');
const REMOVED = ROUTES.filter((route) => route.removed);
const PUBLIC = ROUTES.filter((route) => route.auth === 'none' && !route.removed);
const SCOPED = PROTECTED.filter((route) => route.scopes.length > 0);
const isWrite = (scope: string) => scope.endsWith(':write');
const WRITE_ROUTES = PROTECTED.filter((route) => route.scopes.some(isWrite));
const READ_ROUTES = PROTECTED.filter((route) => !route.scopes.some(isWrite));

/** A well-formed id of this service: 32 lowercase hex characters. */
const wellFormedId = () => randomBytes(16).toString('hex');
/** The route's path with every `{param}` filled with a well-formed id that names nothing. */
const concretePath = (route: RouteDefinition) => route.path.replace(/\{[^}]+\}/g, () => wellFormedId());

const resourceOf = (scope: string) => scope.split(':')[0] ?? scope;

/** The write scope of a resource none of the route's scopes are about. */
function unrelatedScope(route: RouteDefinition): Scope {
  const used = new Set(route.scopes.map(resourceOf));
  const resource = SCOPE_RESOURCES.find((candidate) => !used.has(candidate));
  if (!resource) throw new Error(`No unrelated scope for ${label(route)}`);
  return `${resource}:write`;
}

let api: TestStack;
let expiredKey: string;
let readOnlyKey: string;
const customKeys = new Map<string, Promise<string>>();

/** A custom key of the primary workspace holding exactly `scopes` (one per distinct set). */
function keyWith(scopes: readonly string[]): Promise<string> {
  const id = [...scopes].sort().join(' ');
  let key = customKeys.get(id);
  if (!key) {
    key = api.newKey(api.workspaceId, 'custom', [...scopes]);
    customKeys.set(id, key);
  }
  return key;
}

beforeAll(async () => {
  api = await startTestStack();
  expiredKey = await api.newKey(api.workspaceId, 'full', undefined, Math.floor(Date.now() / 1000) - 1);
  readOnlyKey = await api.newKey(api.workspaceId, 'read_only');
});
afterAll(() => api.stop());

function callRoute(route: RouteDefinition, key: string | null, headers: Record<string, string> = {}) {
  return api.call(route.method, concretePath(route), { key, headers });
}

function expectUnauthorized(result: ApiResult) {
  expect(result.status).toBe(401);
  expect(errorOf(result)).toMatchObject({ code: 'unauthorized', param: null });
}

function expectInsufficientScope(result: ApiResult, route: RouteDefinition, missing: readonly string[]) {
  expect(result.status).toBe(403);
  const error = errorOf(result);
  expect(error.code).toBe('insufficient_api_key_scope');
  for (const scope of missing) expect(error.message).toContain(scope);
  for (const scope of route.scopes) expect(error.message).toContain(scope);
}

/** Passed authentication and authorization: the route's own answer. */
function expectAuthorized(result: ApiResult) {
  expect(result.status).not.toBe(401);
  expect(result.status).not.toBe(403);
  expect([200, 201, 400, 404]).toContain(result.status);
}

describe('the route table under test', () => {
  it('has protected, write, read, removed and public routes to generate cases from', () => {
    expect(PROTECTED.length).toBeGreaterThan(100);
    expect(WRITE_ROUTES.length).toBeGreaterThan(0);
    expect(READ_ROUTES.length).toBeGreaterThan(0);
    expect(REMOVED.length).toBeGreaterThan(0);
    expect(PUBLIC.length).toBeGreaterThan(0);
    expect(PROTECTED.length + REMOVED.length + PUBLIC.length).toBe(ROUTES.length);
  });
});

describe.concurrent('credentials', () => {
  it.each(cases(PROTECTED))('%s: no credentials → 401 unauthorized', async (_label, route) => {
    expectUnauthorized(await callRoute(route, null));
  });

  it.each(cases(PROTECTED))('%s: an unknown key → 401 unauthorized', async (_label, route) => {
    expectUnauthorized(await callRoute(route, `vcs_${randomBytes(32).toString('base64url')}`));
  });

  it.each(cases(PROTECTED))('%s: an expired key → 401 unauthorized', async (_label, route) => {
    expectUnauthorized(await callRoute(route, expiredKey));
  });

  it.each(cases(PROTECTED))(
    '%s: a malformed bearer token alone → 401 unauthorized',
    async (_label, route) => {
      expectUnauthorized(await callRoute(route, null, { Authorization: 'Bearer not.a.jwt' }));
    },
  );
});

describe.concurrent('scopes', () => {
  it.each(cases(WRITE_ROUTES))(
    '%s: a read-only key → 403 naming the missing write scopes',
    async (_label, route) => {
      const result = await callRoute(route, readOnlyKey);
      expectInsufficientScope(result, route, route.scopes.filter(isWrite));
    },
  );

  it.each(cases(READ_ROUTES))('%s: a read-only key is allowed', async (_label, route) => {
    expectAuthorized(await callRoute(route, readOnlyKey));
  });

  it.each(cases(SCOPED))('%s: a key holding only an unrelated scope → 403', async (_label, route) => {
    const result = await callRoute(route, await keyWith([unrelatedScope(route)]));
    expectInsufficientScope(result, route, route.scopes);
  });

  it.each(cases(WRITE_ROUTES))(
    '%s: a read grant of the same resource never satisfies write',
    async (_label, route) => {
      const reads = [...new Set(route.scopes.map((scope) => `${resourceOf(scope)}:read`))];
      const result = await callRoute(route, await keyWith(reads));
      expectInsufficientScope(result, route, route.scopes.filter(isWrite));
    },
  );

  it.each(cases(READ_ROUTES.filter((route) => route.scopes.length > 0)))(
    '%s: a write grant of the same resource satisfies read',
    async (_label, route) => {
      const writes = route.scopes.map((scope) => `${resourceOf(scope)}:write`);
      expectAuthorized(await callRoute(route, await keyWith(writes)));
    },
  );

  it.each(cases(PROTECTED))('%s: a key holding exactly its scopes is allowed', async (_label, route) => {
    expectAuthorized(await callRoute(route, await keyWith(route.scopes)));
  });

  it.each(cases(PROTECTED))('%s: a full-access key is allowed', async (_label, route) => {
    expectAuthorized(await callRoute(route, api.apiKey));
  });
});

describe('routes without authentication', () => {
  it.each(cases(REMOVED))(
    '%s: removed → 410 gone naming the replacement, with or without credentials',
    async (_label, route) => {
      const replacement = route.removed?.replacement;
      if (!replacement) throw new Error(`${label(route)} names no replacement`);
      for (const key of [null, 'vcs_unknown', api.apiKey]) {
        const result = await callRoute(route, key);
        expect(result.status, `key ${key}`).toBe(410);
        expect(errorOf(result).code).toBe('gone');
        expect(errorOf(result).message).toContain(replacement);
      }
    },
  );

  it.each(cases(PUBLIC))('%s: answers without credentials, and despite bad ones', async (_label, route) => {
    // A public route with a path parameter takes a secret there (a consent page's token): an unknown
    // one is 404, answered by the route itself, never 401.
    const expected = route.path.includes('{') ? 404 : 200;
    for (const key of [null, 'vcs_unknown']) {
      const result = await callRoute(route, key);
      expect(result.status, `key ${key}`).toBe(expected);
      if (expected === 404) expect(errorOf(result).code).toBe('not_found');
    }
  });
});

interface Folder {
  folder_id: string;
  name: string;
}
interface Endpoint {
  endpoint_id: string;
  url: string;
  events: string[] | null;
  secret: string | null;
}

describe('tenant isolation: another workspace cannot reach a resource by id', () => {
  let owner: { workspaceId: string; apiKey: string };
  let intruder: { workspaceId: string; apiKey: string };

  beforeAll(async () => {
    owner = await api.newWorkspace();
    intruder = await api.newWorkspace();
  });

  const secretName = () => `Confidential ${randomBytes(6).toString('hex')}`;

  it('GET /v3/folders/{folder_id} → 404, and the folder stays out of the intruder’s list', async () => {
    const name = secretName();
    const created = await api.call<{ data: Folder }>('POST', '/v3/folders', {
      key: owner.apiKey,
      body: { name },
    });
    expect(created.status).toBe(201);
    const id = created.body.data.folder_id;

    const foreign = await api.call('GET', `/v3/folders/${id}`, { key: intruder.apiKey });
    expect(foreign.status).toBe(404);
    expect(errorOf(foreign).code).toBe('not_found');
    expect(JSON.stringify(foreign.body)).not.toContain(name);

    const list = await api.call<{ data: Folder[] }>('GET', '/v3/folders?limit=100', { key: intruder.apiKey });
    expect(list.status).toBe(200);
    expect(list.body.data.map((folder) => folder.folder_id)).not.toContain(id);

    const filtered = await api.call<{ data: Folder[] }>('GET', `/v3/folders?parent_id=${id}`, {
      key: intruder.apiKey,
    });
    expect(JSON.stringify(filtered.body)).not.toContain(name);

    const nested = await api.call('POST', '/v3/folders', {
      key: intruder.apiKey,
      body: { name: 'Squatter', parent_id: id },
    });
    expect(nested.status).toBe(400);
    expect(errorOf(nested).param).toBe('parent_id');

    // The owner still sees it, unchanged.
    const mine = await api.call<{ data: Folder }>('GET', `/v3/folders/${id}`, { key: owner.apiKey });
    expect(mine.body.data).toEqual(created.body.data);
  });

  describe('webhook endpoints', () => {
    let endpoint: Endpoint;

    beforeAll(async () => {
      const created = await api.call<{ data: Endpoint }>('POST', '/v3/webhooks/endpoints', {
        key: owner.apiKey,
        body: { url: 'https://hooks.example.com/owner-only', events: ['avatar_video.success'] },
      });
      expect(created.status).toBe(201);
      endpoint = created.body.data;
    });

    async function ownerView(): Promise<Endpoint | undefined> {
      const list = await api.call<{ data: Endpoint[] }>('GET', '/v3/webhooks/endpoints?limit=100', {
        key: owner.apiKey,
      });
      return list.body.data.find((item) => item.endpoint_id === endpoint.endpoint_id);
    }

    it('the intruder’s list does not show it', async () => {
      const list = await api.call<{ data: Endpoint[] }>('GET', '/v3/webhooks/endpoints?limit=100', {
        key: intruder.apiKey,
      });
      expect(list.status).toBe(200);
      expect(JSON.stringify(list.body)).not.toContain(endpoint.endpoint_id);
    });

    it('PATCH → 404 webhook_not_found and the endpoint is unchanged', async () => {
      const result = await api.call('PATCH', `/v3/webhooks/endpoints/${endpoint.endpoint_id}`, {
        key: intruder.apiKey,
        body: { url: 'https://attacker.example.com/steal', events: null },
      });
      expect(result.status).toBe(404);
      expect(errorOf(result)).toMatchObject({ code: 'webhook_not_found', param: 'endpoint_id' });
      expect(JSON.stringify(result.body)).not.toContain('owner-only');
      expect(await ownerView()).toMatchObject({
        url: 'https://hooks.example.com/owner-only',
        events: ['avatar_video.success'],
      });
    });

    it('rotate-secret → 404, no secret is returned and the owner’s secret still signs', async () => {
      const result = await api.call('POST', `/v3/webhooks/endpoints/${endpoint.endpoint_id}/rotate-secret`, {
        key: intruder.apiKey,
      });
      expect(result.status).toBe(404);
      expect(errorOf(result).code).toBe('webhook_not_found');
      expect(JSON.stringify(result.body)).not.toContain('whsec_');
      const item = await getEndpointItem(owner.workspaceId, endpoint.endpoint_id);
      expect(
        await decryptSecret(owner.workspaceId, endpoint.endpoint_id, item?.secret_ciphertext ?? ''),
      ).toBe(endpoint.secret);
    });

    it('DELETE → 404 and the endpoint still exists', async () => {
      const result = await api.call('DELETE', `/v3/webhooks/endpoints/${endpoint.endpoint_id}`, {
        key: intruder.apiKey,
      });
      expect(result.status).toBe(404);
      expect(errorOf(result).code).toBe('webhook_not_found');
      expect(await ownerView()).toBeDefined();
    });

    it('the owner can still change, rotate and delete it', async () => {
      const id = endpoint.endpoint_id;
      const patched = await api.call('PATCH', `/v3/webhooks/endpoints/${id}`, {
        key: owner.apiKey,
        body: { events: null },
      });
      expect(patched.status).toBe(200);
      const rotated = await api.call('POST', `/v3/webhooks/endpoints/${id}/rotate-secret`, {
        key: owner.apiKey,
      });
      expect(rotated.status).toBe(200);
      const deleted = await api.call('DELETE', `/v3/webhooks/endpoints/${id}`, { key: owner.apiKey });
      expect(deleted.status).toBe(200);
      expect(await ownerView()).toBeUndefined();
    });
  });
});
