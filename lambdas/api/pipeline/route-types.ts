/** Types of the route table. Kept apart from the rows so that tooling can import them cheaply. */
import type { Endpoint } from './endpoint.js';

export const HTTP_METHODS = ['GET', 'POST', 'PUT', 'PATCH', 'DELETE'] as const;
export type HttpMethod = (typeof HTTP_METHODS)[number];

/** Request-rate classes of the spec. */
export const RATE_CLASSES = {
  read: 'read',
  write: 'write',
  heavy: 'heavy',
  status: 'status',
} as const;
export type RateClass = (typeof RATE_CLASSES)[keyof typeof RATE_CLASSES];

/** Resources that scopes are granted on (`resource:read` / `resource:write`). */
export const SCOPE_RESOURCES = [
  'account',
  'ai_clipping',
  'assets',
  'avatars',
  'background_removal',
  'brand',
  'filler_removal',
  'folders',
  'hyperframes',
  'images',
  'lipsync',
  'realtime',
  'templates',
  'translations',
  'video_agent',
  'videos',
  'voices',
  'webhooks',
] as const;
export type ScopeResource = (typeof SCOPE_RESOURCES)[number];
export type Scope = `${ScopeResource}:${'read' | 'write'}`;

/**
 * How a route is paid for. OAuth clients can pay only from a wallet:
 * - `free`: no credits are consumed.
 * - `credits`: consumes credits; an OAuth client needs a `wallet` workspace, else 403 `api_key_required`.
 * - `api_credits_only`: payable with API credits only; OAuth clients always get 403 `api_key_required`.
 */
export type Billing = 'free' | 'credits' | 'api_credits_only';

/** Nested-stack areas: one CloudFormation nested stack per area keeps each under the 500-resource cap. */
export const ROUTE_AREAS = [
  'account',
  'ai-clipping',
  'assets',
  'audio',
  'avatars',
  'background-removals',
  'brand',
  'filler-word-removals',
  'folders',
  'hyperframes',
  'legacy',
  'lipsyncs',
  'meta',
  'models',
  'overdubs',
  'realtime',
  'templates',
  'video-agents',
  'video-translations',
  'videos',
  'voices',
  'webhooks',
] as const;
export type RouteArea = (typeof ROUTE_AREAS)[number];

export interface RouteDefinition {
  /** Stable operation id (the reference's names where it has the operation). */
  operationId: string;
  method: HttpMethod;
  /** API Gateway style path, e.g. `/v3/folders/{folder_id}`. */
  path: string;
  area: RouteArea;
  summary: string;
  /** Every scope the caller's key must hold. Empty: any authenticated caller. */
  scopes: readonly Scope[];
  rateClass: RateClass;
  /** Whether the route accepts `Idempotency-Key`. */
  idempotent: boolean;
  billing: Billing;
  /** `none` only for public documents such as the OpenAPI description. */
  auth: 'required' | 'none';
  /**
   * How the route is served: request schemas and the function that answers. Every current route has
   * one (test/unit/route-table.test.ts); only a removed route has none.
   */
  endpoint?: Endpoint;
  /** A route removed from the contract: answers 410 `gone` naming what replaces it. */
  removed?: { replacement: string };
  /**
   * A route still served but kept only for older clients (the `/v2` video-translate routes): marked
   * `deprecated` in the OpenAPI document, whose description names what replaces it.
   */
  deprecated?: { replacement: string };
  /**
   * A route this service adds beyond the hosted API's contract (`GET /v3/usage`): marked
   * `x-extension: true` in the OpenAPI document, so that clients written for the hosted API know not
   * to expect it there.
   */
  extension?: true;
  /**
   * The body is sent while it is produced (API Gateway response streaming, see
   * pipeline/response-streaming.ts): the endpoint answers with `respond.stream`. Absent: the response
   * is sent whole.
   */
  responseStreaming?: true;
}

/**
 * Whether the route's response is streamed: a row marked `responseStreaming` that has its endpoint
 * (the 501 of a row not built yet answers whole).
 */
export function streamsResponse(route: RouteDefinition): boolean {
  return route.responseStreaming === true && route.endpoint !== undefined;
}
