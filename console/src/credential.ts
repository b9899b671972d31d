/**
 * The credential the page calls the API with. It lives only in this tab's session storage: closing
 * the tab forgets it, and no other tab or site can read it. An API key goes in `X-Api-Key`, an OAuth
 * access token in `Authorization: Bearer`, as the API expects.
 */
import { signal } from '@preact/signals';

export type Credential = { kind: 'api_key'; secret: string } | { kind: 'oauth'; accessToken: string };

const STORAGE_KEY = 'video-console.credential';
const WARNING_SEEN_KEY = 'video-console.key-warning-seen';

function stored(): Credential | null {
  try {
    const raw = sessionStorage.getItem(STORAGE_KEY);
    return raw ? (JSON.parse(raw) as Credential) : null;
  } catch {
    return null;
  }
}

export const credential = signal<Credential | null>(stored());

export function signIn(next: Credential): void {
  sessionStorage.setItem(STORAGE_KEY, JSON.stringify(next));
  credential.value = next;
}

export function signOut(): void {
  sessionStorage.removeItem(STORAGE_KEY);
  credential.value = null;
}

export function authorizationHeaders(value: Credential | null): Record<string, string> {
  if (!value) return {};
  return value.kind === 'api_key'
    ? { 'X-Api-Key': value.secret }
    : { Authorization: `Bearer ${value.accessToken}` };
}

/** The warning about keys in browsers is shown once per tab session, before the first key is used. */
export function keyWarningSeen(): boolean {
  return sessionStorage.getItem(WARNING_SEEN_KEY) === 'yes';
}

export function markKeyWarningSeen(): void {
  sessionStorage.setItem(WARNING_SEEN_KEY, 'yes');
}
