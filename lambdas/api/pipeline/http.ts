/** Request and response shapes of the route handlers, and the helpers that build responses. */
import type { Principal } from '../../accounts/principal.js';
import type { ListEnvelope } from '../../core/envelope.js';

export interface ApiRequest<Body = unknown, Query = unknown, Path = unknown> {
  body: Body;
  query: Query;
  path: Path;
  principal: Principal;
  /** Header names lower-cased. */
  headers: Record<string, string>;
  /** The body as received (decoded from base64 when API Gateway sent it so), for non-JSON routes. */
  rawBody: Buffer;
  requestId: string;
  sourceIp: string;
  /**
   * The API's own URL as the caller reached it (`https://<host>[/<stage>]`), for answers that link
   * back to the service (a consent page).
   */
  baseUrl: string;
}

export interface ApiResponse {
  status: number;
  /** Serialized as JSON unless `raw` is given. */
  body?: unknown;
  /** A body that is not JSON (audio, SRT), with its content type. */
  raw?: { contentType: string; data: string | Uint8Array };
  /**
   * A body sent while it is produced (chunked), for routes marked `responseStreaming` in the route
   * table (see pipeline/response-streaming.ts). Elsewhere it is collected and sent whole.
   */
  stream?: { contentType: string; chunks: AsyncIterable<Uint8Array> };
  headers?: Record<string, string>;
}

export const respond = {
  ok: (data: unknown): ApiResponse => ({ status: 200, body: { data } }),
  /** `{error: null, data}`: the envelope some endpoints of the spec use. */
  okWithNullError: (data: unknown): ApiResponse => ({ status: 200, body: { error: null, data } }),
  /** `{code: 100, data, msg: null, message: null}`: the hosted API's `/v1` success envelope. */
  okV1: (data: unknown): ApiResponse => ({
    status: 200,
    body: { code: 100, data, msg: null, message: null },
  }),
  created: (data: unknown): ApiResponse => ({ status: 201, body: { data } }),
  accepted: (data: unknown): ApiResponse => ({ status: 202, body: { data } }),
  list: <T>(items: T[], nextToken: string | null): ApiResponse => {
    const body: ListEnvelope<T> = { data: items, has_more: nextToken !== null, next_token: nextToken };
    return { status: 200, body };
  },
  raw: (contentType: string, data: string | Uint8Array, status = 200): ApiResponse => ({
    status,
    raw: { contentType, data },
  }),
  stream: (contentType: string, chunks: AsyncIterable<Uint8Array>, headers: Record<string, string> = {}) => ({
    status: 200,
    stream: { contentType, chunks },
    headers,
  }),
};
