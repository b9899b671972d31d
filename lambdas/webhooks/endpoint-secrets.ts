/**
 * Endpoint signing secrets. A secret must be usable for signing, so it is stored encrypted with the
 * stack's KMS key (not hashed), bound to its workspace and endpoint by the encryption context: a
 * ciphertext copied to another endpoint does not decrypt.
 */
import { randomBytes } from 'node:crypto';
import { DecryptCommand, EncryptCommand } from '@aws-sdk/client-kms';
import { kmsClient } from '../core/aws-clients.js';
import { config } from '../core/config.js';

export function newEndpointSecret(): string {
  return `whsec_${randomBytes(32).toString('base64url')}`;
}

function context(workspaceId: string, endpointId: string) {
  return { workspace_id: workspaceId, webhook_endpoint_id: endpointId };
}

export async function encryptSecret(
  workspaceId: string,
  endpointId: string,
  secret: string,
): Promise<string> {
  const result = await kmsClient().send(
    new EncryptCommand({
      KeyId: config().stackKeyId,
      Plaintext: Buffer.from(secret),
      EncryptionContext: context(workspaceId, endpointId),
    }),
  );
  if (!result.CiphertextBlob) throw new Error('KMS Encrypt returned no ciphertext');
  return Buffer.from(result.CiphertextBlob).toString('base64');
}

export async function decryptSecret(
  workspaceId: string,
  endpointId: string,
  ciphertext: string,
): Promise<string> {
  const result = await kmsClient().send(
    new DecryptCommand({
      CiphertextBlob: Buffer.from(ciphertext, 'base64'),
      EncryptionContext: context(workspaceId, endpointId),
    }),
  );
  if (!result.Plaintext) throw new Error('KMS Decrypt returned no plaintext');
  return Buffer.from(result.Plaintext).toString('utf8');
}
