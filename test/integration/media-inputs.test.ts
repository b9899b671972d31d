/**
 * The media-input resolver against the local stack (S3, DynamoDB, KMS) and a local HTTP server that
 * plays every kind of media host: good, redirecting, missing, slow, stalling, oversized, lying.
 * DNS is faked for a few `.example.test` names to prove the connection is pinned to the checked
 * address and that names resolving to private addresses are refused.
 */
import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { createServer as createTlsServer } from 'node:tls';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { putWorkspaceEncryption } from '../../lambdas/accounts/workspaces.js';
import { createPendingAsset, storeUploadedAsset } from '../../lambdas/assets/assets.js';
import {
  type MediaInputOptions,
  type ResolvedMedia,
  resolveMediaInput,
} from '../../lambdas/assets/media-inputs.js';
import { s3Client } from '../../lambdas/core/aws-clients.js';
import { config } from '../../lambdas/core/config.js';
import { InvalidParameterError, ServiceError } from '../../lambdas/core/errors.js';
import { mediaKeys } from '../../lambdas/media/media-keys.js';
import { headMediaObject, readMediaHead, readMediaStream } from '../../lambdas/media/media-store.js';
import { detectMediaType } from '../../lambdas/media/media-types.js';
import { pdf, png, srt, wav } from '../support/sample-media.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

vi.mock('node:dns/promises', async (importOriginal) => {
  const actual = await importOriginal<typeof import('node:dns/promises')>();
  const names: Record<string, string> = {
    'pinned.localhost': '127.0.0.1',
    'pinned.example.test': '127.0.0.1',
    'private.example.test': '10.0.0.7',
    'metadata.example.test': '169.254.169.254',
  };
  const lookup = async (host: string, options: { all?: boolean } = {}) => {
    const address = names[host];
    if (host === 'nowhere.example.test') {
      throw Object.assign(new Error(`getaddrinfo ENOTFOUND ${host}`), { code: 'ENOTFOUND' });
    }
    if (!address) return actual.lookup(host, options);
    return options.all ? [{ address, family: 4 }] : { address, family: 4 };
  };
  return { ...actual, lookup, default: { ...actual, lookup } };
});

const KiB = 1024;
const image = png(32, 32);

let api: TestStack;
let server: Server;
let base: string;
let port: number;
const hits = new Map<string, number>();
const hostHeaders: string[] = [];

function serve(request: IncomingMessage, response: ServerResponse) {
  const path = new URL(request.url ?? '/', 'http://local').pathname;
  hits.set(path, (hits.get(path) ?? 0) + 1);
  response.on('error', () => {});
  switch (path) {
    case '/logo.png':
      hostHeaders.push(request.headers.host ?? '');
      response.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': image.length });
      response.end(image);
      return;
    case '/mislabelled.png': // a PDF served as a PNG
      response.writeHead(200, { 'Content-Type': 'image/png' });
      response.end(pdf());
      return;
    case '/notes.txt':
      response.writeHead(200, { 'Content-Type': 'text/plain' });
      response.end('not media at all');
      return;
    case '/empty':
      response.writeHead(200, { 'Content-Length': 0 });
      response.end();
      return;
    case '/redirect':
      response.writeHead(302, { Location: `${base}/target.png` });
      response.end();
      return;
    case '/target.png':
      response.writeHead(200, { 'Content-Type': 'image/png' });
      response.end(image);
      return;
    case '/missing':
      response.writeHead(404, { 'Content-Type': 'text/plain' });
      response.end('nope');
      return;
    case '/slow': // headers after 5 s
      setTimeout(() => response.end(image), 5000).unref();
      return;
    case '/stall': // headers and a few bytes, then nothing
      response.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': image.length });
      response.write(image.subarray(0, 16));
      return;
    case '/drip': {
      // A byte every 50 ms: never idle long, but never done.
      response.writeHead(200, { 'Content-Type': 'image/png' });
      let sent = 0;
      const timer = setInterval(() => {
        if (response.destroyed || sent >= image.length) {
          clearInterval(timer);
          response.end();
          return;
        }
        response.write(image.subarray(sent, sent + 1));
        sent += 1;
      }, 50);
      timer.unref();
      return;
    }
    case '/big-declared': // Content-Length over the cap; the body would be a valid PNG
      response.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': 256 * KiB });
      response.end(Buffer.concat([image, Buffer.alloc(256 * KiB - image.length)]));
      return;
    case '/big-chunked': {
      // No Content-Length: up to 4 MiB streamed in 16 KiB chunks, starting with a PNG.
      response.writeHead(200, { 'Content-Type': 'image/png' });
      let sent = 0;
      const pump = () => {
        while (sent < 4096 * KiB && !response.destroyed) {
          const chunk = sent === 0 ? Buffer.concat([image, Buffer.alloc(16 * KiB)]) : Buffer.alloc(16 * KiB);
          sent += chunk.length;
          if (!response.write(chunk)) {
            response.once('drain', pump);
            return;
          }
        }
        response.end();
      };
      pump();
      return;
    }
    case '/truncated': // declares more than it sends, then hangs up
      response.writeHead(200, { 'Content-Type': 'image/png', 'Content-Length': image.length + 100 });
      response.write(image);
      setTimeout(() => response.socket?.destroy(), 20).unref();
      return;
    case '/reset':
      request.socket.destroy();
      return;
    default:
      response.writeHead(500);
      response.end();
  }
}

