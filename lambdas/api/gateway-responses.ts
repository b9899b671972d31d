/**
 * Responses that API Gateway itself produces (before any route handler runs), in the spec's error
 * envelope. The CDK stack turns these into GatewayResponses with mapping templates; the local server
 * renders the same definitions, so both answer identically.
 */

export interface GatewayResponseDefinition {
  /** API Gateway's response type. */
  type:
    | 'ACCESS_DENIED'
    | 'UNAUTHORIZED'
    | 'MISSING_AUTHENTICATION_TOKEN'
    | 'THROTTLED'
    | 'REQUEST_TOO_LARGE'
    | 'UNSUPPORTED_MEDIA_TYPE'
    | 'WAF_FILTERED'
    | 'DEFAULT_4XX'
    | 'DEFAULT_5XX';
  /** The status to answer with; absent keeps the status API Gateway chose. */
  status?: number;
  code: string;
  message: string;
  /** Take `code` and `message` from the authorizer's context (`errorCode`, `errorMessage`). */
  fromAuthorizer?: boolean;
}

export const GATEWAY_RESPONSES = {
  /** The authorizer denied the request: its context says why (always a 401 in this API). */
  authorizerDenied: {
    type: 'ACCESS_DENIED',
    status: 401,
    code: 'unauthorized',
    message: 'Missing, invalid or expired credentials.',
    fromAuthorizer: true,
  },
  unauthorized: {
    type: 'UNAUTHORIZED',
    status: 401,
    code: 'unauthorized',
    message: 'Missing, invalid or expired credentials.',
  },
  /** API Gateway's answer for a path no resource matches. */
  unknownPath: {
    type: 'MISSING_AUTHENTICATION_TOKEN',
    status: 404,
    code: 'not_found',
    message: 'No such endpoint. See /v3/openapi.json for the endpoints of this API.',
  },
  /** Stage-level throttling, before any function runs. */
  throttled: {
    type: 'THROTTLED',
    status: 429,
    code: 'rate_limit_exceeded',
    message: 'Too many requests. Back off and retry.',
  },
  tooLarge: {
    type: 'REQUEST_TOO_LARGE',
    status: 413,
    code: 'payload_too_large',
    message: 'The request body exceeds 10 MiB. Upload media through direct uploads.',
  },
  unsupportedMediaType: {
    type: 'UNSUPPORTED_MEDIA_TYPE',
    status: 415,
    code: 'unsupported_media_type',
    message: 'Send the body as JSON with Content-Type: application/json.',
  },
  firewall: {
    type: 'WAF_FILTERED',
    status: 403,
    code: 'forbidden',
    message: 'The request was blocked by the web application firewall.',
  },
  /** Any other 4xx API Gateway produces keeps its status. */
  otherClientError: {
    type: 'DEFAULT_4XX',
    code: 'bad_request',
    message: 'The request could not be processed.',
  },
  serverError: {
    type: 'DEFAULT_5XX',
    code: 'internal_error',
    message: 'An internal error occurred. Retry later.',
  },
} as const satisfies Record<string, GatewayResponseDefinition>;

/** The authorizer context fields that carry a denial's reason. */
export const DENIAL_CONTEXT = { code: 'errorCode', message: 'errorMessage' } as const;

/** Headers a browser may send cross-origin (preflight `Access-Control-Allow-Headers`). */
export const CORS_ALLOWED_HEADERS = [
  'Content-Type',
  'Authorization',
  'X-Api-Key',
  'Idempotency-Key',
] as const;
