import { createHash } from 'node:crypto';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { mediaKeys } from '../../lambdas/media/media-keys.js';
import { headMediaObject } from '../../lambdas/media/media-store.js';
import { mp4Header, multipartBody, pdf, png, srt, wav } from '../support/sample-media.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

/** A small multipart cap so the oversize path is cheap to exercise. */
const MULTIPART_CAP = 256 * 1024;

let api: TestStack;
beforeAll(async () => {
  api = await startTestStack({ environment: { MAX_MULTIPART_UPLOAD_BYTES: String(MULTIPART_CAP) } });
});
afterAll(() => api.stop());

interface UploadResult {
  data: { asset_id: string; url: string; mime_type: string; size_bytes: number; status: string };
}
interface AssetBody {
  data: {
    id: string;
    name: string;
    type: string;
    mime_type: string;
    status: string;
    url: string | null;
    space_id: string;
    owner: string;
    uploaded_at: number | null;
  };
}
interface DirectUpload {
  data: {
    asset_id: string;
    upload_url: string;
    upload_headers: Record<string, string>;
    expires_in_seconds: number;
    max_bytes: number;
    status: string;
  };
}

async function upload(bytes: Buffer, fileName: string, contentType: string, key?: string) {
  const multipart = multipartBody('file', fileName, contentType, bytes);
  return api.call<UploadResult>('POST', '/v3/assets', {
    rawBody: multipart.body,
    headers: { 'Content-Type': multipart.contentType },
    ...(key ? { key } : {}),
  });
}

async function download(url: string): Promise<Buffer> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  return Buffer.from(await response.arrayBuffer());
}

const sha256 = (bytes: Buffer) => createHash('sha256').update(bytes).digest('hex');

