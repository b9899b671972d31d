/**
 * The local API Gateway: an HTTP server that turns each request into the same REST proxy event API
 * Gateway would send, runs the same Lambda authorizer, invokes the same route handler, and writes its
 * result back. Gateway-level answers (unknown path, wrong method, denied credentials, removed routes)
 * come from the same definitions the CDK stack deploys.
 */
import { randomUUID } from 'node:crypto';
import {
  createServer,
  type IncomingMessage,
  type Server,
  type ServerResponse,
  STATUS_CODES,
} from 'node:http';
import type { AddressInfo, Socket } from 'node:net';
import { Writable } from 'node:stream';
import type {
  APIGatewayProxyEvent,
  APIGatewayProxyResult,
  APIGatewayRequestAuthorizerEvent,
  Context,
} from 'aws-lambda';
import { handler as authorizer } from '../../lambdas/api/authorizer.js';
import {
  CORS_ALLOWED_HEADERS,
  DENIAL_CONTEXT,
  GATEWAY_RESPONSES,
  type GatewayResponseDefinition,
} from '../../lambdas/api/gateway-responses.js';
import { lambdaHandlerFor } from '../../lambdas/api/pipeline/api-handler.js';
import {
  type HttpPrelude,
  isStreamingHandler,
  PRELUDE_DELIMITER,
  type StreamingLambdaHandler,
} from '../../lambdas/api/pipeline/response-streaming.js';
import type { RouteDefinition } from '../../lambdas/api/pipeline/route-types.js';
import { goneResponse } from '../../lambdas/api/removed-route.js';
import { config } from '../../lambdas/core/config.js';
import { apiBaseUrl, errorDocsUrl, errorEnvelope } from '../../lambdas/core/envelope.js';
import type { ServiceFunctionName } from '../access/function-access.js';
import { RouteMatcher } from './route-matcher.js';

export interface LocalApiServerOptions {
  routes: readonly RouteDefinition[];
  /** @default 0 (a free port) */
  port?: number;
  /** @default '127.0.0.1' */
  host?: string;
  /**
   * Where error `doc_url`s point (`DOC_BASE_URL`). @default '' (the API's own `/v3/docs/errors`, at the
   * base URL the client used, as the deployed functions build it from API Gateway's domain name)
   */
  docBaseUrl?: string;
  /**
   * Node's limit on a request's line and headers, in bytes; above it the client gets 431
   * `request_header_fields_too_large`. @default 16384 (Node's own default)
   */
  maxHeaderBytes?: number;
  /** API Gateway's integration timeout. @default 29000 */
  integrationTimeoutMs?: number;
  /** The integration timeout of streamed responses (API Gateway allows up to 15 minutes). @default 300000 */
  streamingTimeoutMs?: number;
  /** API Gateway's payload limit (its 413 message names 10 MiB). @default 10 MiB */
  maxBodyBytes?: number;
  /** Stage name in method ARNs. @default 'local' */
  stage?: string;
  /**
   * Runs a function's code as that function (the local stack checks its AWS calls against its role:
   * access-enforcement.ts). @default runs it as is
   */
  runAs?: <Result>(name: ServiceFunctionName, work: () => Promise<Result>) => Promise<Result>;
  /**
   * Static files served beside the API on the same origin (the web console); a path it answers
   * `undefined` for goes to the API. @default none
   */
  staticFiles?: (method: string, pathname: string) => Promise<GatewayResult | undefined>;
}

export interface LocalApiServer {
  url: string;
  port: number;
  stop(): Promise<void>;
}

export interface GatewayResult {
  statusCode: number;
  headers: Record<string, string>;
  body: Buffer;
}

function gatewayResponse(
  definition: GatewayResponseDefinition,
  docBaseUrl: string,
  authorizerContext?: Record<string, unknown>,
  headers: Record<string, string> = {},
): GatewayResult {
  const code =
    (definition.fromAuthorizer && String(authorizerContext?.[DENIAL_CONTEXT.code] ?? '')) || definition.code;
  const message =
    (definition.fromAuthorizer && String(authorizerContext?.[DENIAL_CONTEXT.message] ?? '')) ||
    definition.message;
  return {
    statusCode: definition.status ?? 500,
    headers: { 'Content-Type': 'application/json; charset=utf-8', ...headers },
    body: Buffer.from(JSON.stringify(errorEnvelope(code, message, null, docBaseUrl))),
  };
}

