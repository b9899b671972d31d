/**
 * THE HTTP client of every engine that talks to a server speaking the OpenAI HTTP API (hosted OpenAI,
 * or what self-hosters run: whisper servers, vLLM, llama.cpp, Ollama, LocalAI...). One place for:
 *
 * - the outbound guard: every base URL is checked like a webhook receiver's (public HTTPS; the host
 *   resolved, every address checked, the connection pinned to the checked address: core/network-guard.ts)
 *   unless `MODEL_HOSTS_ALLOW_PRIVATE=true` allows private, loopback and plain-HTTP model hosts;
 * - one deadline per attempt covering DNS, connect, TLS, the upload and the whole answer;
 * - retries with exponential backoff after a 429, a 5xx, a timeout or a network failure, honouring a
 *   `429`/`503` `Retry-After` (seconds or an HTTP date) up to a cap: a server asking for longer than the
 *   cap is not waited for;
 * - what the answer means for the job, through the capability's own error class (`failure`):
 *   401/403 → `engine_unavailable` ("the key was refused"), a 429 still refused after the retries →
 *   `engine_unavailable` (the server is busy), any other 4xx → the capability's `invalid_input`
 *   (with the server's own message), 5xx, timeouts and network failures after the retries → the
 *   capability's `<capability>_failed`.
 *
 * Node's `node:http(s)` rather than `fetch`: only it lets the connection be pinned to the checked
 * address without another dependency (the webhook sender does the same: webhooks/sender.ts).
 */
import { request as httpRequest, type IncomingMessage } from 'node:http';
import { request as httpsRequest } from 'node:https';
import { isIP } from 'node:net';
import { setTimeout as sleep } from 'node:timers/promises';
import type { JobFailure } from '../../core/errors.js';
import {
  checkOutboundUrl,
  describeNetworkError,
  type OutboundPolicy,
  OutboundUrlError,
  pinnedLookup,
  resolveOutboundAddress,
} from '../../core/network-guard.js';

/** What a model server's answer means for the job, before the capability names its code. */
export const MODEL_SERVER_FAILURES = {
  /** The server cannot be used now or at all: refused key, refused URL, rate limited. */
  unavailable: 'unavailable',
  /** The server refused this request as malformed (a 4xx other than 401/403/429). */
  invalidInput: 'invalid_input',
  /** The server failed (5xx, timeout, network, an answer that is not what the protocol says). */
  failed: 'failed',
} as const;
export type ModelServerFailure = (typeof MODEL_SERVER_FAILURES)[keyof typeof MODEL_SERVER_FAILURES];

export interface OpenAiCompatibleClientOptions {
  /** What the user reads the server is for, e.g. `Speech recognition`. */
  capability: string;
  /** Base URL including the API version, e.g. `https://api.openai.com/v1`. */
  baseUrl: string;
  model: string;
  /** The bearer token, looked up on each request (the secret is cached by its reader). */
  apiKey: () => Promise<string | undefined>;
  /** The settings a deployer changes to give another key, for the "key was refused" message. */
  apiKeySettings: string;
  /** Deadline of one attempt, in milliseconds. */
  timeoutMs: number;
  /** Attempts after the first one. */
  retries: number;
  /** First backoff wait, doubled each retry, in milliseconds. */
  retryBaseMs: number;
  /** Longest `Retry-After` waited for, in milliseconds. */
  maxRetryAfterMs: number;
  /** `MODEL_HOSTS_ALLOW_PRIVATE`: skip the outbound guard for this server. */
  allowPrivateHosts: boolean;
  /** The capability's error for a failure. */
  failure: (kind: ModelServerFailure, message: string, cause?: unknown) => JobFailure;
}

/** Largest answer read from a model server: a transcript or a completion, never media. */
export const MAX_MODEL_RESPONSE_BYTES = 32 * 1024 * 1024;

export const MODEL_CLIENT_USER_AGENT = 'video-creation-service-engines/1';

/** The guard's policy for model hosts: public HTTPS only (loopback comes only with the private-host setting). */
const PUBLIC_MODEL_HOSTS: OutboundPolicy = { allowLoopback: false };

interface HttpAnswer {
  status: number;
  headers: IncomingMessage['headers'];
  body: Buffer;
}

class AttemptTimeout extends Error {}
class ResponseTooLarge extends Error {}

/**
 * How long a `Retry-After` asks to wait, in milliseconds: delay-seconds or an HTTP date
 * (RFC 9110 §10.2.3); undefined when absent or unreadable.
 */
export function retryAfterMs(header: string | undefined, now = Date.now()): number | undefined {
  const text = header?.trim();
  if (!text) return undefined;
  if (/^\d+(\.\d+)?$/.test(text)) return Math.round(Number(text) * 1000);
  const date = Date.parse(text);
  return Number.isNaN(date) ? undefined : Math.max(0, date - now);
}

