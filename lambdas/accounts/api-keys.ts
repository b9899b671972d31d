/**
 * API keys. The key itself is shown once, at creation; the table stores only its SHA-256, so a
 * leaked table never leaks a usable key. Keys are found by hash, listed per workspace through GSI1.
 */
import { createHash, randomBytes } from 'node:crypto';
import { newId, nowSeconds } from '../core/ids.js';
import { getItem, putNewItem, queryPage, updateExistingItem } from '../core/repository.js';
import { keys } from '../core/table-schema.js';

export const SCOPE_MODES = { full: 'full', read_only: 'read_only', custom: 'custom' } as const;
export type ScopeMode = (typeof SCOPE_MODES)[keyof typeof SCOPE_MODES];

/** The scopes a key of each mode holds; custom keys hold exactly what they were given. */
export const SCOPES_OF_MODE = { full: ['*:*'], read_only: ['*:read'] } as const;

const KEY_PREFIX = 'vcs_';

export interface ApiKey {
  key_id: string;
  workspace_id: string;
  name: string;
  scope_mode: ScopeMode;
  scopes: string[];
  /** Unix seconds; null: never expires. */
  expires_at: number | null;
  created_at: number;
  revoked_at: number | null;
  /** The first characters of the key, to recognise it in lists. */
  key_hint: string;
}

type ApiKeyItem = ApiKey & { pk: string; sk: string; gsi1pk: string; gsi1sk: string; key_hash: string };

export function hashApiKey(apiKey: string): string {
  return createHash('sha256').update(apiKey).digest('hex');
}

function workspaceKeysPartition(workspaceId: string): string {
  return `WS#${workspaceId}#APIKEYS`;
}

function toApiKey(item: ApiKeyItem): ApiKey {
  const { pk: _pk, sk: _sk, gsi1pk: _a, gsi1sk: _b, key_hash: _hash, ...apiKey } = item;
  return apiKey;
}

export interface NewApiKey {
  workspace_id: string;
  name: string;
  scope_mode: ScopeMode;
  /** Required for `custom`, ignored otherwise. */
  scopes?: string[];
  expires_at?: number | null;
  /** Use this secret instead of a random one (the local stack keeps its development key stable). */
  secret?: string;
}

/** Creates a key and returns it with its secret: the only time the secret exists outside the caller. */
export async function createApiKey(input: NewApiKey): Promise<{ apiKey: ApiKey; secret: string }> {
  const secret = input.secret ?? `${KEY_PREFIX}${randomBytes(32).toString('base64url')}`;
  const keyHash = hashApiKey(secret);
  const keyId = newId();
  const scopes =
    input.scope_mode === 'custom' ? [...new Set(input.scopes ?? [])] : [...SCOPES_OF_MODE[input.scope_mode]];
  const apiKey: ApiKey = {
    key_id: keyId,
    workspace_id: input.workspace_id,
    name: input.name,
    scope_mode: input.scope_mode,
    scopes,
    expires_at: input.expires_at ?? null,
    created_at: nowSeconds(),
    revoked_at: null,
    key_hint: secret.slice(0, KEY_PREFIX.length + 4),
  };
  const created = await putNewItem({
    ...keys.apiKeyByHash(keyHash),
    gsi1pk: workspaceKeysPartition(input.workspace_id),
    gsi1sk: keyId,
    key_hash: keyHash,
    ...apiKey,
  });
  if (!created) throw new Error('An API key with this secret already exists');
  return { apiKey, secret };
}

export async function findApiKeyBySecret(secret: string): Promise<ApiKey | undefined> {
  const item = await getItem<ApiKeyItem>(keys.apiKeyByHash(hashApiKey(secret)));
  return item ? toApiKey(item) : undefined;
}

export async function listApiKeys(workspaceId: string, limit = 100, token?: string) {
  const page = await queryPage<ApiKeyItem>({
    partition: workspaceKeysPartition(workspaceId),
    index: 'gsi1',
    limit,
    token,
    binding: `admin:api-keys:${workspaceId}`,
  });
  return { items: page.items.map(toApiKey), nextToken: page.nextToken };
}

/** Revokes a key by id. Returns the revoked key, or undefined when the workspace has no such key. */
export async function revokeApiKey(workspaceId: string, keyId: string): Promise<ApiKey | undefined> {
  let token: string | undefined;
  do {
    const page = await queryPage<ApiKeyItem>({
      partition: workspaceKeysPartition(workspaceId),
      index: 'gsi1',
      limit: 100,
      token,
      binding: `admin:api-keys:${workspaceId}`,
    });
    const match = page.items.find((item) => item.key_id === keyId);
    if (match) {
      const updated = await updateExistingItem<ApiKeyItem>(
        { pk: match.pk, sk: match.sk },
        { revoked_at: nowSeconds() },
      );
      return updated ? toApiKey(updated) : undefined;
    }
    token = page.nextToken ?? undefined;
  } while (token);
  return undefined;
}
