/**
 * One HTTP POST of a webhook delivery, under the outbound guard (docs/architecture.md, "Events and webhooks"):
 *
 * - the URL is checked again at send time (public HTTPS; loopback and http only with the
 *   local-development setting), its host resolved and every address checked, and the connection
 *   pinned to the checked address (no second DNS answer, so no DNS rebinding);
 * - redirects are never followed (a 3xx is an answer like any other non-2xx);
 * - one deadline covers DNS, connect, TLS and the status line: a receiver that has not answered by
 *   then has failed the attempt. The body of the answer is not read beyond what arrives with it.
 *
 * Nothing here knows about records or retries: it returns what happened.
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import {
  checkOutboundUrl,
  describeNetworkError,
  type OutboundPolicy,
  OutboundUrlError,
  pinnedLookup,
  resolveOutboundAddress,
} from '../core/network-guard.js';

export interface WebhookRequest {
  url: string;
  /** The exact bytes to send (JSON). */
  body: string;
  /** Signature and identification headers; content type and user agent are added. */
  headers: Readonly<Record<string, string>>;
  /** Deadline for the status line, from the start of the attempt. */
  timeoutMs: number;
  policy: OutboundPolicy;
}

export const SEND_OUTCOMES = {
  /** The receiver answered (any status). */
  response: 'response',
  /** The guard refused the destination: nothing was sent. */
  refused: 'refused',
  /** No answer: timeout, DNS, connection or TLS failure. */
  failed: 'failed',
} as const;

export type WebhookSendResult =
  | {
      outcome: typeof SEND_OUTCOMES.response;
      statusCode: number;
      /** `Retry-After` as sent. */
      retryAfter: string | undefined;
      /** `Location` of a redirect (never followed). */
      location: string | undefined;
      durationMs: number;
    }
  | {
      outcome: typeof SEND_OUTCOMES.refused | typeof SEND_OUTCOMES.failed;
      error: string;
      durationMs: number;
    };

export const WEBHOOK_USER_AGENT = 'video-creation-service-webhooks/1';

class Timeout extends Error {}

/** Sends one attempt. Never throws: every way it can end is a result. */
export async function sendWebhook(request: WebhookRequest): Promise<WebhookSendResult> {
  const startedAt = performance.now();
  const elapsed = () => Math.round(performance.now() - startedAt);
  let url: URL;
  try {
    url = checkOutboundUrl(request.url, request.policy);
  } catch (error) {
    if (error instanceof OutboundUrlError) {
      return {
        outcome: SEND_OUTCOMES.refused,
        error: `refused: the URL ${error.message}`,
        durationMs: elapsed(),
      };
    }
    throw error;
  }
  const host = url.hostname.replace(/^\[|\]$/g, '');
  let timer: NodeJS.Timeout | undefined;
  const deadline = new Promise<never>((_resolve, reject) => {
    timer = setTimeout(() => reject(new Timeout()), request.timeoutMs);
  });
  try {
    // The lookup counts toward the deadline: a name that never resolves cannot hold the attempt.
    const pinned = await Promise.race([resolveOutboundAddress(url, request.policy), deadline]);
    const response = await post(url, host, pinned, request, deadline);
    return { ...response, outcome: SEND_OUTCOMES.response, durationMs: elapsed() };
  } catch (error) {
    if (error instanceof OutboundUrlError) {
      return {
        outcome: SEND_OUTCOMES.refused,
        error: `refused: the ${error.message}`,
        durationMs: elapsed(),
      };
    }
    if (error instanceof Timeout) {
      return {
        outcome: SEND_OUTCOMES.failed,
        error: `no answer within ${request.timeoutMs} ms`,
        durationMs: elapsed(),
      };
    }
    return { outcome: SEND_OUTCOMES.failed, error: describeNetworkError(error, host), durationMs: elapsed() };
  } finally {
    clearTimeout(timer);
  }
}

function post(
  url: URL,
  host: string,
  pinned: { address: string; family: number },
  request: WebhookRequest,
  deadline: Promise<never>,
): Promise<{ statusCode: number; retryAfter: string | undefined; location: string | undefined }> {
  const send = url.protocol === 'https:' ? httpsRequest : httpRequest;
  const body = Buffer.from(request.body);
  const outgoing = send({
    protocol: url.protocol,
    host,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: `${url.pathname}${url.search}`,
    method: 'POST',
    headers: {
      ...request.headers,
      'Content-Type': 'application/json',
      'Content-Length': String(body.length),
      'User-Agent': WEBHOOK_USER_AGENT,
    },
    // Connect to the address the guard checked; Host and TLS (SNI, certificate name) stay the URL's.
    lookup: pinnedLookup(pinned),
    ...(url.protocol === 'https:' && isIP(host) === 0 ? { servername: host } : {}),
    // No pooled sockets: a connection is only ever used for the address checked for it.
    agent: false,
  });
  const answered = new Promise<IncomingMessage>((resolve, reject) => {
    outgoing.on('response', resolve);
    outgoing.on('error', reject);
  });
  outgoing.end(body);
  return Promise.race([answered, deadline])
    .then((response) => {
      // The status is the answer; whatever body follows is not needed. Closing the socket (no keep-alive
      // agent) frees it even from a receiver that keeps streaming.
      response.on('error', () => undefined);
      response.resume();
      response.on('end', () => outgoing.destroy());
      setTimeout(() => outgoing.destroy(), 1000).unref();
      const header = (name: string) => {
        const value = response.headers[name];
        return Array.isArray(value) ? value[0] : value;
      };
      return {
        statusCode: response.statusCode ?? 0,
        retryAfter: header('retry-after'),
        location: header('location'),
      };
    })
    .catch((error: unknown) => {
      outgoing.destroy();
      throw error;
    });
}