/** The error text a server put in its answer (`{"error": {"message"}}` or `{"error": "..."}`), shortened. */
function serverMessage(body: Buffer): string {
  const text = body.toString('utf8');
  let message = text;
  try {
    const parsed = JSON.parse(text) as { error?: unknown; detail?: unknown; message?: unknown };
    const error = parsed.error;
    const candidate =
      typeof error === 'object' && error !== null && 'message' in error
        ? (error as { message: unknown }).message
        : (error ?? parsed.detail ?? parsed.message);
    if (typeof candidate === 'string') message = candidate;
    else if (candidate !== undefined) message = JSON.stringify(candidate);
  } catch {
    // Not JSON: the text itself.
  }
  message = message.replace(/\s+/g, ' ').trim();
  return message.length > 300 ? `${message.slice(0, 297)}...` : message;
}

export class OpenAiCompatibleClient {
  readonly model: string;
  readonly baseUrl: string;

  constructor(private readonly options: OpenAiCompatibleClientOptions) {
    this.model = options.model;
    this.baseUrl = options.baseUrl.replace(/\/+$/, '');
  }

  /** POSTs a JSON body to `<baseUrl><path>` and returns the parsed JSON answer. */
  async postJson(path: string, body: unknown): Promise<unknown> {
    return this.post(path, Buffer.from(JSON.stringify(body)), 'application/json');
  }

  /** POSTs a multipart/form-data body (Node's own encoder sets the boundary) and returns the JSON answer. */
  async postMultipart(path: string, form: FormData): Promise<unknown> {
    const encoded = new Response(form);
    const contentType = encoded.headers.get('content-type') ?? 'multipart/form-data';
    return this.post(path, Buffer.from(await encoded.arrayBuffer()), contentType);
  }

  private async post(path: string, body: Buffer, contentType: string): Promise<unknown> {
    const { capability, failure } = this.options;
    const url = this.checkedUrl(`${this.baseUrl}${path}`);
    let apiKey: string | undefined;
    try {
      apiKey = await this.options.apiKey();
    } catch (error) {
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw failure(
        MODEL_SERVER_FAILURES.unavailable,
        `${capability} is unavailable: its API key could not be read (${detail}). Check ${this.options.apiKeySettings}.`,
        error,
      );
    }
    const headers: Record<string, string> = {
      'Content-Type': contentType,
      'Content-Length': String(body.length),
      Accept: 'application/json',
      'User-Agent': MODEL_CLIENT_USER_AGENT,
      ...(apiKey ? { Authorization: `Bearer ${apiKey}` } : {}),
    };
    const host = url.host;
    let lastProblem = '';
    let lastKind: ModelServerFailure = MODEL_SERVER_FAILURES.failed;
    let lastCause: unknown;
    let attempts = 0;
    for (let attempt = 0; attempt <= this.options.retries; attempt++) {
      attempts++;
      let waitMs = this.options.retryBaseMs * 2 ** attempt;
      let answer: HttpAnswer;
      try {
        answer = await this.attempt(url, headers, body);
      } catch (error) {
        if (error instanceof OutboundUrlError) throw this.refusedUrl(url, error);
        lastCause = error;
        lastKind = MODEL_SERVER_FAILURES.failed;
        lastProblem =
          error instanceof AttemptTimeout
            ? `no complete answer within ${this.options.timeoutMs} ms`
            : error instanceof ResponseTooLarge
              ? `its answer was larger than ${MAX_MODEL_RESPONSE_BYTES} bytes`
              : describeNetworkError(error, host);
        if (error instanceof ResponseTooLarge) break;
        if (attempt < this.options.retries) await sleep(waitMs);
        continue;
      }
      const { status } = answer;
      if (status >= 200 && status < 300) return this.parseJson(answer, url);
      if (status === 401 || status === 403) {
        throw failure(
          MODEL_SERVER_FAILURES.unavailable,
          `${capability} is unavailable: the model server at ${host} refused the key (HTTP ${status}: ${serverMessage(answer.body)}). Check ${this.options.apiKeySettings}.`,
        );
      }
      if (status >= 300 && status < 400) {
        // Redirects are not followed (the guard checked this URL, not where it points).
        throw failure(
          MODEL_SERVER_FAILURES.unavailable,
          `${capability} is unavailable: the model server at ${host} redirects (HTTP ${status}${answer.headers.location ? ` to ${answer.headers.location}` : ''}); set its base URL to where it points.`,
        );
      }
      const retryable = status === 429 || status === 408 || status >= 500;
      if (!retryable) {
        throw failure(
          MODEL_SERVER_FAILURES.invalidInput,
          `${capability} refused the request: the model server at ${host} answered HTTP ${status}: ${serverMessage(answer.body)}`,
        );
      }
      lastKind = status === 429 ? MODEL_SERVER_FAILURES.unavailable : MODEL_SERVER_FAILURES.failed;
      lastProblem = `HTTP ${status}: ${serverMessage(answer.body)}`;
      lastCause = undefined;
      if (status === 429 || status === 503) {
        const asked = retryAfterMs(firstHeader(answer.headers['retry-after']));
        if (asked !== undefined) {
          if (asked > this.options.maxRetryAfterMs) {
            lastProblem = `${lastProblem}; it asked to retry after ${Math.ceil(asked / 1000)} s, longer than the ${this.options.maxRetryAfterMs} ms this service waits`;
            break;
          }
          waitMs = asked;
        }
      }
      if (attempt < this.options.retries) await sleep(waitMs);
    }
    throw failure(
      lastKind,
      lastKind === MODEL_SERVER_FAILURES.unavailable
        ? `${capability} is unavailable: the model server at ${host} is rate limiting this service (${lastProblem}); try again later.`
        : `${capability} failed: the model server at ${host} did not answer successfully after ${attempts} attempt${attempts === 1 ? '' : 's'} (${lastProblem}).`,
      lastCause,
    );
  }