beforeAll(async () => {
  server = createServer(serve);
  await new Promise<void>((resolve) => server.listen(0, '127.0.0.1', resolve));
  port = (server.address() as AddressInfo).port;
  base = `http://127.0.0.1:${port}`;
  api = await startTestStack({ environment: { ALLOW_LOOPBACK_URLS: 'true' } });
});

afterAll(async () => {
  server.closeAllConnections();
  await new Promise((resolve) => server.close(resolve));
  await api?.stop();
});

const imageField: MediaInputOptions = { param: 'background', accept: ['image', 'video'] };

async function refusal(promise: Promise<unknown>): Promise<InvalidParameterError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof InvalidParameterError) return error;
    throw error;
  }
  throw new Error('expected a 400 invalid_parameter');
}

async function readAll(key: string): Promise<Buffer> {
  const chunks: Uint8Array[] = [];
  for await (const chunk of await readMediaStream(key)) chunks.push(chunk);
  return Buffer.concat(chunks);
}

async function inputObjects(workspaceId: string): Promise<string[]> {
  const prefix = mediaKeys.input(workspaceId, '');
  const listed = await s3Client().send(
    new ListObjectsV2Command({ Bucket: config().bucketName, Prefix: prefix }),
  );
  return (listed.Contents ?? []).map((object) => object.Key ?? '');
}

