/**
 * Loads route handler modules by their route-table path. Used by the local server and by the
 * documentation generator; deployed functions are bundled per route by the CDK stack instead.
 */

import type { ApiLambdaHandler } from '../../lambdas/api/pipeline/api-handler.js';
import type { RouteDefinition } from '../../lambdas/api/route-types.js';

export type LambdaProxyHandler = (...args: Parameters<ApiLambdaHandler>) => ReturnType<ApiLambdaHandler>;

export async function loadRouteHandler(route: RouteDefinition): Promise<LambdaProxyHandler> {
  const modulePath = `../../lambdas/api/${route.handler ?? 'not-implemented'}.js`;
  const module = (await import(modulePath)) as { handler?: LambdaProxyHandler };
  if (typeof module.handler !== 'function') throw new Error(`${modulePath} does not export a handler`);
  return module.handler;
}
