/** State the request pipeline's middlewares hand to each other and to the handler. */
import type { MiddlewareObj, Request } from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { Principal } from '../../../accounts/principal.js';
import type { RouteDefinition } from '../route-types.js';

export interface PipelineState {
  route: RouteDefinition;
  principal?: Principal;
  input?: { body: unknown; query: unknown; path: unknown };
  /** Headers every response of this request carries (rate-limit state). */
  responseHeaders: Record<string, string>;
}

export type ApiContext = Context & { pipeline: PipelineState };
export type ApiMiddleware = MiddlewareObj<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext>;
export type ApiMiddyRequest = Request<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext>;

/** Lower-cased header map of a proxy event. */
export function lowerCaseHeaders(
  headers: APIGatewayProxyEvent['headers'] | null | undefined,
): Record<string, string> {
  const result: Record<string, string> = {};
  for (const [name, value] of Object.entries(headers ?? {}))
    if (value !== undefined) result[name.toLowerCase()] = value;
  return result;
}
