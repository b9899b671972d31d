/**
 * Turns request credentials into a principal. API keys (`X-Api-Key`) are looked up by hash; OAuth
 * access tokens (`Authorization: Bearer`) are JWTs verified against the configured issuer's JWKS.
 * A request carrying both is API-key authenticated, as the spec says.
 *
 * Results are cached per credential for `authCacheTtlSeconds`: API Gateway's own authorizer cache
 * needs every identity source present on every request, which a two-header scheme cannot promise.
 */
import { createHash } from 'node:crypto';
import { createRemoteJWKSet, type JWTPayload, jwtVerify } from 'jose';
import { config } from '../core/config.js';
import { nowSeconds } from '../core/ids.js';
import { onProcessReset } from '../core/process-state.js';
import { findApiKeyBySecret, SCOPE_MODES } from './api-keys.js';
import { AUTH_TYPES, type Principal } from './principal.js';
import { getWorkspace, WORKSPACE_STATUS } from './workspaces.js';

export const AUTH_FAILURES = {
  unauthorized: 'unauthorized',
  workspaceRevoked: 'api_key_owner_workspace_access_revoked',
} as const;
export type AuthFailureCode = (typeof AUTH_FAILURES)[keyof typeof AUTH_FAILURES];

export type AuthOutcome =
  | { ok: true; principal: Principal }
  | { ok: false; code: AuthFailureCode; message: string };

const failure = (code: AuthFailureCode, message: string): AuthOutcome => ({ ok: false, code, message });
const INVALID = failure(AUTH_FAILURES.unauthorized, 'Missing, invalid or expired credentials.');
const REVOKED = failure(
  AUTH_FAILURES.workspaceRevoked,
  "The key's owner no longer has access to its workspace, or the workspace was deleted.",
);

interface CacheEntry {
  outcome: AuthOutcome;
  until: number;
}
const cache = new Map<string, CacheEntry>();
const MAX_CACHE_ENTRIES = 10_000;

export function clearAuthCache(): void {
  cache.clear();
}
onProcessReset(clearAuthCache);

function header(
  headers: Record<string, string | undefined> | null | undefined,
  name: string,
): string | undefined {
  if (!headers) return undefined;
  const wanted = name.toLowerCase();
  for (const [key, value] of Object.entries(headers)) if (key.toLowerCase() === wanted) return value;
  return undefined;
}

export async function authenticate(
  headers: Record<string, string | undefined> | null | undefined,
): Promise<AuthOutcome> {
  const apiKey = header(headers, 'x-api-key')?.trim();
  const authorization = header(headers, 'authorization')?.trim();
  const bearer = authorization?.match(/^Bearer\s+(\S+)$/i)?.[1];
  const credential = apiKey ? `key:${apiKey}` : bearer ? `jwt:${bearer}` : undefined;
  if (!credential) return INVALID;

  const cacheKey = createHash('sha256').update(credential).digest('hex');
  const now = Date.now();
  const cached = cache.get(cacheKey);
  if (cached && cached.until > now) {
    // Least recently used goes first: a hit moves the entry to the back.
    cache.delete(cacheKey);
    cache.set(cacheKey, cached);
    return revalidateExpiry(cached.outcome);
  }

  const outcome = apiKey ? await authenticateApiKey(apiKey) : await authenticateJwt(bearer ?? '');
  const ttlMs = config().authCacheTtlSeconds * 1000;
  // Only credentials that exist are cached: a flood of made-up keys must not evict real callers.
  const known = outcome.ok || outcome.code === AUTH_FAILURES.workspaceRevoked;
  if (ttlMs > 0 && known) {
    cache.delete(cacheKey);
    if (cache.size >= MAX_CACHE_ENTRIES) {
      const oldest = cache.keys().next().value;
      if (oldest !== undefined) cache.delete(oldest);
    }
    cache.set(cacheKey, { outcome, until: now + ttlMs });
  }
  return outcome;
}

/** A cached principal still expires on time. */
function revalidateExpiry(outcome: AuthOutcome): AuthOutcome {
  if (outcome.ok && outcome.principal.expiresAt !== null && outcome.principal.expiresAt <= nowSeconds())
    return INVALID;
  return outcome;
}

async function authenticateApiKey(secret: string): Promise<AuthOutcome> {
  const key = await findApiKeyBySecret(secret);
  if (!key || key.revoked_at !== null) return INVALID;
  if (key.expires_at !== null && key.expires_at <= nowSeconds()) return INVALID;
  const workspace = await getWorkspace(key.workspace_id);
  if (!workspace || workspace.status !== WORKSPACE_STATUS.active) return REVOKED;
  return {
    ok: true,
    principal: {
      workspaceId: workspace.workspace_id,
      authType: AUTH_TYPES.apiKey,
      credentialId: key.key_id,
      name: key.name,
      username: workspace.owner.username,
      scopeMode: key.scope_mode,
      scopes: key.scopes,
      expiresAt: key.expires_at,
      plan: workspace.plan,
      billingType: workspace.billing_type,
      rateLimits: workspace.rate_limits ?? {},
      restrictions: workspace.restrictions ?? {},
    },
  };
}

let jwks: ReturnType<typeof createRemoteJWKSet> | undefined;
let jwksFor: string | undefined;

function issuerKeys(): ReturnType<typeof createRemoteJWKSet> {
  const url = config().jwksUrl;
  if (!jwks || jwksFor !== url) {
    jwks = createRemoteJWKSet(new URL(url));
    jwksFor = url;
  }
  return jwks;
}

function scopesOf(payload: JWTPayload): string[] {
  const scope = payload.scope ?? payload.scp;
  if (typeof scope === 'string') return scope.split(' ').filter(Boolean);
  if (Array.isArray(scope)) return scope.filter((value): value is string => typeof value === 'string');
  return [];
}

async function authenticateJwt(token: string): Promise<AuthOutcome> {
  const settings = config();
  if (!settings.jwtIssuer) return INVALID; // OAuth is not configured for this deployment
  let payload: JWTPayload;
  try {
    ({ payload } = await jwtVerify(token, issuerKeys(), {
      issuer: settings.jwtIssuer,
      ...(settings.jwtAudience ? { audience: settings.jwtAudience } : {}),
      // A token that never expires cannot be revoked: refuse it.
      requiredClaims: ['exp', 'sub'],
    }));
  } catch {
    return INVALID;
  }
  const workspaceId = payload[settings.jwtWorkspaceClaim];
  if (typeof workspaceId !== 'string' || !payload.sub) return INVALID;
  const workspace = await getWorkspace(workspaceId);
  if (!workspace || workspace.status !== WORKSPACE_STATUS.active) return REVOKED;
  const scopes = scopesOf(payload);
  const scopeMode = scopes.includes('*:*')
    ? SCOPE_MODES.full
    : scopes.length === 1 && scopes[0] === '*:read'
      ? SCOPE_MODES.read_only
      : SCOPE_MODES.custom;
  const clientId = typeof payload.client_id === 'string' ? payload.client_id : payload.sub;
  return {
    ok: true,
    principal: {
      workspaceId,
      authType: AUTH_TYPES.oauth,
      credentialId: payload.sub,
      name: clientId,
      username: payload.sub,
      scopeMode,
      scopes,
      expiresAt: payload.exp ?? null,
      plan: workspace.plan,
      billingType: workspace.billing_type,
      rateLimits: workspace.rate_limits ?? {},
      restrictions: workspace.restrictions ?? {},
    },
  };
}
