import { S3Client } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, beforeEach, describe, expect, it, vi } from 'vitest';
import type { AssetRecord } from '../../lambdas/assets/assets.js';
import { presignDirectUpload } from '../../lambdas/assets/direct-uploads.js';
import { config, resetConfig } from '../../lambdas/core/config.js';
import {
  CREDENTIALS_EXPIRY_MARGIN_SECONDS,
  presignMediaDownload,
  signableLifetimeSeconds,
} from '../../lambdas/media/media-store.js';

/** The S3 client the media store signs with: one per test, with the credentials the test gives it. */
const signing = vi.hoisted(() => ({ client: undefined as unknown }));
vi.mock('../../lambdas/core/aws-clients.js', () => ({ s3Client: () => signing.client }));

/** A client whose credentials are temporary ones expiring at `expiration` (or never said). */
function clientWithCredentials(expiration: Date | undefined): S3Client {
  return new S3Client({
    region: 'eu-west-1',
    credentials: async () => ({
      accessKeyId: 'ASIAEXAMPLE',
      secretAccessKey: 'secret',
      sessionToken: 'session',
      ...(expiration ? { expiration } : {}),
    }),
  });
}

const expiresParameter = (url: string) => Number(new URL(url).searchParams.get('X-Amz-Expires'));

const saved = { ...process.env };
beforeAll(() => {
  Object.assign(process.env, { TABLE_NAME: 'table', BUCKET_NAME: 'media' });
  delete process.env.MEDIA_URL_TTL_SECONDS;
  delete process.env.UPLOAD_URL_TTL_SECONDS;
  resetConfig();
});
afterAll(() => {
  process.env = saved;
  resetConfig();
});

const asset = {
  asset_id: 'asset_1',
  object_key: 'workspaces/ws_1/assets/asset_1',
  mime_type: 'video/mp4',
  size_bytes: 1024,
  status: 'pending_upload',
} as unknown as AssetRecord;
const encryption = {
  ServerSideEncryption: 'aws:kms',
  SSEKMSKeyId: 'arn:aws:kms:eu-west-1:123456789012:key/k',
  BucketKeyEnabled: true,
} as const;

describe('presigned URLs never outlive the credentials that sign them', () => {
  describe('with credentials expiring in 10 minutes', () => {
    beforeEach(() => {
      signing.client = clientWithCredentials(new Date(Date.now() + 10 * 60_000));
    });

    it('signs a direct upload for less than 10 minutes and reports the lifetime it signed', async () => {
      const upload = await presignDirectUpload(asset, encryption);
      const signed = expiresParameter(upload.upload_url);
      expect(signed).toBeLessThanOrEqual(600 - CREDENTIALS_EXPIRY_MARGIN_SECONDS);
      expect(signed).toBeGreaterThan(600 - CREDENTIALS_EXPIRY_MARGIN_SECONDS - 10);
      // What the API tells the client is what the URL holds, not UPLOAD_URL_TTL_SECONDS (900).
      expect(upload.expires_in_seconds).toBe(signed);
    });

    it('signs a download for less than 10 minutes, not MEDIA_URL_TTL_SECONDS (3600)', async () => {
      const url = await presignMediaDownload('workspaces/ws_1/assets/asset_1');
      expect(expiresParameter(url)).toBeLessThanOrEqual(600 - CREDENTIALS_EXPIRY_MARGIN_SECONDS);
    });
  });

  describe('with credentials that say nothing of their expiry (as Lambda gives them)', () => {
    beforeEach(() => {
      signing.client = clientWithCredentials(undefined);
    });

    it('signs for the configured lifetimes', async () => {
      const upload = await presignDirectUpload(asset, encryption);
      expect(expiresParameter(upload.upload_url)).toBe(900);
      expect(upload.expires_in_seconds).toBe(900);
      expect(expiresParameter(await presignMediaDownload('workspaces/ws_1/assets/asset_1'))).toBe(3600);
    });
  });

  it('keeps the configured lifetime when the credentials outlast it', async () => {
    signing.client = clientWithCredentials(new Date(Date.now() + 6 * 3600_000));
    expect((await presignDirectUpload(asset, encryption)).expires_in_seconds).toBe(900);
  });
});

describe('signableLifetimeSeconds', () => {
  const now = Date.parse('2026-01-01T00:00:00Z');
  it('is the configured lifetime, or the time the credentials have left less the margin', () => {
    expect(signableLifetimeSeconds(900, undefined, now)).toBe(900);
    expect(signableLifetimeSeconds(900, new Date(now + 3600_000), now)).toBe(900);
    expect(signableLifetimeSeconds(3600, new Date(now + 600_000), now)).toBe(
      600 - CREDENTIALS_EXPIRY_MARGIN_SECONDS,
    );
    // Never zero or negative: S3 needs a positive X-Amz-Expires.
    expect(signableLifetimeSeconds(3600, new Date(now + 1_000), now)).toBe(1);
  });
});

describe('configured lifetimes', () => {
  afterAll(() => {
    delete process.env.MEDIA_URL_TTL_SECONDS;
    delete process.env.UPLOAD_URL_TTL_SECONDS;
    resetConfig();
  });

  it.each([
    ['MEDIA_URL_TTL_SECONDS', '604801'],
    ['UPLOAD_URL_TTL_SECONDS', '0'],
    ['MEDIA_URL_TTL_SECONDS', '1.5'],
  ])('refuses %s=%s: a presigned URL lives 1 second to 7 days', (name, value) => {
    process.env[name] = value;
    resetConfig();
    expect(() => config()).toThrow(`${name} must be a whole number of seconds from 1 to 604800`);
    delete process.env[name];
    resetConfig();
  });

  it('accepts 7 days', () => {
    process.env.MEDIA_URL_TTL_SECONDS = '604800';
    resetConfig();
    expect(config().mediaUrlTtlSeconds).toBe(604_800);
  });
});
