/** Per-workspace (and, for status polling, per-IP) request-rate limits by the route's class. */
import {
  limitFor,
  rateLimitExceeded,
  rateLimitHeaders,
  takeRequest,
  workspaceRateKey,
} from '../rate-limit.js';
import type { ApiMiddleware } from './pipeline-context.js';

export function rateLimitMiddleware(): ApiMiddleware {
  return {
    before: async (request) => {
      const { route, principal } = request.context.pipeline;
      if (!principal) return; // public documents are served from cache-friendly static data
      const rateClass = route.rateClass;
      const workspaceDecision = await takeRequest(
        workspaceRateKey(principal.workspaceId, rateClass),
        limitFor(rateClass, principal.plan, principal.rateLimits),
        `workspace:${rateClass}`,
      );
      request.context.pipeline.responseHeaders = {
        ...request.context.pipeline.responseHeaders,
        ...rateLimitHeaders(workspaceDecision),
      };
      if (!workspaceDecision.allowed) throw rateLimitExceeded(workspaceDecision);
      if (rateClass === 'status') {
        const sourceIp = request.event.requestContext?.identity?.sourceIp ?? 'unknown';
        const ipDecision = await takeRequest(
          `IP#${sourceIp}#status`,
          limitFor('status_ip', principal.plan, principal.rateLimits),
          'ip:status',
        );
        if (!ipDecision.allowed) throw rateLimitExceeded(ipDecision);
      }
    },
  };
}
