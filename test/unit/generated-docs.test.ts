import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  DOC_PAGES_PATH,
  OPENAPI_PATH,
  README_PATH,
  renderCoverageTable,
  renderDocPages,
  renderOpenApi,
  withCoverageTable,
} from '../../lib/docs/generated-docs.js';

describe('generated documents', () => {
  it('the served OpenAPI document matches the route table and schemas (run npm run docs:generate)', async () => {
    expect(await readFile(OPENAPI_PATH, 'utf8')).toBe(await renderOpenApi());
  });

  it('the served documentation pages match docs/errors.md and docs/webhooks.md (run npm run docs:generate)', async () => {
    expect(await readFile(DOC_PAGES_PATH, 'utf8')).toBe(await renderDocPages());
  });

  it("the README's coverage table matches the route table (run npm run docs:generate)", async () => {
    const readme = await readFile(README_PATH, 'utf8');
    expect(readme).toBe(withCoverageTable(readme, renderCoverageTable()));
  });
});
