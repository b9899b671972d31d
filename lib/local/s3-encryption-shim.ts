/**
 * A thin HTTP proxy in front of s3rver that gives the local S3 the server-side-encryption behaviour
 * clients can observe. s3rver ignores SSE headers entirely (and never encrypts at rest); this shim:
 *
 * - records the SSE parameters of every object write (`x-amz-server-side-encryption`,
 *   `…-aws-kms-key-id`, `…-bucket-key-enabled`) from PutObject, CopyObject and
 *   CreateMultipartUpload, as headers or, for presigned URLs, as the signed query parameters the
 *   presigner hoists them into;
 * - answers them on the write, HeadObject and GetObject, so `HeadObject` reports
 *   `ServerSideEncryption` and `SSEKMSKeyId` as S3 does;
 * - with a KMS endpoint, resolves the key as S3 does (the recorded and reported id is the key's ARN,
 *   even when the write named it by id or alias) and refuses writes, and reads of objects, whose key
 *   is missing, disabled or pending deletion, with S3's `KMS.NotFoundException`,
 *   `KMS.DisabledException` and `KMS.KMSInvalidStateException` (HTTP 400).
 *
 * Requests are forwarded byte for byte (headers, `Host` included), so s3rver still checks the
 * signatures. s3rver does not check that a presigned URL's signed headers are sent at all; S3 does
 * (`SignatureDoesNotMatch`), and the S3 presigner signs SSE parameters as headers the uploader must
 * send, so the shim refuses a presigned request that leaves out a header it was signed with. What is recorded lives in `dataFile` when one is given. Not covered:
 * SSE-C, bucket default encryption (a write without SSE parameters records none), and the SSE of
 * objects removed by DeleteObjects is forgotten only for the keys it names.
 */