function envelope(
  status: number,
  code: string,
  message: string,
  docBaseUrl: string,
  headers: Record<string, string> = {},
): GatewayResult {
  return gatewayResponse({ type: 'DEFAULT_4XX', status, code, message }, docBaseUrl, undefined, headers);
}

const TEXT_TYPES = /^(application\/(json|x-www-form-urlencoded|xml)|text\/)/i;

function readBody(request: IncomingMessage, maxBytes: number): Promise<Buffer | 'too_large'> {
  return new Promise((resolve, reject) => {
    const chunks: Buffer[] = [];
    let size = 0;
    let tooLarge = false;
    request.on('data', (chunk: Buffer) => {
      size += chunk.length;
      if (size > maxBytes) tooLarge = true;
      else chunks.push(chunk);
    });
    request.on('end', () => resolve(tooLarge ? 'too_large' : Buffer.concat(chunks)));
    request.on('error', reject);
  });
}

function singleValues(multi: Record<string, string[]>): Record<string, string> | null {
  const entries = Object.entries(multi); // own properties only
  if (entries.length === 0) return null;
  return Object.fromEntries(entries.map(([name, values]) => [name, values.at(-1) ?? '']));
}

function lambdaContext(functionName: string, requestId: string, deadline: number): Context {
  return {
    callbackWaitsForEmptyEventLoop: false,
    functionName,
    functionVersion: '$LATEST',
    invokedFunctionArn: `arn:aws:lambda:local:000000000000:function:${functionName}`,
    memoryLimitInMB: '1024',
    awsRequestId: requestId,
    logGroupName: `/aws/lambda/${functionName}`,
    logStreamName: 'local',
    getRemainingTimeInMillis: () => Math.max(0, deadline - Date.now()),
    done: () => undefined,
    fail: () => undefined,
    succeed: () => undefined,
  };
}

/** The longest prelude the gateway reads before it gives up on a streamed response. */
const MAX_PRELUDE_BYTES = 64 * 1024;

/**
 * What a streaming handler writes to, as API Gateway's streaming integration reads it: a JSON
 * prelude (`statusCode`, `headers`), eight NUL bytes, then the body, forwarded to the client as it
 * arrives (chunked transfer encoding).
 */
class StreamedResponse extends Writable {
  private pending: Buffer = Buffer.alloc(0);
  /** Set once the prelude has been read and the status line sent. */
  prelude: HttpPrelude | undefined;

  constructor(private readonly response: ServerResponse) {
    super();
  }

  /** The Lambda runtime's response stream has this; the prelude says the content type here. */
  setContentType(_contentType: string): void {}

  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: (error?: Error | null) => void): void {
    if (this.prelude) {
      this.forward(chunk, callback);
      return;
    }
    this.pending = Buffer.concat([this.pending, chunk]);
    const end = this.pending.indexOf(PRELUDE_DELIMITER);
    if (end === -1) {
      callback(
        this.pending.length > MAX_PRELUDE_BYTES ? new Error('streamed response without a prelude') : null,
      );
      return;
    }
    let prelude: HttpPrelude;
    try {
      prelude = JSON.parse(this.pending.subarray(0, end).toString('utf8')) as HttpPrelude;
    } catch (error) {
      callback(error as Error);
      return;
    }
    const rest = this.pending.subarray(end + PRELUDE_DELIMITER.length);
    this.pending = Buffer.alloc(0);
    this.prelude = prelude;
    // No Content-Length: Node sends the body with chunked transfer encoding.
    this.response.writeHead(prelude.statusCode, prelude.headers ?? {});
    this.response.flushHeaders();
    this.forward(rest, callback);
  }

  override _final(callback: (error?: Error | null) => void): void {
    if (!this.prelude) callback(new Error('streamed response ended without a prelude'));
    else this.response.end(() => callback());
  }

  private forward(chunk: Buffer, callback: (error?: Error | null) => void): void {
    if (chunk.length === 0 || this.response.write(chunk)) {
      callback();
      return;
    }
    const onDrain = () => {
      this.response.off('close', onClose);
      callback();
    };
    const onClose = () => {
      this.response.off('drain', onDrain);
      callback(new Error('the client closed the connection'));
    };
    this.response.once('drain', onDrain);
    this.response.once('close', onClose);
  }
}

