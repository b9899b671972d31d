/**
 * Brand kits over HTTP: the routes (create, read, list, update, delete, defaults, tenants, file
 * checks), the brand lock, and what a kit does to a rendered video (measured on its frames).
 *
 * The rendered video is the subject here, not the speech: the reference composition engine (ffmpeg)
 * with the speech engine's test double (a WAV with word timings, made in milliseconds).
 */
import { readFileSync } from 'node:fs';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWorkspace } from '../../lambdas/accounts/workspaces.js';
import { TEST_DOUBLE_ENGINE } from '../../lambdas/core/config.js';
import { getVideo } from '../../lambdas/videos/videos.js';
import { runAdminCommand } from '../../lib/admin/admin-commands.js';
import { multipartBody, png } from '../support/sample-media.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';
import { ffmpeg } from '../unit/engines/composition/media-fixtures.js';

const require = createRequire(import.meta.url);
const fontFile = (file: string) => readFileSync(require.resolve(`dejavu-fonts-ttf/ttf/${file}`));

let api: TestStack;
let scratch: string;
let lookId: string;

beforeAll(async () => {
  api = await startTestStack({
    engines: 'reference',
    environment: { ALLOW_TEST_DOUBLE_ENGINES: 'true', SPEECH_ENGINE: TEST_DOUBLE_ENGINE },
    stepFunctionsTimeScale: 0.001,
  });
  scratch = await mkdtemp(join(tmpdir(), 'brand-kits-test-'));
  const looks = await api.call<{ data: { id: string }[] }>('GET', '/v3/avatars/looks?limit=1');
  lookId = looks.body.data[0]?.id as string;
}, 60_000);

afterAll(async () => {
  await api.stop();
  await rm(scratch, { recursive: true, force: true });
});

interface Kit {
  brand_kit_id: string;
  name: string;
  colors: string[];
  logo_url: string | null;
  logos: { url: string; mime_type: string }[];
  fonts: { family: string; source: string; format: string | null; url: string | null }[];
  is_default: boolean;
  created_at: number;
  updated_at: number;
}

const base64Png = (width: number, height: number, rgb: [number, number, number]) => ({
  type: 'base64',
  media_type: 'image/png',
  data: png(width, height, rgb).toString('base64'),
});

async function createKit(body: Record<string, unknown>, key?: string): Promise<Kit> {
  const created = await api.call<{ data: Kit }>('POST', '/v3/brand-kits', { body, ...(key ? { key } : {}) });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data;
}

const getKit = (id: string, key?: string) =>
  api.call<{ data: Kit }>('GET', `/v3/brand-kits/${id}`, key ? { key } : {});
const patchKit = (id: string, body: unknown, key?: string) =>
  api.call<{ data: Kit }>('PATCH', `/v3/brand-kits/${id}`, { body, ...(key ? { key } : {}) });

async function uploadAsset(bytes: Buffer, fileName: string, contentType: string, key?: string) {
  const multipart = multipartBody('file', fileName, contentType, bytes);
  const uploaded = await api.call<{ data: { asset_id: string } }>('POST', '/v3/assets', {
    rawBody: multipart.body,
    headers: { 'Content-Type': multipart.contentType },
    ...(key ? { key } : {}),
  });
  expect(uploaded.status, JSON.stringify(uploaded.body)).toBe(201);
  return uploaded.body.data.asset_id;
}

async function fetchBytes(url: string): Promise<{ status: number; bytes: Buffer }> {
  const response = await fetch(url);
  return { status: response.status, bytes: Buffer.from(await response.arrayBuffer()) };
}

