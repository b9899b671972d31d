/**
 * Lists that read several sources one after another (a workspace's own resources, then the stock
 * catalog) behind one opaque cursor. The cursor (`core/cursor.ts`, HMAC-signed and bound to the
 * workspace, operation and filters) holds which source comes next and that source's own position,
 * so a source may be an in-memory array (offsets) or a table query (its own cursor string).
 */
import { decodeCursor, encodeCursor } from '../core/cursor.js';
import { InvalidParameterError } from '../core/errors.js';

export interface Page<T> {
  items: T[];
  /** Where the next page starts; null when there is none. */
  nextToken: string | null;
}

/** One source of a list, read in its own order. */
export interface PageSource<T> {
  /** Up to `limit` items from `token` (undefined: the start). `nextToken` is null at the end. */
  page(limit: number, token: string | undefined): Promise<Page<T>>;
}

const invalidToken = () =>
  new InvalidParameterError('The pagination token is invalid: pass a next_token of this same list.', 'token');

/**
 * A source over an array, whose tokens are offsets. `view` turns the items of a page (only those)
 * into what the list returns, e.g. with presigned URLs.
 */
export function arraySource<T, V>(items: readonly T[], view: (item: T) => Promise<V> | V): PageSource<V> {
  return {
    async page(limit, token) {
      const start = token === undefined ? 0 : Number(token);
      if (!Number.isSafeInteger(start) || start < 0 || start > items.length) throw invalidToken();
      const slice = items.slice(start, start + limit);
      const end = start + slice.length;
      return {
        items: await Promise.all(slice.map((item) => view(item))),
        nextToken: end < items.length ? String(end) : null,
      };
    },
  };
}

/** A source with nothing in it (a kind of resource that cannot exist yet). */
export function emptySource<V>(): PageSource<V> {
  return { page: async () => ({ items: [], nextToken: null }) };
}

interface Position {
  /** Index of the source to read next. */
  source: number;
  /** That source's own token; undefined = its start. */
  token: string | undefined;
}

async function decodePosition(binding: string, token: string, sourceCount: number): Promise<Position> {
  const position = await decodeCursor(binding, token);
  const source = position.source;
  const inner = position.token;
  if (typeof source !== 'number' || !Number.isInteger(source) || source < 0 || source >= sourceCount) {
    throw invalidToken();
  }
  if (inner !== undefined && inner !== null && typeof inner !== 'string') throw invalidToken();
  return { source, token: inner ?? undefined };
}

const encodePosition = (binding: string, position: Position) =>
  encodeCursor(binding, { source: position.source, token: position.token ?? null });

/**
 * One page of `sources` read in order: up to `limit` items from where `token` left off. `binding`
 * names the workspace, operation and filters, so a token only works for the same list.
 */
export async function pageAcrossSources<V>(
  binding: string,
  sources: readonly PageSource<V>[],
  limit: number,
  token: string | undefined,
): Promise<Page<V>> {
  let position: Position =
    token === undefined
      ? { source: 0, token: undefined }
      : await decodePosition(binding, token, sources.length);
  const items: V[] = [];
  while (position.source < sources.length) {
    const source = sources[position.source] as PageSource<V>;
    if (items.length === limit) {
      // Full. There is a next page if this source said so, or if a later source has anything.
      if (position.token !== undefined) return { items, nextToken: await encodePosition(binding, position) };
      for (let next = position.source; next < sources.length; next++) {
        const probe = await (sources[next] as PageSource<V>).page(1, undefined);
        if (probe.items.length > 0) {
          return { items, nextToken: await encodePosition(binding, { source: next, token: undefined }) };
        }
      }
      return { items, nextToken: null };
    }
    const page = await source.page(limit - items.length, position.token);
    items.push(...page.items);
    position =
      page.nextToken === null
        ? { source: position.source + 1, token: undefined }
        : { source: position.source, token: page.nextToken };
  }
  return { items, nextToken: null };
}
