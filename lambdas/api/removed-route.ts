/** Routes removed from the contract answer 410 `gone`, naming what replaces them. */
import { docUrlFor } from '../core/envelope.js';
import type { RouteDefinition } from './pipeline/route-types.js';

export function goneResponse(route: RouteDefinition, docBaseUrl: string) {
  return {
    statusCode: 410,
    headers: { 'Content-Type': 'application/json; charset=utf-8' },
    body: JSON.stringify({
      error: {
        code: 'gone',
        message: `${route.method} ${route.path} was removed on 2026-10-31. Use ${route.removed?.replacement ?? 'the /v3 API'}.`,
        param: null,
        doc_url: docUrlFor('gone', docBaseUrl),
      },
    }),
  };
}
