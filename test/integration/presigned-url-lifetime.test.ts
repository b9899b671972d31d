/**
 * Presigned URLs through the API when the signing credentials state their expiry: the local stack's
 * credentials come from environment variables, and `AWS_CREDENTIAL_EXPIRATION` gives them one, as STS
 * role credentials have.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CREDENTIALS_EXPIRY_MARGIN_SECONDS } from '../../lambdas/media/media-store.js';
import { multipartBody, png } from '../support/sample-media.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

const CREDENTIALS_LEFT_SECONDS = 600;

let api: TestStack;
beforeAll(async () => {
  api = await startTestStack({
    environment: {
      AWS_CREDENTIAL_EXPIRATION: new Date(Date.now() + CREDENTIALS_LEFT_SECONDS * 1000).toISOString(),
    },
  });
});
afterAll(async () => {
  await api.stop();
  delete process.env.AWS_CREDENTIAL_EXPIRATION;
});

const signedFor = (url: string) => Number(new URL(url).searchParams.get('X-Amz-Expires'));

describe('with signing credentials that expire in 10 minutes', () => {
  it('gives a direct upload URL that ends before them, and says so in expires_in_seconds', async () => {
    const result = await api.call<{ data: { upload_url: string; expires_in_seconds: number } }>(
      'POST',
      '/v3/assets/direct-uploads',
      { body: { filename: 'clip.png', content_type: 'image/png', size_bytes: 1024 } },
    );
    expect(result.status).toBe(201);
    const { upload_url: url, expires_in_seconds: reported } = result.body.data;
    expect(signedFor(url)).toBe(reported);
    expect(reported).toBeLessThanOrEqual(CREDENTIALS_LEFT_SECONDS - CREDENTIALS_EXPIRY_MARGIN_SECONDS);
    expect(reported).toBeGreaterThan(0);
  });

  it('gives download URLs that end before them, not after MEDIA_URL_TTL_SECONDS (3600)', async () => {
    const multipart = multipartBody('file', 'logo.png', 'image/png', png());
    const created = await api.call<{ data: { asset_id: string; url: string } }>('POST', '/v3/assets', {
      rawBody: multipart.body,
      headers: { 'Content-Type': multipart.contentType },
    });
    expect(created.status).toBe(201);
    expect(signedFor(created.body.data.url)).toBeLessThanOrEqual(
      CREDENTIALS_LEFT_SECONDS - CREDENTIALS_EXPIRY_MARGIN_SECONDS,
    );
    const response = await fetch(created.body.data.url);
    expect(response.status).toBe(200);
  });
});
