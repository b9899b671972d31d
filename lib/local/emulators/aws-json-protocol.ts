/**
 * The AWS JSON RPC protocol (awsJson1_0 / awsJson1_1) as the AWS SDK v3 speaks it, shared by every
 * local emulator: `POST /` with `X-Amz-Target: <ServiceTarget>.<Operation>`, a JSON body, and errors
 * as `{ "__type": "<Code>", "message": "..." }` with the HTTP status the service uses, so the SDK
 * throws its typed exceptions (`NotFoundException`, `QueueDoesNotExist`, ...).
 *
 * Signatures are not checked: the emulators accept any credentials.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { z } from 'zod';

export type JsonPrimitive = string | number | boolean | null;
export type JsonValue = JsonPrimitive | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

/** Where an emulator listens. */
export interface ListenOptions {
  /**
   * TCP port; 0 picks a free one (read it back from `endpoint`).
   * @default 0
   */
  port?: number;
  /**
   * Interface to bind. Loopback only by default: the emulators have no authentication.
   * @default '127.0.0.1'
   */
  host?: string;
}

/** Options of an AWS error that the SDK turns into a typed exception. */
export interface AwsServiceErrorOptions {
  /**
   * HTTP status of the response.
   * @default 400
   */
  statusCode?: number;
  /**
   * Code for services that are "awsQuery compatible" (SQS): sent in `x-amzn-query-error`, where the
   * SDK reads the legacy error code from.
   */
  queryErrorCode?: string;
  cause?: unknown;
}

/** An error in the service's own vocabulary, answered in the AWS JSON error shape. */
export class AwsServiceError extends Error {
  /** The `__type` the SDK maps to an exception class, e.g. `NotFoundException`. */
  readonly code: string;
  readonly statusCode: number;
  readonly queryErrorCode: string | undefined;

  constructor(code: string, message: string, options: AwsServiceErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = 'AwsServiceError';
    this.code = code;
    this.statusCode = options.statusCode ?? 400;
    this.queryErrorCode = options.queryErrorCode;
  }
}

/** Thrown by {@link operation} when the request body does not match the operation's schema. */
class InvalidRequestError extends Error {
  constructor(message: string) {
    super(message);
    this.name = 'InvalidRequestError';
  }
}

/** Per-request facts an operation may need. */
export interface RequestContext {
  /** Aborted when the client goes away or the emulator stops: long waits must end early. */
  signal: AbortSignal;
  requestId: string;
}

/** One operation: validates its raw JSON input, then runs. */
export type AwsJsonOperation = (rawInput: unknown, context: RequestContext) => Promise<unknown>;

/**
 * Binds an input schema to a handler. Unknown members are ignored (as AWS does); missing or
 * mistyped ones answer the service's validation error with the member's path.
 */
export function operation<Schema extends z.ZodType>(
  schema: Schema,
  handler: (input: z.output<Schema>, context: RequestContext) => unknown,
): AwsJsonOperation {
  return async (rawInput, context) => {
    const parsed = schema.safeParse(rawInput);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      const path = issue?.path.map(String).join('.') || '(body)';
      throw new InvalidRequestError(
        `1 validation error detected: Value at '${path}' failed to satisfy constraint: ${issue?.message ?? 'invalid'}`,
      );
    }
    return handler(parsed.data, context);
  };
}

/** What one emulated service answers. */
export interface AwsJsonServiceDefinition {
  /** The `X-Amz-Target` prefix, e.g. `TrentService` for KMS. */
  serviceTarget: string;
  /** `1.0` or `1.1`: the only content type accepted is `application/x-amz-json-<version>`. */
  jsonVersion: '1.0' | '1.1';
  operations: Readonly<Record<string, AwsJsonOperation>>;
  /** `__type` of schema violations, e.g. `ValidationException` (SQS: `InvalidParameterValue`). */
  validationErrorCode: string;
  /** Legacy query error code of schema violations, for awsQuery-compatible services. */
  validationQueryErrorCode?: string;
  /**
   * Smithy namespace put in front of every `__type` (`com.amazonaws.sqs#QueueDoesNotExist`), as the
   * awsQuery-compatible services do.
   */
  errorNamespace?: string;
}

/** A running emulator HTTP server. */
export interface AwsJsonServer {
  /** `http://127.0.0.1:<port>`: give it to an SDK client as `endpoint`. */
  endpoint: string;
  port: number;
  /** Ends in-flight long waits, closes every connection, and stops listening. */
  stop(): Promise<void>;
}

const MAX_REQUEST_BYTES = 16 * 1024 * 1024;

/** Starts `node:http` on loopback and dispatches AWS JSON requests to the definition's operations. */
export async function startAwsJsonServer(
  definition: AwsJsonServiceDefinition,
  listen: ListenOptions = {},
): Promise<AwsJsonServer> {
  const shutdown = new AbortController();
  const contentType = `application/x-amz-json-${definition.jsonVersion}`;

  const server = createServer((request, response) => {
    void handleRequest(definition, contentType, shutdown.signal, request, response);
  });
  // SDK clients keep sockets alive; idle ones must not keep `stop()` waiting.
  server.keepAliveTimeout = 5_000;

  await new Promise<void>((resolve, reject) => {
    server.once('error', reject);
    server.listen(listen.port ?? 0, listen.host ?? '127.0.0.1', () => {
      server.off('error', reject);
      resolve();
    });
  });
  const address = server.address() as AddressInfo;
  const host = address.family === 'IPv6' ? `[${address.address}]` : address.address;

  return {
    endpoint: `http://${host}:${address.port}`,
    port: address.port,
    async stop() {
      shutdown.abort();
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
    },
  };
}

