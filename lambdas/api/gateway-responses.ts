/**
 * Responses that API Gateway itself produces (before any route handler runs), in the spec's error
 * envelope. The CDK stack turns these into GatewayResponses with mapping templates; the local server
 * renders the same definitions, so both answer identically.
 */

export interface GatewayResponseDefinition {
  /** API Gateway's response type. */
  type: 'ACCESS_DENIED' | 'UNAUTHORIZED' | 'MISSING_AUTHENTICATION_TOKEN' | 'DEFAULT_4XX' | 'DEFAULT_5XX';
  status: number;
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
  badRequest: {
    type: 'DEFAULT_4XX',
    status: 400,
    code: 'invalid_parameter',
    message: 'The request could not be processed.',
  },
  serverError: {
    type: 'DEFAULT_5XX',
    status: 500,
    code: 'internal_error',
    message: 'An internal error occurred. Retry later.',
  },
} as const satisfies Record<string, GatewayResponseDefinition>;

/** The authorizer context fields that carry a denial's reason. */
export const DENIAL_CONTEXT = { code: 'errorCode', message: 'errorMessage' } as const;
