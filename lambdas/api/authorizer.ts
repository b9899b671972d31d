/**
 * The Lambda REQUEST authorizer. It authenticates the credentials and returns either an Allow policy
 * for the whole API, carrying the principal as context, or a Deny whose context says why; API Gateway
 * renders the Deny as a 401 in the error envelope (`gateway-responses.ts`). Scopes, rate limits and
 * billing are checked per route by the handler pipeline, which knows the route.
 */
import type { APIGatewayAuthorizerResult, APIGatewayRequestAuthorizerEvent } from 'aws-lambda';
import { authenticate } from '../accounts/authenticate.js';
import { toAuthorizerContext } from '../accounts/principal.js';
import { logger } from '../core/observability.js';
import { DENIAL_CONTEXT } from './gateway-responses.js';

/** `arn:aws:execute-api:region:account:api/stage/METHOD/path` → the same ARN for every method and path. */
function wholeApiArn(methodArn: string): string {
  const [arnPrefix, stage] = methodArn.split('/');
  return `${arnPrefix}/${stage}/*/*`;
}

function policy(effect: 'Allow' | 'Deny', methodArn: string) {
  return {
    Version: '2012-10-17',
    Statement: [{ Action: 'execute-api:Invoke', Effect: effect, Resource: wholeApiArn(methodArn) }],
  };
}

export async function handler(event: APIGatewayRequestAuthorizerEvent): Promise<APIGatewayAuthorizerResult> {
  const outcome = await authenticate(event.headers);
  if (!outcome.ok) {
    logger.info('Request denied by the authorizer', { code: outcome.code });
    return {
      principalId: 'anonymous',
      policyDocument: policy('Deny', event.methodArn),
      context: { [DENIAL_CONTEXT.code]: outcome.code, [DENIAL_CONTEXT.message]: outcome.message },
    };
  }
  return {
    principalId: `${outcome.principal.workspaceId}/${outcome.principal.credentialId}`,
    policyDocument: policy('Allow', event.methodArn),
    context: toAuthorizerContext(outcome.principal),
  };
}
