/**
 * Builds a route's Lambda handler: the request pipeline (middy) around a plain async function.
 *
 * Fixed middleware order: logger context → error envelope → authorization (principal, scopes,
 * billing) → rate limit → validation → [idempotency] → handler. A handler receives a typed
 * `ApiRequest` and returns an `ApiResponse`; it never sees the proxy event.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import type { z } from 'zod';
import type { RouteDefinition } from '../api/route-types.js';
import { findRoute } from '../api/routes.js';
import { config } from './config.js';
import type { ApiRequest, ApiResponse } from './http.js';
import { idempotencyKeyOf, type ReplayCodec, runIdempotently } from './idempotency.js';
import { authorizationMiddleware } from './middleware/authorization.js';
import { errorEnvelopeMiddleware } from './middleware/error-envelope.js';
import { type ApiContext, lowerCaseHeaders } from './middleware/pipeline-context.js';
import { rateLimitMiddleware } from './middleware/rate-limiting.js';
import { type RequestSchemas, validationMiddleware } from './middleware/validation.js';
import { countRequest, logger, REQUEST_OUTCOMES, tracingMiddleware } from './observability.js';

type Output<S> = S extends z.ZodType ? z.output<S> : undefined;

export type RouteHandler<S extends RequestSchemas> = (
  request: ApiRequest<Output<S['body']>, Output<S['query']>, Output<S['path']>>,
) => Promise<ApiResponse>;

/** What the OpenAPI generator reads from a handler module. */
export interface HandlerDefinition {
  route: RouteDefinition;
  schemas: RequestSchemas;
  /** Documented success status and response example shape. */
  successStatus: number;
}

export type ApiLambdaHandler = ((
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>) & {
  definition: HandlerDefinition;
};

export interface ApiHandlerOptions {
  /** Status of a successful response, for the OpenAPI document. @default 200 */
  successStatus?: number;
  /** Keeps secrets of the response out of the idempotency record. @default undefined (stored as is) */
  replayCodec?: ReplayCodec;
}

/** CORS headers for a browser origin the deployment allows; none for any other caller. */
function corsHeaders(headers: APIGatewayProxyEvent['headers'] | null): Record<string, string> {
  const origin = lowerCaseHeaders(headers).origin;
  if (!origin || !config().allowedCorsOrigins.includes(origin)) return {};
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Expose-Headers':
      'X-Request-Id, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-RateLimit-Scope, Idempotent-Replayed',
    Vary: 'Origin',
  };
}

function toProxyResult(response: ApiResponse, context: ApiContext): APIGatewayProxyResult {
  const headers: Record<string, string> = {
    'X-Request-Id': context.awsRequestId,
    ...context.pipeline.responseHeaders,
    ...response.headers,
  };
  if (response.raw) {
    const isText = typeof response.raw.data === 'string';
    return {
      statusCode: response.status,
      headers: { ...headers, 'Content-Type': response.raw.contentType },
      body: isText ? (response.raw.data as string) : Buffer.from(response.raw.data).toString('base64'),
      isBase64Encoded: !isText,
    };
  }
  return {
    statusCode: response.status,
    headers: { ...headers, 'Content-Type': 'application/json; charset=utf-8' },
    body: response.body === undefined ? '' : JSON.stringify(response.body),
  };
}

export function apiHandler<S extends RequestSchemas>(
  operationId: string,
  schemas: S,
  handle: RouteHandler<S>,
  options: ApiHandlerOptions = {},
): ApiLambdaHandler {
  const route = findRoute(operationId);

  const core = async (event: APIGatewayProxyEvent, context: ApiContext): Promise<APIGatewayProxyResult> => {
    const { pipeline } = context;
    const input = pipeline.input ?? { body: undefined, query: {}, path: {} };
    const request = {
      body: input.body,
      query: input.query,
      path: input.path,
      principal: pipeline.principal,
      headers: lowerCaseHeaders(event.headers),
      rawBody: Buffer.from(event.body ?? '', event.isBase64Encoded ? 'base64' : 'utf8'),
      requestId: context.awsRequestId,
      sourceIp: event.requestContext?.identity?.sourceIp ?? 'unknown',
      route,
    } as ApiRequest<Output<S['body']>, Output<S['query']>, Output<S['path']>>;
    const key = route.idempotent ? idempotencyKeyOf(request.headers) : undefined;
    const response = key
      ? await runIdempotently(request, context, key, () => handle(request), options.replayCodec)
      : await handle(request);
    countRequest(route.operationId, REQUEST_OUTCOMES.success);
    return toProxyResult(response, context);
  };

  const wrapped = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext>(core)
    .before((request) => {
      request.context.pipeline = { route, responseHeaders: corsHeaders(request.event.headers) };
    })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(errorEnvelopeMiddleware())
    .use(authorizationMiddleware())
    .use(rateLimitMiddleware())
    .use(validationMiddleware(schemas));

  if (tracingMiddleware) wrapped.use(tracingMiddleware);

  const lambdaHandler = ((event: APIGatewayProxyEvent, context: Context) =>
    wrapped(event, context as ApiContext)) as ApiLambdaHandler;
  lambdaHandler.definition = { route, schemas, successStatus: options.successStatus ?? 200 };
  return lambdaHandler;
}
