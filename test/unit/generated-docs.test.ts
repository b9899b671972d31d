import { readFile } from 'node:fs/promises';
import { describe, expect, it } from 'vitest';
import {
  OPENAPI_PATH,
  README_PATH,
  renderCoverageTable,
  renderOpenApi,
  withCoverageTable,
} from '../../lib/docs/generated-docs.js';

describe('generated documents', () => {
  it('the served OpenAPI document matches the route table and schemas (run npm run docs:generate)', async () => {
    expect(await readFile(OPENAPI_PATH, 'utf8')).toBe(await renderOpenApi());
  });

  it("the README's coverage table matches the route table (run npm run docs:generate)", async () => {
    const readme = await readFile(README_PATH, 'utf8');
    expect(readme).toBe(withCoverageTable(readme, renderCoverageTable()));
  });
});
