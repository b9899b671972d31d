/**
 * API keys of model servers: `<PREFIX>_API_KEY` as given (local development, self-hosted servers), or,
 * deployed, the Secrets Manager secret `<PREFIX>_API_KEY_SECRET` names, read with Powertools'
 * parameters utility (cached for `API_KEY_CACHE_SECONDS`, so a rotated key is picked up within it) through
 * the service's configured SDK client (core/aws-clients.ts: traced, and checked by the local stack).
 */

import { SecretsProvider } from '@aws-lambda-powertools/parameters/secrets';
import { SecretsManagerClient } from '@aws-sdk/client-secrets-manager';
import { configuredClient } from '../../core/aws-clients.js';
import type { ModelServerConfig } from '../../core/config.js';
import { onProcessReset } from '../../core/process-state.js';

/** How long a key read from Secrets Manager is reused. */
export const API_KEY_CACHE_SECONDS = 300;

let provider: SecretsProvider | undefined;

function secrets(): SecretsProvider {
  provider ??= new SecretsProvider({ awsSdkV3Client: configuredClient(new SecretsManagerClient({})) });
  return provider;
}

/**
 * How an engine gets its server's key on each request: the key itself, the secret's value (a plain
 * string, or JSON with an `api_key`/`apiKey` field), or none (servers without authentication).
 */
export function apiKeyReader(
  server: Pick<ModelServerConfig, 'apiKey' | 'apiKeySecret'>,
): () => Promise<string | undefined> {
  if (server.apiKey) return async () => server.apiKey;
  if (!server.apiKeySecret) return async () => undefined;
  return async () => {
    const value = await secrets().get(server.apiKeySecret, { maxAge: API_KEY_CACHE_SECONDS });
    const text = typeof value === 'string' ? value : value ? Buffer.from(value).toString('utf8') : '';
    try {
      const parsed = JSON.parse(text) as { api_key?: unknown; apiKey?: unknown };
      const field = parsed.api_key ?? parsed.apiKey;
      if (typeof field === 'string') return field;
    } catch {
      // A plain string secret is the key itself.
    }
    return text.trim() || undefined;
  };
}

/** Forget the Secrets Manager reader and its cache. */
export function resetApiKeys(): void {
  provider = undefined;
}
onProcessReset(resetApiKeys);
