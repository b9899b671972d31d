import { describe, expect, it } from 'vitest';
import { GATEWAY_RESPONSES } from '../../lambdas/api/gateway-responses.js';
import { goneResponse } from '../../lambdas/api/removed-route.js';
import { ROUTES } from '../../lambdas/api/routes.js';
import { apiBaseUrl, errorDocsUrl, errorEnvelope } from '../../lambdas/core/envelope.js';
import {
  apiRootNotFound,
  gatewayResponseOptions,
  methodNotAllowed,
  removedRoute,
} from '../../lib/stack/static-responses.js';

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

describe('doc_url without a configured page', () => {
  const request = { domainName: 'abc123.execute-api.eu-west-1.amazonaws.com', stage: 'prod' };
  const variables = { 'context.domainName': request.domainName, 'context.stage': request.stage };
  // What the functions answer for the same request (core/envelope.ts).
  const docs = errorDocsUrl('', apiBaseUrl(request));

  it('names the catalogue the API serves, on the URL and stage the client called', () => {
    expect(docs).toBe('https://abc123.execute-api.eu-west-1.amazonaws.com/prod/v3/docs/errors');
    const mock = apiRootNotFound('');
    const rendered = renderVtl(`#set($dollar = '$')#set($hash = '#')${mock.description.bodyTemplate}`, {
      ...variables,
    });
    expect(JSON.parse(rendered).error.doc_url).toBe(`${docs}#not_found`);
    const notAllowed = methodNotAllowed('/v3/x', ['GET'], '');
    const rendered405 = renderVtl(
      `#set($dollar = '$')#set($hash = '#')${notAllowed.description.bodyTemplate}`,
      { ...variables, 'context.httpMethod': 'PUT' },
    );
    expect(JSON.parse(rendered405).error.doc_url).toBe(`${docs}#method_not_allowed`);
  });

  it('gateway responses substitute the same', () => {
    for (const definition of Object.values(GATEWAY_RESPONSES)) {
      const options = gatewayResponseOptions(definition, '', { code: 'errorCode', message: 'errorMessage' });
      const template = options.templates?.['application/json'] ?? '';
      const rendered = template.replace(/\$context\.([\w.]+)/g, (match, name: string) =>
        name === 'domainName' ? request.domainName : name === 'stage' ? request.stage : match,
      );
      expect(rendered).toContain(`"doc_url":"${docs}#`);
    }
  });
});
