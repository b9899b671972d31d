/**
 * The OpenAI-compatible HTTP client (openai-compatible-client.ts) as each capability's engines make
 * it: from the capability's `ModelServerConfig` (`<PREFIX>_BASE_URL`, `_MODEL`, `_API_KEY`,
 * `_API_KEY_SECRET`, `_TIMEOUT_MS`) and the shared retry settings of core/config.ts.
 */
import { type ModelServerConfig, modelEnginesConfig } from '../../core/config.js';
import type { JobFailure } from '../../core/errors.js';
import { apiKeyReader } from './api-keys.js';
import { type ModelServerFailure, OpenAiCompatibleClient } from './openai-compatible-client.js';

export { apiKeyReader } from './api-keys.js';
export * from './openai-compatible-client.js';

export interface ModelServerClientOptions {
  /** What the user reads the server is for, e.g. `Speech recognition`. */
  capability: string;
  /** The settings' prefix, e.g. `SPEECH_RECOGNITION`. */
  prefix: string;
  failure: (kind: ModelServerFailure, message: string, cause?: unknown) => JobFailure;
}

/** A client of the capability's configured model server. */
export function modelServerClient(
  server: ModelServerConfig,
  { capability, prefix, failure }: ModelServerClientOptions,
): OpenAiCompatibleClient {
  const shared = modelEnginesConfig();
  return new OpenAiCompatibleClient({
    capability,
    baseUrl: server.baseUrl,
    model: server.model,
    apiKey: apiKeyReader(server),
    apiKeySettings: `${prefix}_API_KEY or the secret ${prefix}_API_KEY_SECRET names`,
    timeoutMs: server.timeoutMs,
    retries: shared.modelHttpRetries,
    retryBaseMs: shared.modelHttpRetryBaseMs,
    maxRetryAfterMs: shared.modelHttpMaxRetryAfterMs,
    allowPrivateHosts: shared.modelHostsAllowPrivate,
    failure,
  });
}