describe('brand kit routes', () => {
  it('creates a kit, reads it back and lists it: colours lower-cased, logo and font served', async () => {
    const logo = png(8, 4, [10, 200, 30]);
    const kit = await createKit({
      name: 'Acme',
      colors: ['#1A2B3C', '#F0C000'],
      fonts: [{ family: 'DejaVu Serif' }],
      logos: [{ type: 'base64', media_type: 'image/png', data: logo.toString('base64') }],
    });
    expect(kit).toMatchObject({
      name: 'Acme',
      colors: ['#1a2b3c', '#f0c000'],
      fonts: [{ family: 'DejaVu Serif', source: 'bundled', format: null, url: null }],
      is_default: false,
    });
    expect(kit.brand_kit_id).toMatch(/^[0-9a-f]{32}$/);
    expect(kit.logos).toHaveLength(1);
    expect(await fetchBytes(kit.logo_url as string)).toEqual({ status: 200, bytes: logo });

    const read = await getKit(kit.brand_kit_id);
    expect(read.status).toBe(200);
    expect({ ...read.body.data, logo_url: null, logos: [] }).toEqual({ ...kit, logo_url: null, logos: [] });

    const listed = await api.call<{ data: Kit[]; has_more: boolean; next_token: string | null }>(
      'GET',
      '/v3/brand-kits?limit=100',
    );
    expect(listed.status).toBe(200);
    expect(listed.body.data.map((entry) => entry.brand_kit_id)).toContain(kit.brand_kit_id);
  });

  it('pages the list with limit and token', async () => {
    const { apiKey } = await api.newWorkspace();
    const ids = [];
    for (const name of ['One', 'Two', 'Three']) ids.push((await createKit({ name }, apiKey)).brand_kit_id);
    const seen: string[] = [];
    let token: string | null = null;
    do {
      const page: { body: { data: Kit[]; has_more: boolean; next_token: string | null } } = await api.call(
        'GET',
        `/v3/brand-kits?limit=2${token ? `&token=${encodeURIComponent(token)}` : ''}`,
        { key: apiKey },
      );
      expect(page.body.data.length).toBeLessThanOrEqual(2);
      expect(page.body.has_more).toBe(page.body.next_token !== null);
      seen.push(...page.body.data.map((entry) => entry.brand_kit_id));
      token = page.body.next_token;
    } while (token);
    expect(seen.sort()).toEqual(ids.sort());
  });

  it('takes an uploaded TrueType asset as a font, by the family its name table gives; the kit keeps a copy', async () => {
    const mono = fontFile('DejaVuSansMono.ttf');
    const assetId = await uploadAsset(mono, 'mono.ttf', 'font/ttf');
    const asset = await api.call<{ data: { type: string; mime_type: string } }>(
      'GET',
      `/v3/assets/${assetId}`,
    );
    expect(asset.body.data).toMatchObject({ type: 'font', mime_type: 'font/ttf' });

    const kit = await createKit({ name: 'Mono', fonts: [{ asset_id: assetId }] });
    expect(kit.fonts).toEqual([
      { family: 'DejaVu Sans Mono', source: 'uploaded', format: 'ttf', url: expect.any(String) },
    ]);
    // Deleting the asset leaves the kit's font whole.
    expect((await api.call('DELETE', `/v3/assets/${assetId}`)).status).toBe(200);
    const font = (await getKit(kit.brand_kit_id)).body.data.fonts[0];
    expect(await fetchBytes(font?.url as string)).toEqual({ status: 200, bytes: mono });
  });

  it('refuses files that are not what the field takes, naming the field', async () => {
    const pngAsset = await uploadAsset(png(4, 4), 'logo.png', 'image/png');
    const truncated = fontFile('DejaVuSans.ttf').subarray(0, 2000);
    const collection = Buffer.concat([Buffer.from('ttcf'), fontFile('DejaVuSans.ttf').subarray(4, 4000)]);
    const cases: [Record<string, unknown>, string, RegExp][] = [
      [{ fonts: [{ asset_id: pngAsset }] }, 'fonts[0].asset_id', /is an image .*expected a font/],
      [
        {
          fonts: [
            { family: 'DejaVu Sans' },
            { type: 'base64', media_type: 'font/ttf', data: truncated.toString('base64') },
          ],
        },
        'fonts[1].data',
        /cut short/,
      ],
      [
        { fonts: [{ type: 'base64', media_type: 'font/ttf', data: collection.toString('base64') }] },
        'fonts[0].data',
        /supported type/,
      ],
      [{ fonts: [{ family: 'Comic Sans MS' }] }, 'fonts[0].family', /DejaVu Serif/],
      [{ fonts: [{ asset_id: 'f'.repeat(32) }] }, 'fonts[0].asset_id', /no asset/],
      [
        {
          logos: [
            { asset_id: pngAsset },
            { type: 'base64', media_type: 'font/ttf', data: fontFile('DejaVuSans.ttf').toString('base64') },
          ],
        },
        'logos[1].data',
        /is a font .*expected an image/,
      ],
    ];
    for (const [fields, param, message] of cases) {
      const result = await api.call('POST', '/v3/brand-kits', { body: { name: 'Bad files', ...fields } });
      expect(result.status, param).toBe(400);
      expect(errorOf(result), param).toMatchObject({ code: 'invalid_parameter', param });
      expect(errorOf(result).message, param).toMatch(message);
    }
  });

  it.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'x'.repeat(257) }, 'name'],
    [{ name: 'ok', colors: ['#123456', 'red'] }, 'colors[1]'],
    [{ name: 'ok', colors: Array.from({ length: 11 }, () => '#000000') }, 'colors'],
    [
      {
        name: 'ok',
        fonts: [
          { family: 'DejaVu Sans' },
          { family: 'DejaVu Sans' },
          { family: 'DejaVu Sans' },
          { family: 'DejaVu Sans' },
        ],
      },
      'fonts',
    ],
    [{ name: 'ok', is_default: 'yes' }, 'is_default'],
    [{ name: 'ok', colour: '#000000' }, 'colour'],
  ])('refuses %j naming %s', async (body, param) => {
    const result = await api.call('POST', '/v3/brand-kits', { body });
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
  });

  it('updates: a given list replaces, an empty list clears, an omitted one stays', async () => {
    const kit = await createKit({
      name: 'Before',
      colors: ['#111111', '#222222'],
      fonts: [{ family: 'DejaVu Sans Condensed' }],
      logos: [base64Png(4, 4, [1, 2, 3])],
    });
    const oldLogo = kit.logo_url as string;

    const renamed = await patchKit(kit.brand_kit_id, { name: 'After' });
    expect(renamed.status).toBe(200);
    expect(renamed.body.data).toMatchObject({
      name: 'After',
      colors: ['#111111', '#222222'],
      fonts: [{ family: 'DejaVu Sans Condensed' }],
    });
    expect(renamed.body.data.logos).toHaveLength(1);
    expect(renamed.body.data.updated_at).toBeGreaterThanOrEqual(kit.updated_at);

    const recoloured = await patchKit(kit.brand_kit_id, { colors: ['#ABCDEF'], logos: [] });
    expect(recoloured.body.data).toMatchObject({
      name: 'After',
      colors: ['#abcdef'],
      logo_url: null,
      logos: [],
      fonts: [{ family: 'DejaVu Sans Condensed' }],
    });
    // The replaced logo's file is gone.
    expect((await fetchBytes(oldLogo)).status).not.toBe(200);

    const cleared = await patchKit(kit.brand_kit_id, { colors: [], fonts: [] });
    expect(cleared.body.data).toMatchObject({ colors: [], fonts: [], name: 'After' });

    const empty = await patchKit(kit.brand_kit_id, {});
    expect(empty.status).toBe(400);
    expect(errorOf(empty).code).toBe('invalid_parameter');
    const bad = await patchKit(kit.brand_kit_id, { colors: ['#12345'] });
    expect(errorOf(bad)).toMatchObject({ code: 'invalid_parameter', param: 'colors[0]' });
  });

  it('keeps one default kit per workspace: setting it on one clears it on the previous', async () => {
    const { apiKey } = await api.newWorkspace();
    const first = await createKit({ name: 'First', is_default: true }, apiKey);
    expect(first.is_default).toBe(true);
    const second = await createKit({ name: 'Second', is_default: true }, apiKey);
    expect(second.is_default).toBe(true);
    expect((await getKit(first.brand_kit_id, apiKey)).body.data.is_default).toBe(false);

    const back = await patchKit(first.brand_kit_id, { is_default: true }, apiKey);
    expect(back.body.data.is_default).toBe(true);
    expect((await getKit(second.brand_kit_id, apiKey)).body.data.is_default).toBe(false);
    // Unsetting another kit's default changes nothing; unsetting its own leaves none.
    await patchKit(second.brand_kit_id, { is_default: false }, apiKey);
    expect((await getKit(first.brand_kit_id, apiKey)).body.data.is_default).toBe(true);
    await patchKit(first.brand_kit_id, { is_default: false }, apiKey);
    const listed = await api.call<{ data: Kit[] }>('GET', '/v3/brand-kits', { key: apiKey });
    expect(listed.body.data.map((entry) => entry.is_default)).toEqual([false, false]);
  });

  it('deletes a kit: data.brand_kit_id, then 404; its files go', async () => {
    const kit = await createKit({ name: 'Doomed', logos: [base64Png(4, 4, [9, 9, 9])], is_default: true });
    const deleted = await api.call<{ data: { brand_kit_id: string } }>(
      'DELETE',
      `/v3/brand-kits/${kit.brand_kit_id}`,
    );
    expect(deleted.status).toBe(200);
    expect(deleted.body.data).toEqual({ brand_kit_id: kit.brand_kit_id });
    expect(errorOf(await getKit(kit.brand_kit_id))).toMatchObject({
      code: 'resource_not_found',
      param: 'brand_kit_id',
    });
    expect((await api.call('DELETE', `/v3/brand-kits/${kit.brand_kit_id}`)).status).toBe(404);
    expect((await fetchBytes(kit.logo_url as string)).status).not.toBe(200);
  });

  it('never finds a kit of another workspace, nor an unknown one', async () => {
    const other = await api.newWorkspace();
    const theirs = await createKit({ name: 'Theirs' }, other.apiKey);
    for (const id of [theirs.brand_kit_id, 'f'.repeat(32), 'not-an-id']) {
      for (const [method, body] of [
        ['GET', undefined],
        ['PATCH', { name: 'Mine now' }],
        ['DELETE', undefined],
      ] as const) {
        const result = await api.call(method, `/v3/brand-kits/${id}`, body ? { body } : {});
        expect(result.status, `${method} ${id}`).toBe(404);
        expect(errorOf(result)).toMatchObject({ code: 'resource_not_found', param: 'brand_kit_id' });
      }
    }
    expect((await getKit(theirs.brand_kit_id, other.apiKey)).body.data.name).toBe('Theirs');
    const listed = await api.call<{ data: Kit[] }>('GET', '/v3/brand-kits?limit=100');
    expect(listed.body.data.map((kit) => kit.brand_kit_id)).not.toContain(theirs.brand_kit_id);

    const video = await api.call('POST', '/v3/videos', {
      body: { type: 'avatar', avatar_id: lookId, script: 'Hi.', brand_kit_id: theirs.brand_kit_id },
    });
    expect(video.status).toBe(400);
    expect(errorOf(video)).toMatchObject({ code: 'invalid_parameter', param: 'brand_kit_id' });
  });

  it('replays a create with the same Idempotency-Key', async () => {
    const { apiKey } = await api.newWorkspace();
    const headers = { 'Idempotency-Key': 'kit-create-1' };
    const first = await api.call<{ data: Kit }>('POST', '/v3/brand-kits', {
      body: { name: 'Once' },
      headers,
      key: apiKey,
    });
    const again = await api.call<{ data: Kit }>('POST', '/v3/brand-kits', {
      body: { name: 'Once' },
      headers,
      key: apiKey,
    });
    expect(first.status).toBe(201);
    expect(again.status).toBe(201);
    expect(again.body.data.brand_kit_id).toBe(first.body.data.brand_kit_id);
    const listed = await api.call<{ data: Kit[] }>('GET', '/v3/brand-kits', { key: apiKey });
    expect(listed.body.data).toHaveLength(1);
  });
});

