/**
 * Signing of webhook deliveries, in two schemes at once:
 *
 * - The spec's: `Service-Signature` is the hex HMAC-SHA256 of the exact body bytes, keyed with the
 *   UTF-8 bytes of the secret as shown (`whsec_…`); `Service-Timestamp` (Unix seconds) and
 *   `Service-Event-Id` go beside it unsigned. The signature covers the body only, so it cannot stop a
 *   replay with a fresh timestamp.
 * - Standard Webhooks (https://www.standardwebhooks.com): `webhook-id` (the event id),
 *   `webhook-timestamp` and `webhook-signature: v1,<base64 HMAC-SHA256 of "<id>.<timestamp>.<body>">`,
 *   keyed with the bytes the secret encodes after `whsec_` (base64url). Id and timestamp are signed,
 *   so a receiver that checks the timestamp's age gets replay protection.
 *
 * Receivers verify with `lib/webhooks/verify-webhook.ts` (or any Standard Webhooks library).
 */
import { createHmac } from 'node:crypto';

export const SIGNATURE_HEADERS = {
  serviceSignature: 'Service-Signature',
  serviceTimestamp: 'Service-Timestamp',
  serviceEventId: 'Service-Event-Id',
  webhookId: 'webhook-id',
  webhookTimestamp: 'webhook-timestamp',
  webhookSignature: 'webhook-signature',
} as const;

/** The key Standard Webhooks signs with: the bytes after `whsec_`, base64 (url-safe or not) decoded. */
export function standardWebhooksKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

export function serviceSignature(secret: string, body: string | Buffer): string {
  return createHmac('sha256', secret).update(body).digest('hex');
}

export function standardWebhooksSignature(
  secret: string,
  eventId: string,
  timestamp: number,
  body: string | Buffer,
): string {
  const hmac = createHmac('sha256', standardWebhooksKey(secret));
  hmac.update(`${eventId}.${timestamp}.`);
  hmac.update(body);
  return `v1,${hmac.digest('base64')}`;
}

export interface DeliveryHeaderInput {
  eventId: string;
  /** Unix seconds at dispatch. */
  timestamp: number;
  /** The exact bytes that will be sent. */
  body: string;
  /** null: a callback of a workspace without a callback secret, sent unsigned. */
  secret: string | null;
}

/** The identification and signature headers of one attempt (both schemes). */
export function deliveryHeaders(input: DeliveryHeaderInput): Record<string, string> {
  const headers: Record<string, string> = {
    [SIGNATURE_HEADERS.serviceTimestamp]: String(input.timestamp),
    [SIGNATURE_HEADERS.serviceEventId]: input.eventId,
    [SIGNATURE_HEADERS.webhookId]: input.eventId,
    [SIGNATURE_HEADERS.webhookTimestamp]: String(input.timestamp),
  };
  if (input.secret !== null) {
    headers[SIGNATURE_HEADERS.serviceSignature] = serviceSignature(input.secret, input.body);
    headers[SIGNATURE_HEADERS.webhookSignature] = standardWebhooksSignature(
      input.secret,
      input.eventId,
      input.timestamp,
      input.body,
    );
  }
  return headers;
}
