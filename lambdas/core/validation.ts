/**
 * Request validation with zod. Schemas are strict: unknown fields are errors. The first problem is
 * reported as 400 `invalid_parameter` with its field path in `param` (`events[0]`, `voice_settings.speed`).
 * Query strings are the exception (`parseQuery`): a parameter the route does not know is ignored, as
 * the hosted API ignores it, so clients written against it keep working.
 */
import { z } from 'zod';
import { InvalidParameterError } from './errors.js';
import { checkOutboundUrl, OutboundUrlError, outboundPolicy } from './network-guard.js';
import { hasControlCharacters } from './text.js';

/** `['events', 0, 'url']` → `events[0].url`. */
export function formatParamPath(path: readonly PropertyKey[]): string {
  return path.reduce<string>((formatted, segment) => {
    if (typeof segment === 'number') return `${formatted}[${segment}]`;
    const name = String(segment);
    return formatted ? `${formatted}.${name}` : name;
  }, '');
}

const ZOD_DEFAULT_MESSAGE = /^Invalid (option|input)/;

function describeIssue(issue: z.core.$ZodIssue, param: string): string {
  const subject = param ? `\`${param}\`` : 'The request body';
  switch (issue.code) {
    case 'unrecognized_keys':
      return `${subject} is not a recognised field.`;
    case 'invalid_type':
      return issue.input === undefined
        ? `${subject} is required.`
        : `${subject} must be ${article(issue.expected)}.`;
    case 'invalid_value':
      // A schema's own message says more than the list of allowed values.
      return ZOD_DEFAULT_MESSAGE.test(issue.message)
        ? `${subject} must be one of: ${issue.values.map((value) => String(value)).join(', ')}.`
        : `${subject}: ${issue.message}`;
    case 'too_small':
    case 'too_big':
    case 'invalid_format':
    case 'custom':
      return `${subject}: ${issue.message}`;
    default:
      return `${subject} is invalid: ${issue.message}`;
  }
}

function article(expected: string): string {
  return /^[aeiou]/.test(expected) ? `an ${expected}` : `a ${expected}`;
}

/**
 * Parses `input` with `schema`. `prefix` names where the input came from when the field path alone
 * would be ambiguous (not used for bodies: the spec names body fields bare).
 */
export function parseInput<S extends z.ZodType>(schema: S, input: unknown, prefix = ''): z.output<S> {
  // reportInput: zod 4 leaves the offending value out of issues otherwise ("required" vs "wrong type").
  const result = schema.safeParse(input, { reportInput: true });
  if (result.success) return result.data;
  const [issue] = result.error.issues;
  if (!issue) throw new InvalidParameterError('The request is invalid.', prefix || null);
  const path = issue.code === 'unrecognized_keys' ? [...issue.path, issue.keys[0] ?? ''] : issue.path;
  const param = [prefix, formatParamPath(path)].filter(Boolean).join('.');
  throw new InvalidParameterError(describeIssue(issue, param), param || null);
}

export interface ParsedQuery<T> {
  query: T;
  /** Names of the parameters the schema does not know, which were left out. */
  ignored: string[];
}

/**
 * Parses a query string with its route's schema, leaving out the parameters the schema does not know.
 * Why not refuse them as a body's unknown fields are: real clients of the hosted API send parameters
 * it ignores (or that only matter there), and a drop-in replacement must answer them alike. A known
 * parameter with a bad value is still 400 naming it. Schemas that are not plain objects are parsed
 * whole (strictly).
 */
export function parseQuery<S extends z.ZodType>(
  schema: S,
  input: Record<string, string | undefined>,
): ParsedQuery<z.output<S>> {
  if (!(schema instanceof z.ZodObject)) return { query: parseInput(schema, input), ignored: [] };
  const known = new Set(Object.keys(schema.shape));
  const kept: Record<string, string | undefined> = {};
  const ignored: string[] = [];
  for (const [name, value] of Object.entries(input)) {
    if (known.has(name)) kept[name] = value;
    else ignored.push(name);
  }
  return { query: parseInput(schema, kept), ignored };
}

/** `limit` query parameter with the endpoint's range and default. */
export function limitParam(max: number, fallback: number) {
  return z.coerce
    .number({ error: `must be an integer from 1 to ${max}` })
    .int({ error: `must be an integer from 1 to ${max}` })
    .min(1, { error: `must be an integer from 1 to ${max}` })
    .max(max, { error: `must be an integer from 1 to ${max}` })
    .default(fallback);
}

/**
 * A URL the service will call on a client's behalf (a job's one-off `callback_url`): public HTTPS,
 * checked by the outbound guard, whose reason becomes the message.
 */
export const outboundUrlParam = z
  .string()
  .max(2048, { error: 'must be at most 2048 characters' })
  .superRefine((url, context) => {
    try {
      checkOutboundUrl(url, outboundPolicy());
    } catch (error) {
      if (!(error instanceof OutboundUrlError)) throw error;
      context.addIssue({ code: 'custom', message: `${error.message}: it must be a public HTTPS URL` });
    }
  });

/** A comma-separated list of ids in a query parameter (`video_ids=a,b`), blanks dropped. */
export const idListParam = z
  .string()
  .optional()
  .transform((value) =>
    (value ?? '')
      .split(',')
      .map((id) => id.trim())
      .filter(Boolean),
  );

/** `token` query parameter: an opaque cursor, at least one character. */
export const tokenParam = z.string().min(1, { error: 'must not be empty' }).optional();

/**
 * Every name or title a user gives (folder names, file names, voice names, video and batch titles)
 * goes through this: control characters (Unicode `Cc`, NUL included) and bidirectional controls are
 * refused, with 400 naming the field, rather than stored and shown back (see core/text.ts).
 */
export function userText<S extends z.ZodType<string | null | undefined>>(schema: S) {
  return schema.refine((value) => typeof value !== 'string' || !hasControlCharacters(value), {
    error: 'must not contain control characters (U+0000–U+001F, U+007F–U+009F) or bidirectional controls',
  });
}