describe('url inputs', () => {
  it('downloads, stores in the workspace input prefix and reports the type from the bytes', async () => {
    const resolved = await resolveMediaInput(
      api.workspaceId,
      { type: 'url', url: `${base}/logo.png` },
      imageField,
    );
    expect(resolved).toEqual<ResolvedMedia>({
      source: 'url',
      objectKey: expect.stringMatching(new RegExp(`^workspaces/${api.workspaceId}/inputs/[0-9a-f]{32}$`)),
      mimeType: 'image/png',
      kind: 'image',
      sizeBytes: image.length,
    });
    expect(await readAll(resolved.objectKey)).toEqual(image);
    expect(await detectMediaType(await readMediaHead(resolved.objectKey, 4100))).toMatchObject({
      mimeType: 'image/png',
    });
    expect((await headMediaObject(resolved.objectKey))?.contentType).toBe('image/png');
  });

  it('keeps the URL host name in Host when connecting to the resolved address', async () => {
    hostHeaders.length = 0;
    const resolved = await resolveMediaInput(
      api.workspaceId,
      { type: 'url', url: `http://pinned.localhost:${port}/logo.png` },
      imageField,
    );
    expect(resolved.sizeBytes).toBe(image.length);
    expect(hostHeaders).toEqual([`pinned.localhost:${port}`]);
  });

  it('pins the TLS connection to the checked address, with the host name as SNI', async () => {
    // The system resolver does not know this name: only the pinned lookup reaches this server. It has
    // no certificate, so the handshake fails after the client named the host.
    const serverNames: string[] = [];
    const tlsServer = createTlsServer({
      SNICallback: (name, callback) => {
        serverNames.push(name);
        callback(new Error('no certificate here'));
      },
    });
    await new Promise<void>((resolve) => tlsServer.listen(0, '127.0.0.1', resolve));
    try {
      const tlsPort = (tlsServer.address() as AddressInfo).port;
      const error = await refusal(
        resolveMediaInput(
          api.workspaceId,
          { type: 'url', url: `https://pinned.example.test:${tlsPort}/logo.png` },
          imageField,
        ),
      );
      expect(error.param).toBe('background.url');
      expect(error.message).toMatch(/could not be downloaded: .*pinned\.example\.test/);
      expect(serverNames).toEqual(['pinned.example.test']);
    } finally {
      await new Promise((resolve) => tlsServer.close(resolve));
    }
  });

  describe('refusals (nothing is stored)', () => {
    let workspaceId: string;
    beforeAll(async () => {
      ({ workspaceId } = await api.newWorkspace());
    });
    afterAll(async () => {
      expect(await inputObjects(workspaceId)).toEqual([]);
    });

    const resolveUrl = (url: string, options: Partial<MediaInputOptions> = {}) =>
      resolveMediaInput(workspaceId, { type: 'url', url }, { ...imageField, ...options });

    it('refuses a redirect without contacting its target', async () => {
      const error = await refusal(resolveUrl(`${base}/redirect`));
      expect(error.param).toBe('background.url');
      expect(error.message).toMatch(/HTTP 302 to http:\/\/127\.0\.0\.1:\d+\/target\.png/);
      expect(error.message).toMatch(/redirects are not followed/);
      expect(hits.get('/target.png')).toBeUndefined();
    });

    it('refuses a non-2xx answer with its status', async () => {
      const error = await refusal(resolveUrl(`${base}/missing`));
      expect(error.param).toBe('background.url');
      expect(error.message).toBe('`background.url` answered HTTP 404 Not Found; expected 200 with the file.');
    });

    it('gives up on a response that does not come in time', async () => {
      const started = Date.now();
      const error = await refusal(resolveUrl(`${base}/slow`, { timeoutMs: 300 }));
      expect(error.message).toBe('`background.url` did not answer within 300 ms.');
      expect(Date.now() - started).toBeLessThan(2000);
    });

    it('gives up on a body that stalls', async () => {
      const error = await refusal(resolveUrl(`${base}/stall`, { timeoutMs: 300 }));
      expect(error.message).toBe('`background.url` stalled: no data arrived for 300 ms.');
    });

    it('gives up on a download that never finishes', async () => {
      const error = await refusal(resolveUrl(`${base}/drip`, { timeoutMs: 300, downloadTimeoutMs: 600 }));
      expect(error.message).toBe('`background.url` did not finish downloading within 600 ms.');
    });

    it('refuses an oversized file from its Content-Length', async () => {
      const error = await refusal(resolveUrl(`${base}/big-declared`, { maxBytes: 64 * KiB }));
      expect(error.message).toBe(
        '`background.url` is too large: the server declares 262144 bytes (Content-Length); at most 65536 bytes are accepted.',
      );
    });

    it('aborts an oversized file without Content-Length while it streams', async () => {
      const error = await refusal(resolveUrl(`${base}/big-chunked`, { maxBytes: 64 * KiB }));
      expect(error.message).toBe(
        '`background.url` is too large: the server sent more than 65536 bytes, the most accepted.',
      );
    });

    it('refuses a file cut short', async () => {
      const error = await refusal(resolveUrl(`${base}/truncated`));
      expect(error.message).toBe(
        '`background.url` could not be downloaded: 127.0.0.1 closed the connection before the whole file arrived.',
      );
    });

    it('refuses bytes of a kind the field does not take, whatever the server says', async () => {
      const error = await refusal(resolveUrl(`${base}/mislabelled.png`));
      expect(error.param).toBe('background.url');
      expect(error.message).toBe(
        '`background.url` is a document (application/pdf); expected an image (png, jpg, webp) or a video (mp4, mov, webm).',
      );
    });

    it('refuses bytes of no supported type, and empty bodies', async () => {
      expect((await refusal(resolveUrl(`${base}/notes.txt`))).message).toMatch(
        /is not a file of a supported type; expected an image/,
      );
      expect((await refusal(resolveUrl(`${base}/empty`))).message).toMatch(/is empty; expected an image/);
    });

    it.each([
      ['https://10.0.0.1/x', /must point to a public address/],
      ['https://169.254.169.254/', /must point to a public address/],
      ['http://169.254.169.254/latest/meta-data/', /must point to a public address/],
      ['https://[fd00:ec2::254]/', /must point to a public address/],
      ['https://printer.local/x.png', /must name a public host/],
      ['ftp://media.example.com/x.png', /must use https/],
      ['not a url', /must be an absolute URL/],
      [`https://private.example.test/x.png`, /resolves to a non-public address \(10\.0\.0\.7\)/],
      [`https://metadata.example.test/`, /resolves to a non-public address \(169\.254\.169\.254\)/],
    ])('refuses %s even with loopback allowed', async (url, message) => {
      const error = await refusal(resolveUrl(url));
      expect(error.param).toBe('background.url');
      expect(error.message).toMatch(message);
    });

    it('explains network failures as a problem of the URL', async () => {
      const closed = createServer();
      await new Promise<void>((resolve) => closed.listen(0, '127.0.0.1', resolve));
      const closedPort = (closed.address() as AddressInfo).port;
      await new Promise((resolve) => closed.close(resolve));

      const refused = await refusal(resolveUrl(`http://127.0.0.1:${closedPort}/x.png`));
      expect(refused.param).toBe('background.url');
      expect(refused.message).toMatch(/127\.0\.0\.1 refused the connection \(ECONNREFUSED\)/);

      expect((await refusal(resolveUrl(`${base}/reset`))).message).toMatch(/closed the connection/);
      expect((await refusal(resolveUrl('https://nowhere.example.test/x.png'))).message).toMatch(
        /the host nowhere\.example\.test does not resolve \(ENOTFOUND\)/,
      );
      // TLS to a server that speaks plain HTTP: the handshake fails.
      expect((await refusal(resolveUrl(`https://127.0.0.1:${port}/logo.png`))).message).toMatch(
        /the TLS handshake with 127\.0\.0\.1 failed \(EPROTO\)/,
      );
    });
  });
});

