/**
 * The streaming response format (lambdas/api/pipeline/response-streaming.ts): what a streaming handler writes
 * is what API Gateway's streaming integration reads: a JSON prelude, eight NUL bytes, then the body.
 */
import { Writable } from 'node:stream';
import type { APIGatewayProxyEvent, Context } from 'aws-lambda';
import { describe, expect, it } from 'vitest';
import {
  isStreamingHandler,
  PRELUDE_DELIMITER,
  type ProxyResultWithStream,
  STREAMED_BODY,
  streamifyProxyHandler,
} from '../../../lambdas/api/pipeline/response-streaming.js';

class Collector extends Writable {
  readonly chunks: Buffer[] = [];
  contentType: string | undefined;
  setContentType(type: string) {
    this.contentType = type;
  }
  override _write(chunk: Buffer, _encoding: BufferEncoding, callback: () => void) {
    this.chunks.push(Buffer.from(chunk));
    callback();
  }
}

const event = {} as APIGatewayProxyEvent;
const context = {} as Context;

function split(bytes: Buffer) {
  const end = bytes.indexOf(PRELUDE_DELIMITER);
  return { prelude: JSON.parse(bytes.subarray(0, end).toString('utf8')), body: bytes.subarray(end + 8) };
}

async function* chunks(...parts: string[]) {
  for (const part of parts) yield Buffer.from(part);
}

describe('streamifyProxyHandler', () => {
  it('marks the handler as streaming, as the Lambda runtime expects', () => {
    const handler = streamifyProxyHandler(
      async () => ({ statusCode: 200, body: '' }),
      () => undefined,
    );
    expect(isStreamingHandler(handler)).toBe(true);
    expect(isStreamingHandler(async () => undefined)).toBe(false);
  });

  it('writes the status and headers, the delimiter, then each chunk as it comes', async () => {
    const result: ProxyResultWithStream = {
      statusCode: 200,
      headers: { 'Content-Type': 'audio/wav', 'X-Request-Id': 'r1' },
      body: '',
      [STREAMED_BODY]: chunks('first', 'second', 'third'),
    };
    const sink = new Collector();
    await streamifyProxyHandler(
      async () => result,
      () => undefined,
    )(event, sink, context);
    expect(sink.contentType).toBe('application/vnd.awslambda.http-integration-response');
    const { prelude, body } = split(Buffer.concat(sink.chunks));
    expect(prelude).toEqual({
      statusCode: 200,
      headers: { 'Content-Type': 'audio/wav', 'X-Request-Id': 'r1' },
    });
    expect(body.toString()).toBe('firstsecondthird');
    expect(sink.chunks.map(String).slice(-3)).toEqual(['first', 'second', 'third']);
    expect(sink.writableFinished).toBe(true);
  });

  it('writes an ordinary (error) response whole, base64 bodies decoded', async () => {
    const sink = new Collector();
    await streamifyProxyHandler(
      async () => ({
        statusCode: 404,
        headers: { 'Content-Type': 'application/json' },
        body: '{"error":{}}',
      }),
      () => undefined,
    )(event, sink, context);
    const { prelude, body } = split(Buffer.concat(sink.chunks));
    expect(prelude.statusCode).toBe(404);
    expect(body.toString()).toBe('{"error":{}}');
    const binary = new Collector();
    await streamifyProxyHandler(
      async () => ({
        statusCode: 200,
        body: Buffer.from([0, 1, 2]).toString('base64'),
        isBase64Encoded: true,
      }),
      () => undefined,
    )(event, binary, context);
    expect([...split(Buffer.concat(binary.chunks)).body]).toEqual([0, 1, 2]);
  });

  it('fails, after reporting it, when the body fails half way', async () => {
    async function* failing() {
      yield Buffer.from('some audio');
      throw new Error('engine broke');
    }
    const reported: unknown[] = [];
    const sink = new Collector();
    await expect(
      streamifyProxyHandler(
        async () => ({ statusCode: 200, body: '', [STREAMED_BODY]: failing() }),
        (error) => reported.push(error),
      )(event, sink, context),
    ).rejects.toThrow('engine broke');
    expect(reported).toHaveLength(1);
    expect(split(Buffer.concat(sink.chunks)).body.toString()).toBe('some audio');
    expect(sink.writableFinished).toBe(false);
  });
});
