/**
 * Scope rules of the spec: `resource:read|write`; a write grant satisfies read of the same resource;
 * `*:*` satisfies everything; `*:read` satisfies every read, current and future.
 */
export function grants(granted: readonly string[], required: string): boolean {
  const [resource, access] = required.split(':');
  return granted.some((scope) => {
    if (scope === '*:*' || scope === required) return true;
    if (access === 'read' && (scope === '*:read' || scope === `${resource}:write`)) return true;
    return false;
  });
}

export function missingScopes(granted: readonly string[], required: readonly string[]): string[] {
  return required.filter((scope) => !grants(granted, scope));
}

/** A scope a key may hold: `resource:read`, `resource:write`, `*:read` or `*:*`. */
export const SCOPE_PATTERN = /^(\*|[a-z][a-z_]*):(read|write|\*)$/;

export function isValidScope(scope: string): boolean {
  return SCOPE_PATTERN.test(scope) && (scope === '*:*' || !scope.endsWith(':*'));
}
