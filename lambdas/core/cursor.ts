/**
 * Opaque, tamper-evident pagination cursors. A cursor is `base64url(position).base64url(mac)`, where
 * the MAC (HMAC-SHA256) covers the position and a binding: the workspace, the operation and its
 * filters. A cursor cannot be edited, forged, or replayed against another list or workspace.
 *
 * The MAC key is derived once per process from the stack's KMS HMAC key, so every function instance
 * agrees on it without a shared secret in configuration.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';
import { GenerateMacCommand } from '@aws-sdk/client-kms';
import { kmsClient } from './aws-clients.js';
import { config } from './config.js';
import { InvalidParameterError } from './errors.js';
import { onProcessReset } from './process-state.js';

const KEY_DERIVATION_MESSAGE = 'video-creation-service/pagination-cursor/v1';

let derivedKey: Promise<Buffer> | undefined;
// Derived from the stack's HMAC key, which a restarted local stack may have replaced.
onProcessReset(() => {
  derivedKey = undefined;
});

function cursorKey(): Promise<Buffer> {
  derivedKey ??= kmsClient()
    .send(
      new GenerateMacCommand({
        KeyId: config().hmacKeyId,
        MacAlgorithm: 'HMAC_SHA_256',
        Message: Buffer.from(KEY_DERIVATION_MESSAGE),
      }),
    )
    .then((response) => {
      if (!response.Mac) throw new Error('KMS GenerateMac returned no MAC');
      return Buffer.from(response.Mac);
    })
    .catch((error: unknown) => {
      derivedKey = undefined; // let the next request try again
      throw error;
    });
  return derivedKey;
}

function mac(key: Buffer, binding: string, payload: string): Buffer {
  return createHmac('sha256', key).update(binding).update('\n').update(payload).digest();
}

export async function encodeCursor(binding: string, position: Record<string, unknown>): Promise<string> {
  const payload = Buffer.from(JSON.stringify(position)).toString('base64url');
  const signature = mac(await cursorKey(), binding, payload).toString('base64url');
  return `${payload}.${signature}`;
}

const invalidToken = () =>
  new InvalidParameterError('The pagination token is invalid: pass a next_token of this same list.', 'token');

export async function decodeCursor(binding: string, token: string): Promise<Record<string, unknown>> {
  const [payload, signature, ...rest] = token.split('.');
  if (!payload || !signature || rest.length > 0) throw invalidToken();
  const expected = mac(await cursorKey(), binding, payload);
  const given = Buffer.from(signature, 'base64url');
  if (given.length !== expected.length || !timingSafeEqual(given, expected)) throw invalidToken();
  try {
    const position: unknown = JSON.parse(Buffer.from(payload, 'base64url').toString('utf8'));
    if (typeof position !== 'object' || position === null || Array.isArray(position)) throw invalidToken();
    return position as Record<string, unknown>;
  } catch {
    throw invalidToken();
  }
}