describe('the brand lock', () => {
  it('lets videos use the default kit only (403 brand_kit_locked), and applies it when none is named', async () => {
    const { workspaceId, apiKey } = await api.newWorkspace();
    const house = await createKit({ name: 'House', colors: ['#336699'], is_default: true }, apiKey);
    const rogue = await createKit({ name: 'Rogue', colors: ['#ff00ff'] }, apiKey);
    await runAdminCommand(['workspace', 'update', workspaceId, '--brand-lock', 'on']);
    expect((await getWorkspace(workspaceId, true))?.brand_lock).toBe(true);

    const body = { type: 'avatar', avatar_id: lookId, script: 'Hi.' };
    for (const id of [rogue.brand_kit_id, 'f'.repeat(32)]) {
      const refused = await api.call('POST', '/v3/videos', {
        body: { ...body, brand_kit_id: id },
        key: apiKey,
      });
      expect(refused.status).toBe(403);
      expect(errorOf(refused)).toMatchObject({ code: 'brand_kit_locked', param: 'brand_kit_id' });
      expect(errorOf(refused).doc_url).toBe(`${api.baseUrl}/v3/docs/errors#brand_kit_locked`);
    }
    const named = await api.call<{ data: { video_id: string } }>('POST', '/v3/videos', {
      body: { ...body, brand_kit_id: house.brand_kit_id },
      key: apiKey,
    });
    expect(named.status).toBe(200);
    const omitted = await api.call<{ data: { video_id: string } }>('POST', '/v3/videos', {
      body,
      key: apiKey,
    });
    expect(omitted.status).toBe(200);
    for (const created of [named, omitted]) {
      const video = await getVideo(workspaceId, created.body.data.video_id, true);
      expect(video?.render.brand_kit?.brand_kit_id).toBe(house.brand_kit_id);
      expect(video?.render.scenes[0]?.background).toMatchObject({ type: 'color', color: '#336699' });
    }

    await runAdminCommand(['workspace', 'update', workspaceId, '--brand-lock', 'off']);
    const unlocked = await api.call('POST', '/v3/videos', {
      body: { ...body, brand_kit_id: rogue.brand_kit_id },
      key: apiKey,
    });
    expect(unlocked.status).toBe(200);
  });
});