import { randomUUID } from 'node:crypto';
import { createServer, type IncomingMessage, request, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { DescribeKeyCommand, KMSClient } from '@aws-sdk/client-kms';
import { z } from 'zod';
import { JsonFileStore } from './emulators/json-file-store.js';

/** Query parameters naming an object sub-resource (their PUTs write no object bytes). */
const SUBRESOURCES = ['tagging', 'acl', 'retention', 'legal-hold'] as const;

const SSE_HEADERS = {
  algorithm: 'x-amz-server-side-encryption',
  keyId: 'x-amz-server-side-encryption-aws-kms-key-id',
  bucketKeyEnabled: 'x-amz-server-side-encryption-bucket-key-enabled',
} as const;

const sseParametersSchema = z.object({
  algorithm: z.string(),
  keyId: z.string().optional(),
  bucketKeyEnabled: z.boolean(),
});
export type SseParameters = z.infer<typeof sseParametersSchema>;

const recordsFileSchema = z.object({
  format: z.literal('local-s3-sse/1'),
  /** By `<bucket>/<key>`. */
  objects: z.record(z.string(), sseParametersSchema),
});
type RecordsFile = z.infer<typeof recordsFileSchema>;

export interface S3EncryptionShimOptions {
  /** Where s3rver listens. */
  upstreamPort: number;
  /** @default '127.0.0.1' */
  upstreamHost?: string;
  /** Keeps the recorded parameters across restarts; in memory only when absent. @default undefined */
  dataFile?: string;
  /**
   * KMS to resolve and check keys with (the local KMS emulator); without it, key ids are recorded
   * as given and never refused. @default undefined
   */
  kms?: { endpoint: string; region: string; credentials: { accessKeyId: string; secretAccessKey: string } };
}

export interface S3EncryptionShim {
  endpoint: string;
  /** The parameters recorded for an object, if any (tests, diagnostics). */
  encryptionOf(bucket: string, key: string): SseParameters | undefined;
  stop(): Promise<void>;
}

/** A request refused the way S3 refuses it when KMS refuses S3. */
class S3Refusal extends Error {
  readonly status: number;
  readonly code: string;

  constructor(status: number, code: string, message: string) {
    super(message);
    this.status = status;
    this.code = code;
  }
}

interface ObjectTarget {
  bucket: string;
  key: string;
}

/** Path-style `/<bucket>/<key>`; undefined for service and bucket requests. */
function objectTarget(pathname: string): ObjectTarget | undefined {
  const match = /^\/([^/]+)\/(.+)$/.exec(pathname);
  if (!match?.[1] || !match[2]) return undefined;
  return { bucket: decodeURIComponent(match[1]), key: decodeURIComponent(match[2]) };
}

function headerValue(headers: IncomingMessage['headers'], name: string): string | undefined {
  const value = headers[name];
  return Array.isArray(value) ? value[0] : value;
}

/** SSE parameters of a write: headers, or the signed query parameters of a presigned URL. */
function requestedEncryption(requestIn: IncomingMessage, query: URLSearchParams): SseParameters | undefined {
  const queryValues = new Map([...query].map(([name, value]) => [name.toLowerCase(), value]));
  const read = (name: string) => headerValue(requestIn.headers, name) ?? queryValues.get(name);
  const algorithm = read(SSE_HEADERS.algorithm);
  if (!algorithm) return undefined;
  const keyId = read(SSE_HEADERS.keyId);
  return {
    algorithm,
    ...(keyId ? { keyId } : {}),
    bucketKeyEnabled: read(SSE_HEADERS.bucketKeyEnabled)?.toLowerCase() === 'true',
  };
}

/** Headers a presigned (query-signed) request was signed with but does not send. */
function missingSignedHeaders(requestIn: IncomingMessage, query: URLSearchParams): string[] {
  const signed = query.get('X-Amz-SignedHeaders');
  if (!signed) return [];
  return signed
    .split(';')
    .filter((name) => name !== '' && requestIn.headers[name.toLowerCase()] === undefined);
}

function responseHeadersOf(parameters: SseParameters | undefined): Record<string, string> {
  if (!parameters) return {};
  return {
    [SSE_HEADERS.algorithm]: parameters.algorithm,
    ...(parameters.keyId ? { [SSE_HEADERS.keyId]: parameters.keyId } : {}),
    ...(parameters.bucketKeyEnabled ? { [SSE_HEADERS.bucketKeyEnabled]: 'true' } : {}),
  };
}

function escapeXml(text: string): string {
  return text.replace(/[<>&'"]/g, (character) => `&#${character.charCodeAt(0)};`);
}

function sendS3Error(response: ServerResponse, method: string, refusal: S3Refusal): void {
  const requestId = randomUUID().replaceAll('-', '').slice(0, 16).toUpperCase();
  const body = `<?xml version="1.0" encoding="UTF-8"?>\n<Error><Code>${escapeXml(refusal.code)}</Code><Message>${escapeXml(refusal.message)}</Message><RequestId>${requestId}</RequestId></Error>`;
  response.writeHead(refusal.status, {
    'Content-Type': 'application/xml',
    'x-amz-request-id': requestId,
    ...(method === 'HEAD' ? {} : { 'Content-Length': Buffer.byteLength(body) }),
  });
  response.end(method === 'HEAD' ? undefined : body);
}

async function readBody(stream: IncomingMessage): Promise<Buffer> {
  const chunks: Buffer[] = [];
  for await (const chunk of stream) chunks.push(chunk as Buffer);
  return Buffer.concat(chunks);
}

/** Starts the shim in front of s3rver on a free loopback port. */
export async function startS3EncryptionShim(options: S3EncryptionShimOptions): Promise<S3EncryptionShim> {
  const upstreamHost = options.upstreamHost ?? '127.0.0.1';
  const store = options.dataFile ? new JsonFileStore(options.dataFile, recordsFileSchema, 0o644) : undefined;
  const objects = new Map<string, SseParameters>(Object.entries((await store?.load())?.objects ?? {}));
  /** CreateMultipartUpload's parameters until CompleteMultipartUpload, by upload id. */
  const uploads = new Map<string, SseParameters | undefined>();
  const kms = options.kms
    ? new KMSClient({
        endpoint: options.kms.endpoint,
        region: options.kms.region,
        credentials: options.kms.credentials,
        maxAttempts: 1,
      })
    : undefined;

  const snapshot = (): RecordsFile => ({ format: 'local-s3-sse/1', objects: Object.fromEntries(objects) });
  const recordKey = (target: ObjectTarget) => `${target.bucket}/${target.key}`;
  async function record(target: ObjectTarget, parameters: SseParameters | undefined): Promise<void> {
    if (parameters) objects.set(recordKey(target), parameters);
    else objects.delete(recordKey(target));
    await store?.save(snapshot);
  }
  async function forget(targets: ObjectTarget[]): Promise<void> {
    for (const target of targets) objects.delete(recordKey(target));
    if (targets.length > 0) await store?.save(snapshot);
  }

  /** The key's ARN when KMS would let S3 use it; throws S3's refusal otherwise. */
  async function usableKeyArn(keyId: string): Promise<string> {
    if (!kms) return keyId;
    let metadata: { Arn?: string | undefined; KeyState?: string | undefined } | undefined;
    try {
      metadata = (await kms.send(new DescribeKeyCommand({ KeyId: keyId }))).KeyMetadata;
    } catch (error) {
      const name = (error as { name?: string }).name;
      if (name === 'NotFoundException') {
        throw new S3Refusal(400, 'KMS.NotFoundException', `Key '${keyId}' does not exist`);
      }
      throw new S3Refusal(503, 'ServiceUnavailable', `KMS could not be reached (${name ?? 'error'})`);
    }
    const arn = metadata?.Arn ?? keyId;
    switch (metadata?.KeyState) {
      case 'Enabled':
        return arn;
      case 'Disabled':
        throw new S3Refusal(400, 'KMS.DisabledException', `${arn} is disabled.`);
      default:
        throw new S3Refusal(
          400,
          'KMS.KMSInvalidStateException',
          `${arn} is ${metadata?.KeyState ?? 'unusable'}.`,
        );
    }
  }

  /** Resolves the key of a write as S3 does, refusing what KMS would refuse. */
  async function resolveWriteEncryption(
    parameters: SseParameters | undefined,
  ): Promise<SseParameters | undefined> {
    if (!parameters?.keyId || !parameters.algorithm.startsWith('aws:kms')) return parameters;
    return { ...parameters, keyId: await usableKeyArn(parameters.keyId) };
  }

  function forward(
    requestIn: IncomingMessage,
    responseOut: ServerResponse,
    body: Buffer | undefined,
    onResponse: (status: number, responseBody: Buffer | undefined) => Promise<Record<string, string>>,
    bufferResponse = false,
  ): void {
    const upstream = request(
      {
        host: upstreamHost,
        port: options.upstreamPort,
        method: requestIn.method,
        path: requestIn.url,
        headers: requestIn.headers,
      },
      (upstreamResponse) => {
        const status = upstreamResponse.statusCode ?? 502;
        const finish = async (responseBody: Buffer | undefined) => {
          const extra = status < 300 ? await onResponse(status, responseBody) : {};
          // Hop-by-hop headers describe the shim's connection to s3rver, not the client's.
          const { connection: _connection, 'keep-alive': _keepAlive, ...headers } = upstreamResponse.headers;
          responseOut.writeHead(status, upstreamResponse.statusMessage, { ...headers, ...extra });
          if (responseBody) responseOut.end(responseBody);
          else upstreamResponse.pipe(responseOut);
        };
        const settle = (promise: Promise<void>) =>
          promise.catch((error: unknown) => {
            if (!responseOut.headersSent) responseOut.writeHead(500);
            responseOut.end();
            console.error('[local-s3] encryption shim failed', error);
          });
        if (bufferResponse) settle(readBody(upstreamResponse).then(finish));
        else settle(finish(undefined));
      },
    );
    // A client that goes away mid-request takes the upstream request with it.
    let abandoned = false;
    responseOut.on('close', () => {
      if (responseOut.writableFinished) return;
      abandoned = true;
      upstream.destroy();
    });
    upstream.on('error', (error) => {
      if (abandoned) return;
      if (!responseOut.headersSent) responseOut.writeHead(502);
      responseOut.end();
      console.error('[local-s3] upstream request failed', error);
    });
    if (body) upstream.end(body);
    else requestIn.pipe(upstream);
  }

  async function handle(requestIn: IncomingMessage, responseOut: ServerResponse): Promise<void> {
    const url = new URL(requestIn.url ?? '/', 'http://localhost');
    const method = requestIn.method ?? 'GET';
    // A browser's CORS preflight carries no signature: S3 answers it from the bucket's CORS rules.
    const missing = method === 'OPTIONS' ? [] : missingSignedHeaders(requestIn, url.searchParams);
    if (missing.length > 0) {
      throw new S3Refusal(
        403,
        'SignatureDoesNotMatch',
        `The request signature we calculated does not match the signature you provided: the presigned URL was signed with headers the request does not send (${missing.join(', ')}).`,
      );
    }
    const target = objectTarget(url.pathname);
    const query = url.searchParams;
    const none = async () => ({});

    if (!target) {
      // DeleteObjects: forget the encryption of the keys it deletes.
      if (method === 'POST' && query.has('delete')) {
        const body = await readBody(requestIn);
        const bucket = url.pathname.replace(/^\/|\/$/g, '');
        const keys = [...body.toString('utf8').matchAll(/<Key>([\s\S]*?)<\/Key>/g)].map((match) =>
          (match[1] ?? '').replace(
            /&(lt|gt|amp|quot|apos);/g,
            (_entity, name: string) => XML_ENTITIES[name] ?? '',
          ),
        );
        forward(requestIn, responseOut, body, async () => {
          await forget(keys.map((key) => ({ bucket, key })));
          return {};
        });
        return;
      }
      forward(requestIn, responseOut, undefined, none);
      return;
    }

    const isPart = query.has('partNumber') || query.has('uploadId');
    // PUT ?tagging, ?acl, … change an object's sub-resource, not its bytes: its encryption stays.
    const isSubresource = SUBRESOURCES.some((name) => query.has(name));
    if (method === 'PUT' && !isPart && !isSubresource) {
      // PutObject, or CopyObject (`x-amz-copy-source`): the destination gets what this request says.
      const encryption = await resolveWriteEncryption(requestedEncryption(requestIn, query));
      forward(requestIn, responseOut, undefined, async () => {
        await record(target, encryption);
        return responseHeadersOf(encryption);
      });
      return;
    }
    if (method === 'POST' && query.has('uploads')) {
      const encryption = await resolveWriteEncryption(requestedEncryption(requestIn, query));
      forward(
        requestIn,
        responseOut,
        undefined,
        async (_status, responseBody) => {
          const uploadId = /<UploadId>([^<]+)<\/UploadId>/.exec(responseBody?.toString('utf8') ?? '')?.[1];
          if (uploadId) uploads.set(uploadId, encryption);
          return responseHeadersOf(encryption);
        },
        true,
      );
      return;
    }
    if (method === 'POST' && query.has('uploadId')) {
      const uploadId = query.get('uploadId') ?? '';
      forward(requestIn, responseOut, undefined, async () => {
        const encryption = uploads.get(uploadId);
        uploads.delete(uploadId);
        await record(target, encryption);
        return responseHeadersOf(encryption);
      });
      return;
    }
    if (method === 'DELETE' && !isPart) {
      forward(requestIn, responseOut, undefined, async () => {
        await forget([target]);
        return {};
      });
      return;
    }
    if (method === 'GET' || method === 'HEAD') {
      const encryption = objects.get(recordKey(target));
      // Reading the bytes needs the key (S3 decrypts); reading the metadata does not.
      if (method === 'GET' && encryption?.keyId && encryption.algorithm.startsWith('aws:kms')) {
        await usableKeyArn(encryption.keyId);
      }
      forward(requestIn, responseOut, undefined, async () => responseHeadersOf(encryption));
      return;
    }
    forward(requestIn, responseOut, undefined, none);
  }

  const server = createServer((requestIn, responseOut) => {
    handle(requestIn, responseOut).catch((error: unknown) => {
      if (error instanceof S3Refusal) {
        // The body of a refused write is never read: drain it so the connection stays usable.
        requestIn.resume();
        sendS3Error(responseOut, requestIn.method ?? 'GET', error);
        return;
      }
      console.error('[local-s3] encryption shim failed', error);
      if (!responseOut.headersSent) responseOut.writeHead(500);
      responseOut.end();
    });
  });
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  const { port } = server.address() as AddressInfo;

  return {
    endpoint: `http://127.0.0.1:${port}`,
    encryptionOf: (bucket, key) => objects.get(`${bucket}/${key}`),
    stop: async () => {
      await new Promise<void>((resolve) => {
        server.close(() => resolve());
        server.closeAllConnections();
      });
      kms?.destroy();
      await store?.save(snapshot);
    },
  };
}

const XML_ENTITIES: Readonly<Record<string, string>> = { lt: '<', gt: '>', amp: '&', quot: '"', apos: "'" };