describe('POST /v3/assets (multipart)', () => {
  it.each([
    ['logo.png', 'image/png', png(), 'image'],
    ['voice.wav', 'audio/wav', wav(), 'audio'],
    ['clip.mp4', 'video/mp4', mp4Header(), 'video'],
    ['brief.pdf', 'application/pdf', pdf(), 'document'],
    ['captions.srt', 'application/x-subrip', srt(), 'subtitle'],
  ])('stores %s and serves it back through a presigned URL', async (fileName, mimeType, bytes, kind) => {
    const result = await upload(bytes, fileName, mimeType);
    expect(result.status).toBe(201);
    expect(result.body.data).toMatchObject({
      mime_type: mimeType,
      size_bytes: bytes.length,
      status: 'ready',
    });
    expect(await download(result.body.data.url)).toEqual(bytes);

    const asset = await api.call<AssetBody>('GET', `/v3/assets/${result.body.data.asset_id}`);
    expect(asset.body.data).toMatchObject({
      id: result.body.data.asset_id,
      name: fileName,
      type: kind,
      space_id: api.workspaceId,
      status: 'ready',
    });
    expect(asset.body.data.uploaded_at).toBeGreaterThan(0);
  });

  it.each([
    ['UTF-8 (RFC 7578)', 'résumé.png', 'filename="résumé.png"', 'résumé.png'],
    ['UTF-8, CJK', '日本語.png', 'filename="日本語.png"', '日本語.png'],
    [
      'filename* (RFC 5987) over filename',
      'ignored',
      `filename="fallback.png"; filename*=UTF-8''%E6%97%A5%E6%9C%AC.png`,
      '日本.png',
    ],
    ['a bidi override, stripped', 'x', 'filename="invoice\u202Egnp.exe"', 'invoicegnp.exe'],
    ['control characters, stripped', 'x', 'filename="a\u0085b\u2066c.png"', 'abc.png'],
  ])(
    'stores a file name sent as %s as the user wrote it, and downloads under it',
    async (_label, fileName, fileParameters, stored) => {
      const multipart = multipartBody('file', fileName, 'image/png', png(), { fileParameters });
      const result = await api.call<UploadResult>('POST', '/v3/assets', {
        rawBody: multipart.body,
        headers: { 'Content-Type': multipart.contentType },
      });
      expect(result.status).toBe(201);
      const asset = await api.call<AssetBody>('GET', `/v3/assets/${result.body.data.asset_id}`);
      expect(asset.body.data.name).toBe(stored);
      const listed = await api.call<{ data: { id: string; name: string }[] }>('GET', '/v3/assets');
      expect(listed.body.data.find((item) => item.id === asset.body.data.id)?.name).toBe(stored);

      const response = await fetch(result.body.data.url);
      expect(response.status).toBe(200);
      const disposition = response.headers.get('content-disposition') ?? '';
      const ascii = stored.replace(/[^\x20-\x7E]/g, '_');
      expect(disposition).toBe(`inline; filename="${ascii}"; filename*=UTF-8''${encodeURIComponent(stored)}`);
      expect(decodeURIComponent(disposition.split("UTF-8''")[1] ?? '')).toBe(stored);
    },
  );

  describe('folder_id form field', () => {
    async function uploadTo(folderId: string, key?: string) {
      const multipart = multipartBody('file', 'in-folder.png', 'image/png', png(), {
        fields: { folder_id: folderId },
      });
      return api.call<UploadResult>('POST', '/v3/assets', {
        rawBody: multipart.body,
        headers: { 'Content-Type': multipart.contentType },
        ...(key ? { key } : {}),
      });
    }
    const newFolder = async (type: string, key?: string) =>
      (
        await api.call<{ data: { folder_id: string } }>('POST', '/v3/folders', {
          body: { name: `for assets (${type})`, type },
          ...(key ? { key } : {}),
        })
      ).body.data.folder_id;

    it('files the asset in the folder', async () => {
      const folderId = await newFolder('mixed');
      const result = await uploadTo(folderId);
      expect(result.status).toBe(201);
      const asset = await api.call<{ data: { folder_id: string | null } }>(
        'GET',
        `/v3/assets/${result.body.data.asset_id}`,
      );
      expect(asset.body.data.folder_id).toBe(folderId);
    });

    it.each([
      ['an unknown folder', async () => 'f'.repeat(32), 'does not exist'],
      ['a folder of another workspace', async () => newFolder('mixed'), 'does not exist'],
      ['a folder that holds videos', (key: string) => newFolder('video', key), 'cannot receive asset'],
      ['an empty folder_id', async () => '', 'must not be empty'],
    ])('refuses %s with 400 naming folder_id, and stores nothing', async (_label, folder, message) => {
      const { apiKey } = await api.newWorkspace();
      const folderId = await folder(apiKey);
      const result = await uploadTo(folderId, apiKey);
      expect(result.status).toBe(400);
      expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param: 'folder_id' });
      expect(errorOf(result).message).toContain(message);
      const list = await api.call<{ data: unknown[] }>('GET', '/v3/assets', { key: apiKey });
      expect(list.body.data).toEqual([]);
    });
  });

  it('decides the type from the bytes: a generic declared type is fine', async () => {
    const result = await upload(png(), 'no-extension', 'application/octet-stream');
    expect(result.body.data.mime_type).toBe('image/png');
  });

  it.each([
    ['an empty file', Buffer.alloc(0), 'empty.png', 'image/png', 'empty'],
    [
      'an unsupported file',
      Buffer.from('just some text, not media'),
      'notes.txt',
      'text/plain',
      'not of a supported type',
    ],
    ['a mislabelled file', pdf(), 'fake.png', 'image/png', 'application/pdf'],
  ])(
    'refuses %s with 400 naming file, and stores nothing',
    async (_label, bytes, fileName, mimeType, message) => {
      const { apiKey } = await api.newWorkspace();
      const result = await upload(bytes, fileName, mimeType, apiKey);
      expect(result.status).toBe(400);
      expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param: 'file' });
      expect(errorOf(result).message).toContain(message);
      const list = await api.call<{ data: unknown[] }>('GET', '/v3/assets', { key: apiKey });
      expect(list.body.data).toEqual([]);
    },
  );

  /** A png of exactly `size` bytes (its type still read from its header). */
  const pngOfSize = (size: number) => Buffer.concat([png(), Buffer.alloc(size - png().length)]);

  it('stores a file of exactly the configured cap', async () => {
    const bytes = pngOfSize(MULTIPART_CAP);
    const result = await upload(bytes, 'at-the-cap.png', 'image/png');
    expect(result.status).toBe(201);
    expect(result.body.data).toMatchObject({ size_bytes: MULTIPART_CAP, status: 'ready' });
  });

  it.each([
    // Parsed: the body is within the framing allowance, the parser counts the file's bytes.
    ['one byte over the cap', MULTIPART_CAP + 1],
    // Refused before parsing: the body is longer than any body holding a file within the cap.
    ['far over the cap', MULTIPART_CAP + 200 * 1024],
  ])(
    'refuses a file %s with 413 payload_too_large naming file and direct uploads, and stores nothing',
    async (_label, size) => {
      const { apiKey } = await api.newWorkspace();
      const result = await upload(pngOfSize(size), 'too-big.png', 'image/png', apiKey);
      expect(result.status).toBe(413);
      expect(errorOf(result)).toMatchObject({ code: 'payload_too_large', param: 'file' });
      expect(errorOf(result).message).toContain('256 KiB (262144 bytes)');
      expect(errorOf(result).message).toContain('POST /v3/assets/direct-uploads');
      const list = await api.call<{ data: unknown[] }>('GET', '/v3/assets', { key: apiKey });
      expect(list.body.data).toEqual([]);
    },
  );

  it('refuses a body that is not multipart', async () => {
    const result = await api.call('POST', '/v3/assets', { body: { file: 'aGVsbG8=' } });
    expect(result.status).toBe(400);
    expect(errorOf(result).param).toBe('file');
  });
});

