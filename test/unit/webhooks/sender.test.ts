/**
 * One webhook POST under the outbound guard, against servers on loopback: the exact bytes and
 * headers, no redirects, the deadline, refused destinations, and DNS answers pinned to the checked
 * address (a name is looked up once, by the guard; a rebinding answer to a private address is refused).
 */
import { createServer, type IncomingHttpHeaders, type Server } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';

const dns = vi.hoisted(() => ({ answers: new Map<string, string>(), lookups: [] as string[] }));
vi.mock('node:dns/promises', async (original) => {
  const real = await original<typeof import('node:dns/promises')>();
  return {
    ...real,
    lookup: async (host: string, options: unknown) => {
      dns.lookups.push(host);
      const address = dns.answers.get(host);
      if (address) return [{ address, family: address.includes(':') ? 6 : 4 }];
      return real.lookup(host, options as never);
    },
  };
});

const { sendWebhook } = await import('../../../lambdas/webhooks/sender.js');

const development = { allowLoopback: true };
const strict = { allowLoopback: false };

interface Seen {
  method: string;
  url: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
}
const seen: Seen[] = [];
let server: Server;
let port: number;

beforeAll(async () => {
  server = createServer((request, response) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.concat(chunks),
      });
      if (request.url === '/redirect')
        response.writeHead(307, { Location: 'http://127.0.0.1:1/elsewhere' }).end();
      else if (request.url === '/busy') response.writeHead(503, { 'Retry-After': '7' }).end('try later');
      else if (request.url === '/hang') return;
      else if (request.url === '/stream') response.writeHead(200).write('never ends');
      else response.writeHead(204).end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
});
afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
});

const send = (url: string, policy = development, timeoutMs = 500) =>
  sendWebhook({
    url,
    body: '{"event_type":"x","event_data":{"é":1}}',
    headers: { 'webhook-id': 'e1' },
    timeoutMs,
    policy,
  });

describe('sendWebhook', () => {
  it('POSTs the exact body with its headers and reports the status', async () => {
    const result = await send(`http://127.0.0.1:${port}/ok?x=1`);
    expect(result).toMatchObject({ outcome: 'response', statusCode: 204 });
    const request = seen.at(-1);
    expect(request?.method).toBe('POST');
    expect(request?.url).toBe('/ok?x=1');
    expect(request?.body.toString('utf8')).toBe('{"event_type":"x","event_data":{"é":1}}');
    expect(request?.headers).toMatchObject({
      'content-type': 'application/json',
      'content-length': String(Buffer.byteLength('{"event_type":"x","event_data":{"é":1}}')),
      'webhook-id': 'e1',
      'user-agent': expect.stringMatching(/^video-creation-service-webhooks/),
    });
  });

  it('never follows a redirect, and reports where it pointed', async () => {
    const before = seen.length;
    const result = await send(`http://127.0.0.1:${port}/redirect`);
    expect(result).toMatchObject({
      outcome: 'response',
      statusCode: 307,
      location: 'http://127.0.0.1:1/elsewhere',
    });
    expect(seen.length).toBe(before + 1);
  });

  it('passes Retry-After on, and does not wait for a body that never ends', async () => {
    expect(await send(`http://127.0.0.1:${port}/busy`)).toMatchObject({ statusCode: 503, retryAfter: '7' });
    expect(await send(`http://127.0.0.1:${port}/stream`)).toMatchObject({
      outcome: 'response',
      statusCode: 200,
    });
  });

  it('gives up at the deadline', async () => {
    const result = await send(`http://127.0.0.1:${port}/hang`, development, 150);
    expect(result).toMatchObject({ outcome: 'failed', error: 'no answer within 150 ms' });
    expect(result.durationMs).toBeGreaterThanOrEqual(145);
  });

  it('reports a refused connection', async () => {
    const closed = createServer();
    await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
    const closedPort = (closed.address() as AddressInfo).port;
    await new Promise((resolve) => closed.close(resolve));
    expect(await send(`http://127.0.0.1:${closedPort}/`)).toMatchObject({
      outcome: 'failed',
      error: expect.stringContaining('refused the connection'),
    });
  });

  it.each([
    ['http://hooks.example.com/', strict, 'must use https'],
    [`https://127.0.0.1:1/`, strict, 'must point to a public address'],
    ['https://10.0.0.7/', development, 'must point to a public address'],
    ['https://[fd00:ec2::254]/', development, 'must point to a public address'],
    ['https://metadata.google.internal/', development, 'must name a public host'],
  ])('refuses %s before sending anything', async (url, policy, reason) => {
    const before = seen.length;
    const result = await send(url, policy);
    expect(result).toMatchObject({ outcome: 'refused', error: expect.stringContaining(reason) });
    expect(seen.length).toBe(before);
  });

  it('connects to the address the guard checked, with the URL’s host name kept', async () => {
    // A receiver on 127.0.0.2 only: the system resolver says localhost is 127.0.0.1 (or ::1), the
    // guard's (mocked) lookup says 127.0.0.2. Reaching it proves the connection used the guard's answer.
    const other = createServer((request, response) => {
      seen.push({
        method: request.method ?? '',
        url: request.url ?? '',
        headers: request.headers,
        body: Buffer.alloc(0),
      });
      request.resume();
      response.writeHead(202).end();
    });
    await new Promise<void>((resolve) => other.listen(0, '127.0.0.2', resolve));
    const otherPort = (other.address() as AddressInfo).port;
    dns.answers.set('localhost', '127.0.0.2');
    dns.lookups.length = 0;
    try {
      const result = await send(`http://localhost:${otherPort}/pinned`);
      expect(result).toMatchObject({ outcome: 'response', statusCode: 202 });
      expect(seen.at(-1)?.headers.host).toBe(`localhost:${otherPort}`);
      // One lookup, the guard's: the connection made none of its own.
      expect(dns.lookups).toEqual(['localhost']);
    } finally {
      dns.answers.delete('localhost');
      await new Promise((resolve) => other.close(resolve));
    }
  });

  it('refuses a name that resolves to a private or metadata address (DNS rebinding)', async () => {
    for (const address of ['10.1.2.3', '169.254.169.254', '::ffff:192.168.0.1']) {
      dns.answers.set('rebind.example.test', address);
      const result = await send(`https://rebind.example.test/`, strict);
      expect(result, address).toMatchObject({
        outcome: 'refused',
        error: expect.stringContaining(`resolves to a non-public address (${address})`),
      });
    }
  });
});
