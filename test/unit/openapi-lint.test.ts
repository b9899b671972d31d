/**
 * The served OpenAPI document passes Redocly's linter (`@redocly/openapi-core`, the engine of
 * `redocly lint`) with its `recommended` rules: no errors. Its warnings are what the document says on
 * purpose: routes of the contract not implemented yet answer only 501 (`operation-2xx-response`), and
 * a few paths the contract itself shapes alike (`no-ambiguous-paths`).
 */
import { createConfig, lint } from '@redocly/openapi-core';
import { describe, expect, it } from 'vitest';
import { ROUTES } from '../../lambdas/api/routes.js';
import { OPENAPI_PATH } from '../../lib/docs/generated-docs.js';

describe('the OpenAPI document', () => {
  it('lints clean with the recommended rules, and every implemented route has a success response', async () => {
    const config = await createConfig({ extends: ['recommended'] });
    const problems = await lint({ ref: OPENAPI_PATH, config });

    const errors = problems.filter((problem) => problem.severity === 'error');
    expect(errors.map((problem) => `${problem.ruleId}: ${problem.message}`)).toEqual([]);
    const withoutSuccess = problems
      .filter((problem) => problem.ruleId === 'operation-2xx-response')
      .map((problem) => problem.location[0]?.pointer ?? '');
    const implemented = ROUTES.filter((route) => route.endpoint && !route.removed);
    for (const route of implemented) {
      const pointer = `#/paths/${route.path.replaceAll('~', '~0').replaceAll('/', '~1')}/${route.method.toLowerCase()}`;
      expect(withoutSuccess.some((where) => where.startsWith(pointer))).toBe(false);
    }
    expect(problems.filter((problem) => problem.ruleId === 'info-license')).toEqual([]);
  });
});