describe('direct uploads', () => {
  async function startUpload(body: Record<string, unknown>, key?: string) {
    return api.call<DirectUpload>('POST', '/v3/assets/direct-uploads', { body, ...(key ? { key } : {}) });
  }

  async function put(upload: DirectUpload['data'], bytes: Buffer) {
    const response = await fetch(upload.upload_url, {
      method: 'PUT',
      body: bytes,
      headers: upload.upload_headers,
    });
    expect(response.status).toBe(200);
  }

  it('uploads through a presigned PUT, then completes into a ready asset (idempotently)', async () => {
    const bytes = wav(0.5);
    const started = await startUpload({
      filename: 'take-1.wav',
      content_type: 'audio/wav',
      size_bytes: bytes.length,
      checksum_sha256: sha256(bytes),
    });
    expect(started.status).toBe(201);
    expect(started.body.data).toMatchObject({
      status: 'pending_upload',
      max_bytes: bytes.length,
      upload_headers: { 'Content-Type': 'audio/wav' },
    });
    expect(started.body.data.expires_in_seconds).toBeGreaterThan(0);

    const assetId = started.body.data.asset_id;
    const pending = await api.call<AssetBody>('GET', `/v3/assets/${assetId}`);
    expect(pending.body.data).toMatchObject({ status: 'pending_upload', url: null });

    const early = await api.call('POST', `/v3/assets/${assetId}/complete`, { body: {} });
    expect(early.status).toBe(409);
    expect(errorOf(early).code).toBe('resource_not_ready');

    await put(started.body.data, bytes);
    const completed = await api.call<UploadResult>('POST', `/v3/assets/${assetId}/complete`, { body: {} });
    expect(completed.status).toBe(200);
    expect(completed.body.data).toMatchObject({
      asset_id: assetId,
      mime_type: 'audio/wav',
      size_bytes: bytes.length,
      status: 'ready',
    });
    expect(await download(completed.body.data.url)).toEqual(bytes);
    // The staged upload is gone: only the asset's own copy remains.
    expect(await headMediaObject(mediaKeys.pendingUpload(api.workspaceId, assetId))).toBeUndefined();

    const again = await api.call<UploadResult>('POST', `/v3/assets/${assetId}/complete`, { body: {} });
    expect(again.status).toBe(200);
    expect(again.body.data).toMatchObject({ asset_id: assetId, status: 'ready', size_bytes: bytes.length });
  });

  it('fails the asset and deletes the bytes when the checksum does not match', async () => {
    const bytes = png();
    const started = await startUpload({
      filename: 'a.png',
      content_type: 'image/png',
      size_bytes: bytes.length,
      checksum_sha256: 'a'.repeat(64),
    });
    await put(started.body.data, bytes);
    const assetId = started.body.data.asset_id;
    const completed = await api.call('POST', `/v3/assets/${assetId}/complete`, { body: {} });
    expect(completed.status).toBe(400);
    expect(errorOf(completed)).toMatchObject({ code: 'invalid_parameter', param: 'checksum_sha256' });
    expect(errorOf(completed).message).toContain(sha256(bytes));
    expect(await headMediaObject(mediaKeys.pendingUpload(api.workspaceId, assetId))).toBeUndefined();
    const asset = await api.call<AssetBody & { data: { failure_message: string } }>(
      'GET',
      `/v3/assets/${assetId}`,
    );
    expect(asset.body.data).toMatchObject({ status: 'failed', url: null });
    expect(asset.body.data.failure_message).toContain('SHA-256');
    expect((await api.call('POST', `/v3/assets/${assetId}/complete`, { body: {} })).status).toBe(400);
  });

  it('checks a checksum given at completion too', async () => {
    const bytes = png();
    const started = await startUpload({
      filename: 'b.png',
      content_type: 'image/png',
      size_bytes: bytes.length,
    });
    await put(started.body.data, bytes);
    const completed = await api.call('POST', `/v3/assets/${started.body.data.asset_id}/complete`, {
      body: { checksum_sha256: 'b'.repeat(64) },
    });
    expect(errorOf(completed).param).toBe('checksum_sha256');
  });

  it('fails an upload whose size differs from the declared size', async () => {
    const bytes = png();
    const started = await startUpload({
      filename: 'c.png',
      content_type: 'image/png',
      size_bytes: bytes.length + 10,
    });
    // S3 refuses a length other than the signed one; the local S3 does not check signatures, which
    // lets this test reach completion's own size check.
    const headers = { ...started.body.data.upload_headers, 'Content-Length': String(bytes.length) };
    await put({ ...started.body.data, upload_headers: headers }, bytes);
    const completed = await api.call('POST', `/v3/assets/${started.body.data.asset_id}/complete`, {
      body: {},
    });
    expect(errorOf(completed)).toMatchObject({ code: 'invalid_parameter', param: 'size_bytes' });
  });

  it('fails a type-spoofed upload: declared an image, uploaded a PDF', async () => {
    const bytes = pdf();
    const started = await startUpload({
      filename: 'd.png',
      content_type: 'image/png',
      size_bytes: bytes.length,
    });
    await put(started.body.data, bytes);
    const completed = await api.call('POST', `/v3/assets/${started.body.data.asset_id}/complete`, {
      body: {},
    });
    expect(errorOf(completed)).toMatchObject({ code: 'invalid_parameter', param: 'content_type' });
    expect(errorOf(completed).message).toContain('application/pdf');
  });

  it.each([
    [{ filename: 'x.exe', content_type: 'application/x-msdownload', size_bytes: 10 }, 'content_type'],
    [{ filename: 'x.png', content_type: 'image/png', size_bytes: 0 }, 'size_bytes'],
    [
      { filename: 'x.png', content_type: 'image/png', size_bytes: 10, checksum_sha256: 'xyz' },
      'checksum_sha256',
    ],
    [{ filename: '../etc/passwd', content_type: 'image/png', size_bytes: 10 }, 'filename'],
    [{ content_type: 'image/png', size_bytes: 10 }, 'filename'],
    [{ filename: 'x.png', content_type: 'image/png', size_bytes: 10, public: true }, 'public'],
  ])('refuses %j naming %s', async (body, param) => {
    const result = await startUpload(body);
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
  });

  it('answers 404 asset_not_found when completing an unknown asset', async () => {
    const result = await api.call('POST', `/v3/assets/${'f'.repeat(32)}/complete`, { body: {} });
    expect(result.status).toBe(404);
    expect(errorOf(result).code).toBe('asset_not_found');
  });
});