async function handleRequest(
  definition: AwsJsonServiceDefinition,
  contentType: string,
  shutdown: AbortSignal,
  request: IncomingMessage,
  response: ServerResponse,
): Promise<void> {
  const requestId = randomUUID();
  const disconnected = new AbortController();
  response.on('close', () => disconnected.abort());
  const signal = AbortSignal.any([disconnected.signal, shutdown]);

  try {
    const operationToRun = resolveOperation(definition, contentType, request);
    const rawBody = await readBody(request);
    let input: unknown = {};
    if (rawBody.length > 0) {
      try {
        input = JSON.parse(rawBody.toString('utf8'));
      } catch {
        throw new AwsServiceError('SerializationException', 'The request body is not valid JSON.');
      }
    }
    const output = await operationToRun(input, { signal, requestId });
    send(response, 200, contentType, requestId, JSON.stringify(output ?? {}));
  } catch (error) {
    sendError(definition, contentType, requestId, response, error);
  }
}

function resolveOperation(
  definition: AwsJsonServiceDefinition,
  contentType: string,
  request: IncomingMessage,
): AwsJsonOperation {
  if (request.method !== 'POST') {
    throw new AwsServiceError('UnknownOperationException', `Method ${request.method} is not supported.`, {
      statusCode: 404,
    });
  }
  const receivedType = (request.headers['content-type'] ?? '').split(';')[0]?.trim().toLowerCase();
  if (receivedType !== contentType) {
    throw new AwsServiceError(
      'SerializationException',
      `Content-Type must be ${contentType}, got ${receivedType || 'none'}.`,
      { statusCode: 415 },
    );
  }
  const target = request.headers['x-amz-target'];
  const prefix = `${definition.serviceTarget}.`;
  if (typeof target !== 'string' || !target.startsWith(prefix)) {
    throw new AwsServiceError('UnknownOperationException', `X-Amz-Target must start with ${prefix}`);
  }
  const name = target.slice(prefix.length);
  const found = Object.hasOwn(definition.operations, name) ? definition.operations[name] : undefined;
  if (!found) {
    throw new AwsServiceError(
      'UnknownOperationException',
      `${name} is not supported by the local ${definition.serviceTarget} emulator.`,
    );
  }
  return found;
}

async function readBody(request: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  let size = 0;
  for await (const chunk of request) {
    const buffer = chunk as Buffer;
    size += buffer.length;
    if (size > MAX_REQUEST_BYTES) {
      throw new AwsServiceError('RequestEntityTooLarge', 'The request body is too large.', {
        statusCode: 413,
      });
    }
    chunks.push(buffer);
  }
  return Buffer.concat(chunks);
}

function sendError(
  definition: AwsJsonServiceDefinition,
  contentType: string,
  requestId: string,
  response: ServerResponse,
  error: unknown,
): void {
  let serviceError: AwsServiceError;
  if (error instanceof AwsServiceError) {
    serviceError = error;
  } else if (error instanceof InvalidRequestError) {
    serviceError = new AwsServiceError(definition.validationErrorCode, error.message, {
      queryErrorCode: definition.validationQueryErrorCode,
    });
  } else {
    // An emulator bug, not a client error: say so plainly, the way AWS reports internal failures.
    const message = error instanceof Error ? error.message : String(error);
    serviceError = new AwsServiceError('InternalFailure', `Local emulator failure: ${message}`, {
      statusCode: 500,
    });
  }
  const type = definition.errorNamespace
    ? `${definition.errorNamespace}#${serviceError.code}`
    : serviceError.code;
  const headers: Record<string, string> = { 'x-amzn-errortype': `${serviceError.code}:` };
  if (serviceError.queryErrorCode) {
    const fault = serviceError.statusCode >= 500 ? 'Receiver' : 'Sender';
    headers['x-amzn-query-error'] = `${serviceError.queryErrorCode};${fault}`;
  }
  send(
    response,
    serviceError.statusCode,
    contentType,
    requestId,
    JSON.stringify({ __type: type, message: serviceError.message }),
    headers,
  );
}

function send(
  response: ServerResponse,
  statusCode: number,
  contentType: string,
  requestId: string,
  body: string,
  headers: Record<string, string> = {},
): void {
  if (response.destroyed) return;
  response.writeHead(statusCode, {
    'content-type': contentType,
    'content-length': Buffer.byteLength(body),
    'x-amzn-requestid': requestId,
    ...headers,
  });
  response.end(body);
}

/** Epoch seconds with milliseconds, the JSON protocols' timestamp format. */
export function toEpochSeconds(epochMilliseconds: number): number {
  return epochMilliseconds / 1000;
}

/** Schema of a base64 blob member; yields the decoded bytes. */
export const base64Blob = z
  .string()
  .regex(/^[A-Za-z0-9+/]*={0,2}$/, 'Member must be base64')
  .transform((value) => Buffer.from(value, 'base64'));

/** Resolves after `milliseconds`, or as soon as `signal` aborts. */
export function sleep(milliseconds: number, signal?: AbortSignal): Promise<void> {
  return new Promise((resolve) => {
    if (signal?.aborted) {
      resolve();
      return;
    }
    const timer = setTimeout(done, Math.max(0, milliseconds));
    signal?.addEventListener('abort', done, { once: true });
    function done() {
      clearTimeout(timer);
      signal?.removeEventListener('abort', done);
      resolve();
    }
  });
}
