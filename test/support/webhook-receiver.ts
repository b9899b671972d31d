/**
 * Webhook receivers for tests: HTTP servers on loopback that record every request (raw body, headers,
 * time of receipt) and answer as a test's `respond` says: a status (with headers), or never (to let the
 * attempt run into its deadline).
 */
import { createServer, type IncomingHttpHeaders, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ReceivedWebhook {
  headers: IncomingHttpHeaders;
  /** The body exactly as received. */
  rawBody: Buffer;
  body: { event_type: string; event_data: Record<string, unknown> };
  receivedAt: number;
  /** 0 for the first request this receiver got. */
  index: number;
}

export type ReceiverAnswer = number | { status: number; headers?: Record<string, string> } | 'hang';

export interface WebhookReceiver {
  url: string;
  port: number;
  received: ReceivedWebhook[];
  /** Resolves once `count` requests arrived (rejects after `timeoutMs`). */
  waitFor(count: number, timeoutMs?: number): Promise<ReceivedWebhook[]>;
  /** Stops listening (its port refuses connections) until `start` again. */
  stop(): Promise<void>;
  start(): Promise<void>;
}

export async function startReceiver(
  respond: (request: ReceivedWebhook) => ReceiverAnswer = () => 200,
  path = '/hook',
): Promise<WebhookReceiver> {
  const received: ReceivedWebhook[] = [];
  const hanging = new Set<ServerResponse>();
  let waiters: { count: number; resolve: () => void }[] = [];
  let server: Server | undefined;
  let port = 0;

  const handle = (request: import('node:http').IncomingMessage, response: ServerResponse) => {
    const chunks: Buffer[] = [];
    request.on('data', (chunk: Buffer) => chunks.push(chunk));
    request.on('end', () => {
      const rawBody = Buffer.concat(chunks);
      let body: ReceivedWebhook['body'];
      try {
        body = JSON.parse(rawBody.toString('utf8'));
      } catch {
        body = { event_type: '', event_data: {} };
      }
      const webhook: ReceivedWebhook = {
        headers: request.headers,
        rawBody,
        body,
        receivedAt: Date.now(),
        index: received.length,
      };
      received.push(webhook);
      const answer = respond(webhook);
      if (answer === 'hang') {
        hanging.add(response);
      } else {
        const { status, headers = {} } = typeof answer === 'number' ? { status: answer } : answer;
        response.writeHead(status, headers).end();
      }
      const ready = waiters.filter((waiter) => received.length >= waiter.count);
      waiters = waiters.filter((waiter) => received.length < waiter.count);
      for (const waiter of ready) waiter.resolve();
    });
  };

  async function start(): Promise<void> {
    server = createServer(handle);
    await new Promise<void>((resolve) => server?.listen(port, '127.0.0.1', resolve));
    port = (server.address() as AddressInfo).port;
  }

  async function stop(): Promise<void> {
    for (const response of hanging) response.destroy();
    hanging.clear();
    const current = server;
    server = undefined;
    if (!current) return;
    current.closeAllConnections();
    await new Promise<void>((resolve) => current.close(() => resolve()));
  }

  await start();
  return {
    get url() {
      return `http://127.0.0.1:${port}${path}`;
    },
    get port() {
      return port;
    },
    received,
    waitFor(count, timeoutMs = 15_000) {
      if (received.length >= count) return Promise.resolve(received);
      return new Promise((resolve, reject) => {
        const timer = setTimeout(
          () => reject(new Error(`Receiver got ${received.length} of ${count} webhooks in ${timeoutMs} ms`)),
          timeoutMs,
        );
        waiters.push({
          count,
          resolve: () => {
            clearTimeout(timer);
            resolve(received);
          },
        });
      });
    },
    stop,
    start,
  };
}
