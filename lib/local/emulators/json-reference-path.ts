/**
 * Reference paths: the subset of JSONPath that Amazon States Language `*Path` fields and
 * EventBridge `InputPath` accept. A reference path names one node: `$`, `$.a.b`, `$['a b']`,
 * `$.list[0]`. Filters, wildcards, slices and recursive descent are not reference paths.
 */

/** The path is not a reference path. */
export class InvalidReferencePathError extends Error {
  readonly path: string;

  constructor(path: string, reason: string) {
    super(`Invalid reference path ${JSON.stringify(path)}: ${reason}`);
    this.name = 'InvalidReferencePathError';
    this.path = path;
  }
}

export type PathSegment = string | number;

const NAME_CHARACTER = /[^.[\]\s]/;

/** Splits a reference path after its `$` into member names and array indexes. */
export function parseReferencePath(path: string): PathSegment[] {
  if (!path.startsWith('$')) throw new InvalidReferencePathError(path, 'must start with $');
  const segments: PathSegment[] = [];
  let position = 1;
  while (position < path.length) {
    const character = path[position];
    if (character === '.') {
      let end = position + 1;
      while (end < path.length && NAME_CHARACTER.test(path[end] ?? '')) end += 1;
      const name = path.slice(position + 1, end);
      if (name.length === 0 || name === '*')
        throw new InvalidReferencePathError(path, `bad member at ${position}`);
      segments.push(name);
      position = end;
    } else if (character === '[') {
      const close = path.indexOf(']', position);
      if (close === -1) throw new InvalidReferencePathError(path, 'unclosed [');
      const inner = path.slice(position + 1, close);
      const quoted = /^'([^']*)'$/.exec(inner) ?? /^"([^"]*)"$/.exec(inner);
      if (quoted) segments.push(quoted[1] ?? '');
      else if (/^\d+$/.test(inner)) segments.push(Number(inner));
      else throw new InvalidReferencePathError(path, `unsupported selector [${inner}]`);
      position = close + 1;
    } else {
      throw new InvalidReferencePathError(path, `unexpected ${JSON.stringify(character)} at ${position}`);
    }
  }
  return segments;
}

/** The node `segments` lead to, or `undefined` when any step is missing. */
export function readPath(root: unknown, segments: readonly PathSegment[]): unknown {
  let node: unknown = root;
  for (const segment of segments) {
    if (typeof segment === 'number') {
      if (!Array.isArray(node)) return undefined;
      node = node[segment];
    } else {
      if (node === null || typeof node !== 'object' || Array.isArray(node)) return undefined;
      node = Object.hasOwn(node, segment) ? (node as Record<string, unknown>)[segment] : undefined;
    }
  }
  return node;
}