  private checkedUrl(raw: string): URL {
    if (this.options.allowPrivateHosts) {
      let url: URL;
      try {
        url = new URL(raw);
      } catch (error) {
        throw this.refusedUrl(raw, new OutboundUrlError('must be an absolute URL', { cause: error }));
      }
      if (url.protocol !== 'http:' && url.protocol !== 'https:') {
        throw this.refusedUrl(url, new OutboundUrlError('must use http or https'));
      }
      return url;
    }
    try {
      return checkOutboundUrl(raw, PUBLIC_MODEL_HOSTS);
    } catch (error) {
      if (error instanceof OutboundUrlError) throw this.refusedUrl(raw, error);
      throw error;
    }
  }

  private refusedUrl(url: URL | string, error: OutboundUrlError): JobFailure {
    const shown = typeof url === 'string' ? url : `${url.protocol}//${url.host}${url.pathname}`;
    return this.options.failure(
      MODEL_SERVER_FAILURES.unavailable,
      `${this.options.capability} is unavailable: the model server URL ${shown} is refused (it ${error.message}). A model server on a private network or this machine needs MODEL_HOSTS_ALLOW_PRIVATE=true.`,
      error,
    );
  }

  private parseJson(answer: HttpAnswer, url: URL): unknown {
    try {
      return JSON.parse(answer.body.toString('utf8'));
    } catch (error) {
      throw this.options.failure(
        MODEL_SERVER_FAILURES.failed,
        `${this.options.capability} failed: the model server at ${url.host} answered HTTP ${answer.status} with something that is not JSON`,
        error,
      );
    }
  }

  /** One request under one deadline; the guard's DNS check and pinning included unless private hosts are allowed. */
  private async attempt(url: URL, headers: Record<string, string>, body: Buffer): Promise<HttpAnswer> {
    let timer: NodeJS.Timeout | undefined;
    const deadline = new Promise<never>((_resolve, reject) => {
      timer = setTimeout(() => reject(new AttemptTimeout()), this.options.timeoutMs);
    });
    try {
      const pinned = this.options.allowPrivateHosts
        ? undefined
        : await Promise.race([resolveOutboundAddress(url, PUBLIC_MODEL_HOSTS), deadline]);
      return await send(url, headers, body, pinned, deadline);
    } finally {
      clearTimeout(timer);
    }
  }
}

function firstHeader(value: string | string[] | undefined): string | undefined {
  return Array.isArray(value) ? value[0] : value;
}

function send(
  url: URL,
  headers: Record<string, string>,
  body: Buffer,
  pinned: { address: string; family: number } | undefined,
  deadline: Promise<never>,
): Promise<HttpAnswer> {
  const host = url.hostname.replace(/^\[|\]$/g, '');
  const outgoing = (url.protocol === 'https:' ? httpsRequest : httpRequest)({
    protocol: url.protocol,
    host,
    ...(url.port ? { port: Number(url.port) } : {}),
    path: `${url.pathname}${url.search}`,
    method: 'POST',
    headers,
    // Connect to the address the guard checked; Host and TLS (SNI, certificate name) stay the URL's.
    ...(pinned ? { lookup: pinnedLookup(pinned) } : {}),
    ...(url.protocol === 'https:' && isIP(host) === 0 ? { servername: host } : {}),
    // No pooled sockets: a connection is only ever used for the address checked for it.
    agent: false,
  });
  const answered = new Promise<HttpAnswer>((resolve, reject) => {
    outgoing.on('error', reject);
    outgoing.on('response', (response) => {
      const chunks: Buffer[] = [];
      let size = 0;
      response.on('data', (chunk: Buffer) => {
        size += chunk.length;
        if (size > MAX_MODEL_RESPONSE_BYTES) {
          reject(new ResponseTooLarge());
          outgoing.destroy();
          return;
        }
        chunks.push(chunk);
      });
      response.on('error', reject);
      response.on('end', () =>
        resolve({ status: response.statusCode ?? 0, headers: response.headers, body: Buffer.concat(chunks) }),
      );
    });
  });
  outgoing.end(body);
  return Promise.race([answered, deadline]).catch((error: unknown) => {
    outgoing.destroy();
    throw error;
  });
}
