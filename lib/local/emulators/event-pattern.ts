/**
 * EventBridge event patterns (content filtering), for rules of the local event bus.
 *
 * No npm package implements these rules (AWS's own matcher, event-ruler, is Java), so this is
 * written from the EventBridge documentation:
 * - a pattern mirrors the event's structure; its leaves are arrays, and a leaf matches when any
 *   of its conditions matches any value of the field (an array field contributes every element);
 * - keys are ANDed, array entries ORed, `$or` takes alternative sub-patterns;
 * - conditions: exact values (string, number, boolean, null), `prefix`, `suffix`,
 *   `equals-ignore-case`, `wildcard`, `anything-but` (value, list, `prefix`, `suffix`,
 *   `equals-ignore-case`, `wildcard`), `numeric`, `exists`, `cidr`;
 * - `exists` looks at leaf values only: a field holding an object does not "exist" as a leaf;
 * - a nested pattern under an array of objects must match within one element (array consistency).
 */
import { BlockList, isIP } from 'node:net';
import type { JsonObject, JsonPrimitive, JsonValue } from './aws-json-protocol.js';

/** The pattern breaks EventBridge's rules; the message says where. */
export class InvalidEventPatternError extends Error {
  constructor(message: string) {
    super(`Event pattern is not valid. Reason: ${message}`);
    this.name = 'InvalidEventPatternError';
  }
}

type Condition = (value: JsonPrimitive) => boolean;

interface LeafPattern {
  kind: 'leaf';
  conditions: Condition[];
  /** `exists: false` conditions: they match an absent field, not a value. */
  matchesAbsent: boolean;
}

interface ObjectPattern {
  kind: 'object';
  fields: [string, LeafPattern | ObjectPattern][];
  /** Each `$or`: at least one alternative must match. */
  alternatives: ObjectPattern[][];
}

/** A validated pattern, ready to match many events. */
export interface CompiledEventPattern {
  readonly source: JsonObject;
  readonly root: ObjectPattern;
}

/** Parses (when given text) and validates a pattern. */
export function compileEventPattern(pattern: string | JsonValue): CompiledEventPattern {
  let parsed: JsonValue = pattern;
  if (typeof pattern === 'string') {
    try {
      parsed = JSON.parse(pattern) as JsonValue;
    } catch {
      throw new InvalidEventPatternError('the pattern is not valid JSON');
    }
  }
  if (!isJsonObject(parsed) || Object.keys(parsed).length === 0) {
    throw new InvalidEventPatternError('the pattern must be a non-empty JSON object');
  }
  return { source: parsed, root: compileObject(parsed, '') };
}

/** Whether `event` matches; `pattern` may be compiled once and reused. */
export function matchesEventPattern(
  pattern: CompiledEventPattern | string | JsonValue,
  event: unknown,
): boolean {
  const compiled = isCompiled(pattern) ? pattern : compileEventPattern(pattern);
  return matchObject(compiled.root, isJsonObject(event as JsonValue) ? (event as JsonObject) : {});
}

function isCompiled(pattern: CompiledEventPattern | string | JsonValue): pattern is CompiledEventPattern {
  return typeof pattern === 'object' && pattern !== null && 'root' in pattern && 'source' in pattern;
}

function isJsonObject(value: JsonValue | undefined): value is JsonObject {
  return typeof value === 'object' && value !== null && !Array.isArray(value);
}

function compileObject(pattern: JsonObject, path: string): ObjectPattern {
  const compiled: ObjectPattern = { kind: 'object', fields: [], alternatives: [] };
  for (const [key, value] of Object.entries(pattern)) {
    const where = path ? `${path}.${key}` : key;
    if (key === '$or') {
      if (!Array.isArray(value) || value.length < 2 || !value.every(isJsonObject)) {
        throw new InvalidEventPatternError(`${where} must be an array of at least two objects`);
      }
      compiled.alternatives.push(value.map((alternative) => compileObject(alternative, where)));
    } else if (Array.isArray(value)) {
      compiled.fields.push([key, compileLeaf(value, where)]);
    } else if (isJsonObject(value)) {
      if (Object.keys(value).length === 0) throw new InvalidEventPatternError(`${where} is an empty object`);
      compiled.fields.push([key, compileObject(value, where)]);
    } else {
      throw new InvalidEventPatternError(`${where} must be an array of match values or a nested object`);
    }
  }
  return compiled;
}

