/**
 * Signing (lambdas/webhooks/signatures.ts) against the receivers' verification helper
 * (lib/webhooks/verify-webhook.ts): a published Standard Webhooks test vector, round trips for any
 * body, id, secret and time, and every way a delivery must be refused.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  deliveryHeaders,
  serviceSignature,
  standardWebhooksSignature,
} from '../../../lambdas/webhooks/signatures.js';
import {
  verifyServiceSignature,
  verifyStandardWebhook,
  verifyWebhook,
  WebhookVerificationError,
} from '../../../lib/webhooks/verify-webhook.js';

const SECRET = 'whsec_3q2-7wAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
const NOW = 1_800_000_000;
const at = (seconds: number) => ({ now: () => seconds * 1000 });

function signed(body: string, options: { eventId?: string; timestamp?: number; secret?: string } = {}) {
  return deliveryHeaders({
    eventId: options.eventId ?? 'avatar_video.success:abc',
    timestamp: options.timestamp ?? NOW,
    body,
    secret: options.secret ?? SECRET,
  });
}

describe('Standard Webhooks scheme', () => {
  it('matches the published test vector of the Standard Webhooks libraries', () => {
    expect(
      standardWebhooksSignature(
        'whsec_MfKQ9r8GKYqrTwjUPD8ILPZIo2LaLaSw',
        'msg_p5jXN8AQM9LWM0D4loKWxJek',
        1614265330,
        '{"test": 2432232314}',
      ),
    ).toBe('v1,g0hM9SsE+OTPJTGt/tmIKtSyZlE3uFJELVlNIOLJ1OE=');
  });

  it('signs with the bytes the secret encodes, base64url as the service issues them', () => {
    // The service's secrets are base64url; a Standard Webhooks library wants standard base64.
    const standard = `whsec_${Buffer.from(SECRET.slice(6), 'base64url').toString('base64')}`;
    expect(standardWebhooksSignature(SECRET, 'id', NOW, 'body')).toBe(
      standardWebhooksSignature(standard, 'id', NOW, 'body'),
    );
  });
});

describe('delivery headers', () => {
  it('carry both schemes with the same id and timestamp', () => {
    const body = '{"event_type":"avatar_video.success","event_data":{}}';
    expect(signed(body)).toEqual({
      'Service-Signature': serviceSignature(SECRET, body),
      'Service-Timestamp': String(NOW),
      'Service-Event-Id': 'avatar_video.success:abc',
      'webhook-id': 'avatar_video.success:abc',
      'webhook-timestamp': String(NOW),
      'webhook-signature': standardWebhooksSignature(SECRET, 'avatar_video.success:abc', NOW, body),
    });
    expect(serviceSignature(SECRET, body)).toMatch(/^[0-9a-f]{64}$/);
  });

  it('leave out the signatures when there is no secret (an unsigned callback)', () => {
    const headers = deliveryHeaders({ eventId: 'e', timestamp: NOW, body: '{}', secret: null });
    expect(Object.keys(headers).sort()).toEqual([
      'Service-Event-Id',
      'Service-Timestamp',
      'webhook-id',
      'webhook-timestamp',
    ]);
  });
});

describe('verification', () => {
  it('accepts any signed delivery in both schemes, from a plain record or a fetch Headers', () => {
    fc.assert(
      fc.property(
        fc.string({ unit: 'binary', maxLength: 300 }),
        fc.stringMatching(/^[A-Za-z0-9._:-]{1,80}$/),
        fc.uint8Array({ minLength: 16, maxLength: 48 }),
        fc.integer({ min: -299, max: 299 }),
        (body, eventId, key, skew) => {
          const secret = `whsec_${Buffer.from(key).toString('base64url')}`;
          const headers = signed(body, { eventId, secret, timestamp: NOW + skew });
          expect(verifyStandardWebhook(body, headers, secret, at(NOW))).toEqual({
            eventId,
            timestamp: NOW + skew,
          });
          expect(verifyServiceSignature(Buffer.from(body), headers, secret, at(NOW)).eventId).toBe(eventId);
          expect(verifyWebhook(body, new Headers(headers), secret, at(NOW)).eventId).toBe(eventId);
        },
      ),
    );
  });

  it('refuses a body changed anywhere, in both schemes', () => {
    fc.assert(
      fc.property(
        fc.string({ minLength: 1, maxLength: 200 }),
        fc.nat(),
        fc.integer({ min: 1, max: 255 }),
        (body, position, flip) => {
          const headers = signed(body);
          const bytes = Buffer.from(body);
          const index = position % bytes.length;
          bytes[index] = (bytes[index] ?? 0) ^ flip;
          expect(() => verifyStandardWebhook(bytes, headers, SECRET, at(NOW))).toThrow(
            WebhookVerificationError,
          );
          expect(() => verifyServiceSignature(bytes, headers, SECRET, at(NOW))).toThrow(
            WebhookVerificationError,
          );
        },
      ),
    );
  });

  it('refuses timestamps more than the tolerance away, either way', () => {
    const headers = signed('{}');
    for (const now of [NOW + 301, NOW - 301]) {
      expect(() => verifyStandardWebhook('{}', headers, SECRET, at(now))).toThrow(/Timestamp/);
      expect(() => verifyServiceSignature('{}', headers, SECRET, at(now))).toThrow(/Timestamp/);
    }
    expect(verifyWebhook('{}', headers, SECRET, { ...at(NOW + 600), toleranceSeconds: 900 }).eventId).toBe(
      'avatar_video.success:abc',
    );
  });

  it('refuses a replay with a fresh timestamp (Standard Webhooks signs it)', () => {
    const headers = signed('{}');
    const replay = { ...headers, 'webhook-timestamp': String(NOW + 100) };
    expect(() => verifyStandardWebhook('{}', replay, SECRET, at(NOW + 100))).toThrow(/signature/);
  });

  it('refuses another secret, another id, and malformed or missing headers', () => {
    const headers = signed('{}');
    const other = 'whsec_AAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAAA';
    expect(() => verifyWebhook('{}', headers, other, at(NOW))).toThrow(WebhookVerificationError);
    expect(() => verifyServiceSignature('{}', headers, other, at(NOW))).toThrow(WebhookVerificationError);
    expect(() => verifyStandardWebhook('{}', { ...headers, 'webhook-id': 'other' }, SECRET, at(NOW))).toThrow(
      /signature/,
    );
    for (const broken of [
      { 'Service-Signature': 'zz' },
      { 'Service-Signature': serviceSignature(SECRET, '{}').slice(2) },
      { 'Service-Timestamp': 'soon' },
      { 'Service-Timestamp': '' },
    ]) {
      expect(() => verifyServiceSignature('{}', { ...headers, ...broken }, SECRET, at(NOW))).toThrow(
        WebhookVerificationError,
      );
    }
    for (const broken of [
      { 'webhook-signature': 'v2,abc' },
      { 'webhook-signature': 'v1' },
      { 'webhook-signature': '' },
      { 'webhook-timestamp': '1e9' },
    ]) {
      expect(() => verifyStandardWebhook('{}', { ...headers, ...broken }, SECRET, at(NOW))).toThrow(
        WebhookVerificationError,
      );
    }
    expect(() => verifyWebhook('{}', {}, SECRET, at(NOW))).toThrow(/Missing Service-Event-Id/);
  });

  it('accepts any matching entry of a multi-signature header', () => {
    const headers = signed('{}');
    const several = { ...headers, 'webhook-signature': `v1,bm90IGl0 ${headers['webhook-signature']}` };
    expect(verifyStandardWebhook('{}', several, SECRET, at(NOW)).timestamp).toBe(NOW);
  });
});
