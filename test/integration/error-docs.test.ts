/**
 * Every error's `doc_url` leads somewhere: the catalogue the API serves itself, at the code's anchor,
 * on the URL the client called. Requests Node refuses before any handler (oversized headers) get the
 * same envelope.
 */
import { connect } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

let api: TestStack;
let port: number;
beforeAll(async () => {
  api = await startTestStack();
  port = Number(new URL(api.baseUrl).port);
});
afterAll(() => api.stop());

/** GETs a doc_url as a browser would (no credentials) and returns the page. */
async function openDocs(docUrl: string): Promise<{ status: number; type: string | null; html: string }> {
  const response = await fetch(docUrl);
  return { status: response.status, type: response.headers.get('content-type'), html: await response.text() };
}

/** Sends raw bytes and reads the whole answer (the server closes the connection after it). */
function rawRequest(port: number, request: string): Promise<string> {
  return new Promise((resolve, reject) => {
    const socket = connect(port, '127.0.0.1');
    const chunks: Buffer[] = [];
    socket.on('data', (chunk) => chunks.push(chunk));
    socket.on('end', () => resolve(Buffer.concat(chunks).toString('utf8')));
    socket.on('error', reject);
    socket.end(request);
  });
}

describe('error documentation', () => {
  it.each([
    [
      'an invalid field (the function)',
      'POST',
      '/v3/folders',
      { body: { name: 42 } },
      400,
      'invalid_parameter',
    ],
    ['a missing resource (the function)', 'GET', '/v3/voices/no-such-voice', {}, 404, 'voice_not_found'],
    ['no credentials (the gateway)', 'GET', '/v3/folders', { key: null }, 401, 'unauthorized'],
    ['an unknown path (the gateway)', 'GET', '/v3/nothing-here', {}, 404, 'not_found'],
    ['a method the path lacks (the gateway)', 'DELETE', '/v3/openapi.json', {}, 405, 'method_not_allowed'],
  ] as const)(
    'the doc_url of %s opens the catalogue at its code',
    async (_case, method, path, options, status, code) => {
      const result = await api.call(method, path, options);
      expect(result.status).toBe(status);
      const error = errorOf(result);
      expect(error.code).toBe(code);
      expect(error.doc_url).toBe(`${api.baseUrl}/v3/docs/errors#${code}`);
      const page = await openDocs(error.doc_url ?? '');
      expect(page.status).toBe(200);
      expect(page.type).toBe('text/html; charset=utf-8');
      expect(page.html).toContain(`<a id="${code}"></a>`);
    },
  );

  it('serves the webhook guide beside it', async () => {
    const page = await openDocs(`${api.baseUrl}/v3/docs/webhooks`);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<h2 id="verifying-a-delivery">Verifying a delivery</h2>');
    expect(page.html).not.toContain('<script');
  });

  it('names the catalogue on the host the client used', async () => {
    const answer = await rawRequest(
      port,
      `GET /v3/nothing-here HTTP/1.1\r\nHost: localhost:${port}\r\nConnection: close\r\n\r\n`,
    );
    const body = JSON.parse(answer.split('\r\n\r\n')[1] ?? '') as { error: { doc_url: string } };
    expect(body.error.doc_url).toBe(`http://localhost:${port}/v3/docs/errors#not_found`);
  });
});

describe('oversized headers', () => {
  it('answers 431 in the envelope for a key too large, and its doc_url resolves', async () => {
    const response = await fetch(`${api.baseUrl}/v3/folders`, {
      headers: { 'X-Api-Key': 'k'.repeat(20_000) },
    });
    expect(response.status).toBe(431);
    expect(response.headers.get('content-type')).toBe('application/json; charset=utf-8');
    const body = (await response.json()) as { error: { code: string; message: string; doc_url: string } };
    expect(body.error).toMatchObject({ code: 'request_header_fields_too_large', param: null });
    expect(body.error.message).toContain('16384 bytes');
    const page = await openDocs(body.error.doc_url);
    expect(page.status).toBe(200);
    expect(page.html).toContain('<a id="request_header_fields_too_large"></a>');
  });

  it('answers 431 for a URL too long, over a raw connection', async () => {
    const answer = await rawRequest(
      port,
      `GET /v3/folders?q=${'a'.repeat(17_000)} HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n`,
    );
    const [head = '', body = ''] = answer.split('\r\n\r\n');
    expect(head).toMatch(/^HTTP\/1\.1 431 Request Header Fields Too Large\r\n/);
    expect(head).toContain('Content-Type: application/json; charset=utf-8');
    expect(JSON.parse(body).error.code).toBe('request_header_fields_too_large');
  });

  it('answers malformed HTTP with 400 in the envelope', async () => {
    const answer = await rawRequest(port, 'NOT HTTP AT ALL\r\n\r\n');
    expect(answer).toMatch(/^HTTP\/1\.1 400 Bad Request\r\n/);
    expect(JSON.parse(answer.split('\r\n\r\n')[1] ?? '').error.code).toBe('bad_request');
  });
});