function withTimeout<T>(promise: Promise<T>, ms: number): Promise<T | 'timeout'> {
  let timer: NodeJS.Timeout | undefined;
  const timeout = new Promise<'timeout'>((resolve) => {
    timer = setTimeout(() => resolve('timeout'), ms);
  });
  return Promise.race([promise, timeout]).finally(() => clearTimeout(timer));
}

export async function startLocalApiServer(options: LocalApiServerOptions): Promise<LocalApiServer> {
  const stage = options.stage ?? 'local';
  const integrationTimeoutMs = options.integrationTimeoutMs ?? 29_000;
  const maxBodyBytes = options.maxBodyBytes ?? 10 * 1024 * 1024;
  const configuredDocs = options.docBaseUrl ?? '';
  /** The error catalogue as this client reached the server (its Host), like the deployed API's. */
  const docsFor = (request: IncomingMessage) =>
    errorDocsUrl(configuredDocs, apiBaseUrl({ domainName: request.headers.host, protocol: 'http' }));
  const streamingTimeoutMs = options.streamingTimeoutMs ?? 300_000;
  const runAs = options.runAs ?? ((_name, work) => work());
  const matcher = new RouteMatcher(options.routes);
  // The same rows, served by the same pipeline, as the deployed functions (a removed route runs no code).
  const handlers = new Map(
    options.routes
      .filter((route) => !route.removed)
      .map((route) => [route.operationId, lambdaHandlerFor(route)] as const),
  );

  /** Runs a streaming handler; the client gets the body as the handler writes it. */
  async function stream(
    handler: StreamingLambdaHandler,
    event: APIGatewayProxyEvent,
    context: Context,
    response: ServerResponse,
    docBaseUrl: string,
  ): Promise<GatewayResult | 'streamed'> {
    const sink = new StreamedResponse(response);
    const outcome = await withTimeout(
      handler(event, sink, context).then(
        () => ({ ok: true as const }),
        (error: unknown) => ({ ok: false as const, error }),
      ),
      streamingTimeoutMs,
    );
    if (sink.prelude) {
      // Too late for a status: like API Gateway, end the connection so the client sees a cut stream.
      if (outcome === 'timeout' || !outcome.ok) response.destroy();
      return 'streamed';
    }
    if (outcome === 'timeout') {
      return envelope(504, 'gateway_timeout', 'The request took too long. Retry later.', docBaseUrl);
    }
    if (!outcome.ok) console.error('Local API Gateway: streaming integration failed', outcome.error);
    return gatewayResponse(GATEWAY_RESPONSES.serverError, docBaseUrl);
  }

  async function handle(
    request: IncomingMessage,
    response: ServerResponse,
  ): Promise<GatewayResult | 'streamed'> {
    const docBaseUrl = docsFor(request);
    // The path as sent: API Gateway does not resolve `..` segments, so neither does this.
    const [pathname = '/', search = ''] = (request.url ?? '/').split('?', 2);
    const url = { pathname, searchParams: new URLSearchParams(search) };
    const staticFile = await options.staticFiles?.((request.method ?? 'GET').toUpperCase(), pathname);
    if (staticFile) return staticFile;
    const match = matcher.match(url.pathname);
    if (!match) return gatewayResponse(GATEWAY_RESPONSES.unknownPath, docBaseUrl);
    const method = (request.method ?? 'GET').toUpperCase();
    const route = match.methods.get(method as RouteDefinition['method']);
    const origin = request.headers.origin;
    if (!route && method === 'OPTIONS' && origin && config().allowedCorsOrigins.includes(origin)) {
      // CORS preflight, as the deployed stack answers it for its configured origins.
      return {
        statusCode: 204,
        headers: {
          'Access-Control-Allow-Origin': origin,
          'Access-Control-Allow-Methods': [...match.methods.keys()].join(', '),
          'Access-Control-Allow-Headers': CORS_ALLOWED_HEADERS.join(', '),
          Vary: 'Origin',
        },
        body: Buffer.alloc(0),
      };
    }
    if (!route) {
      const allowed = [...match.methods.keys()].join(', ');
      return envelope(
        405,
        'method_not_allowed',
        `${method} is not allowed on ${match.resource}. Allowed: ${allowed}.`,
        docBaseUrl,
        {
          Allow: allowed,
        },
      );
    }
    if (route.removed) {
      const gone = goneResponse(route, docBaseUrl);
      return { statusCode: gone.statusCode, headers: gone.headers, body: Buffer.from(gone.body) };
    }

    const rawBody = await readBody(request, maxBodyBytes);
    if (rawBody === 'too_large') return gatewayResponse(GATEWAY_RESPONSES.tooLarge, docBaseUrl);
    const requestId = randomUUID();
    // Names come from the client: collect them in Maps and build plain objects with own properties
    // only, so `__proto__` or `constructor` are ordinary names, as they are in API Gateway's JSON.
    const headerValues = new Map<string, string[]>();
    for (const [name, values] of Object.entries(request.headersDistinct)) {
      if (values !== undefined) headerValues.set(name, values);
    }
    // API Gateway sets the protocol the client used, whatever the client sent; here it is plain HTTP.
    headerValues.delete('x-forwarded-proto');
    headerValues.set('X-Forwarded-Proto', ['http']);
    const multiValueHeaders = Object.fromEntries(headerValues);
    // Like API Gateway's REST events: `headers` keeps the last value of a repeated header.
    const headers: Record<string, string> = Object.fromEntries(
      [...headerValues].map(([name, values]) => [name, values.at(-1) ?? '']),
    );
    const queryValues = new Map<string, string[]>();
    for (const [name, value] of url.searchParams)
      queryValues.set(name, [...(queryValues.get(name) ?? []), value]);
    const multiQuery: Record<string, string[]> = Object.fromEntries(queryValues);
    const isText = rawBody.length === 0 || TEXT_TYPES.test(headers['content-type'] ?? 'application/json');
    const sourceIp = request.socket.remoteAddress ?? '127.0.0.1';
    const methodArn = `arn:aws:execute-api:local:000000000000:local/${stage}/${method}${url.pathname}`;
    const pathParameters = Object.keys(match.pathParameters).length > 0 ? match.pathParameters : null;

    // What the authorizer's REQUEST event and the proxy event both carry.
    const requestFields = {
      resource: route.path,
      path: url.pathname,
      httpMethod: method,
      headers,
      multiValueHeaders,
      queryStringParameters: singleValues(multiQuery),
      multiValueQueryStringParameters: Object.keys(multiQuery).length > 0 ? multiQuery : null,
      pathParameters,
      stageVariables: null,
    };
    let authorizerContext: Record<string, unknown> | null = null;
    if (route.auth === 'required') {
      const authorizerEvent = {
        type: 'REQUEST',
        methodArn,
        ...requestFields,
        requestContext: { requestId, stage, identity: { sourceIp } },
      } as unknown as APIGatewayRequestAuthorizerEvent;
      const decision = await runAs('authorizer', () => authorizer(authorizerEvent));
      const allowed = decision.policyDocument.Statement.some(
        (statement) => 'Effect' in statement && statement.Effect === 'Allow',
      );
      if (!allowed)
        return gatewayResponse(GATEWAY_RESPONSES.authorizerDenied, docBaseUrl, decision.context ?? undefined);
      authorizerContext = { ...decision.context, principalId: decision.principalId };
    }

    const event = {
      ...requestFields,
      body: rawBody.length === 0 ? null : isText ? rawBody.toString('utf8') : rawBody.toString('base64'),
      isBase64Encoded: rawBody.length > 0 && !isText,
      requestContext: {
        requestId,
        stage,
        // API Gateway's own name for the host the client reached; locally, the Host the client sent.
        domainName: request.headers.host,
        resourcePath: route.path,
        httpMethod: method,
        path: `/${stage}${url.pathname}`,
        identity: { sourceIp },
        authorizer: authorizerContext,
      },
    } as unknown as APIGatewayProxyEvent;

    const handler = handlers.get(route.operationId);
    if (!handler) throw new Error(`No handler loaded for ${route.operationId}`);
    if (isStreamingHandler(handler)) {
      const context = lambdaContext(route.operationId, requestId, Date.now() + streamingTimeoutMs);
      return runAs(`area:${route.area}`, () => stream(handler, event, context, response, docBaseUrl));
    }
    const deadline = Date.now() + integrationTimeoutMs;
    const result = await withTimeout(
      runAs(
        `area:${route.area}`,
        () =>
          handler(
            event,
            lambdaContext(route.operationId, requestId, deadline),
          ) as Promise<APIGatewayProxyResult>,
      ),
      integrationTimeoutMs,
    );
    if (result === 'timeout') {
      return envelope(504, 'gateway_timeout', 'The request took too long. Retry later.', docBaseUrl);
    }
    const responseHeaders: Record<string, string> = {};
    for (const [name, value] of Object.entries(result.headers ?? {})) responseHeaders[name] = String(value);
    return {
      statusCode: result.statusCode,
      headers: responseHeaders,
      body: result.isBase64Encoded ? Buffer.from(result.body, 'base64') : Buffer.from(result.body ?? ''),
    };
  }

  const maxHeaderBytes = options.maxHeaderBytes ?? 16_384;
  let serverUrl = '';
  const server: Server = createServer(
    { maxHeaderSize: maxHeaderBytes },
    (request: IncomingMessage, response: ServerResponse) => {
      handle(request, response)
        .catch((error: unknown) => {
          console.error('Local API Gateway: integration failed', error);
          return gatewayResponse(GATEWAY_RESPONSES.serverError, docsFor(request));
        })
        .then((result) => {
          if (result === 'streamed') return;
          if (response.headersSent) {
            response.destroy();
            return;
          }
          response.writeHead(result.statusCode, {
            ...result.headers,
            'Content-Length': String(result.body.length),
          });
          response.end(result.body);
        });
    },
  );
  // Idle keep-alive connections stay open for a minute, as API Gateway's do. A client reuses an idle
  // connection until shortly before the server's announced timeout; with Node's 5 s, a client whose
  // event loop lags (a busy laptop, a loaded test machine) could send on a connection the server was
  // closing and get ECONNRESET for a request that never arrived.
  server.keepAliveTimeout = 60_000;
  server.headersTimeout = 65_000;
  // Requests Node refuses before any handler sees them (headers or URL above its limit, malformed
  // HTTP) get the service's envelope too, not Node's bare status line.
  server.on('clientError', (error: NodeJS.ErrnoException, socket: Socket) => {
    if (error.code === 'ECONNRESET' || !socket.writable) {
      socket.destroy();
      return;
    }
    const [status, code, message] =
      error.code === 'HPE_HEADER_OVERFLOW'
        ? ([
            431,
            'request_header_fields_too_large',
            `The request's headers and URL exceed ${maxHeaderBytes} bytes. Send shorter headers or a shorter URL.`,
          ] as const)
        : error.code === 'HPE_HEADERS_TIMEOUT' || error.code === 'ERR_HTTP_REQUEST_TIMEOUT'
          ? ([408, 'bad_request', 'The request headers did not arrive in time.'] as const)
          : ([400, 'bad_request', 'The request is not valid HTTP.'] as const);
    // The headers were not read, so the client's Host is unknown: the catalogue is named at the
    // address this server listens on.
    const docs = errorDocsUrl(configuredDocs, serverUrl);
    const body = JSON.stringify(errorEnvelope(code, message, null, docs));
    socket.end(
      `HTTP/1.1 ${status} ${STATUS_CODES[status]}\r\n` +
        'Content-Type: application/json; charset=utf-8\r\n' +
        `Content-Length: ${Buffer.byteLength(body)}\r\n` +
        'Connection: close\r\n\r\n' +
        body,
    );
  });

  await new Promise<void>((resolve) =>
    server.listen(options.port ?? 0, options.host ?? '127.0.0.1', resolve),
  );
  const { port } = server.address() as AddressInfo;
  const host = options.host ?? '127.0.0.1';
  serverUrl = `http://${host.includes(':') ? `[${host}]` : host}:${port}`;
  return {
    url: serverUrl,
    port,
    stop: () =>
      new Promise<void>((resolve, reject) => {
        server.closeAllConnections();
        server.close((error) => (error ? reject(error) : resolve()));
      }),
  };
}
