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
import { config } from '../../core/config.js';
import { countRequest, logger, REQUEST_OUTCOMES, tracingMiddleware } from '../../core/observability.js';
import type { RouteDefinition } from '../route-types.js';
import { findRoute } from '../routes.js';
import type { ApiRequest, ApiResponse } from './http.js';
import { idempotencyKeyOf, type ReplayCodec, runIdempotently } from './idempotency.js';
import { authorizationMiddleware } from './middleware/authorization.js';
import { errorEnvelopeMiddleware } from './middleware/error-envelope.js';
import { type ApiContext, lowerCaseHeaders } from './middleware/pipeline-context.js';
import { rateLimitMiddleware } from './middleware/rate-limiting.js';
import { type RequestSchemas, validationMiddleware } from './middleware/validation.js';
import {
  type ProxyResultWithStream,
  STREAMED_BODY,
  type StreamingLambdaHandler,
  streamifyProxyHandler,
} from './response-streaming.js';

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

/** The handler of a route marked `responseStreaming`: the Lambda runtime's streaming signature. */
export type StreamingApiLambdaHandler = StreamingLambdaHandler & { definition: HandlerDefinition };

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

async function collect(chunks: AsyncIterable<Uint8Array>): Promise<Uint8Array> {
  const parts: Uint8Array[] = [];
  for await (const chunk of chunks) parts.push(chunk);
  return Buffer.concat(parts);
}

/** The proxy result of a response; a streamed body stays a stream only when `streaming`. */
async function toProxyResult(
  response: ApiResponse,
  context: ApiContext,
  streaming: boolean,
): Promise<ProxyResultWithStream> {
  const headers: Record<string, string> = {
    'X-Request-Id': context.awsRequestId,
    ...context.pipeline.responseHeaders,
    ...response.headers,
  };
  if (response.stream) {
    const { contentType, chunks } = response.stream;
    if (!streaming)
      return toProxyResult(
        { ...response, stream: undefined, raw: { contentType, data: await collect(chunks) } },
        context,
        false,
      );
    return {
      statusCode: response.status,
      headers: { ...headers, 'Content-Type': contentType },
      body: '',
      [STREAMED_BODY]: chunks,
    };
  }
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
  const lambdaHandler = pipeline(route, schemas, handle, options, false) as ApiLambdaHandler;
  lambdaHandler.definition = { route, schemas, successStatus: options.successStatus ?? 200 };
  return lambdaHandler;
}

/**
 * The handler of a route marked `responseStreaming` in the route table: the same pipeline, and a
 * `respond.stream` body is sent as it is produced (see pipeline/response-streaming.ts).
 */
export function streamingApiHandler<S extends RequestSchemas>(
  operationId: string,
  schemas: S,
  handle: RouteHandler<S>,
  options: ApiHandlerOptions = {},
): StreamingApiLambdaHandler {
  const route = findRoute(operationId);
  if (!route.responseStreaming) {
    throw new Error(`${operationId} streams its response: mark its row responseStreaming in the route table`);
  }
  const buffered = pipeline(route, schemas, handle, options, true);
  const lambdaHandler = streamifyProxyHandler(buffered, (error) =>
    logger.error('The response stream failed after it started', { error: error as Error }),
  ) as StreamingApiLambdaHandler;
  lambdaHandler.definition = { route, schemas, successStatus: options.successStatus ?? 200 };
  return lambdaHandler;
}

function pipeline<S extends RequestSchemas>(
  route: RouteDefinition,
  schemas: S,
  handle: RouteHandler<S>,
  options: ApiHandlerOptions,
  streaming: boolean,
): (event: APIGatewayProxyEvent, context: Context) => Promise<ProxyResultWithStream> {
  const core = async (event: APIGatewayProxyEvent, context: ApiContext): Promise<ProxyResultWithStream> => {
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
    return toProxyResult(response, context, streaming);
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

  return (event: APIGatewayProxyEvent, context: Context) => wrapped(event, context as ApiContext);
}
