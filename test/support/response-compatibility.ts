/**
 * Whether a response schema of ours can be read by a client generated from the hosted API's schema for
 * the same operation: every field the reference requires is one we always send, with a type the
 * client accepts (an integer where it reads a number, null only where it allows null, enum values
 * among its own), recursively through objects and arrays.
 */
type JsonSchema = {
  type?: string | string[];
  nullable?: boolean;
  enum?: unknown[];
  const?: unknown;
  properties?: Record<string, JsonSchema>;
  required?: string[];
  items?: JsonSchema;
  anyOf?: JsonSchema[];
  oneOf?: JsonSchema[];
  allOf?: JsonSchema[];
};

/** The JSON types a schema admits; undefined when it does not say (any). */
function typesOf(schema: JsonSchema): Set<string> | undefined {
  const alternatives = schema.anyOf ?? schema.oneOf;
  if (alternatives) {
    const all = alternatives.map(typesOf);
    if (all.some((types) => types === undefined)) return undefined;
    return new Set(all.flatMap((types) => [...(types as Set<string>)]));
  }
  if (schema.const !== undefined) return new Set([schema.const === null ? 'null' : typeof schema.const]);
  if (schema.enum) return new Set(schema.enum.map((value) => (value === null ? 'null' : typeof value)));
  if (schema.type === undefined) return undefined;
  // Some reference schemas write a union as one type name (`"string|null"`, the overdubs' next_token).
  const types = new Set(
    (Array.isArray(schema.type) ? schema.type : [schema.type]).flatMap((type) => type.split('|')),
  );
  if (schema.nullable) types.add('null');
  return types;
}

/** The branch of ours that is not `null` (zod writes `.nullable()` as anyOf [T, null]). */
function nonNull(schema: JsonSchema): JsonSchema {
  const alternatives = (schema.anyOf ?? schema.oneOf)?.filter((branch) => branch.type !== 'null');
  return alternatives?.length === 1 ? (alternatives[0] as JsonSchema) : schema;
}

export function responseIncompatibilities(ours: JsonSchema, reference: JsonSchema, at = 'body'): string[] {
  const problems: string[] = [];
  const theirs = typesOf(reference);
  const mine = typesOf(ours);
  if (theirs) {
    if (!mine) problems.push(`${at}: untyped, the reference reads ${[...theirs].join(' | ')}`);
    else {
      const accepted = new Set(theirs);
      if (accepted.has('number')) accepted.add('integer');
      const refused = [...mine].filter((type) => !accepted.has(type));
      if (refused.length > 0)
        problems.push(`${at}: sends ${refused.join(' | ')}, the reference reads ${[...theirs].join(' | ')}`);
    }
  }
  const body = nonNull(ours);
  if (reference.enum && body.enum) {
    const outside = body.enum.filter((value) => value !== null && !reference.enum?.includes(value));
    if (outside.length > 0)
      problems.push(`${at}: values ${JSON.stringify(outside)} are not among the reference's`);
  }
  if (reference.properties) {
    const required = new Set(body.required ?? []);
    const requiredByReference = new Set(reference.required ?? []);
    for (const [name, theirsProperty] of Object.entries(reference.properties)) {
      const property = body.properties?.[name];
      if (requiredByReference.has(name) && (!property || !required.has(name))) {
        problems.push(`${at}.${name}: required by the reference, ${property ? 'optional' : 'absent'} here`);
        continue;
      }
      // A field both send is read with the reference's type, required or not.
      if (property) problems.push(...responseIncompatibilities(property, theirsProperty, `${at}.${name}`));
    }
  }
  if (reference.items && body.items)
    problems.push(...responseIncompatibilities(body.items, reference.items, `${at}[]`));
  return problems;
}
