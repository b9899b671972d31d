/**
 * The media bucket: where every input and output lives, one prefix per workspace, never public.
 * Objects are written with the workspace's encryption; clients only ever see presigned URLs with a
 * limited, configurable lifetime.
 */
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  NotFound,
  PutObjectCommand,
  PutObjectTaggingCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { s3Client } from '../core/aws-clients.js';
import { config } from '../core/config.js';
import { encryptionForMediaWrite } from './encryption-policy.js';
import { PENDING_UPLOAD_TAG } from './media-keys.js';

export interface StoredObject {
  key: string;
  size: number;
  contentType: string | undefined;
}

export async function putMediaObject(
  workspaceId: string,
  key: string,
  body: Uint8Array,
  contentType: string,
): Promise<void> {
  const encryption = await encryptionForMediaWrite(workspaceId);
  await s3Client().send(
    new PutObjectCommand({
      Bucket: config().bucketName,
      Key: key,
      Body: body,
      ContentType: contentType,
      ...encryption,
    }),
  );
}

/** A presigned PUT for a direct upload and the headers the client must send with it. */
export async function presignMediaUpload(
  workspaceId: string,
  key: string,
  contentType: string,
  expiresInSeconds: number,
): Promise<{ url: string; headers: Record<string, string> }> {
  const encryption = await encryptionForMediaWrite(workspaceId);
  const tagging = `${PENDING_UPLOAD_TAG.key}=${PENDING_UPLOAD_TAG.value}`;
  const command = new PutObjectCommand({
    Bucket: config().bucketName,
    Key: key,
    ContentType: contentType,
    Tagging: tagging,
    ...encryption,
  });
  const url = await getSignedUrl(s3Client(), command, {
    expiresIn: expiresInSeconds,
    // Signed as headers: the upload must declare the type it announced, and carry the pending tag
    // that lets the bucket's lifecycle delete it if it is never completed.
    unhoistableHeaders: new Set(['content-type', 'x-amz-tagging']),
  });
  // S3 signs SSE parameters as headers, not query parameters: the upload must send them, or S3
  // refuses it (and a URL without them would write with the bucket's default key instead).
  return {
    url,
    headers: {
      'Content-Type': contentType,
      'x-amz-tagging': tagging,
      'x-amz-server-side-encryption': encryption.ServerSideEncryption,
      'x-amz-server-side-encryption-aws-kms-key-id': encryption.SSEKMSKeyId,
      'x-amz-server-side-encryption-bucket-key-enabled': String(encryption.BucketKeyEnabled),
    },
  };
}

export async function headMediaObject(key: string): Promise<StoredObject | undefined> {
  try {
    const head = await s3Client().send(new HeadObjectCommand({ Bucket: config().bucketName, Key: key }));
    return { key, size: head.ContentLength ?? 0, contentType: head.ContentType };
  } catch (error) {
    if (error instanceof NotFound || (error as { name?: string }).name === 'NotFound') return undefined;
    throw error;
  }
}

/** The first `length` bytes of an object (type sniffing). */
export async function readMediaHead(key: string, length: number): Promise<Uint8Array> {
  const result = await s3Client().send(
    new GetObjectCommand({ Bucket: config().bucketName, Key: key, Range: `bytes=0-${length - 1}` }),
  );
  return result.Body ? await result.Body.transformToByteArray() : new Uint8Array();
}

/** The whole object as a stream (hashing, downloads into engines). */
export async function readMediaStream(key: string): Promise<AsyncIterable<Uint8Array>> {
  const result = await s3Client().send(new GetObjectCommand({ Bucket: config().bucketName, Key: key }));
  if (!result.Body) throw new Error(`Object ${key} has no body`);
  return result.Body as AsyncIterable<Uint8Array>;
}

/** Marks a direct upload complete: without its pending tag, the lifecycle rule leaves it alone. */
export async function clearPendingUploadTag(key: string): Promise<void> {
  await s3Client().send(
    new PutObjectTaggingCommand({ Bucket: config().bucketName, Key: key, Tagging: { TagSet: [] } }),
  );
}

export async function deleteMediaObject(key: string): Promise<void> {
  await s3Client().send(new DeleteObjectCommand({ Bucket: config().bucketName, Key: key }));
}

/** A presigned GET URL: the only way media leaves the bucket. */
export async function presignMediaDownload(key: string, fileName?: string): Promise<string> {
  return getSignedUrl(
    s3Client(),
    new GetObjectCommand({
      Bucket: config().bucketName,
      Key: key,
      ...(fileName
        ? { ResponseContentDisposition: `inline; filename="${fileName.replace(/["\\\r\n]/g, '_')}"` }
        : {}),
    }),
    { expiresIn: config().mediaUrlTtlSeconds },
  );
}