describe('listing, reading and deleting assets', () => {
  it('lists newest first, keeps workspaces apart, and deletes record and media', async () => {
    const { apiKey } = await api.newWorkspace();
    const first = await upload(png(1, 1), 'one.png', 'image/png', apiKey);
    const second = await upload(srt(), 'two.srt', 'application/x-subrip', apiKey);
    const list = await api.call<{ data: { id: string }[] }>('GET', '/v3/assets', { key: apiKey });
    expect(list.body.data.map((asset) => asset.id)).toEqual([
      second.body.data.asset_id,
      first.body.data.asset_id,
    ]);

    const foreign = await api.call('GET', `/v3/assets/${first.body.data.asset_id}`);
    expect(foreign.status).toBe(404);
    expect(errorOf(foreign).code).toBe('asset_not_found');
    expect((await api.call('DELETE', `/v3/assets/${first.body.data.asset_id}`)).status).toBe(404);

    const deleted = await api.call('DELETE', `/v3/assets/${first.body.data.asset_id}`, { key: apiKey });
    expect(deleted.body).toEqual({ data: { id: first.body.data.asset_id } });
    expect((await api.call('GET', `/v3/assets/${first.body.data.asset_id}`, { key: apiKey })).status).toBe(
      404,
    );
    const gone = await fetch(first.body.data.url);
    expect(gone.status).toBe(404);
  });
});

