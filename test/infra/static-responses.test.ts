import { describe, expect, it } from 'vitest';
import { goneResponse } from '../../lambdas/api/removed-route.js';
import { ROUTES } from '../../lambdas/api/routes.js';
import { errorEnvelope } from '../../lambdas/core/envelope.js';
import { methodNotAllowed, removedRoute } from '../../lib/stack/static-responses.js';

const DOC_BASE_URL = 'https://docs.example.com/errors.md';

/** What API Gateway's VTL engine renders from our templates, for templates made of text and `${var}`s. */
function renderVtl(template: string, variables: Record<string, string>): string {
  const withoutSets = template.replace(
    /#set\(\$(\w+) = '([^']*)'\)/g,
    (_match, name: string, value: string) => {
      variables[name] = value;
      return '';
    },
  );
  return withoutSets.replace(/\$\{(\w+)\}|\$([\w.]+)/g, (match, formal?: string, plain?: string) => {
    const name = formal ?? plain ?? '';
    return variables[name] ?? match;
  });
}

describe('mock responses', () => {
  it('answers a removed route with exactly the body the local server sends', () => {
    const removed = ROUTES.filter((route) => route.removed);
    expect(removed.length).toBeGreaterThan(0);
    for (const route of removed) {
      const mock = removedRoute(route, DOC_BASE_URL);
      expect(mock.description.status).toBe(410);
      const rendered = renderVtl(`#set($dollar = '$')#set($hash = '#')${mock.description.bodyTemplate}`, {});
      expect(rendered).toBe(goneResponse(route, DOC_BASE_URL).body);
    }
  });

  it('answers 405 naming the method, the path and the allowed methods', () => {
    const mock = methodNotAllowed('/v3/folders/{folder_id}', ['GET', 'PATCH'], DOC_BASE_URL);
    expect(mock.description.headers.Allow).toBe('GET, PATCH');
    const rendered = renderVtl(`#set($dollar = '$')#set($hash = '#')${mock.description.bodyTemplate}`, {
      'context.httpMethod': 'DELETE',
    });
    expect(JSON.parse(rendered)).toEqual(
      errorEnvelope(
        'method_not_allowed',
        'DELETE is not allowed on /v3/folders/{folder_id}. Allowed: GET, PATCH.',
        null,
        DOC_BASE_URL,
      ),
    );
  });

  it('keeps `$` and `#` of static text out of VTL', () => {
    const mock = methodNotAllowed('/v3/x', ['GET'], DOC_BASE_URL);
    const staticText = mock.description.bodyTemplate.replaceAll('$context.httpMethod', '');
    expect(staticText.replace(/\$\{(hash|dollar)\}/g, '')).not.toMatch(/[$#]/);
  });
});
