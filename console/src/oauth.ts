/**
 * OAuth sign-in: the authorization code flow with PKCE (RFC 7636) against the issuer the stack is
 * configured with, for a public client (no secret in the page). The verifier and state wait in
 * session storage while the browser visits the issuer; the access token the issuer returns is the
 * credential, sent as `Authorization: Bearer`.
 */
import { signIn } from './credential.ts';
import type { OAuthSettings } from './settings.ts';

const PENDING_KEY = 'video-console.oauth-pending';

interface Discovery {
  authorization_endpoint: string;
  token_endpoint: string;
}

interface PendingSignIn {
  state: string;
  verifier: string;
  tokenEndpoint: string;
}

function base64Url(bytes: Uint8Array): string {
  return btoa(String.fromCharCode(...bytes))
    .replaceAll('+', '-')
    .replaceAll('/', '_')
    .replace(/=+$/, '');
}

function randomToken(): string {
  return base64Url(crypto.getRandomValues(new Uint8Array(32)));
}

const redirectUri = () => `${window.location.origin}/console/`;

async function discover(issuer: string): Promise<Discovery> {
  const response = await fetch(`${issuer.replace(/\/$/, '')}/.well-known/openid-configuration`);
  if (!response.ok) throw new Error(`The issuer's discovery document answered ${response.status}`);
  return (await response.json()) as Discovery;
}

export async function startOAuthSignIn(oauth: OAuthSettings): Promise<void> {
  const discovery = await discover(oauth.issuer);
  const verifier = randomToken();
  const state = randomToken();
  const challenge = base64Url(
    new Uint8Array(await crypto.subtle.digest('SHA-256', new TextEncoder().encode(verifier))),
  );
  const pending: PendingSignIn = { state, verifier, tokenEndpoint: discovery.token_endpoint };
  sessionStorage.setItem(PENDING_KEY, JSON.stringify(pending));
  const query = new URLSearchParams({
    response_type: 'code',
    client_id: oauth.client_id,
    redirect_uri: redirectUri(),
    scope: oauth.scope,
    state,
    code_challenge: challenge,
    code_challenge_method: 'S256',
    ...(oauth.audience ? { audience: oauth.audience } : {}),
  });
  window.location.assign(`${discovery.authorization_endpoint}?${query}`);
}

/** On the way back from the issuer (`?code=…&state=…`): trades the code for the access token. */
export async function completeOAuthSignIn(oauth: OAuthSettings | null): Promise<void> {
  const query = new URLSearchParams(window.location.search);
  const code = query.get('code');
  const raw = sessionStorage.getItem(PENDING_KEY);
  if (!oauth || !raw || (!code && !query.get('error'))) return;
  sessionStorage.removeItem(PENDING_KEY);
  window.history.replaceState(null, '', `/console/${window.location.hash}`);
  const pending = JSON.parse(raw) as PendingSignIn;
  if (query.get('error')) throw new Error(`The issuer refused the sign-in: ${query.get('error')}`);
  if (query.get('state') !== pending.state) throw new Error('The sign-in answer does not match its request.');
  const response = await fetch(pending.tokenEndpoint, {
    method: 'POST',
    headers: { 'Content-Type': 'application/x-www-form-urlencoded' },
    body: new URLSearchParams({
      grant_type: 'authorization_code',
      code: code ?? '',
      redirect_uri: redirectUri(),
      client_id: oauth.client_id,
      code_verifier: pending.verifier,
    }),
  });
  if (!response.ok) throw new Error(`The issuer's token endpoint answered ${response.status}`);
  const { access_token: accessToken } = (await response.json()) as { access_token: string };
  signIn({ kind: 'oauth', accessToken });
}
