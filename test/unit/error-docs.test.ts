/** Where error `doc_url`s point, and the served catalogue having an anchor for every code it lists. */
import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import { GATEWAY_RESPONSES } from '../../lambdas/api/gateway-responses.js';
import docPages from '../../lambdas/api/meta/doc-pages.generated.json' with { type: 'json' };
import { apiBaseUrl, errorDocsUrl } from '../../lambdas/core/envelope.js';
import { markdownToHtml } from '../../lib/docs/markdown-html.js';

describe('the base URL of doc_url', () => {
  it.each([
    [
      { domainName: 'abc.execute-api.us-east-1.amazonaws.com', stage: 'prod' },
      'https://abc.execute-api.us-east-1.amazonaws.com/prod',
    ],
    [{ domainName: 'api.example.com', stage: 'prod' }, 'https://api.example.com'],
    [{ domainName: '127.0.0.1:3000', stage: 'local', protocol: 'http' }, 'http://127.0.0.1:3000'],
    [{ domainName: '[::1]:3000', protocol: 'http' }, 'http://[::1]:3000'],
    [{ domainName: 'evil.example/"><script>', stage: 'x' }, undefined],
    [{ domainName: undefined }, undefined],
  ])('%j → %s', (request, expected) => {
    expect(apiBaseUrl(request)).toBe(expected);
  });

  it('prefers a configured page', () => {
    expect(errorDocsUrl('https://docs.example.com/errors', 'https://api.example.com')).toBe(
      'https://docs.example.com/errors',
    );
    expect(errorDocsUrl('', 'https://api.example.com')).toBe('https://api.example.com/v3/docs/errors');
  });
});

describe('the served error catalogue', () => {
  it('has an anchor for every code docs/errors.md lists and every code API Gateway answers with', async () => {
    const markdown = await readFile(new URL('../../docs/errors.md', import.meta.url), 'utf8');
    const listed = [...markdown.matchAll(/^\| (.*?) \|/gm)]
      .flatMap(([, cell]) => [...(cell ?? '').matchAll(/`([a-z_]+)`/g)].map(([, code]) => code ?? ''))
      .filter((code) => code !== 'code');
    const codes = new Set([...listed, ...Object.values(GATEWAY_RESPONSES).map(({ code }) => code)]);
    expect(codes.size).toBeGreaterThan(30);
    for (const code of codes) expect(docPages.errors, code).toContain(`id="${code}"`);
  });

  it('renders the docs without letting their text become markup', () => {
    const html = markdownToHtml(
      'a <script>alert(1)</script> <img src=x onerror=y> `<b>` [x](javascript:alert) <a id="ok"></a> <a id="x" onclick="y"></a>',
    );
    expect(html).not.toMatch(/<script|<img|<b>|href="javascript|onclick="/);
    expect(html).toContain('<a id="ok"></a>');
  });
});
