/**
 * Verifying a webhook delivery of the Video Creation Service on the receiving side. Self-contained
 * (node:crypto only): copy this file into a receiver, or import it.
 *
 * ```ts
 * import { verifyWebhook } from './verify-webhook.js';
 *
 * // rawBody: the body exactly as received (a Buffer or string), before any JSON parsing.
 * const { eventId, timestamp } = verifyWebhook(rawBody, request.headers, process.env.WEBHOOK_SECRET);
 * // throws WebhookVerificationError when the signature, the headers or the timestamp are wrong
 * ```
 *
 * Two schemes are sent with every signed delivery; check one:
 *
 * - Standard Webhooks (`webhook-id`, `webhook-timestamp`, `webhook-signature`): the id and timestamp
 *   are signed with the body, so checking the timestamp's age stops replays. Preferred.
 * - The spec's `Service-Signature` (hex HMAC-SHA256 of the body, keyed with the secret as shown) with
 *   `Service-Timestamp` and `Service-Event-Id`: the timestamp is not signed, so the age check only
 *   rejects stale deliveries; de-duplicate by `Service-Event-Id` as well.
 *
 * Signatures are compared in constant time. Timestamps more than `toleranceSeconds` (default 300)
 * away from the receiver's clock are rejected. Drop a delivery whose event id you already processed:
 * retries and redeliveries keep the id.
 */
import { createHmac, timingSafeEqual } from 'node:crypto';

export class WebhookVerificationError extends Error {
  override readonly name = 'WebhookVerificationError';
}

/** Request headers as Node (`IncomingHttpHeaders`), fetch (`Headers`) or a plain record give them. */
export type WebhookHeaders =
  | { get(name: string): string | null }
  | Readonly<Record<string, string | readonly string[] | undefined>>;

export interface VerifyOptions {
  /** Largest accepted distance between the delivery's timestamp and now, in seconds. @default 300 */
  toleranceSeconds?: number;
  /** The receiver's clock, in milliseconds. @default Date.now */
  now?: () => number;
}

export interface VerifiedWebhook {
  /** The event id (`webhook-id` / `Service-Event-Id`): de-duplicate on it. */
  eventId: string;
  /** Unix seconds at dispatch. */
  timestamp: number;
}

function header(headers: WebhookHeaders, name: string): string | undefined {
  if (typeof (headers as { get?: unknown }).get === 'function') {
    return (headers as { get(name: string): string | null }).get(name) ?? undefined;
  }
  const record = headers as Readonly<Record<string, string | readonly string[] | undefined>>;
  const lower = name.toLowerCase();
  const key = Object.keys(record).find((candidate) => candidate.toLowerCase() === lower);
  const value = key === undefined ? undefined : record[key];
  return Array.isArray(value) ? value[0] : (value as string | undefined);
}

function required(headers: WebhookHeaders, name: string): string {
  const value = header(headers, name);
  if (!value) throw new WebhookVerificationError(`Missing ${name} header`);
  return value;
}

function checkTimestamp(raw: string, options: VerifyOptions): number {
  if (!/^\d{1,12}$/.test(raw)) throw new WebhookVerificationError('Invalid timestamp header');
  const timestamp = Number(raw);
  const now = Math.floor((options.now ?? Date.now)() / 1000);
  const tolerance = options.toleranceSeconds ?? 300;
  if (Math.abs(now - timestamp) > tolerance) {
    throw new WebhookVerificationError(`Timestamp is more than ${tolerance} s away from now`);
  }
  return timestamp;
}

/** Constant-time equality of two byte strings (their length is not secret). */
function sameBytes(a: Buffer, b: Buffer): boolean {
  return a.length === b.length && timingSafeEqual(a, b);
}

/** The Standard Webhooks key: the bytes the secret encodes after `whsec_` (base64 or base64url). */
function standardKey(secret: string): Buffer {
  return Buffer.from(secret.startsWith('whsec_') ? secret.slice('whsec_'.length) : secret, 'base64');
}

/** Verifies the Standard Webhooks headers (`webhook-id`, `webhook-timestamp`, `webhook-signature`). */
export function verifyStandardWebhook(
  rawBody: string | Buffer,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions = {},
): VerifiedWebhook {
  const eventId = required(headers, 'webhook-id');
  const rawTimestamp = required(headers, 'webhook-timestamp');
  const signatures = required(headers, 'webhook-signature');
  const timestamp = checkTimestamp(rawTimestamp, options);
  const expected = createHmac('sha256', standardKey(secret))
    .update(`${eventId}.${rawTimestamp}.`)
    .update(rawBody)
    .digest();
  // Several space-separated `v1,<base64>` entries may be sent (e.g. during a key change).
  const matches = signatures.split(' ').some((entry) => {
    const [version, signature] = entry.split(',', 2);
    return (
      version === 'v1' && signature !== undefined && sameBytes(Buffer.from(signature, 'base64'), expected)
    );
  });
  if (!matches) throw new WebhookVerificationError('No matching webhook-signature');
  return { eventId, timestamp };
}

/** Verifies the spec's headers (`Service-Signature`, `Service-Timestamp`, `Service-Event-Id`). */
export function verifyServiceSignature(
  rawBody: string | Buffer,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions = {},
): VerifiedWebhook {
  const eventId = required(headers, 'Service-Event-Id');
  const signature = required(headers, 'Service-Signature');
  const timestamp = checkTimestamp(required(headers, 'Service-Timestamp'), options);
  const expected = createHmac('sha256', secret).update(rawBody).digest();
  if (!/^[0-9a-f]{64}$/i.test(signature) || !sameBytes(Buffer.from(signature, 'hex'), expected)) {
    throw new WebhookVerificationError('Service-Signature does not match');
  }
  return { eventId, timestamp };
}

/** Verifies a delivery with Standard Webhooks when its headers are there, else with `Service-Signature`. */
export function verifyWebhook(
  rawBody: string | Buffer,
  headers: WebhookHeaders,
  secret: string,
  options: VerifyOptions = {},
): VerifiedWebhook {
  return header(headers, 'webhook-signature')
    ? verifyStandardWebhook(rawBody, headers, secret, options)
    : verifyServiceSignature(rawBody, headers, secret, options);
}
