/**
 * A model server for tests: an HTTP server on loopback that records every request (path, headers, raw
 * body, time) and answers as the test's `respond` says: a JSON body with a status and headers, or never
 * (to let the client run into its deadline). It speaks whatever the test makes it speak; the engines'
 * contract tests make it speak the OpenAI HTTP API.
 */
import { createServer, type IncomingHttpHeaders, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';

export interface ModelServerRequest {
  method: string;
  path: string;
  headers: IncomingHttpHeaders;
  body: Buffer;
  receivedAt: number;
  /** 0 for the first request. */
  index: number;
}

export type ModelServerAnswer =
  | { status?: number; headers?: Record<string, string>; json?: unknown; text?: string }
  | 'hang';

export interface ModelServer {
  /** `http://127.0.0.1:<port>/v1`: a base URL as engines take it. */
  baseUrl: string;
  requests: ModelServerRequest[];
  /** The JSON body of request `index`. */
  json(index?: number): Record<string, unknown>;
  /** The multipart form of request `index`, parsed as a server would. */
  form(index?: number): Promise<FormData>;
  close(): Promise<void>;
}

export async function startModelServer(
  respond: (request: ModelServerRequest) => ModelServerAnswer | Promise<ModelServerAnswer>,
): Promise<ModelServer> {
  const requests: ModelServerRequest[] = [];
  const hanging = new Set<ServerResponse>();
  const server = createServer((incoming, response) => {
    const chunks: Buffer[] = [];
    incoming.on('data', (chunk: Buffer) => chunks.push(chunk));
    incoming.on('end', async () => {
      const request: ModelServerRequest = {
        method: incoming.method ?? '',
        path: incoming.url ?? '',
        headers: incoming.headers,
        body: Buffer.concat(chunks),
        receivedAt: performance.now(),
        index: requests.length,
      };
      requests.push(request);
      const answer = await respond(request);
      if (answer === 'hang') {
        hanging.add(response);
        return;
      }
      const body = answer.text ?? (answer.json === undefined ? '' : JSON.stringify(answer.json));
      response.writeHead(answer.status ?? 200, { 'Content-Type': 'application/json', ...answer.headers });
      response.end(body);
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;
  const at = (index: number) => {
    const request = requests[index];
    if (!request) throw new Error(`the model server received no request ${index}`);
    return request;
  };
  return {
    baseUrl: `http://127.0.0.1:${port}/v1`,
    requests,
    json: (index = 0) => JSON.parse(at(index).body.toString('utf8')) as Record<string, unknown>,
    form: (index = 0) => {
      const request = at(index);
      return new Request('http://model.test/', {
        method: 'POST',
        headers: { 'content-type': String(request.headers['content-type']) },
        body: request.body,
      }).formData();
    },
    close: async () => {
      for (const response of hanging) response.destroy();
      server.closeAllConnections();
      await new Promise<void>((resolve) => server.close(() => resolve()));
    },
  };
}
