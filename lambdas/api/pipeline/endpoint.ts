/**
 * What a route row carries to be served: the zod schemas of its request, the function that answers
 * it, and how its success is documented. The pipeline (api-handler.ts) runs authentication, scopes,
 * rate limit, validation and idempotency around `handle`; the OpenAPI document and the fuzz tests
 * read `request`. An endpoint knows nothing of its route: the row joins the two.
 */
import type { z } from 'zod';
import type { ApiRequest, ApiResponse } from './http.js';
import type { ReplayCodec } from './idempotency.js';

/**
 * The schemas a request is validated with. Strict: unknown body fields and path parameters are errors;
 * unknown query parameters are ignored (core/validation.ts `parseQuery`), as the hosted API does.
 */
export interface RequestSchemas {
  body?: z.ZodType;
  query?: z.ZodType;
  path?: z.ZodType;
}

type Output<S> = S extends z.ZodType ? z.output<S> : undefined;

/** The request as `handle` sees it: body, query and path already parsed by their schemas. */
export type ParsedRequest<S extends RequestSchemas> = ApiRequest<
  Output<S['body']>,
  Output<S['query']>,
  Output<S['path']>
>;

export interface Endpoint {
  request: RequestSchemas;
  /** Answers a request that passed the pipeline; its input was parsed by `request`. */
  handle(request: ApiRequest): Promise<ApiResponse>;
  /** Status of a successful response, for the OpenAPI document. */
  successStatus: number;
  /**
   * The JSON body of a successful response, whole (`{ data: … }`, a list's `has_more`/`next_token`
   * included): documented in the OpenAPI document, and every 2xx answer the integration tests receive
   * is checked against it (test/support/test-stack.ts). Absent for answers that are not JSON.
   */
  response?: z.ZodType;
  /** Keeps secrets of the response out of the idempotency record. Absent: stored as is. */
  replayCodec?: ReplayCodec;
}

export interface EndpointOptions {
  /** @default 200 */
  successStatus?: number;
  /** The successful response's JSON body (see {@link Endpoint.response}). */
  response?: z.ZodType;
  replayCodec?: ReplayCodec;
}

/** An endpoint whose `handle` is typed by its request schemas. */
export function endpoint<S extends RequestSchemas>(
  request: S,
  handle: (request: ParsedRequest<S>) => Promise<ApiResponse>,
  options: EndpointOptions = {},
): Endpoint {
  return {
    request,
    // The pipeline parses the input with `request` before calling: the types `handle` expects hold.
    handle: handle as (request: ApiRequest) => Promise<ApiResponse>,
    successStatus: options.successStatus ?? 200,
    ...(options.response ? { response: options.response } : {}),
    ...(options.replayCodec ? { replayCodec: options.replayCodec } : {}),
  };
}
