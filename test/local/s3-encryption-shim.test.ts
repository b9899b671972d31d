/**
 * The local S3's encryption shim, spoken to with the real S3 client: SSE parameters recorded from
 * writes (headers and presigned query parameters) and reported by HeadObject/GetObject, keys
 * resolved and refused through the local KMS, and what was recorded surviving a restart.
 */
import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  CreateAliasCommand,
  CreateKeyCommand,
  DisableKeyCommand,
  EnableKeyCommand,
  KMSClient,
  ScheduleKeyDeletionCommand,
} from '@aws-sdk/client-kms';
import {
  CompleteMultipartUploadCommand,
  CopyObjectCommand,
  CreateMultipartUploadCommand,
  DeleteObjectCommand,
  DeleteObjectsCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
  S3Client,
  UploadPartCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { type KmsEmulator, startKmsEmulator } from '../../lib/local/emulators/index.js';
import {
  LOCAL_CREDENTIALS,
  LOCAL_REGION,
  type RunningS3,
  startS3,
} from '../../lib/local/storage-emulators.js';

const BUCKET = 'shim-test-bucket';

let directory: string;
let kmsEmulator: KmsEmulator;
let s3Server: RunningS3;
let kms: KMSClient;
let s3: S3Client;

function s3ClientFor(endpoint: string): S3Client {
  return new S3Client({
    endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
    forcePathStyle: true,
    requestChecksumCalculation: 'WHEN_REQUIRED',
    responseChecksumValidation: 'WHEN_REQUIRED',
  });
}

async function newKey(): Promise<{ id: string; arn: string }> {
  const created = await kms.send(new CreateKeyCommand({}));
  return { id: created.KeyMetadata?.KeyId ?? '', arn: created.KeyMetadata?.Arn ?? '' };
}

function kmsWrite(keyId: string) {
  return { ServerSideEncryption: 'aws:kms' as const, SSEKMSKeyId: keyId, BucketKeyEnabled: true };
}

beforeAll(async () => {
  directory = await mkdtemp(join(tmpdir(), 'shim-test-'));
  kmsEmulator = await startKmsEmulator({ region: LOCAL_REGION });
  s3Server = await startS3(directory, BUCKET, { kmsEndpoint: kmsEmulator.endpoint });
  kms = new KMSClient({
    endpoint: kmsEmulator.endpoint,
    region: LOCAL_REGION,
    credentials: LOCAL_CREDENTIALS,
  });
  s3 = s3ClientFor(s3Server.endpoint);
});

afterAll(async () => {
  s3.destroy();
  kms.destroy();
  await s3Server.stop();
  await kmsEmulator.stop();
  await rm(directory, { recursive: true, force: true });
});

describe('S3 encryption shim', () => {
  it('records the SSE-KMS parameters of a PutObject and reports them on the write, HEAD and GET', async () => {
    const key = await newKey();
    const put = await s3.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'a/put.txt', Body: 'hello', ...kmsWrite(key.arn) }),
    );
    expect(put).toMatchObject({
      ServerSideEncryption: 'aws:kms',
      SSEKMSKeyId: key.arn,
      BucketKeyEnabled: true,
    });
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'a/put.txt' }));
    expect(head).toMatchObject({
      ServerSideEncryption: 'aws:kms',
      SSEKMSKeyId: key.arn,
      BucketKeyEnabled: true,
    });
    const get = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'a/put.txt' }));
    expect(get.SSEKMSKeyId).toBe(key.arn);
    expect(await get.Body?.transformToString()).toBe('hello');
  });

  it('reports the key ARN when the write named the key by id or alias, as S3 does', async () => {
    const key = await newKey();
    await kms.send(new CreateAliasCommand({ AliasName: 'alias/shim-test', TargetKeyId: key.id }));
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'by-id', Body: 'x', ...kmsWrite(key.id) }));
    await s3.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'by-alias', Body: 'x', ...kmsWrite('alias/shim-test') }),
    );
    for (const objectKey of ['by-id', 'by-alias']) {
      const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: objectKey }));
      expect(head.SSEKMSKeyId, objectKey).toBe(key.arn);
    }
  });

  it('records the SSE headers a presigned PUT was signed with, which the uploader must send', async () => {
    const key = await newKey();
    const url = await getSignedUrl(
      s3,
      new PutObjectCommand({
        Bucket: BUCKET,
        Key: 'presigned/headers.bin',
        ContentType: 'text/plain',
        ...kmsWrite(key.arn),
      }),
      { expiresIn: 60, unhoistableHeaders: new Set(['content-type']) },
    );
    // The S3 presigner signs SSE parameters as headers (S3 ignores them in the query string).
    expect(new URL(url).searchParams.get('X-Amz-SignedHeaders')).toContain(
      'x-amz-server-side-encryption-aws-kms-key-id',
    );
    const sseHeaders = {
      'x-amz-server-side-encryption': 'aws:kms',
      'x-amz-server-side-encryption-aws-kms-key-id': key.arn,
      'x-amz-server-side-encryption-bucket-key-enabled': 'true',
    };
    const withoutSse = await fetch(url, {
      method: 'PUT',
      body: 'bytes',
      headers: { 'Content-Type': 'text/plain' },
    });
    expect(withoutSse.status).toBe(403);
    const response = await fetch(url, {
      method: 'PUT',
      body: 'presigned bytes',
      headers: { 'Content-Type': 'text/plain', ...sseHeaders },
    });
    expect(response.status).toBe(200);
    expect(response.headers.get('x-amz-server-side-encryption-aws-kms-key-id')).toBe(key.arn);
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'presigned/headers.bin' }));
    expect(head).toMatchObject({ ServerSideEncryption: 'aws:kms', SSEKMSKeyId: key.arn, ContentLength: 15 });
  });

  it('records SSE parameters hoisted into the query of a presigned PUT', async () => {
    const key = await newKey();
    const url = await getSignedUrl(
      s3,
      new PutObjectCommand({ Bucket: BUCKET, Key: 'presigned/query.bin', ...kmsWrite(key.arn) }),
      {
        expiresIn: 60,
        hoistableHeaders: new Set([
          'x-amz-server-side-encryption',
          'x-amz-server-side-encryption-aws-kms-key-id',
          'x-amz-server-side-encryption-bucket-key-enabled',
        ]),
      },
    );
    expect(url).toContain('x-amz-server-side-encryption-aws-kms-key-id=');
    const response = await fetch(url, { method: 'PUT', body: 'query bytes' });
    expect(response.status).toBe(200);
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'presigned/query.bin' }));
    expect(head).toMatchObject({
      ServerSideEncryption: 'aws:kms',
      SSEKMSKeyId: key.arn,
      BucketKeyEnabled: true,
    });
  });

  it('gives a CopyObject destination the encryption the copy asks for', async () => {
    const [source, destination] = [await newKey(), await newKey()];
    await s3.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'copy/source', Body: 'copied', ...kmsWrite(source.arn) }),
    );
    await s3.send(
      new CopyObjectCommand({
        Bucket: BUCKET,
        CopySource: `${BUCKET}/copy/source`,
        Key: 'copy/destination',
        ...kmsWrite(destination.arn),
      }),
    );
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'copy/destination' }));
    expect(head.SSEKMSKeyId).toBe(destination.arn);
    expect((await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'copy/source' }))).SSEKMSKeyId).toBe(
      source.arn,
    );
  });

  it('carries the encryption of CreateMultipartUpload to the completed object', async () => {
    const key = await newKey();
    const upload = await s3.send(
      new CreateMultipartUploadCommand({ Bucket: BUCKET, Key: 'multipart/object', ...kmsWrite(key.arn) }),
    );
    expect(upload.SSEKMSKeyId).toBe(key.arn);
    const part = await s3.send(
      new UploadPartCommand({
        Bucket: BUCKET,
        Key: 'multipart/object',
        UploadId: upload.UploadId,
        PartNumber: 1,
        Body: 'one part',
      }),
    );
    await s3.send(
      new CompleteMultipartUploadCommand({
        Bucket: BUCKET,
        Key: 'multipart/object',
        UploadId: upload.UploadId,
        MultipartUpload: { Parts: [{ ETag: part.ETag, PartNumber: 1 }] },
      }),
    );
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'multipart/object' }));
    expect(head).toMatchObject({ ServerSideEncryption: 'aws:kms', SSEKMSKeyId: key.arn });
  });

  it('forgets the encryption of an object overwritten without SSE, or deleted', async () => {
    const key = await newKey();
    await s3.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'forget/overwritten', Body: 'x', ...kmsWrite(key.arn) }),
    );
    await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'forget/overwritten', Body: 'y' }));
    const overwritten = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'forget/overwritten' }));
    expect(overwritten.ServerSideEncryption).toBeUndefined();
    expect(overwritten.SSEKMSKeyId).toBeUndefined();

    for (const name of ['forget/deleted', 'forget/batch-deleted']) {
      await s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: name, Body: 'x', ...kmsWrite(key.arn) }));
    }
    await s3.send(new DeleteObjectCommand({ Bucket: BUCKET, Key: 'forget/deleted' }));
    await s3.send(
      new DeleteObjectsCommand({ Bucket: BUCKET, Delete: { Objects: [{ Key: 'forget/batch-deleted' }] } }),
    );
    expect(s3Server.encryptionOf(BUCKET, 'forget/deleted')).toBeUndefined();
    expect(s3Server.encryptionOf(BUCKET, 'forget/batch-deleted')).toBeUndefined();
  });

  it("refuses writes with a missing, disabled or deleted key, and reads of an object whose key is disabled, with S3's KMS errors", async () => {
    const key = await newKey();
    await s3.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'refuse/existing', Body: 'kept', ...kmsWrite(key.arn) }),
    );
    await kms.send(new DisableKeyCommand({ KeyId: key.id }));

    await expect(
      s3.send(new PutObjectCommand({ Bucket: BUCKET, Key: 'refuse/new', Body: 'x', ...kmsWrite(key.arn) })),
    ).rejects.toMatchObject({ name: 'KMS.DisabledException', $metadata: { httpStatusCode: 400 } });
    await expect(s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'refuse/new' }))).rejects.toMatchObject(
      {
        name: 'NotFound',
      },
    );
    // Metadata needs no key; the bytes do.
    expect(
      (await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'refuse/existing' }))).SSEKMSKeyId,
    ).toBe(key.arn);
    await expect(
      s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'refuse/existing' })),
    ).rejects.toMatchObject({
      name: 'KMS.DisabledException',
    });
    await kms.send(new EnableKeyCommand({ KeyId: key.id }));
    const get = await s3.send(new GetObjectCommand({ Bucket: BUCKET, Key: 'refuse/existing' }));
    expect(await get.Body?.transformToString()).toBe('kept');

    const missing = `arn:aws:kms:${LOCAL_REGION}:000000000000:key/00000000-0000-4000-8000-000000000000`;
    await expect(
      s3.send(
        new PutObjectCommand({ Bucket: BUCKET, Key: 'refuse/missing', Body: 'x', ...kmsWrite(missing) }),
      ),
    ).rejects.toMatchObject({ name: 'KMS.NotFoundException' });
    await kms.send(new ScheduleKeyDeletionCommand({ KeyId: key.id, PendingWindowInDays: 7 }));
    await expect(
      s3.send(
        new PutObjectCommand({ Bucket: BUCKET, Key: 'refuse/deleted', Body: 'x', ...kmsWrite(key.arn) }),
      ),
    ).rejects.toMatchObject({ name: 'KMS.KMSInvalidStateException' });
  });

  it('keeps what it recorded across a restart on the same directory', async () => {
    const key = await newKey();
    await s3.send(
      new PutObjectCommand({ Bucket: BUCKET, Key: 'restart/object', Body: 'x', ...kmsWrite(key.arn) }),
    );
    await s3Server.stop();
    s3.destroy();
    s3Server = await startS3(directory, BUCKET, { kmsEndpoint: kmsEmulator.endpoint });
    s3 = s3ClientFor(s3Server.endpoint);
    const head = await s3.send(new HeadObjectCommand({ Bucket: BUCKET, Key: 'restart/object' }));
    expect(head.SSEKMSKeyId).toBe(key.arn);
  });
});
