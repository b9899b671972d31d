/**
 * IAM's identity-policy evaluation for the statements this service grants (`grant-policies.ts`):
 * a request is allowed when some statement matches its action, its resource and every condition,
 * and denied otherwise (IAM's implicit deny; the service grants no `Deny` statements).
 *
 * Matching follows IAM: actions case-insensitively, resources case-sensitively, `*` and `?` as
 * wildcards in both and in `StringLike`/`ArnLike` values; a condition with several values matches
 * when any value does; `Null: "false"` asks that the key be present. An operator this module does
 * not know throws: a grant must never pass the local check by being misunderstood.
 */
import type { GrantStatement, StatementConditions } from './grant-policies.js';

/** The request context's condition keys: one value each (the service uses no multi-valued keys). */
export type RequestContext = Readonly<Record<string, string | undefined>>;

/** One authorization IAM makes for a call: an action on a resource, in a context. */
export interface AccessRequest {
  /** `<service>:<Action>`, as in policies (`dynamodb:GetItem`). */
  action: string;
  /** The resource's ARN, or `*` for actions that support no resource-level permissions. */
  resource: string;
  context?: RequestContext;
}

const patterns = new Map<string, RegExp>();

/** IAM's wildcard match: `*` any run of characters, `?` one character, everything else literal. */
export function matchesWildcard(pattern: string, value: string, ignoreCase = false): boolean {
  const key = `${ignoreCase ? 'i' : 's'}${pattern}`;
  let expression = patterns.get(key);
  if (!expression) {
    const source = pattern
      .split('')
      .map((character) =>
        character === '*' ? '.*' : character === '?' ? '.' : character.replace(/[.+^${}()|[\]\\]/g, '\\$&'),
      )
      .join('');
    expression = new RegExp(`^${source}$`, ignoreCase ? 'is' : 's');
    patterns.set(key, expression);
  }
  return expression.test(value);
}

const asList = (value: string | readonly string[]): readonly string[] =>
  typeof value === 'string' ? [value] : value;

/** Whether one condition operator's block holds in `context`. */
function conditionHolds(
  operator: string,
  block: Readonly<Record<string, string | readonly string[]>>,
  context: RequestContext,
): boolean {
  return Object.entries(block).every(([key, expected]) => {
    const actual = context[key];
    const values = asList(expected);
    switch (operator) {
      case 'StringEquals':
      case 'ArnEquals':
        return actual !== undefined && values.includes(actual);
      case 'StringLike':
      case 'ArnLike':
        return actual !== undefined && values.some((value) => matchesWildcard(value, actual));
      case 'Null':
        return values.some((value) => (value === 'true') === (actual === undefined));
      default:
        throw new Error(`The local IAM check does not evaluate the condition operator ${operator}`);
    }
  });
}

function conditionsHold(conditions: StatementConditions | undefined, context: RequestContext): boolean {
  return Object.entries(conditions ?? {}).every(([operator, block]) =>
    conditionHolds(operator, block, context),
  );
}

/** Whether `statements` allow `request`. */
export function isAllowed(statements: readonly GrantStatement[], request: AccessRequest): boolean {
  const context = request.context ?? {};
  return statements.some(
    (statement) =>
      statement.actions.some((action) => matchesWildcard(action, request.action, true)) &&
      statement.resources.some((resource) => matchesWildcard(resource, request.resource)) &&
      conditionsHold(statement.conditions, context),
  );
}
