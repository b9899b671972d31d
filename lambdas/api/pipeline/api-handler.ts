/**
 * Builds a route's Lambda handler: the request pipeline (middy) around the row's endpoint.
 *
 * Fixed middleware order: logger context → error envelope → authentication (principal) → rate limit →
 * authorization (scopes, billing) → validation → [idempotency] → endpoint. An endpoint receives a typed
 * `ApiRequest` and returns an `ApiResponse`; it never sees the proxy event.
 */
import { injectLambdaContext } from '@aws-lambda-powertools/logger/middleware';
import middy from '@middy/core';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';
import { config } from '../../core/config.js';
import { countRequest, logger, REQUEST_OUTCOMES, tracingMiddleware } from '../../core/observability.js';
import { deprecationHeaders } from './deprecation.js';
import type { Endpoint } from './endpoint.js';
import type { ApiRequest, ApiResponse } from './http.js';
import { idempotencyKeyOf, runIdempotently } from './idempotency.js';
import { authenticationMiddleware, authorizationMiddleware } from './middleware/authorization.js';
import { errorEnvelopeMiddleware } from './middleware/error-envelope.js';
import { type ApiContext, lowerCaseHeaders } from './middleware/pipeline-context.js';
import { rateLimitMiddleware } from './middleware/rate-limiting.js';
import { validationMiddleware } from './middleware/validation.js';
import {
  type ProxyResultWithStream,
  STREAMED_BODY,
  type StreamingLambdaHandler,
  streamifyProxyHandler,
} from './response-streaming.js';
import { type RouteDefinition, streamsResponse } from './route-types.js';

export type ApiLambdaHandler = (
  event: APIGatewayProxyEvent,
  context: Context,
) => Promise<APIGatewayProxyResult>;

/** CORS headers for a browser origin the deployment allows; none for any other caller. */
function corsHeaders(headers: APIGatewayProxyEvent['headers'] | null): Record<string, string> {
  const origin = lowerCaseHeaders(headers).origin;
  if (!origin || !config().allowedCorsOrigins.includes(origin)) return {};
  return {
    'Access-Control-Allow-Origin': origin,
    'Access-Control-Expose-Headers':
      'X-Request-Id, Retry-After, X-RateLimit-Limit, X-RateLimit-Remaining, X-RateLimit-Reset, X-RateLimit-Scope, Idempotent-Replayed, Deprecation, Sunset',
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

/**
 * The Lambda handler of a row of the route table: its endpoint inside the pipeline. A row marked
 * `responseStreaming` gets the runtime's streaming signature and sends a `respond.stream` body as it
 * is produced.
 */
export function lambdaHandlerFor(route: RouteDefinition): ApiLambdaHandler | StreamingLambdaHandler {
  if (route.removed) throw new Error(`${route.operationId} was removed: API Gateway answers it, no function`);
  const served = route.endpoint;
  if (!served)
    throw new Error(`${route.operationId} has no endpoint: every current route of the table is served`);
  if (streamsResponse(route)) {
    return streamifyProxyHandler(pipeline(route, served, true), (error) =>
      logger.error('The response stream failed after it started', { error: error as Error }),
    );
  }
  return pipeline(route, served, false) as ApiLambdaHandler;
}

/**
 * The URL the caller used to reach the API: API Gateway's default domain carries the stage in the path
 * (`/prod`); a custom domain maps it away, and the local server has none.
 */
function baseUrlOf(event: APIGatewayProxyEvent): string {
  const headers = lowerCaseHeaders(event.headers);
  const host = headers.host ?? event.requestContext?.domainName ?? 'localhost';
  const protocol = headers['x-forwarded-proto'] ?? 'http';
  const stage = event.requestContext?.stage;
  const stageInPath = host.includes('.execute-api.') && stage ? `/${stage}` : '';
  return `${protocol}://${host}${stageInPath}`;
}

function pipeline(
  route: RouteDefinition,
  served: Endpoint,
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
      baseUrl: baseUrlOf(event),
    } as ApiRequest;
    const key = route.idempotent ? idempotencyKeyOf(request.headers) : undefined;
    const response = key
      ? await runIdempotently(
          route.operationId,
          request,
          context,
          key,
          () => served.handle(request),
          served.replayCodec,
        )
      : await served.handle(request);
    countRequest(route.operationId, REQUEST_OUTCOMES.success);
    return toProxyResult(response, context, streaming);
  };

  const wrapped = middy<APIGatewayProxyEvent, APIGatewayProxyResult, Error, ApiContext>(core)
    .before((request) => {
      request.context.pipeline = {
        route,
        responseHeaders: { ...corsHeaders(request.event.headers), ...deprecationHeaders(route) },
      };
    })
    .use(injectLambdaContext(logger, { resetKeys: true }))
    .use(errorEnvelopeMiddleware())
    .use(authenticationMiddleware())
    .use(rateLimitMiddleware())
    .use(authorizationMiddleware())
    .use(validationMiddleware(served.request));

  if (tracingMiddleware) wrapped.use(tracingMiddleware);

  return (event: APIGatewayProxyEvent, context: Context) => wrapped(event, context as ApiContext);
}