describe('asset_id inputs', () => {
  it('resolves a ready asset of the workspace to its object', async () => {
    const asset = await storeUploadedAsset({
      workspaceId: api.workspaceId,
      owner: 'test',
      name: 'voice.wav',
      bytes: wav(),
      detected: { mimeType: 'audio/wav', kind: 'audio', extension: 'wav' },
    });
    const resolved = await resolveMediaInput(
      api.workspaceId,
      { type: 'asset_id', asset_id: asset.asset_id },
      { param: 'audio', accept: ['audio'] },
    );
    expect(resolved).toEqual<ResolvedMedia>({
      source: 'asset',
      objectKey: asset.object_key,
      mimeType: 'audio/wav',
      kind: 'audio',
      sizeBytes: wav().length,
      assetId: asset.asset_id,
    });

    const wrongKind = await refusal(
      resolveMediaInput(
        api.workspaceId,
        { type: 'asset_id', asset_id: asset.asset_id },
        { param: 'captions', accept: ['subtitle'] },
      ),
    );
    expect(wrongKind.param).toBe('captions.asset_id');
    expect(wrongKind.message).toBe(
      '`captions.asset_id` is audio (audio/wav); expected subtitles (srt, vtt).',
    );

    const tooLarge = await refusal(
      resolveMediaInput(
        api.workspaceId,
        { type: 'asset_id', asset_id: asset.asset_id },
        { param: 'audio', accept: ['audio'], maxBytes: 100 },
      ),
    );
    expect(tooLarge.message).toMatch(/at most 100 bytes are accepted here/);
  });

  it("refuses another workspace's asset as not found", async () => {
    const other = await api.newWorkspace();
    const asset = await storeUploadedAsset({
      workspaceId: other.workspaceId,
      owner: 'test',
      name: 'captions.srt',
      bytes: srt(),
      detected: { mimeType: 'application/x-subrip', kind: 'subtitle', extension: 'srt' },
    });
    const error = await refusal(
      resolveMediaInput(
        api.workspaceId,
        { type: 'asset_id', asset_id: asset.asset_id },
        { param: 'srt', accept: ['subtitle'] },
      ),
    );
    expect(error.param).toBe('srt.asset_id');
    expect(error.message).toBe(`\`srt.asset_id\`: no asset ${asset.asset_id} exists in this workspace.`);
    // Not an id at all: the same answer.
    expect(
      (
        await refusal(
          resolveMediaInput(
            api.workspaceId,
            { type: 'asset_id', asset_id: 'nope' },
            { param: 'srt', accept: ['subtitle'] },
          ),
        )
      ).param,
    ).toBe('srt.asset_id');
  });

  it('refuses an asset still pending upload', async () => {
    const pending = await createPendingAsset(api.workspaceId, 'test', {
      filename: 'photo.png',
      mimeType: 'image/png',
      sizeBytes: 100,
    });
    const error = await refusal(
      resolveMediaInput(
        api.workspaceId,
        { type: 'asset_id', asset_id: pending.asset_id },
        { param: 'avatar.photo', accept: ['image'] },
      ),
    );
    expect(error.param).toBe('avatar.photo.asset_id');
    expect(error.message).toMatch(/is still pending upload/);
  });
});

