/**
 * Turns the route table into the shape of the REST API: which API Gateway resources exist, which
 * stack creates each one, and what every path answers. Pure data, so it is tested without synthesis.
 *
 * Ownership: a resource whose subtree holds routes of one area only is created by that area's nested
 * stack; a resource shared by several areas (today only `/v3`) is created by the root stack and
 * imported by the area stacks. That keeps almost every resource next to its methods.
 */
import path from 'node:path';
import type { HttpMethod, RouteArea, RouteDefinition } from '../../lambdas/api/pipeline/route-types.js';

export interface ApiResourcePlan {
  /** API Gateway path, e.g. `/v3/folders/{folder_id}`. */
  path: string;
  /** Path of the parent resource; `/` for a top-level resource. */
  parentPath: string;
  /** Last segment of the path. */
  pathPart: string;
  /** The area whose nested stack creates the resource; `undefined` means the root stack does. */
  ownerArea: RouteArea | undefined;
}

export interface ApiPathPlan {
  path: string;
  /** Routes of this path in route-table order. */
  routes: readonly RouteDefinition[];
  /** The methods the path answers, in route-table order (the `Allow` header of a 405). */
  allowedMethods: readonly HttpMethod[];
  /** The area whose stack adds the path's catch-all and preflight methods: that of its first route. */
  area: RouteArea;
}

export interface ApiPlan {
  /** Every resource, parents before children. */
  resources: readonly ApiResourcePlan[];
  /** Every path that has at least one route. */
  paths: readonly ApiPathPlan[];
}

/**
 * How a route is integrated: a Lambda function running its area's bundle (the function's environment
 * names its row, see lambdas/api/pipeline/route-entry.ts), or a removed route's 410.
 */
export type RouteIntegration = { kind: 'lambda'; bundle: string } | { kind: 'removed' };

export function integrationOf(route: RouteDefinition): RouteIntegration {
  if (route.removed) return { kind: 'removed' };
  return { kind: 'lambda', bundle: areaBundle(route.area) };
}

/** The bundle of the functions of an area's routes. */
export function areaBundle(area: RouteArea): string {
  return `api/${area}`;
}

/**
 * The generated entry of an area's bundle: the area's rows (`lambdas/api/<area>/routes.ts`) served by
 * the row the function's environment names. Imports are absolute: the entry is written outside the tree.
 */
export function areaBundleEntry(projectRoot: string, area: RouteArea): string {
  const lambdas = path.join(projectRoot, 'lambdas');
  return [
    `import { AREA_ROUTES } from ${JSON.stringify(path.join(lambdas, 'api', area, 'routes.ts'))};`,
    `import { deployedRouteHandler } from ${JSON.stringify(path.join(lambdas, 'api/pipeline/route-entry.ts'))};`,
    'export const handler = deployedRouteHandler(AREA_ROUTES);',
    '',
  ].join('\n');
}

function segmentsOf(path: string): string[] {
  if (!path.startsWith('/') || path.endsWith('/') || path.includes('//')) {
    throw new Error(`Route path "${path}" must start with "/" and have no empty segments`);
  }
  return path.split('/').slice(1);
}

export function planApi(routes: readonly RouteDefinition[]): ApiPlan {
  const areasBelow = new Map<string, Set<RouteArea>>();
  const routesByPath = new Map<string, RouteDefinition[]>();
  for (const route of routes) {
    const samePath = routesByPath.get(route.path) ?? [];
    if (samePath.some((other) => other.method === route.method)) {
      throw new Error(`Route ${route.method} ${route.path} appears twice in the route table`);
    }
    routesByPath.set(route.path, [...samePath, route]);
    const segments = segmentsOf(route.path);
    for (let depth = 1; depth <= segments.length; depth++) {
      const path = `/${segments.slice(0, depth).join('/')}`;
      const areas = areasBelow.get(path) ?? new Set<RouteArea>();
      areas.add(route.area);
      areasBelow.set(path, areas);
    }
  }

  const resources = [...areasBelow.entries()]
    .map(([path, areas]): ApiResourcePlan => {
      const segments = segmentsOf(path);
      return {
        path,
        parentPath: `/${segments.slice(0, -1).join('/')}`,
        pathPart: segments.at(-1) ?? '',
        ownerArea: areas.size === 1 ? [...areas][0] : undefined,
      };
    })
    .sort((a, b) => segmentsOf(a.path).length - segmentsOf(b.path).length || a.path.localeCompare(b.path));

  const paths = [...routesByPath.entries()].map(([path, pathRoutes]): ApiPathPlan => {
    const [first] = pathRoutes;
    if (!first) throw new Error(`No routes for ${path}`);
    return {
      path,
      routes: pathRoutes,
      allowedMethods: pathRoutes.map((route) => route.method),
      area: first.area,
    };
  });
  return { resources, paths };
}
