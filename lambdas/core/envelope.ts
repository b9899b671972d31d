import type { ErrorDetail } from './errors.js';

/** The spec's error envelope. */
export interface ErrorEnvelope {
  error: {
    code: string;
    message: string;
    param: string | null;
    doc_url: string | null;
    errors?: ErrorDetail[];
  };
}

/** The spec's list envelope. */
export interface ListEnvelope<T> {
  data: T[];
  has_more: boolean;
  next_token: string | null;
}

/** Where the service serves its own documentation pages (the meta area), below the API's base URL. */
export const DOC_PATHS = { errors: '/v3/docs/errors', webhooks: '/v3/docs/webhooks' } as const;

// A domain as API Gateway reports it, or the Host header the local server passes on: a name or an
// address, with an optional port; anything else (a client's odd Host) is not put into a URL.
const DOMAIN = /^([A-Za-z0-9-]+(\.[A-Za-z0-9-]+)*|\[[0-9A-Fa-f:.]+\])(:\d{1,5})?$/;
// On the API's default endpoint the stage is the first segment of every path.
const EXECUTE_API_DOMAIN = /\.execute-api\.[a-z0-9-]+\.amazonaws\.com(\.cn)?$/i;

/**
 * The base URL the client reached the API at, from what API Gateway says of the request: its domain,
 * the stage on the `execute-api` domain (`https://abc.execute-api.eu-west-1.amazonaws.com/prod`), and
 * the protocol (`X-Forwarded-Proto`, which API Gateway sets and the local server sets to `http`).
 * Undefined when the domain is unknown or not one.
 */
export function apiBaseUrl(request: {
  domainName?: string | undefined;
  stage?: string | undefined;
  protocol?: string | undefined;
}): string | undefined {
  const domain = request.domainName?.trim();
  if (!domain || !DOMAIN.test(domain)) return undefined;
  const protocol = request.protocol?.toLowerCase() === 'http' ? 'http' : 'https';
  const stage =
    request.stage && EXECUTE_API_DOMAIN.test(domain.replace(/:\d+$/, ''))
      ? `/${encodeURIComponent(request.stage)}`
      : '';
  return `${protocol}://${domain}${stage}`;
}

/**
 * The page error `doc_url`s point to: the deployment's own copy (`DOC_BASE_URL`) when it names one,
 * else the catalogue this API serves (`GET /v3/docs/errors`) at the base URL the client used.
 */
export function errorDocsUrl(configured: string, baseUrl: string | undefined): string {
  if (configured) return configured;
  return `${baseUrl ?? ''}${DOC_PATHS.errors}`;
}

/** Documentation page for an error code: the error catalogue, at the code's anchor. */
export function docUrlFor(code: string, docBaseUrl: string): string {
  return `${docBaseUrl.replace(/\/$/, '')}#${code}`;
}

export function errorEnvelope(
  code: string,
  message: string,
  param: string | null,
  docBaseUrl: string,
  errors?: ErrorDetail[],
): ErrorEnvelope {
  return {
    error: { code, message, param, doc_url: docUrlFor(code, docBaseUrl), ...(errors ? { errors } : {}) },
  };
}
