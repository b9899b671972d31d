/**
 * The workspace's callback secret: one-off callbacks (`callback_url` of a job or batch) have no
 * endpoint, so they are signed with this secret, the same way endpoint deliveries are. A workspace
 * has none until it asks for one (`POST /v3/webhooks/callback-secret`, which also rotates it); until
 * then callbacks go out unsigned, with only their id and timestamp headers. The secret is shown only
 * in that response, stored encrypted like endpoint secrets, and read at every send, so a rotation
 * takes effect at once.
 */
import { ConflictError } from '../core/errors.js';
import { getItem, putItem, putNewItem } from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import { encryptSecret, newEndpointSecret } from './endpoint-secrets.js';

/**
 * Stands for the endpoint in the encryption context of the callback secret: the KMS grant of webhook
 * functions requires that key, and no endpoint id (32 hex digits) can equal it.
 */
export const CALLBACK_SECRET_CONTEXT_ID = 'callbacks';

interface CallbackSecretItem {
  pk: string;
  sk: string;
  secret_ciphertext: string;
  secret_version: number;
  /** ISO 8601 UTC of the latest rotation. */
  rotated_at: string;
}

const secretKey = (workspaceId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.webhookCallbackSecret, 'current');

/** The stored (encrypted) secret, or undefined when the workspace has none. */
export async function getCallbackSecretItem(workspaceId: string): Promise<CallbackSecretItem | undefined> {
  return getItem<CallbackSecretItem>(secretKey(workspaceId), true);
}

/** Creates or replaces the callback secret; the old one stops signing at once. */
export async function rotateCallbackSecret(
  workspaceId: string,
): Promise<{ secret: string; rotated_at: string }> {
  const current = await getCallbackSecretItem(workspaceId);
  const secret = newEndpointSecret();
  const item: CallbackSecretItem = {
    ...secretKey(workspaceId),
    secret_ciphertext: await encryptSecret(workspaceId, CALLBACK_SECRET_CONTEXT_ID, secret),
    secret_version: (current?.secret_version ?? 0) + 1,
    rotated_at: new Date().toISOString(),
  };
  // Two rotations at once: only one secret may win, and only its caller may be told it.
  const written = current
    ? await putItem(
        { ...item },
        {
          ConditionExpression: 'secret_version = :version',
          ExpressionAttributeValues: { ':version': current.secret_version },
        },
      ).then(
        () => true,
        (error: unknown) => {
          if ((error as { name?: string }).name === 'ConditionalCheckFailedException') return false;
          throw error;
        },
      )
    : await putNewItem({ ...item });
  if (!written) {
    throw new ConflictError(
      'The callback secret was rotated by another request at the same time. Retry.',
      'conflict',
    );
  }
  return { secret, rotated_at: item.rotated_at };
}
