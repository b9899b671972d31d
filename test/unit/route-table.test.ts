import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../lambdas/api/routes.js';
import { RouteMatcher } from '../../lib/local/route-matcher.js';
import reference from '../fixtures/reference-operations.json' with { type: 'json' };

describe('the route table', () => {
  it('has one row per method and path and unique operation ids', () => {
    const keys = ROUTES.map((route) => `${route.method} ${route.path}`);
    expect(new Set(keys).size).toBe(keys.length);
    const ids = ROUTES.map((route) => route.operationId);
    expect(new Set(ids).size).toBe(ids.length);
  });

  it('covers every operation of the reference schemas that is still current', () => {
    // The translation caption route was removed upstream and is not in the spec.
    const removedUpstream = new Set(['GET /v3/video-translations/{video_translation_id}/caption']);
    const ours = new Set(ROUTES.map((route) => `${route.method} ${route.path}`));
    const missing = reference.operations
      .map((operation) => `${operation.method} ${operation.path}`)
      .filter((key) => !removedUpstream.has(key) && !ours.has(key));
    expect(missing).toEqual([]);
  });

  it('serves every current route: only a removed route has no endpoint', () => {
    expect(
      ROUTES.filter((route) => !route.endpoint && !route.removed).map((route) => route.operationId),
    ).toEqual([]);
    expect(
      ROUTES.filter((route) => route.removed && route.endpoint).map((route) => route.operationId),
    ).toEqual([]);
  });

  it('gives every write route a write scope and every route a rate class', () => {
    for (const route of ROUTES) {
      if (route.auth === 'none' || route.removed) continue;
      if (route.path === '/v3/api_keys/self') continue; // works with any key, by the spec
      expect(route.scopes.length, `${route.method} ${route.path}`).toBeGreaterThan(0);
      if (route.method !== 'GET') {
        expect(
          route.scopes.some((scope) => scope.endsWith(':write')),
          `${route.method} ${route.path}`,
        ).toBe(true);
      }
    }
  });

  it('marks only POST creates as accepting Idempotency-Key', () => {
    for (const route of ROUTES.filter((candidate) => candidate.idempotent)) expect(route.method).toBe('POST');
  });
});

describe('local route matching', () => {
  const matcher = new RouteMatcher(ROUTES);

  it('prefers literal segments over parameters, as API Gateway does', () => {
    expect(matcher.match('/v3/videos/statuses')?.resource).toBe('/v3/videos/statuses');
    expect(matcher.match('/v3/videos/abc')?.resource).toBe('/v3/videos/{video_id}');
    expect(matcher.match('/v3/avatars/looks')?.resource).toBe('/v3/avatars/looks');
    expect(matcher.match('/v3/avatars/g1')?.pathParameters).toEqual({ group_id: 'g1' });
  });

  it('decodes path parameters and rejects unknown or malformed paths', () => {
    expect(matcher.match('/v3/folders/a%20b')?.pathParameters).toEqual({ folder_id: 'a b' });
    expect(matcher.match('/v3/folders/%E0%A4%A')).toBeUndefined();
    expect(matcher.match('/v3/nothing')).toBeUndefined();
    expect(matcher.match('/v3/folders/')).toBeUndefined();
  });
});
