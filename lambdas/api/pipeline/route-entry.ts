/**
 * What a deployed route function runs. The functions of an area's routes share one bundle, built from
 * the area's rows and their endpoints (`lambdas/api/<area>/routes.ts`): each function's environment
 * names the row it serves, so the bundle is built and uploaded once per area, not once per route.
 */
import { ROUTE_OPERATION_ID_VARIABLE, routeOperationId } from '../../core/config.js';
import { lambdaHandlerFor } from './api-handler.js';
import type { RouteDefinition } from './route-types.js';

/** The handler of the row named by the function's environment; refuses to load without one. */
export function deployedRouteHandler(areaRoutes: readonly RouteDefinition[]) {
  const operationId = routeOperationId();
  const route = areaRoutes.find((candidate) => candidate.operationId === operationId);
  if (!route) {
    throw new Error(`${ROUTE_OPERATION_ID_VARIABLE}=${operationId ?? ''} names no row of this area's routes`);
  }
  return lambdaHandlerFor(route);
}
