/**
 * The authenticated caller, as the authorizer hands it to every route handler. API Gateway allows only
 * flat string/number/boolean context values, so the principal travels as strings and is parsed back
 * with a schema: a missing or malformed context is treated as no credentials (401), never as a
 * silent anonymous call.
 */
import { z } from 'zod';
import { BILLING_TYPES, PLANS, type RateLimitOverrides, type WorkspaceRestrictions } from './workspaces.js';

export const AUTH_TYPES = { apiKey: 'api_key', oauth: 'oauth' } as const;
export type AuthType = (typeof AUTH_TYPES)[keyof typeof AUTH_TYPES];

export interface Principal {
  workspaceId: string;
  authType: AuthType;
  /** The API key id, or the OAuth subject. */
  credentialId: string;
  /** Key name (OAuth: the client id or subject). */
  name: string;
  /** The user acting: the workspace owner for API keys, the token subject for OAuth. */
  username: string;
  scopeMode: 'full' | 'read_only' | 'custom';
  scopes: string[];
  /** Unix seconds, or null. */
  expiresAt: number | null;
  plan: (typeof PLANS)[number];
  billingType: (typeof BILLING_TYPES)[number];
  rateLimits: RateLimitOverrides;
  /** What an administrator restricted for the workspace (account-policy.ts). */
  restrictions: WorkspaceRestrictions;
}

export type AuthorizerContext = Record<string, string>;

export function toAuthorizerContext(principal: Principal): AuthorizerContext {
  return {
    workspaceId: principal.workspaceId,
    authType: principal.authType,
    credentialId: principal.credentialId,
    name: principal.name,
    username: principal.username,
    scopeMode: principal.scopeMode,
    scopes: principal.scopes.join(' '),
    expiresAt: principal.expiresAt === null ? '' : String(principal.expiresAt),
    plan: principal.plan,
    billingType: principal.billingType,
    rateLimits: JSON.stringify(principal.rateLimits),
    restrictions: JSON.stringify(principal.restrictions),
  };
}

const contextSchema = z.object({
  workspaceId: z.string().min(1),
  authType: z.enum([AUTH_TYPES.apiKey, AUTH_TYPES.oauth]),
  credentialId: z.string().min(1),
  name: z.string(),
  username: z.string(),
  scopeMode: z.enum(['full', 'read_only', 'custom']),
  scopes: z.string(),
  expiresAt: z.string(),
  plan: z.enum(PLANS),
  billingType: z.enum(BILLING_TYPES),
  rateLimits: z.string(),
  restrictions: z.string(),
});

/** Parses the authorizer context; undefined when there is none (an unauthenticated route). */
export function fromAuthorizerContext(context: unknown): Principal | undefined {
  const parsed = contextSchema.safeParse(context);
  if (!parsed.success) return undefined;
  const value = parsed.data;
  return {
    workspaceId: value.workspaceId,
    authType: value.authType,
    credentialId: value.credentialId,
    name: value.name,
    username: value.username,
    scopeMode: value.scopeMode,
    scopes: value.scopes.split(' ').filter(Boolean),
    expiresAt: value.expiresAt ? Number(value.expiresAt) : null,
    plan: value.plan,
    billingType: value.billingType,
    rateLimits: JSON.parse(value.rateLimits) as RateLimitOverrides,
    restrictions: JSON.parse(value.restrictions) as WorkspaceRestrictions,
  };
}
