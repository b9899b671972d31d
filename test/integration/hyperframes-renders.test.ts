/**
 * HyperFrames renders over HTTP with the HyperFrames test double (the real renderer is
 * hyperframes-real-render.test.ts): the routes, the project zip checks, the size rules, progress,
 * credits, events, list order and pagination, soft delete. The double makes a real video of the
 * composition's stated length at the requested fps, which these tests measure.
 */
import { randomBytes } from 'node:crypto';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWorkspace } from '../../lambdas/accounts/workspaces.js';
import { probeMedia } from '../../lambdas/engines/composition/probe.js';
import { eventCapture } from '../support/event-capture.js';
import { multipartBody } from '../support/sample-media.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

const capture = eventCapture();
let api: TestStack;
let scratch: string;

interface Render {
  render_id: string;
  status: string;
  format: string;
  title: string | null;
  callback_id: string | null;
  video_url: string | null;
  thumbnail_url: string | null;
  duration: number | null;
  fps: number;
  quality: string;
  resolution: string;
  aspect_ratio: string;
  composition: string;
  progress: number;
  frames_rendered: number | null;
  total_frames: number | null;
  failure_code: string | null;
  failure_message: string | null;
  failure_reason: string | null;
  created_at: number;
  completed_at: number | null;
}

const MAX_FILES = 6;
const MAX_ZIP_BYTES = 64 * 1024;

function composition(options: { width?: number; height?: number; duration?: number } = {}): string {
  const { width = 1920, height = 1080, duration = 2 } = options;
  return `<!doctype html><html><body><div id="root" data-composition-id="main" data-start="0" data-duration="${duration}" data-width="${width}" data-height="${height}"></div></body></html>`;
}

const encode = (text: string) => new TextEncoder().encode(text);

function zipBase64(files: Parameters<typeof zipSync>[0]): {
  type: 'base64';
  media_type: string;
  data: string;
} {
  return {
    type: 'base64',
    media_type: 'application/zip',
    data: Buffer.from(zipSync(files)).toString('base64'),
  };
}

const project = (html = composition()) => zipBase64({ 'index.html': encode(html) });

async function create(
  body: Record<string, unknown>,
  options: { key?: string; headers?: Record<string, string> } = {},
) {
  return api.call<{ data: { render_id: string; status: string } }>('POST', '/v3/hyperframes/renders', {
    body,
    ...options,
  });
}