function compileLeaf(entries: JsonValue[], where: string): LeafPattern {
  if (entries.length === 0) throw new InvalidEventPatternError(`${where} is an empty array`);
  const leaf: LeafPattern = { kind: 'leaf', conditions: [], matchesAbsent: false };
  for (const entry of entries) {
    if (Array.isArray(entry)) throw new InvalidEventPatternError(`${where} contains a nested array`);
    if (!isJsonObject(entry)) {
      leaf.conditions.push((value) => equalValues(value, entry));
      continue;
    }
    const operators = Object.keys(entry);
    const [operator] = operators;
    if (operators.length !== 1 || operator === undefined) {
      throw new InvalidEventPatternError(`${where}: a match object takes exactly one operator`);
    }
    const argument = entry[operator] as JsonValue;
    if (operator === 'exists') {
      if (typeof argument !== 'boolean')
        throw new InvalidEventPatternError(`${where}: exists takes true or false`);
      if (argument) leaf.conditions.push(() => true);
      else leaf.matchesAbsent = true;
      continue;
    }
    leaf.conditions.push(compileOperator(operator, argument, where));
  }
  return leaf;
}

function compileOperator(operator: string, argument: JsonValue, where: string): Condition {
  switch (operator) {
    case 'prefix':
      return stringCondition(argument, where, operator, (value, text, ignoreCase) =>
        ignoreCase ? value.toLowerCase().startsWith(text.toLowerCase()) : value.startsWith(text),
      );
    case 'suffix':
      return stringCondition(argument, where, operator, (value, text, ignoreCase) =>
        ignoreCase ? value.toLowerCase().endsWith(text.toLowerCase()) : value.endsWith(text),
      );
    case 'equals-ignore-case': {
      const text = requireString(argument, where, operator);
      return (value) => typeof value === 'string' && value.toLowerCase() === text.toLowerCase();
    }
    case 'wildcard': {
      const regex = wildcardRegex(requireString(argument, where, operator), where);
      return (value) => typeof value === 'string' && regex.test(value);
    }
    case 'numeric':
      return numericCondition(argument, where);
    case 'cidr':
      return cidrCondition(argument, where);
    case 'anything-but':
      return anythingButCondition(argument, where);
    default:
      throw new InvalidEventPatternError(`${where}: unknown operator ${operator}`);
  }
}

function requireString(argument: JsonValue, where: string, operator: string): string {
  if (typeof argument !== 'string')
    throw new InvalidEventPatternError(`${where}: ${operator} takes a string`);
  return argument;
}

/** `prefix` / `suffix` take a string, or `{ "equals-ignore-case": string }`. */
function stringCondition(
  argument: JsonValue,
  where: string,
  operator: string,
  test: (value: string, text: string, ignoreCase: boolean) => boolean,
): Condition {
  if (isJsonObject(argument)) {
    const keys = Object.keys(argument);
    const text = argument['equals-ignore-case'];
    if (keys.length !== 1 || typeof text !== 'string') {
      throw new InvalidEventPatternError(
        `${where}: ${operator} takes a string or {"equals-ignore-case": string}`,
      );
    }
    return (value) => typeof value === 'string' && test(value, text, true);
  }
  const text = requireString(argument, where, operator);
  return (value) => typeof value === 'string' && test(value, text, false);
}

function equalValues(value: JsonPrimitive, expected: JsonPrimitive): boolean {
  // Numbers compare by value (5 matches 5.0); no conversion between types.
  return value === expected;
}

/** `*` matches any run of characters; `\*` and `\\` are literal; `**` is not allowed. */
function wildcardRegex(pattern: string, where: string): RegExp {
  if (pattern.includes('**'))
    throw new InvalidEventPatternError(`${where}: consecutive wildcards are not allowed`);
  let source = '';
  for (let index = 0; index < pattern.length; index += 1) {
    const character = pattern[index] ?? '';
    if (character === '\\') {
      const next = pattern[index + 1];
      if (next !== '*' && next !== '\\')
        throw new InvalidEventPatternError(`${where}: invalid escape in wildcard`);
      source += `\\${next}`;
      index += 1;
    } else if (character === '*') {
      source += '.*';
    } else {
      source += character.replace(/[.*+?^${}()|[\]\\/]/g, '\\$&');
    }
  }
  return new RegExp(`^${source}$`, 's');
}

const NUMERIC_COMPARISONS = {
  '<': (value: number, bound: number) => value < bound,
  '<=': (value: number, bound: number) => value <= bound,
  '=': (value: number, bound: number) => value === bound,
  '>': (value: number, bound: number) => value > bound,
  '>=': (value: number, bound: number) => value >= bound,
} as const;
type NumericOperator = keyof typeof NUMERIC_COMPARISONS;
const NUMERIC_OPERATORS = Object.keys(NUMERIC_COMPARISONS) as NumericOperator[];

