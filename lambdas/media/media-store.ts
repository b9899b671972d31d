import { writeFile } from 'node:fs/promises';
/**
 * The media bucket: where every input and output lives, one prefix per workspace, never public.
 * Objects are written with the workspace's encryption; clients only ever see presigned URLs with a
 * limited, configurable lifetime.
 */
import {
  CopyObjectCommand,
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  ListObjectsV2Command,
  NotFound,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import { getSignedUrl } from '@aws-sdk/s3-request-presigner';
import { s3Client } from '../core/aws-clients.js';
import { config } from '../core/config.js';
import { contentDisposition } from '../core/text.js';
import {
  assertSameEncryptionDomain,
  encryptionForMediaWrite,
  type ObjectEncryption,
} from './encryption-policy.js';
import { ownerOfKey } from './media-keys.js';

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

/**
 * Writes an object of the stock catalog (`catalog/`): it belongs to no workspace, so it is encrypted
 * with the stack's key, like every other default write. `metadata` goes to `x-amz-meta-*`.
 */
export async function putCatalogObject(
  key: string,
  body: Uint8Array,
  contentType: string,
  metadata: Record<string, string> = {},
): Promise<void> {
  const { stackKeyId, bucketName } = config();
  await s3Client().send(
    new PutObjectCommand({
      Bucket: bucketName,
      Key: key,
      Body: body,
      ContentType: contentType,
      Metadata: metadata,
      ...(stackKeyId
        ? { ServerSideEncryption: 'aws:kms', SSEKMSKeyId: stackKeyId, BucketKeyEnabled: true }
        : {}),
    }),
  );
}

/**
 * How long before its signing credentials expire a presigned URL stops: the gap covers clock skew
 * between this function and S3 and the time the response takes to reach the client.
 */
export const CREDENTIALS_EXPIRY_MARGIN_SECONDS = 60;

/**
 * The lifetime to sign a URL with: the configured one, cut to what the signing credentials allow. A
 * presigned URL signed with temporary credentials (a role session, as a Lambda function's are) stops
 * working when they expire, whatever its `X-Amz-Expires` says, so a URL that claimed to outlive them
 * would lie. When their expiration is unknown (credentials from environment variables without
 * `AWS_CREDENTIAL_EXPIRATION`, which is how Lambda provides them) the configured lifetime is used, and
 * the documented bound is the role session's (README, Assets and media).
 */
export function signableLifetimeSeconds(
  configuredSeconds: number,
  credentialsExpiration: Date | undefined,
  now: number = Date.now(),
): number {
  if (!credentialsExpiration) return configuredSeconds;
  const secondsLeft =
    Math.floor((credentialsExpiration.getTime() - now) / 1000) - CREDENTIALS_EXPIRY_MARGIN_SECONDS;
  // At least a second: X-Amz-Expires must be positive. The SDK refreshes credentials five minutes
  // before they expire, so this floor only matters for credentials that cannot be refreshed.
  return Math.max(1, Math.min(configuredSeconds, secondsLeft));
}

/**
 * `signableLifetimeSeconds` for the credentials the S3 client signs with now. The presigner asks the
 * same memoized provider right after, so it signs with these credentials or fresher ones.
 */
async function presignLifetimeSeconds(configuredSeconds: number): Promise<number> {
  const credentials = await s3Client().config.credentials();
  return signableLifetimeSeconds(configuredSeconds, credentials.expiration);
}

/**
 * A presigned PUT for a direct upload and the headers the client must send with it, under the
 * encryption the caller resolved with `encryptionForMediaWrite` (once per request, not per file).
 * `expiresInSeconds` is the lifetime it was signed with: `configuredSeconds` or less (see
 * `signableLifetimeSeconds`).
 */
export async function presignMediaUpload(
  encryption: ObjectEncryption,
  key: string,
  contentType: string,
  sizeBytes: number,
  configuredSeconds: number,
): Promise<{ url: string; headers: Record<string, string>; expiresInSeconds: number }> {
  const expiresInSeconds = await presignLifetimeSeconds(configuredSeconds);
  const command = new PutObjectCommand({
    Bucket: config().bucketName,
    Key: key,
    ContentType: contentType,
    ContentLength: sizeBytes,
    ...encryption,
  });
  const url = await getSignedUrl(s3Client(), command, {
    expiresIn: expiresInSeconds,
    // Signed, so S3 refuses an upload of another type or size than the one announced. The presigner
    // leaves both out of the signature unless told.
    signableHeaders: new Set(['content-type', 'content-length']),
  });
  // S3 signs SSE parameters as headers, not query parameters: the upload must send them, or S3
  // refuses it (and a URL without them would write with the bucket's default key instead).
  return {
    url,
    expiresInSeconds,
    headers: {
      'Content-Type': contentType,
      'Content-Length': String(sizeBytes),
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

/** The whole object in memory (small files: a picture, a JSON document). Large media: `readMediaStream`. */
export async function readMediaObject(key: string): Promise<Buffer> {
  const result = await s3Client().send(new GetObjectCommand({ Bucket: config().bucketName, Key: key }));
  if (!result.Body) throw new Error(`Object ${key} has no body`);
  return Buffer.from(await result.Body.transformToByteArray());
}

/** The whole object as a stream (hashing, downloads into engines). */
export async function readMediaStream(key: string): Promise<AsyncIterable<Uint8Array>> {
  const result = await s3Client().send(new GetObjectCommand({ Bucket: config().bucketName, Key: key }));
  if (!result.Body) throw new Error(`Object ${key} has no body`);
  return result.Body as AsyncIterable<Uint8Array>;
}

/** The whole object written to `path`, streamed (media for an engine that reads files). Answers `path`. */
export async function downloadMediaObject(key: string, path: string): Promise<string> {
  await writeFile(path, await readMediaStream(key));
  return path;
}

/**
 * Copies within the bucket, re-encrypted with the destination workspace's current encryption. Media
 * never moves between a customer-key workspace and another (409 `encryption_cross_tree_transfer`).
 */
export async function copyMediaObject(
  workspaceId: string,
  fromKey: string,
  toKey: string,
  contentType: string,
): Promise<void> {
  const owner = ownerOfKey(fromKey);
  if (owner !== workspaceId) await assertSameEncryptionDomain(owner, workspaceId);
  const encryption = await encryptionForMediaWrite(workspaceId);
  await s3Client().send(
    new CopyObjectCommand({
      Bucket: config().bucketName,
      CopySource: `${config().bucketName}/${fromKey}`,
      Key: toKey,
      ContentType: contentType,
      MetadataDirective: 'REPLACE',
      ...encryption,
    }),
  );
}

export async function deleteMediaObject(key: string): Promise<void> {
  await s3Client().send(new DeleteObjectCommand({ Bucket: config().bucketName, Key: key }));
}

/** Every key under `prefix` (a folder of one job or resource: small, read page by page). */
export async function listMediaKeys(prefix: string): Promise<string[]> {
  const keys: string[] = [];
  let token: string | undefined;
  do {
    const page = await s3Client().send(
      new ListObjectsV2Command({ Bucket: config().bucketName, Prefix: prefix, ContinuationToken: token }),
    );
    keys.push(...(page.Contents ?? []).flatMap((object) => (object.Key ? [object.Key] : [])));
    token = page.IsTruncated ? page.NextContinuationToken : undefined;
  } while (token);
  return keys;
}

/** Deletes every object under `prefix`; nothing there is fine. */
export async function deleteMediaPrefix(prefix: string): Promise<void> {
  await Promise.all((await listMediaKeys(prefix)).map((key) => deleteMediaObject(key)));
}

/**
 * A presigned GET URL: the only way media leaves the bucket. It lives `MEDIA_URL_TTL_SECONDS`, or less
 * when its signing credentials expire sooner (see `signableLifetimeSeconds`).
 */
export async function presignMediaDownload(
  key: string,
  options: { fileName?: string | undefined; contentType?: string | undefined } = {},
): Promise<string> {
  const expiresIn = await presignLifetimeSeconds(config().mediaUrlTtlSeconds);
  return getSignedUrl(
    s3Client(),
    new GetObjectCommand({
      Bucket: config().bucketName,
      Key: key,
      ...(options.fileName
        ? { ResponseContentDisposition: contentDisposition('inline', options.fileName) }
        : {}),
      // Served as the verified type, whatever the object's stored metadata says.
      ...(options.contentType ? { ResponseContentType: options.contentType } : {}),
    }),
    { expiresIn },
  );
}
