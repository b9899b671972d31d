/**
 * One typed error hierarchy for the whole API. Every error knows its HTTP status and its public
 * `code`; the error middleware turns it into the spec's envelope. Messages of 5xx errors are never
 * exposed to clients (`expose` is false): they are logged, and the client sees a generic message.
 */

/** A per-item detail carried in `error.errors` (spec: code, message, node_id, port, path). */
export interface ErrorDetail {
  code: string;
  message: string;
  node_id?: string;
  port?: string;
  path?: string;
}

export interface ServiceErrorOptions {
  /** The request field that caused the error, as a path such as `events[0]` or `parent_id`. */
  param?: string | null;
  /** Per-item details, e.g. the steps of a failed encryption setup. */
  errors?: ErrorDetail[];
  /** Extra response headers, e.g. `Retry-After`. */
  headers?: Record<string, string>;
  cause?: unknown;
}

export class ServiceError extends Error {
  readonly status: number;
  readonly code: string;
  readonly param: string | null;
  readonly errors: ErrorDetail[] | undefined;
  readonly headers: Record<string, string>;
  /** Whether `message` may be shown to the client. False for every 5xx. */
  readonly expose: boolean;

  constructor(status: number, code: string, message: string, options: ServiceErrorOptions = {}) {
    super(message, { cause: options.cause });
    this.name = new.target.name;
    this.status = status;
    this.code = code;
    this.param = options.param ?? null;
    this.errors = options.errors;
    this.headers = options.headers ?? {};
    this.expose = status < 500;
  }
}

/** 400 `invalid_parameter`: a bad or missing request field, named in `param`. */
export class InvalidParameterError extends ServiceError {
  constructor(message: string, param: string | null, options: Omit<ServiceErrorOptions, 'param'> = {}) {
    super(400, 'invalid_parameter', message, { ...options, param });
  }
}

/** 401: missing, invalid or expired credentials, or a key whose workspace is gone. */
export class UnauthorizedError extends ServiceError {
  constructor(
    message = 'Missing, invalid or expired credentials.',
    code: 'unauthorized' | 'api_key_owner_workspace_access_revoked' = 'unauthorized',
  ) {
    super(401, code, message);
  }
}

/**
 * 402 for the spec's billing codes: `insufficient_credit` (the message gives have and required),
 * `usage_limit_reached`, `trial_limit_exceeded`, `subscription_required`, `plan_upgrade_required`.
 */
export class PaymentRequiredError extends ServiceError {
  constructor(message: string, code: string, param: string | null = null) {
    super(402, code, message, { param });
  }
}

/** 403 for the spec's authorization codes (`forbidden`, `insufficient_api_key_scope`, ...). */
export class ForbiddenError extends ServiceError {
  constructor(message: string, code = 'forbidden', options: ServiceErrorOptions = {}) {
    super(403, code, message, options);
  }
}

/** 404 for a missing resource. Resources of other workspaces are reported the same way. */
export class NotFoundError extends ServiceError {
  constructor(message: string, code = 'resource_not_found', param: string | null = null) {
    super(404, code, message, { param });
  }
}

/** 409 for state conflicts (`request_in_progress`, `stale_edit_version`, `resource_not_ready`, ...). */
export class ConflictError extends ServiceError {
  constructor(message: string, code: string, options: ServiceErrorOptions = {}) {
    super(409, code, message, options);
  }
}

/**
 * 413 `payload_too_large`: a request body, or the file in it, above what the endpoint takes. API
 * Gateway answers bodies over its own 10 MiB cap with the same code (lambdas/api/gateway-responses.ts).
 */
export class PayloadTooLargeError extends ServiceError {
  constructor(message: string, param: string | null = null) {
    super(413, 'payload_too_large', message, { param });
  }
}

/** 422 `validation_error`: a well-formed value the API no longer accepts (the legacy HyperFrames resolution presets). */
export class UnprocessableError extends ServiceError {
  constructor(message: string, param: string | null) {
    super(422, 'validation_error', message, { param });
  }
}

/** 429 `rate_limit_exceeded` with `Retry-After` and the `X-RateLimit-*` headers. */
export class RateLimitError extends ServiceError {
  constructor(message: string, headers: Record<string, string>) {
    super(429, 'rate_limit_exceeded', message, { headers });
  }
}

/**
 * 429 `quota_exceeded`: a usage quota of the workspace is used up (the free plan's daily jobs, live
 * realtime streams). `Retry-After` when the quota's renewal is known.
 */
export class QuotaExceededError extends ServiceError {
  constructor(message: string, retryAfterSeconds?: number) {
    super(429, 'quota_exceeded', message, {
      headers: retryAfterSeconds === undefined ? {} : { 'Retry-After': String(retryAfterSeconds) },
    });
  }
}

/** Why work that cannot succeed failed, as a job records it: its `failure_code` and what the user reads. */
export interface JobFailureDetails {
  code: string;
  message: string;
}

/** Seconds a client is told to wait before retrying work an engine could not run (`Retry-After`). */
export const ENGINE_UNAVAILABLE_RETRY_AFTER_SECONDS = 5;

/**
 * Work that cannot succeed for a reason the user can act on: a job step (the job ends `failed` with
 * this `failure_code` and the message as its `failure_message`) or an engine asked to do something it
 * cannot (every engine error extends this class, so a job step lets it through unchanged or rewords
 * it). A synchronous route turns the failures its caller can fix into its own 4xx (naming the field);
 * one that reaches the envelope unmapped is the service's: 503 `engine_unavailable` with `Retry-After`
 * when the engine cannot run now, else 500 `internal_error` (its message, as every 5xx's, not shown).
 * An engine's own failures narrow `Code` to its codes: `class TranslationError extends
 * JobFailure<TranslationFailureCode> {}`.
 */
export class JobFailure<Code extends string = string> extends ServiceError {
  readonly failureCode: Code;

  constructor(failureCode: Code, message: string, options: { cause?: unknown } = {}) {
    const unavailable = failureCode === 'engine_unavailable';
    super(unavailable ? 503 : 500, unavailable ? 'engine_unavailable' : 'internal_error', message, {
      ...options,
      ...(unavailable ? { headers: { 'Retry-After': String(ENGINE_UNAVAILABLE_RETRY_AFTER_SECONDS) } } : {}),
    });
    this.failureCode = failureCode;
  }
}
