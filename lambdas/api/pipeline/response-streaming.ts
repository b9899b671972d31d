/**
 * Streamed responses: a route whose body is sent while it is being produced (text to speech, chunk
 * by chunk), deployed as API Gateway REST's response streaming.
 *
 * Deployed, such a route's method is a Lambda proxy integration with `responseTransferMode: STREAM`:
 * API Gateway invokes the function with `InvokeWithResponseStream`, and the function writes the
 * HTTP status and headers as a JSON prelude, eight NUL bytes, then the body, which API Gateway
 * forwards as it arrives (chunked). The Lambda Node.js runtime provides the two functions for this on
 * the global `awslambda`: `streamifyResponse` (marks a handler as streaming) and
 * `HttpResponseStream.from` (writes the prelude). Elsewhere (the local stack, tests) this module
 * provides the same two functions, writing the same bytes, and the local API Gateway parses them
 * exactly as API Gateway does. So the handler code is the same in both places.
 *
 * The whole request pipeline (authorization, rate limit, validation, error envelope) runs before
 * anything is written: every refusal is an ordinary status code and envelope. A handler that wants to
 * refuse after looking at its first chunk (a synthesis that cannot start) does so by producing the
 * first chunk before it returns. Once the prelude is written the status cannot change: a failure
 * after that ends the stream early (the function fails; API Gateway closes the connection).
 */
import { once } from 'node:events';
import type { Writable } from 'node:stream';
import type { APIGatewayProxyEvent, APIGatewayProxyResult, Context } from 'aws-lambda';

/** The runtime's marker of a streaming handler (`streamifyResponse` sets it; the runtime reads it). */
const HANDLER_STREAMING = Symbol.for('aws.lambda.runtime.handler.streaming');
const STREAM_RESPONSE = 'response';

/** The content type the runtime gives a stream that starts with an HTTP prelude. */
export const HTTP_INTEGRATION_RESPONSE_CONTENT_TYPE = 'application/vnd.awslambda.http-integration-response';

/** Separates the JSON prelude from the body: eight NUL bytes (JSON text never contains a raw NUL). */
export const PRELUDE_DELIMITER = new Uint8Array(8);

/** A proxy result whose body is produced while it is sent. `body` is then empty. */
export const STREAMED_BODY = Symbol('streamedBody');
export type ProxyResultWithStream = APIGatewayProxyResult & { [STREAMED_BODY]?: AsyncIterable<Uint8Array> };

/** What the runtime passes a streaming handler: a writable stream, with the runtime's extras. */
export type ResponseStream = Writable & { setContentType?: (contentType: string) => void };

export interface HttpPrelude {
  statusCode: number;
  headers: Record<string, string>;
}

interface LambdaStreamingRuntime {
  streamifyResponse<H>(handler: H): H;
  HttpResponseStream: { from(stream: ResponseStream, prelude: HttpPrelude): ResponseStream };
}

/** The same functions as the Lambda runtime's, for everywhere else (same marker, same bytes). */
const PORTABLE_RUNTIME: LambdaStreamingRuntime = {
  streamifyResponse<H>(handler: H): H {
    Object.defineProperty(handler, HANDLER_STREAMING, { value: STREAM_RESPONSE });
    return handler;
  },
  HttpResponseStream: {
    from(stream, prelude) {
      stream.setContentType?.(HTTP_INTEGRATION_RESPONSE_CONTENT_TYPE);
      stream.write(JSON.stringify(prelude));
      stream.write(PRELUDE_DELIMITER);
      return stream;
    },
  },
};

/**
 * The Lambda runtime's functions where it provides them (on its global `awslambda`), else the
 * portable ones. Other packages create an `awslambda` object outside Lambda too (the invoke store of
 * Powertools), so the functions themselves are what is looked for.
 */
function runtime(): LambdaStreamingRuntime {
  const provided = (globalThis as unknown as { awslambda?: Partial<LambdaStreamingRuntime> }).awslambda;
  return typeof provided?.streamifyResponse === 'function' &&
    typeof provided.HttpResponseStream?.from === 'function'
    ? (provided as LambdaStreamingRuntime)
    : PORTABLE_RUNTIME;
}

export type StreamingLambdaHandler = (
  event: APIGatewayProxyEvent,
  responseStream: ResponseStream,
  context: Context,
) => Promise<void>;

/** Whether `handler` is a streaming handler (as the Lambda runtime decides it). */
export function isStreamingHandler(handler: unknown): handler is StreamingLambdaHandler {
  return (
    typeof handler === 'function' &&
    (handler as unknown as Record<symbol, unknown>)[HANDLER_STREAMING] === STREAM_RESPONSE
  );
}

async function write(stream: ResponseStream, chunk: Uint8Array): Promise<void> {
  if (chunk.length === 0) return;
  if (!stream.write(chunk)) await once(stream, 'drain');
}

/**
 * A streaming handler around a proxy handler: the proxy result's status and headers become the
 * prelude, then its streamed body (or its ordinary body) follows. A failure while streaming is
 * reported to `onStreamError` and rethrown, which ends the response without its end.
 */
export function streamifyProxyHandler(
  handler: (event: APIGatewayProxyEvent, context: Context) => Promise<ProxyResultWithStream>,
  onStreamError: (error: unknown) => void,
): StreamingLambdaHandler {
  const streaming: StreamingLambdaHandler = async (event, responseStream, context) => {
    const result = await handler(event, context);
    const headers: Record<string, string> = {};
    for (const [name, value] of Object.entries(result.headers ?? {})) headers[name] = String(value);
    const stream = runtime().HttpResponseStream.from(responseStream, {
      statusCode: result.statusCode,
      headers,
    });
    const chunks = result[STREAMED_BODY];
    try {
      if (chunks) {
        for await (const chunk of chunks) await write(stream, chunk);
      } else {
        await write(stream, Buffer.from(result.body ?? '', result.isBase64Encoded ? 'base64' : 'utf8'));
      }
    } catch (error) {
      onStreamError(error);
      throw error;
    }
    await new Promise<void>((resolve, reject) =>
      stream.end((error?: Error | null) => (error ? reject(error) : resolve())),
    );
  };
  return runtime().streamifyResponse(streaming);
}