function numericCondition(argument: JsonValue, where: string): Condition {
  if (!Array.isArray(argument) || (argument.length !== 2 && argument.length !== 4)) {
    throw new InvalidEventPatternError(`${where}: numeric takes [op, number] or [op, number, op, number]`);
  }
  const comparisons: [NumericOperator, number][] = [];
  for (let index = 0; index < argument.length; index += 2) {
    const operator = argument[index];
    const bound = argument[index + 1];
    if (!NUMERIC_OPERATORS.includes(operator as NumericOperator) || typeof bound !== 'number') {
      throw new InvalidEventPatternError(
        `${where}: numeric takes operators ${NUMERIC_OPERATORS.join(' ')} with numbers`,
      );
    }
    comparisons.push([operator as NumericOperator, bound]);
  }
  if (comparisons.length === 2) {
    const [[first], [second]] = comparisons as [[NumericOperator, number], [NumericOperator, number]];
    const lower = first.startsWith('>') && second.startsWith('<');
    const upper = first.startsWith('<') && second.startsWith('>');
    if (!lower && !upper)
      throw new InvalidEventPatternError(`${where}: a numeric range needs one lower and one upper bound`);
  }
  return (value) =>
    typeof value === 'number' &&
    comparisons.every(([operator, bound]) => NUMERIC_COMPARISONS[operator](value, bound));
}

function cidrCondition(argument: JsonValue, where: string): Condition {
  const text = requireString(argument, where, 'cidr');
  const [address, prefixText] = text.split('/');
  const family = isIP(address ?? '');
  const prefix = Number(prefixText);
  if (!family || !Number.isInteger(prefix) || prefix < 0 || prefix > (family === 4 ? 32 : 128)) {
    throw new InvalidEventPatternError(`${where}: ${text} is not a CIDR block`);
  }
  const block = new BlockList();
  const type = family === 4 ? 'ipv4' : 'ipv6';
  block.addSubnet(address ?? '', prefix, type);
  return (value) => typeof value === 'string' && isIP(value) === family && block.check(value, type);
}

function anythingButCondition(argument: JsonValue, where: string): Condition {
  if (isJsonObject(argument)) {
    const keys = Object.keys(argument);
    const [operator] = keys;
    if (keys.length !== 1 || operator === undefined) {
      throw new InvalidEventPatternError(`${where}: anything-but takes one operator`);
    }
    const inner = argument[operator] as JsonValue;
    const texts = Array.isArray(inner) ? inner : [inner];
    if (texts.length === 0 || !texts.every((text) => typeof text === 'string')) {
      throw new InvalidEventPatternError(
        `${where}: anything-but ${operator} takes a string or a list of strings`,
      );
    }
    const strings = texts as string[];
    let excluded: (value: string) => boolean;
    switch (operator) {
      case 'prefix':
        excluded = (value) => strings.some((text) => value.startsWith(text));
        break;
      case 'suffix':
        excluded = (value) => strings.some((text) => value.endsWith(text));
        break;
      case 'equals-ignore-case':
        excluded = (value) => strings.some((text) => value.toLowerCase() === text.toLowerCase());
        break;
      case 'wildcard': {
        const regexes = strings.map((text) => wildcardRegex(text, where));
        excluded = (value) => regexes.some((regex) => regex.test(value));
        break;
      }
      default:
        throw new InvalidEventPatternError(`${where}: anything-but does not take ${operator}`);
    }
    // These forms only apply to strings.
    return (value) => typeof value === 'string' && !excluded(value);
  }
  const values = Array.isArray(argument) ? argument : [argument];
  if (
    values.length === 0 ||
    !values.every((value) => typeof value === 'string' || typeof value === 'number')
  ) {
    throw new InvalidEventPatternError(`${where}: anything-but takes strings or numbers`);
  }
  const excluded = values as (string | number)[];
  return (value) => !excluded.some((candidate) => candidate === value);
}

/** Every leaf value under `value`, arrays flattened; objects are not leaves. */
function leafValues(value: JsonValue | undefined): JsonPrimitive[] {
  if (value === undefined) return [];
  if (Array.isArray(value)) return value.flatMap(leafValues);
  if (isJsonObject(value)) return [];
  return [value];
}

/** The objects a nested pattern is tried against: the object, or each object in an array. */
function objectCandidates(value: JsonValue | undefined): JsonObject[] {
  if (isJsonObject(value)) return [value];
  if (Array.isArray(value)) {
    const objects = value.flatMap(objectCandidates);
    if (objects.length > 0) return objects;
  }
  // An absent field is matched as an empty object, so `exists: false` below it can match.
  return [{}];
}

function matchObject(pattern: ObjectPattern, node: JsonObject): boolean {
  for (const [key, fieldPattern] of pattern.fields) {
    const value = Object.hasOwn(node, key) ? node[key] : undefined;
    if (fieldPattern.kind === 'object') {
      if (!objectCandidates(value).some((candidate) => matchObject(fieldPattern, candidate))) return false;
      continue;
    }
    const values = leafValues(value);
    const matched =
      (values.length === 0 && fieldPattern.matchesAbsent) ||
      values.some((leaf) => fieldPattern.conditions.some((condition) => condition(leaf)));
    if (!matched) return false;
  }
  return pattern.alternatives.every((alternatives) =>
    alternatives.some((alternative) => matchObject(alternative, node)),
  );
}
