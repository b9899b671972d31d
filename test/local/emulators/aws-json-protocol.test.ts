import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { z } from 'zod';
import {
  type AwsJsonServer,
  AwsServiceError,
  operation,
  startAwsJsonServer,
} from '../../../lib/local/emulators/aws-json-protocol.js';

describe('AWS JSON protocol server', () => {
  let server: AwsJsonServer;

  beforeAll(async () => {
    server = await startAwsJsonServer({
      serviceTarget: 'TestService',
      jsonVersion: '1.1',
      validationErrorCode: 'ValidationException',
      operations: {
        Echo: operation(z.object({ Text: z.string() }), (input) => ({ Echoed: input.Text })),
        Missing: operation(z.object({}), () => {
          throw new AwsServiceError('NotFoundException', 'nothing here');
        }),
        Broken: operation(z.object({}), () => {
          throw new Error('bug');
        }),
      },
    });
  });
  afterAll(async () => {
    await server.stop();
  });

  async function call(target: string, body: string, contentType = 'application/x-amz-json-1.1') {
    const response = await fetch(server.endpoint, {
      method: 'POST',
      headers: { 'content-type': contentType, 'x-amz-target': target },
      body,
    });
    return {
      status: response.status,
      headers: response.headers,
      body: (await response.json()) as Record<string, unknown>,
    };
  }

  it('listens on loopback with a random port', () => {
    expect(server.endpoint).toMatch(/^http:\/\/127\.0\.0\.1:\d+$/);
    expect(server.port).toBeGreaterThan(0);
  });

  it('dispatches on X-Amz-Target and answers JSON of the same version', async () => {
    const response = await call('TestService.Echo', '{"Text":"hi"}');
    expect(response.status).toBe(200);
    expect(response.headers.get('content-type')).toBe('application/x-amz-json-1.1');
    expect(response.body).toEqual({ Echoed: 'hi' });
  });

  it('answers errors in the AWS JSON error shape', async () => {
    const notFound = await call('TestService.Missing', '{}');
    expect(notFound.status).toBe(400);
    expect(notFound.body).toEqual({ __type: 'NotFoundException', message: 'nothing here' });

    const invalid = await call('TestService.Echo', '{"Text":3}');
    expect(invalid.body.__type).toBe('ValidationException');
    expect(invalid.body.message).toContain("'Text'");

    const broken = await call('TestService.Broken', '{}');
    expect(broken.status).toBe(500);
    expect(broken.body.__type).toBe('InternalFailure');
  });

  it('is strict about the content type, the target and the body', async () => {
    const wrongVersion = await call('TestService.Echo', '{"Text":"hi"}', 'application/x-amz-json-1.0');
    expect(wrongVersion.status).toBe(415);
    expect(wrongVersion.body.__type).toBe('SerializationException');

    const plainJson = await call('TestService.Echo', '{"Text":"hi"}', 'application/json');
    expect(plainJson.status).toBe(415);

    const unknownOperation = await call('TestService.Nope', '{}');
    expect(unknownOperation.body.__type).toBe('UnknownOperationException');

    const otherService = await call('OtherService.Echo', '{}');
    expect(otherService.body.__type).toBe('UnknownOperationException');

    const notJson = await call('TestService.Echo', '{"Text":');
    expect(notJson.body.__type).toBe('SerializationException');
  });
});