describe('direct upload URLs after the fact', () => {
  async function started(bytes: Buffer, contentType = 'image/png', key?: string) {
    const result = await api.call<DirectUpload>('POST', '/v3/assets/direct-uploads', {
      body: { filename: 'x.png', content_type: contentType, size_bytes: bytes.length },
      ...(key ? { key } : {}),
    });
    return result.body.data;
  }

  it('cannot replace a completed asset: a second PUT lands in the staging area, not on the asset', async () => {
    const bytes = png();
    const upload = await started(bytes);
    await fetch(upload.upload_url, { method: 'PUT', body: bytes, headers: upload.upload_headers });
    const completed = await api.call<UploadResult>('POST', `/v3/assets/${upload.asset_id}/complete`, {
      body: {},
    });
    const forged = Buffer.concat([
      Buffer.from('<html><script>alert(1)</script>'),
      Buffer.alloc(bytes.length),
    ]).subarray(0, bytes.length);
    await fetch(upload.upload_url, { method: 'PUT', body: forged, headers: upload.upload_headers });
    expect(await download(completed.body.data.url)).toEqual(bytes);
    const asset = await api.call<AssetBody>('GET', `/v3/assets/${upload.asset_id}`);
    const served = await fetch(asset.body.data.url ?? '');
    expect(served.headers.get('content-type')).toBe('image/png');
    expect(Buffer.from(await served.arrayBuffer())).toEqual(bytes);
  });

  it('signs the announced type and size, so S3 refuses an upload of another type or size', async () => {
    const bytes = png();
    const upload = await started(bytes);
    const signedHeaders = new URL(upload.upload_url).searchParams.get('X-Amz-SignedHeaders')?.split(';');
    expect(signedHeaders).toEqual(
      expect.arrayContaining(['content-type', 'content-length', 'x-amz-server-side-encryption']),
    );
    expect(upload.upload_headers).toMatchObject({
      'Content-Type': 'image/png',
      'Content-Length': String(bytes.length),
    });
  });

  it('never answers 500 when a good and a bad completion race', async () => {
    const bytes = png();
    const upload = await started(bytes);
    await fetch(upload.upload_url, { method: 'PUT', body: bytes, headers: upload.upload_headers });
    const [good, bad] = await Promise.all([
      api.call('POST', `/v3/assets/${upload.asset_id}/complete`, { body: {} }),
      api.call('POST', `/v3/assets/${upload.asset_id}/complete`, {
        body: { checksum_sha256: 'a'.repeat(64) },
      }),
    ]);
    expect(good.status).toBeLessThan(500);
    expect(bad.status).toBeLessThan(500);
    const asset = await api.call<AssetBody>('GET', `/v3/assets/${upload.asset_id}`);
    // Whichever settled it, the record and its media agree.
    if (asset.body.data.status === 'ready') expect(await download(asset.body.data.url ?? '')).toEqual(bytes);
    else expect(asset.body.data).toMatchObject({ status: 'failed', url: null });
  });
});
