/**
 * Every successful JSON answer the integration tests receive is checked against the response schema its
 * route declares (`endpoint(..., { response })`), here and nowhere else: a route whose answers drift
 * from what the OpenAPI document promises fails whichever test meets the drift.
 */

import type { HttpMethod } from '../../lambdas/api/pipeline/route-types.js';
import { ROUTES } from '../../lambdas/api/routes.js';
import { RouteMatcher } from '../../lib/local/route-matcher.js';

const matcher = new RouteMatcher(ROUTES);

/**
 * Throws when `body`, a 2xx JSON answer to `method` `url`, does not match its route's declared response
 * schema, naming the route and each mismatch. Answers of routes that declare none pass.
 */
export function checkResponseContract(method: string, url: string, status: number, body: unknown): void {
  if (status < 200 || status > 299 || typeof body !== 'object' || body === null) return;
  const path = new URL(url, 'http://localhost').pathname;
  const route = matcher.match(path)?.methods.get(method.toUpperCase() as HttpMethod);
  const schema = route?.endpoint?.response;
  if (!route || !schema) return;
  const parsed = schema.safeParse(body);
  if (parsed.success) return;
  const issues = parsed.error.issues
    .slice(0, 5)
    .map((issue) => `  ${issue.path.join('.') || '(body)'}: ${issue.message}`)
    .join('\n');
  throw new Error(
    `${route.method} ${route.path} (${route.operationId}) answered ${status} with a body its response schema refuses:\n${issues}`,
  );
}
