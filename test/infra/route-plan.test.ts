import { describe, expect, it } from 'vitest';
import type { RouteDefinition } from '../../lambdas/api/pipeline/route-types.js';
import { ROUTE_AREAS } from '../../lambdas/api/pipeline/route-types.js';
import { ROUTES } from '../../lambdas/api/routes.js';
import { AREA_GRANTS } from '../../lib/access/function-access.js';
import { areaBundleEntry, integrationOf, planApi } from '../../lib/stack/route-plan.js';

function route(
  method: RouteDefinition['method'],
  path: string,
  area: RouteDefinition['area'],
): RouteDefinition {
  return {
    operationId: `${method}${path}`,
    method,
    path,
    area,
    summary: '',
    scopes: [],
    rateClass: 'read',
    idempotent: false,
    billing: 'free',
    auth: 'required',
  };
}

describe('planApi', () => {
  const plan = planApi(ROUTES);

  it('lets the root stack create only resources shared by several areas', () => {
    const shared = plan.resources
      .filter((resource) => resource.ownerArea === undefined)
      .map(({ path }) => path);
    expect(shared).toEqual(['/v3']);
  });

  it('lists parents before children, and every parent exists', () => {
    const seen = new Set(['/']);
    for (const resource of plan.resources) {
      expect(seen.has(resource.parentPath), resource.path).toBe(true);
      seen.add(resource.path);
    }
  });

  it('gives an area resource only routes of that area below it', () => {
    for (const resource of plan.resources.filter((candidate) => candidate.ownerArea)) {
      const below = ROUTES.filter(
        (candidate) => candidate.path === resource.path || candidate.path.startsWith(`${resource.path}/`),
      );
      expect(new Set(below.map((candidate) => candidate.area)), resource.path).toEqual(
        new Set([resource.ownerArea]),
      );
    }
  });

  it('lists the methods of every path in route-table order', () => {
    const folders = plan.paths.find((pathPlan) => pathPlan.path === '/v3/folders');
    expect(folders?.allowedMethods).toEqual(['GET', 'POST']);
    expect(plan.paths.flatMap((pathPlan) => pathPlan.routes)).toHaveLength(ROUTES.length);
  });

  it('refuses a method and path that appear twice', () => {
    expect(() => planApi([route('GET', '/v3/a', 'meta'), route('GET', '/v3/a', 'meta')])).toThrow(/twice/);
  });

  it('refuses malformed paths', () => {
    expect(() => planApi([route('GET', 'v3/a', 'meta')])).toThrow(/must start with/);
    expect(() => planApi([route('GET', '/v3//a', 'meta')])).toThrow(/empty segments/);
  });

  it('moves a resource to the root stack as soon as two areas share it', () => {
    const mixed = planApi([
      route('GET', '/v3/videos', 'videos'),
      route('GET', '/v3/videos/{id}/dubs', 'overdubs'),
    ]);
    expect(mixed.resources.find((resource) => resource.path === '/v3/videos')?.ownerArea).toBeUndefined();
    expect(mixed.resources.find((resource) => resource.path === '/v3/videos/{id}/dubs')?.ownerArea).toBe(
      'overdubs',
    );
  });
});

describe('integrationOf', () => {
  it("runs every current route from its area's bundle, and mocks removed routes", () => {
    for (const candidate of ROUTES) {
      const integration = integrationOf(candidate);
      if (candidate.removed) expect(integration).toEqual({ kind: 'removed' });
      else expect(integration).toEqual({ kind: 'lambda', bundle: `api/${candidate.area}` });
    }
  });
});

describe('areaBundleEntry', () => {
  it("imports the area's rows from the directory named after the area", () => {
    for (const area of new Set(ROUTES.map((candidate) => candidate.area))) {
      const entry = areaBundleEntry('/project', area);
      expect(entry).toContain(`from "/project/lambdas/api/${area}/routes.ts"`);
      expect(entry).toContain('export const handler = deployedRouteHandler(AREA_ROUTES);');
    }
  });
});

describe('AREA_GRANTS', () => {
  it('says what every area may touch', () => {
    expect(Object.keys(AREA_GRANTS).sort()).toEqual([...ROUTE_AREAS].sort());
  });
});
