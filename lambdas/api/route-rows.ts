/**
 * How an area writes its rows of the route table: `row(...)` for each method and path, gathered by
 * `areaRoutes(area, [...])` in `lambdas/api/<area>/routes.ts`. The defaults live here, once.
 */
import type { Endpoint } from './pipeline/endpoint.js';
import type {
  Billing,
  HttpMethod,
  RateClass,
  RouteArea,
  RouteDefinition,
  Scope,
} from './pipeline/route-types.js';

interface RowOptions {
  /** How the route is served; every current route has one (a removed route has none). */
  endpoint?: Endpoint;
  /** Accepts `Idempotency-Key`. @default false */
  idempotent?: boolean;
  /** @default 'free' */
  billing?: Billing;
  /** @default 'required' ('none' for removed routes) */
  auth?: 'required' | 'none';
  /** @default undefined (a current route) */
  removed?: { replacement: string };
  /** @default undefined (a current route; see RouteDefinition.deprecated) */
  deprecated?: { replacement: string };
  /** Beyond the hosted API's contract (see RouteDefinition.extension). @default false */
  extension?: boolean;
  /** The body is streamed as it is produced (see RouteDefinition). @default false */
  responseStreaming?: boolean;
}

/** A row before its area is known. */
type AreaRow = Omit<RouteDefinition, 'area'>;

export function row(
  method: HttpMethod,
  path: string,
  operationId: string,
  summary: string,
  scopes: readonly Scope[],
  rateClass: RateClass,
  options: RowOptions = {},
): AreaRow {
  return {
    operationId,
    method,
    path,
    summary,
    scopes,
    rateClass,
    idempotent: options.idempotent ?? false,
    billing: options.billing ?? 'free',
    // A removed route answers 410 to anyone: it reveals nothing and helps callers migrate.
    auth: options.removed ? 'none' : (options.auth ?? 'required'),
    ...(options.endpoint ? { endpoint: options.endpoint } : {}),
    ...(options.removed ? { removed: options.removed } : {}),
    ...(options.deprecated ? { deprecated: options.deprecated } : {}),
    ...(options.extension ? { extension: true as const } : {}),
    ...(options.responseStreaming ? { responseStreaming: true as const } : {}),
  };
}

/**
 * The rows of one area. The area names the nested stack and the bundle of the rows' functions, and
 * the directory of the file that declares them (`lambdas/api/<area>/routes.ts`, as the stack expects).
 */
export function areaRoutes(area: RouteArea, rows: readonly AreaRow[]): readonly RouteDefinition[] {
  return rows.map((areaRow) => ({ ...areaRow, area }));
}

/** A create that accepts `Idempotency-Key`. */
export const create = { idempotent: true } as const;
/** A create that starts paid work. */
export const paidCreate = { idempotent: true, billing: 'credits' } as const;
/** A create payable with API credits only. */
export const apiCreditCreate = { idempotent: true, billing: 'api_credits_only' } as const;
