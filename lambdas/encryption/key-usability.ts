/**
 * Whether a workspace's active customer key can encrypt media right now: `DescribeKey`, answered
 * from a per-process cache for `encryptionKeyCacheTtlSeconds` (a disabled key therefore takes
 * effect within that time), with a deadline so a slow KMS turns into a retryable 503, not a hung
 * request.
 */
import { DescribeKeyCommand, type KeyMetadata } from '@aws-sdk/client-kms';
import { kmsClient } from '../core/aws-clients.js';
import { config } from '../core/config.js';
import { onProcessReset } from '../core/process-state.js';

/** What a media write may do with the key. */
export type KeyUsability =
  | { usable: true }
  /** The key exists but cannot be used: a 403, until someone fixes the key. */
  | { usable: false; reason: string }
  /** KMS could not say: a 503, retry. */
  | { usable: 'unknown'; cause: unknown };

/** Key states in which the key cannot encrypt until its owner acts. */
const REFUSING_STATES: Readonly<Record<string, string>> = {
  Disabled: "this workspace's customer-managed key is disabled.",
  PendingDeletion: "this workspace's customer-managed key is scheduled for deletion.",
  PendingReplicaDeletion: "this workspace's customer-managed key is scheduled for deletion.",
  PendingImport: "this workspace's customer-managed key has no key material.",
};

/** Errors of DescribeKey that are answers about the key, not about KMS's availability. */
const REFUSING_ERRORS: Readonly<Record<string, string>> = {
  NotFoundException: "this workspace's customer-managed key no longer exists.",
  AccessDeniedException: "the service is no longer allowed to use this workspace's customer-managed key.",
  InvalidArnException: "this workspace's customer-managed key ARN is not valid.",
};

interface CachedAnswer {
  answer: KeyUsability;
  expiresAt: number;
}

const cache = new Map<string, CachedAnswer>();

/** Forget every cached key answer (tests, and the local stack on restart). */
export function clearKeyUsabilityCache(): void {
  cache.clear();
}
onProcessReset(clearKeyUsabilityCache);

export function usabilityOf(metadata: KeyMetadata | undefined): KeyUsability {
  const state = metadata?.KeyState ?? 'Unknown';
  if (state === 'Enabled') return { usable: true };
  const refusal = REFUSING_STATES[state];
  if (refusal) return { usable: false, reason: refusal };
  // Unavailable (a disconnected custom key store), Creating, Updating: a matter of time.
  return { usable: 'unknown', cause: new Error(`Key state ${state}`) };
}

/** Whether `keyArn` can encrypt media now; never throws. */
export async function customerKeyUsability(keyArn: string): Promise<KeyUsability> {
  const now = Date.now();
  const cached = cache.get(keyArn);
  if (cached && cached.expiresAt > now) return cached.answer;
  let answer: KeyUsability;
  try {
    const described = await kmsClient().send(new DescribeKeyCommand({ KeyId: keyArn }), {
      abortSignal: AbortSignal.timeout(config().encryptionKmsTimeoutMs),
    });
    answer = usabilityOf(described.KeyMetadata);
  } catch (error) {
    const refusal = REFUSING_ERRORS[(error as { name?: string }).name ?? ''];
    answer = refusal ? { usable: false, reason: refusal } : { usable: 'unknown', cause: error };
  }
  // An answer about the key is reused; "KMS could not say" is asked again on the next write.
  if (answer.usable !== 'unknown') {
    const ttlMs = config().encryptionKeyCacheTtlSeconds * 1000;
    if (ttlMs > 0) cache.set(keyArn, { answer, expiresAt: now + ttlMs });
  }
  return answer;
}