describe('base64 inputs', () => {
  it('decodes, checks and stores the bytes', async () => {
    const resolved = await resolveMediaInput(
      api.workspaceId,
      { type: 'base64', media_type: 'image/png', data: image.toString('base64') },
      { param: 'avatar', accept: ['image'] },
    );
    expect(resolved).toMatchObject({ source: 'base64', mimeType: 'image/png', sizeBytes: image.length });
    expect(resolved.objectKey).toMatch(new RegExp(`^workspaces/${api.workspaceId}/inputs/`));
    expect(await readAll(resolved.objectKey)).toEqual(image);
  });

  it('refuses a declared type the bytes contradict', async () => {
    const error = await refusal(
      resolveMediaInput(
        api.workspaceId,
        { type: 'base64', media_type: 'image/jpeg', data: image.toString('base64') },
        { param: 'avatar', accept: ['image'] },
      ),
    );
    expect(error.param).toBe('avatar.media_type');
    expect(error.message).toBe('`avatar.media_type` says image/jpeg, but `avatar.data` is image/png.');
  });
});

describe('storage errors', () => {
  it("propagate unchanged: the workspace's encryption refuses the write", async () => {
    const { workspaceId } = await api.newWorkspace();
    const now = Math.floor(Date.now() / 1000);
    await putWorkspaceEncryption(workspaceId, {
      state: 'pending',
      key_arn: 'arn:aws:kms:us-east-1:000000000000:key/00000000-0000-0000-0000-000000000000',
      setup_id: 'setup',
      execution_arn: 'arn:aws:states:us-east-1:000000000000:execution:setup:1',
      report: [],
      requested_at: now,
      updated_at: now,
    });
    for (const input of [
      { type: 'url', url: `${base}/logo.png` },
      { type: 'base64', media_type: 'image/png', data: image.toString('base64') },
    ]) {
      const error = await resolveMediaInput(workspaceId, input, imageField).catch((caught) => caught);
      expect(error).toBeInstanceOf(ServiceError);
      expect(error).not.toBeInstanceOf(InvalidParameterError);
      expect(error).toMatchObject({ status: 409, code: 'encryption_setup_pending' });
    }
  });
});