describe('a video made with a kit', () => {
  interface VideoView {
    id: string;
    status: string;
    video_url: string | null;
    failure_message: string | null;
  }

  async function waitForVideo(videoId: string): Promise<VideoView> {
    const deadline = Date.now() + 90_000;
    for (;;) {
      const result = await api.call<{ data: VideoView }>('GET', `/v3/videos/${videoId}`);
      if (result.body.data.status === 'completed' || result.body.data.status === 'failed')
        return result.body.data;
      if (Date.now() > deadline) throw new Error(`Video ${videoId} still ${result.body.data.status}`);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  }

  /** The RGB frame at `seconds` of the video at `url`. */
  async function frameOf(url: string, seconds: number) {
    const video = join(scratch, `video-${Date.now()}.mp4`);
    await writeFile(video, (await fetchBytes(url)).bytes);
    const still = join(scratch, `frame-${Date.now()}.png`);
    await ffmpeg(['-ss', String(seconds), '-i', video, '-frames:v', '1', still]);
    const { data, info } = await sharp(still).removeAlpha().raw().toBuffer({ resolveWithObject: true });
    return {
      width: info.width,
      height: info.height,
      at: (x: number, y: number) => {
        const offset = (y * info.width + x) * 3;
        return [data[offset], data[offset + 1], data[offset + 2]] as [number, number, number];
      },
    };
  }

  const near = (pixel: readonly number[], rgb: readonly number[], tolerance = 24) =>
    pixel.every((value, channel) => Math.abs(value - (rgb[channel] as number)) <= tolerance);

  it('shows the kit: primary background, logo in the top-right corner, captions on the accent colour; deleting the kit changes nothing', async () => {
    const kit = await createKit({
      name: 'Render',
      colors: ['#1F4FBF', '#E0301E'],
      // A font file of the kit's own (copied to the video, downloaded at Compose).
      fonts: [
        { type: 'base64', media_type: 'font/ttf', data: fontFile('DejaVuSerif.ttf').toString('base64') },
      ],
      logos: [base64Png(200, 100, [0, 200, 60])],
    });
    const created = await api.call<{ data: { video_id: string } }>('POST', '/v3/videos', {
      body: {
        type: 'avatar',
        avatar_id: lookId,
        script: 'Our colours, our logo, our captions.',
        caption: { style: 'default' },
        brand_kit_id: kit.brand_kit_id,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    // The video took a copy of the kit when it was created.
    expect((await api.call('DELETE', `/v3/brand-kits/${kit.brand_kit_id}`)).status).toBe(200);

    const video = await waitForVideo(created.body.data.video_id);
    expect(video.failure_message).toBeNull();
    expect(video.status).toBe('completed');
    const frame = await frameOf(video.video_url as string, 1);
    expect([frame.width, frame.height]).toEqual([1280, 720]);

    // The background beside the presenter: the kit's primary colour, not the default grey.
    expect(frame.at(40, 360)).toSatisfy((pixel: number[]) => near(pixel, [0x1f, 0x4f, 0xbf]));
    // The logo (200x100, scaled to fit 12 % of the height: 172x86) 22 px in from the top-right corner.
    expect(frame.at(1280 - 22 - 86, 22 + 43)).toSatisfy((pixel: number[]) => near(pixel, [0, 200, 60]));
    expect(frame.at(1280 - 22 - 86, 22 + 86 + 20)).toSatisfy((pixel: number[]) =>
      near(pixel, [0x1f, 0x4f, 0xbf]),
    );
    // The caption box, bottom-centre, in the accent colour.
    let accent = 0;
    for (let y = Math.round(frame.height * 0.75); y < frame.height; y++)
      for (let x = 0; x < frame.width; x++) if (near(frame.at(x, y), [0xe0, 0x30, 0x1e])) accent++;
    expect(accent).toBeGreaterThan(3000);
  }, 120_000);

  it('carries over to templates: generation takes another kit, or refuses an unknown one', async () => {
    const first = await createKit({ name: 'Template source', colors: ['#203040'] });
    const made = await api.call<{ data: { video_id: string } }>('POST', '/v3/videos', {
      body: { type: 'avatar', avatar_id: lookId, script: 'Template me.', brand_kit_id: first.brand_kit_id },
    });
    const source = await waitForVideo(made.body.data.video_id);
    expect(source.status).toBe('completed');
    const template = await api.call<{ data: { id: string } }>('POST', '/v3/templates', {
      body: { video_id: source.id },
    });
    expect(template.status, JSON.stringify(template.body)).toBe(201);
    const templateId = template.body.data.id;

    const unknown = await api.call('POST', `/v3/templates/${templateId}`, {
      body: { variables: {}, brand_kit_id: 'f'.repeat(32) },
    });
    expect(unknown.status).toBe(400);
    expect(errorOf(unknown)).toMatchObject({ code: 'invalid_parameter', param: 'brand_kit_id' });

    const second = await createKit({ name: 'Template target', colors: ['#00aa00'] });
    const generated = await api.call<{ data: { id: string } }>('POST', `/v3/templates/${templateId}`, {
      body: { variables: {}, brand_kit_id: second.brand_kit_id },
    });
    expect(generated.status, JSON.stringify(generated.body)).toBe(202);
    const record = await getVideo(api.workspaceId, generated.body.data.id, true);
    expect(record?.render.brand_kit?.brand_kit_id).toBe(second.brand_kit_id);
    expect(record?.render.scenes[0]?.background).toMatchObject({ type: 'color', color: '#00aa00' });
    // Without one, the template's own kit stays.
    const plain = await api.call<{ data: { id: string } }>('POST', `/v3/templates/${templateId}`, {
      body: { variables: {} },
    });
    const plainRecord = await getVideo(api.workspaceId, plain.body.data.id, true);
    expect(plainRecord?.render.brand_kit?.brand_kit_id).toBe(first.brand_kit_id);
    expect(plainRecord?.render.scenes[0]?.background).toMatchObject({ color: '#203040' });
    for (const id of [generated.body.data.id, plain.body.data.id])
      expect((await waitForVideo(id)).status).toBe('completed');
  }, 120_000);
});