async function waitFor(renderId: string, key?: string): Promise<Render> {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const result = await api.call<{ data: Render }>(
      'GET',
      `/v3/hyperframes/renders/${renderId}`,
      key ? { key } : {},
    );
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    if (result.body.data.status === 'completed' || result.body.data.status === 'failed')
      return result.body.data;
    if (Date.now() > deadline) throw new Error(`render ${renderId} still ${result.body.data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function creditsOf(workspaceId: string): Promise<number> {
  return (await getWorkspace(workspaceId, true))?.remaining_credits as number;
}

async function settledCredits(workspaceId: string, expected: number): Promise<number> {
  const deadline = Date.now() + 5_000;
  for (;;) {
    const credits = await creditsOf(workspaceId);
    if (credits === expected || Date.now() > deadline) return credits;
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
}

beforeAll(async () => {
  api = await startTestStack({
    stepFunctionsTimeScale: 0.001,
    environment: {
      HYPERFRAMES_MAX_FILES: String(MAX_FILES),
      HYPERFRAMES_MAX_ZIP_BYTES: String(MAX_ZIP_BYTES),
    },
    ...capture.stackOptions,
  });
  await capture.subscribe(api, { 'detail-type': ['hyperframes_video.success', 'hyperframes_video.fail'] });
  scratch = await mkdtemp(join(tmpdir(), 'hyperframes-test-'));
}, 60_000);

afterAll(async () => {
  await api?.stop();
  await rm(scratch, { recursive: true, force: true });
});

describe('HyperFrames renders', () => {
  it('renders a composition: 202 queued, then the video at the requested fps and length, progress by frames, one minute charged, an event', async () => {
    const { workspaceId, apiKey } = await api.newWorkspace();
    const before = await creditsOf(workspaceId);
    const created = await create(
      {
        project: project(composition({ duration: 2 })),
        fps: 12,
        quality: 'draft',
        title: 'Launch teaser',
        callback_id: 'teaser-1',
        variables: { headline: 'Hello' },
      },
      { key: apiKey },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    expect(created.body.data).toEqual({ render_id: expect.any(String), status: 'queued' });
    const render = await waitFor(created.body.data.render_id, apiKey);
    expect(render).toMatchObject({
      status: 'completed',
      format: 'mp4',
      title: 'Launch teaser',
      callback_id: 'teaser-1',
      fps: 12,
      quality: 'draft',
      resolution: '1080p',
      aspect_ratio: '16:9',
      composition: 'index.html',
      progress: 100,
      frames_rendered: 24,
      total_frames: 24,
      failure_code: null,
      failure_message: null,
      failure_reason: null,
    });
    expect(render.duration).toBeCloseTo(2, 1);
    expect(render.completed_at).toBeGreaterThanOrEqual(render.created_at);

    const response = await fetch(render.video_url as string);
    expect(response.status).toBe(200);
    const file = join(scratch, 'render.mp4');
    await writeFile(file, Buffer.from(await response.arrayBuffer()));
    const info = await probeMedia(file);
    expect(info.durationSeconds).toBeCloseTo(2, 1);
    expect(info.streams.find((stream) => stream.type === 'video')?.frameRate).toBeCloseTo(12, 1);
    const thumbnail = await fetch(render.thumbnail_url as string);
    expect(thumbnail.headers.get('content-type')).toBe('image/jpeg');

    expect(await settledCredits(workspaceId, before - 1)).toBe(before - 1);
    const deadline = Date.now() + 10_000;
    while (
      !capture.events.some((event) => (event.detail as { entity_id?: string }).entity_id === render.render_id)
    ) {
      if (Date.now() > deadline) throw new Error('no hyperframes_video event');
      await new Promise((resolve) => setTimeout(resolve, 50));
    }
    const event = capture.events.find(
      (candidate) => (candidate.detail as { entity_id?: string }).entity_id === render.render_id,
    );
    expect(event?.['detail-type']).toBe('hyperframes_video.success');
  });

  it('renders a project uploaded as an asset (in a folder, with a relative asset), and its delete leaves the asset', async () => {
    const { apiKey } = await api.newWorkspace();
    const zip = Buffer.from(
      zipSync({
        'scenes/main.html': encode(composition({ width: 1080, height: 1920, duration: 1 })),
        'scenes/logo.svg': encode('<svg xmlns="http://www.w3.org/2000/svg"/>'),
      }),
    );
    const multipart = multipartBody('file', 'project.zip', 'application/zip', zip);
    const uploaded = await api.call<{ data: { asset_id: string } }>('POST', '/v3/assets', {
      rawBody: multipart.body,
      headers: { 'Content-Type': multipart.contentType },
      key: apiKey,
    });
    expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
    const assetId = uploaded.body.data.asset_id;
    const created = await create(
      {
        project: { type: 'asset_id', asset_id: assetId },
        composition: './scenes/main.html',
        aspect_ratio: '9:16',
        format: 'mov',
        fps: 6,
      },
      { key: apiKey },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const render = await waitFor(created.body.data.render_id, apiKey);
    expect(render).toMatchObject({
      status: 'completed',
      composition: 'scenes/main.html',
      format: 'mov',
      total_frames: 6,
    });
    const deleted = await api.call('DELETE', `/v3/hyperframes/renders/${render.render_id}`, { key: apiKey });
    expect(deleted.status).toBe(200);
    const asset = await api.call('GET', `/v3/assets/${assetId}`, { key: apiKey });
    expect(asset.status).toBe(200);
  });

  it('replays a create with the same Idempotency-Key', async () => {
    const { apiKey } = await api.newWorkspace();
    const body = { project: project(), fps: 5 };
    const first = await create(body, { key: apiKey, headers: { 'Idempotency-Key': 'hf-once-1' } });
    const again = await create(body, { key: apiKey, headers: { 'Idempotency-Key': 'hf-once-1' } });
    expect(first.status).toBe(202);
    expect(again.body.data.render_id).toBe(first.body.data.render_id);
  });

  it('checks the zip before rendering, naming the problem, and charges nothing', async () => {
    const { workspaceId, apiKey } = await api.newWorkspace();
    const before = await creditsOf(workspaceId);
    const html = encode(composition());
    const cases: { project: unknown; composition?: string; param: string; message: RegExp }[] = [
      {
        project: {
          type: 'base64',
          media_type: 'application/zip',
          data: Buffer.from('not a zip at all').toString('base64'),
        },
        param: 'project.data',
        message: /zip/,
      },
      {
        project: zipBase64({ 'index.html': html, '../evil.txt': encode('x') }),
        param: 'project',
        message: /\.\.\/evil\.txt.*leaves the project/,
      },
      {
        project: zipBase64({ 'index.html': html, '/etc/cron.d/x': encode('x') }),
        param: 'project',
        message: /absolute path/,
      },
      {
        project: zipBase64({
          'index.html': html,
          'assets/link': [encode('/etc/passwd'), { os: 3, attrs: 0o120777 << 16 }],
        }),
        param: 'project',
        message: /assets\/link is a symbolic link/,
      },
      {
        project: zipBase64(
          Object.fromEntries(Array.from({ length: MAX_FILES + 1 }, (_, index) => [`f${index}.html`, html])),
        ),
        param: 'project',
        message: new RegExp(`at most ${MAX_FILES}`),
      },
      {
        project: zipBase64({ 'index.html': html, 'noise.bin': [randomBytes(MAX_ZIP_BYTES), { level: 0 }] }),
        param: 'project',
        message: /at most 0 MiB|may be at most/,
      },
      {
        project: project(),
        composition: 'scenes/main.html',
        param: 'composition',
        message: /scenes\/main\.html is not in the project zip/,
      },
    ];
    for (const { project: zip, composition: entry, param, message } of cases) {
      const result = await create(
        { project: zip, ...(entry ? { composition: entry } : {}) },
        { key: apiKey },
      );
      expect(result.status, JSON.stringify(result.body)).toBe(400);
      expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
      expect(errorOf(result).message).toMatch(message);
    }
    const listed = await api.call<{ data: Render[] }>('GET', '/v3/hyperframes/renders', { key: apiKey });
    expect(listed.body.data).toEqual([]);
    expect(await creditsOf(workspaceId)).toBe(before);
  });

  it('holds aspect_ratio and resolution to the composition, and refuses the legacy presets with 422', async () => {
    const { apiKey } = await api.newWorkspace();
    const portrait = project(composition({ width: 1080, height: 1920 }));
    const mismatch = await create({ project: portrait, aspect_ratio: '16:9' }, { key: apiKey });
    expect(mismatch.status).toBe(400);
    expect(errorOf(mismatch)).toMatchObject({ param: 'aspect_ratio' });
    expect(errorOf(mismatch).message).toContain('authored at 1080×1920 (9:16)');

    for (const preset of ['landscape', 'portrait-4k', 'square']) {
      const legacy = await create({ project: project(), resolution: preset }, { key: apiKey });
      expect(legacy.status, preset).toBe(422);
      expect(errorOf(legacy)).toMatchObject({ code: 'validation_error', param: 'resolution' });
    }
    const nullResolution = await create({ project: project(), resolution: null }, { key: apiKey });
    expect(nullResolution.status).toBe(400);
    expect(errorOf(nullResolution).param).toBe('resolution');
    const webm4k = await create({ project: project(), resolution: '4k', format: 'webm' }, { key: apiKey });
    expect(webm4k.status).toBe(400);
    expect(errorOf(webm4k).message).toContain('mp4 only');
    const odd = await create(
      { project: project(composition({ width: 1280, height: 720 })) },
      { key: apiKey },
    );
    expect(odd.status).toBe(400);
    expect(errorOf(odd)).toMatchObject({ param: 'resolution' });
    for (const fps of [0, 241, 2.5]) {
      const bad = await create({ project: project(), fps }, { key: apiKey });
      expect(bad.status, String(fps)).toBe(400);
      expect(errorOf(bad).param).toBe('fps');
    }

    // A square composition at half size renders at 1:1 1080p (upsampled ×2), in webm.
    const square = await create(
      {
        project: project(composition({ width: 540, height: 540, duration: 1 })),
        aspect_ratio: '1:1',
        format: 'webm',
        fps: 4,
      },
      { key: apiKey },
    );
    expect(square.status, JSON.stringify(square.body)).toBe(202);
    const done = await waitFor(square.body.data.render_id, apiKey);
    expect(done).toMatchObject({ status: 'completed', aspect_ratio: '1:1', format: 'webm', total_frames: 4 });
  });

  it('lists newest first with pagination, and deletes softly: gone from reads and lists', async () => {
    const { apiKey } = await api.newWorkspace();
    const ids: string[] = [];
    for (const title of ['one', 'two', 'three']) {
      const created = await create(
        { project: project(composition({ duration: 1 })), fps: 2, title },
        { key: apiKey },
      );
      ids.push(created.body.data.render_id);
      await waitFor(created.body.data.render_id, apiKey);
      await new Promise((resolve) => setTimeout(resolve, 1100)); // created_at is in seconds
    }
    const page1 = await api.call<{ data: Render[]; has_more: boolean; next_token: string | null }>(
      'GET',
      '/v3/hyperframes/renders?limit=2',
      { key: apiKey },
    );
    expect(page1.body.data.map((render) => render.title)).toEqual(['three', 'two']);
    expect(page1.body.has_more).toBe(true);
    const page2 = await api.call<{ data: Render[]; has_more: boolean }>(
      'GET',
      `/v3/hyperframes/renders?limit=2&token=${encodeURIComponent(page1.body.next_token as string)}`,
      { key: apiKey },
    );
    expect(page2.body.data.map((render) => render.title)).toEqual(['one']);
    expect(page2.body.has_more).toBe(false);
    const badLimit = await api.call('GET', '/v3/hyperframes/renders?limit=101', { key: apiKey });
    expect(errorOf(badLimit)).toMatchObject({ code: 'invalid_parameter', param: 'limit' });

    const deleted = await api.call('DELETE', `/v3/hyperframes/renders/${ids[1]}`, { key: apiKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ data: { render_id: ids[1], deleted: true } });
    const gone = await api.call('GET', `/v3/hyperframes/renders/${ids[1]}`, { key: apiKey });
    expect(gone.status).toBe(404);
    expect(errorOf(gone)).toMatchObject({ code: 'not_found' });
    const again = await api.call('DELETE', `/v3/hyperframes/renders/${ids[1]}`, { key: apiKey });
    expect(again.status).toBe(404);
    const listed = await api.call<{ data: Render[] }>('GET', '/v3/hyperframes/renders', { key: apiKey });
    expect(listed.body.data.map((render) => render.title)).toEqual(['three', 'one']);
    // Another workspace sees none of them.
    const other = await api.newWorkspace();
    const foreign = await api.call('GET', `/v3/hyperframes/renders/${ids[0]}`, { key: other.apiKey });
    expect(foreign.status).toBe(404);
  }, 30_000);
});
