/**
 * A small typed client of the service's REST API v3, on the page's own origin. Every call carries
 * the signed-in credential; an error answer becomes an `ApiError` with the envelope's code, message
 * and offending field, which the pages show as they are (they say precisely what went wrong).
 */
import { authorizationHeaders, credential, signOut } from './credential.ts';

export class ApiError extends Error {
  constructor(
    readonly status: number,
    readonly code: string,
    message: string,
    readonly param: string | null,
  ) {
    super(message);
    this.name = 'ApiError';
  }
}

export interface ListPage<T> {
  data: T[];
  has_more: boolean;
  next_token: string | null;
}

interface ErrorEnvelope {
  error?: { code?: string; message?: string; param?: string | null } | null;
}

export async function apiRequest<T>(method: string, path: string, body?: unknown): Promise<T> {
  const headers: Record<string, string> = {
    Accept: 'application/json',
    ...authorizationHeaders(credential.value),
  };
  if (body !== undefined) headers['Content-Type'] = 'application/json';
  const response = await fetch(path, {
    method,
    headers,
    ...(body !== undefined ? { body: JSON.stringify(body) } : {}),
  });
  const text = await response.text();
  const parsed = text ? (JSON.parse(text) as unknown) : undefined;
  if (!response.ok) {
    const error = (parsed as ErrorEnvelope | undefined)?.error;
    // A credential the API no longer accepts is dropped, which brings back the sign-in page.
    if (response.status === 401) signOut();
    throw new ApiError(
      response.status,
      error?.code ?? 'http_error',
      error?.message ?? `${method} ${path} answered ${response.status}`,
      error?.param ?? null,
    );
  }
  return parsed as T;
}

export const get = <T>(path: string) => apiRequest<T>('GET', path);
export const post = <T>(path: string, body: unknown = {}) => apiRequest<T>('POST', path, body);
export const del = <T>(path: string) => apiRequest<T>('DELETE', path);

/** `{data}` of a single resource. */
export async function getData<T>(path: string): Promise<T> {
  return (await get<{ data: T }>(path)).data;
}

export async function postData<T>(path: string, body: unknown = {}): Promise<T> {
  return (await post<{ data: T }>(path, body)).data;
}

/** Every page of a list, up to `max` items (the console shows recent items, not a whole archive). */
export async function listAll<T>(path: string, max = 200): Promise<T[]> {
  const items: T[] = [];
  let token: string | null = null;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const page: ListPage<T> = await get<ListPage<T>>(
      token ? `${path}${separator}token=${encodeURIComponent(token)}` : path,
    );
    items.push(...page.data);
    token = page.has_more ? page.next_token : null;
  } while (token && items.length < max);
  return items;
}

export function describeError(error: unknown): string {
  if (error instanceof ApiError)
    return `${error.message} (${error.code}${error.param ? `, ${error.param}` : ''})`;
  return error instanceof Error ? error.message : String(error);
}
