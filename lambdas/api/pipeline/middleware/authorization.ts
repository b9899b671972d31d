/**
 * Who is calling (the principal from the authorizer) and, in a later step, may they call this route
 * (the route's scopes, and whether an OAuth client can pay for it). The rate limit runs between the
 * two: it needs the workspace, and a refused call counts against the limit and carries its headers
 * like any other answer.
 */
import { endpointRefusal } from '../../../accounts/account-policy.js';
import { AUTH_TYPES, fromAuthorizerContext } from '../../../accounts/principal.js';
import { ForbiddenError, UnauthorizedError } from '../../../core/errors.js';
import { missingScopes } from '../scopes.js';
import type { ApiMiddleware } from './pipeline-context.js';

export function authenticationMiddleware(): ApiMiddleware {
  return {
    before: async (request) => {
      const { route } = request.context.pipeline;
      if (route.auth === 'none') return;
      // Defense in depth: API Gateway never invokes a protected route without an Allow.
      const principal = fromAuthorizerContext(request.event.requestContext?.authorizer);
      if (!principal) throw new UnauthorizedError();
      request.context.pipeline.principal = principal;
    },
  };
}

export function authorizationMiddleware(): ApiMiddleware {
  return {
    before: async (request) => {
      const { principal, route } = request.context.pipeline;
      if (!principal) return;

      // The account's restrictions first: no key of the workspace, whatever its scopes, lifts them.
      const refused = endpointRefusal(principal.restrictions, route.operationId);
      if (refused) throw refused;
      const missing = missingScopes(principal.scopes, route.scopes);
      if (missing.length > 0) {
        throw new ForbiddenError(
          `This API key lacks the scope${missing.length > 1 ? 's' : ''} ${missing.join(', ')} required by ${route.method} ${route.path} (requires ${route.scopes.join(', ')}).`,
          'insufficient_api_key_scope',
        );
      }
      if (principal.authType === AUTH_TYPES.oauth) {
        const cannotPay =
          route.billing === 'api_credits_only' ||
          (route.billing === 'credits' && principal.billingType !== 'wallet');
        if (cannotPay) {
          throw new ForbiddenError(
            route.billing === 'api_credits_only'
              ? 'This endpoint is paid with API credits only: call it with an API key (X-Api-Key).'
              : 'OAuth clients pay from a wallet and this workspace has none: call this endpoint with an API key (X-Api-Key).',
            'api_key_required',
          );
        }
      }
    },
  };
}
