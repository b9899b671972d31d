/**
 * fast-check arbitraries derived from a route's zod request schemas, so that fuzz cases come from the
 * route table instead of being written per route. The schema is read through zod 4's JSON Schema
 * output (`io: 'input'`, what a client sends; the OpenAPI document is built the same way): the
 * derived values have the right shape, types, enums and lengths, and so reach past validation as
 * often as wild values are refused by it. Refinements zod cannot express in JSON Schema are not
 * honoured: such values are refused with a 400, which is one more thing the fuzzing checks.
 */
import fc from 'fast-check';
import type { z } from 'zod';
import { requestJsonSchema } from '../../lambdas/api/openapi.js';

type JsonSchema = {
  type?: string | string[];
  enum?: unknown[];
  const?: unknown;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  minItems?: number;
  maxItems?: number;
  minLength?: number;
  maxLength?: number;
  pattern?: string;
  format?: string;
  minimum?: number;
  maximum?: number;
  exclusiveMinimum?: number;
  exclusiveMaximum?: number;
  $ref?: string;
  $defs?: Record<string, JsonSchema>;
};

/** Past this depth of `$ref`s (recursive schemas), any JSON value stands in. */
const MAX_REFERENCE_DEPTH = 3;
/** Generated strings and arrays stay short unless the schema asks for more. */
const EXTRA_LENGTH = 24;
const EXTRA_ITEMS = 4;

/**
 * Values shaped by `schema`: what a client that read the OpenAPI document might send. `overrides`
 * replace the derived values of the object's own properties, by name, where a schema alone cannot make
 * a plausible one (the id of an existing resource, say).
 */
export function arbitraryOf(
  schema: z.ZodType,
  overrides: Readonly<Record<string, fc.Arbitrary<unknown>>> = {},
): fc.Arbitrary<unknown> {
  const described = requestJsonSchema(schema) as JsonSchema;
  const defs = described.$defs ?? {};
  if (described.type !== 'object' || !described.properties) return fromJsonSchema(described, defs, 0);
  const properties = Object.entries(described.properties);
  return fc.record(
    Object.fromEntries(
      properties.map(([name, property]) => [name, overrides[name] ?? fromJsonSchema(property, defs, 0)]),
    ),
    { requiredKeys: (described.required ?? []).filter((name) => described.properties?.[name]) },
  );
}

/** The property names of an object schema, e.g. a query string's parameters. */
export function propertyNamesOf(schema: z.ZodType): string[] {
  const described = requestJsonSchema(schema) as JsonSchema;
  return Object.keys(described.properties ?? {});
}

function fromJsonSchema(
  schema: JsonSchema,
  defs: Record<string, JsonSchema>,
  depth: number,
): fc.Arbitrary<unknown> {
  if (schema.$ref) {
    const target = defs[schema.$ref.replace('#/$defs/', '')];
    if (!target || depth >= MAX_REFERENCE_DEPTH) return fc.jsonValue({ maxDepth: 1 });
    return fromJsonSchema(target, defs, depth + 1);
  }
  if (schema.const !== undefined) return fc.constant(schema.const);
  if (schema.enum) return fc.constantFrom(...schema.enum);
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives && alternatives.length > 0) {
    return fc.oneof(...alternatives.map((alternative) => fromJsonSchema(alternative, defs, depth)));
  }
  if (schema.allOf?.[0]) return fromJsonSchema(schema.allOf[0], defs, depth);
  if (Array.isArray(schema.type)) {
    return fc.oneof(...schema.type.map((type) => fromJsonSchema({ ...schema, type }, defs, depth)));
  }
  switch (schema.type) {
    case 'string':
      return stringOf(schema);
    case 'integer':
      return fc.integer({
        min: Math.ceil(schema.minimum ?? (schema.exclusiveMinimum ?? -1_000_001) + 1),
        max: Math.floor(schema.maximum ?? (schema.exclusiveMaximum ?? 1_000_001) - 1),
      });
    case 'number':
      return fc.double({
        min: schema.minimum ?? schema.exclusiveMinimum ?? -1e6,
        max: schema.maximum ?? schema.exclusiveMaximum ?? 1e6,
        minExcluded: schema.exclusiveMinimum !== undefined,
        maxExcluded: schema.exclusiveMaximum !== undefined,
        noNaN: true,
      });
    case 'boolean':
      return fc.boolean();
    case 'null':
      return fc.constant(null);
    case 'array': {
      const minLength = schema.minItems ?? 0;
      return fc.array(
        schema.items ? fromJsonSchema(schema.items, defs, depth) : fc.jsonValue({ maxDepth: 1 }),
        {
          minLength,
          maxLength: Math.min(schema.maxItems ?? Number.POSITIVE_INFINITY, minLength + EXTRA_ITEMS),
        },
      );
    }
    case 'object': {
      const properties = Object.entries(schema.properties ?? {});
      return fc.record(
        Object.fromEntries(
          properties.map(([name, property]) => [name, fromJsonSchema(property, defs, depth)]),
        ),
        { requiredKeys: (schema.required ?? []).filter((name) => schema.properties?.[name]) },
      );
    }
    default:
      return fc.jsonValue({ maxDepth: 2 });
  }
}

function stringOf(schema: JsonSchema): fc.Arbitrary<string> {
  if (schema.pattern) return fc.stringMatching(new RegExp(schema.pattern));
  switch (schema.format) {
    case 'uri':
    case 'url':
      return fc.webUrl({ validSchemes: ['https'] });
    case 'email':
      return fc.emailAddress();
    case 'date-time':
      return fc.date({ noInvalidDate: true }).map((date) => date.toISOString());
    case 'uuid':
      return fc.uuid();
  }
  const minLength = schema.minLength ?? 0;
  return fc.string({
    minLength,
    maxLength: Math.min(schema.maxLength ?? Number.POSITIVE_INFINITY, minLength + EXTRA_LENGTH),
  });
}
