import { describe, expect, it } from 'vitest';
import { grants, isValidScope, missingScopes } from '../../lambdas/api/pipeline/scopes.js';

describe('scope rules', () => {
  it.each([
    [['*:*'], 'videos:write', true],
    [['*:read'], 'videos:read', true],
    [['*:read'], 'videos:write', false],
    [['videos:write'], 'videos:read', true],
    [['videos:read'], 'videos:write', false],
    [['videos:read'], 'assets:read', false],
    [['assets:write'], 'assets:write', true],
    [[], 'account:read', false],
  ] as const)('%j grants %s: %s', (granted, required, expected) => {
    expect(grants(granted, required)).toBe(expected);
  });

  it('lists every missing scope of a route that needs several', () => {
    expect(missingScopes(['templates:read'], ['templates:read', 'videos:write'])).toEqual(['videos:write']);
    expect(missingScopes(['*:read'], ['templates:read', 'videos:write'])).toEqual(['videos:write']);
  });

  it('accepts only well-formed scopes', () => {
    expect(isValidScope('videos:read')).toBe(true);
    expect(isValidScope('*:read')).toBe(true);
    expect(isValidScope('*:*')).toBe(true);
    expect(isValidScope('videos:*')).toBe(false);
    expect(isValidScope('videos')).toBe(false);
    expect(isValidScope('Videos:read')).toBe(false);
  });
});
