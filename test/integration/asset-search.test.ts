/**
 * `GET /v3/assets/search` over HTTP: Tabler icons ranked by name and tags and served through the
 * media store as a transparent 512×512 PNG and the package's SVG; the stock presenter images as the
 * public image catalog (and nothing pretending to be a photo library); a workspace's own images found
 * by file name, format and the text in their metadata, never another workspace's; errors naming the
 * parameter; the `assets:read` scope.
 */
import { crc32 } from 'node:zlib';
import fc from 'fast-check';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { multipartBody } from '../support/sample-media.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

interface Result {
  id: string;
  type: 'image' | 'icon';
  url: string;
  width: number | null;
  height: number | null;
  is_transparent: boolean | null;
  orientation: string | null;
  name: string;
  score: number;
  tags: string[];
  svg_url: string | null;
}
interface List {
  data: Result[];
  has_more: boolean;
  next_token: string | null;
}

let api: TestStack;
beforeAll(async () => {
  api = await startTestStack();
});
afterAll(() => api?.stop());

const search = (query: string, key?: string) =>
  api.call<List>('GET', `/v3/assets/search?${query}`, key ? { key } : {});

async function download(url: string): Promise<{ bytes: Buffer; contentType: string | null }> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  return {
    bytes: Buffer.from(await response.arrayBuffer()),
    contentType: response.headers.get('content-type'),
  };
}

/** A PNG with a `tEXt` chunk (`keyword`, `text`) right after its header. */
function withPngText(png: Buffer, keyword: string, text: string): Buffer {
  const data = Buffer.concat([Buffer.from(keyword, 'latin1'), Buffer.from([0]), Buffer.from(text, 'latin1')]);
  const type = Buffer.from('tEXt', 'latin1');
  const length = Buffer.alloc(4);
  length.writeUInt32BE(data.length);
  const crc = Buffer.alloc(4);
  crc.writeUInt32BE(crc32(Buffer.concat([type, data])));
  // Signature (8) + IHDR chunk (4 + 4 + 13 + 4).
  const afterHeader = 8 + 25;
  return Buffer.concat([png.subarray(0, afterHeader), length, type, data, crc, png.subarray(afterHeader)]);
}

const opaque = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 3, background: { r: 30, g: 120, b: 200 } } });
const cutOut = (width: number, height: number) =>
  sharp({ create: { width, height, channels: 4, background: { r: 200, g: 40, b: 40, alpha: 0 } } });

async function upload(bytes: Buffer, fileName: string, contentType: string, key = api.apiKey) {
  const multipart = multipartBody('file', fileName, contentType, bytes);
  const result = await api.call<{ data: { asset_id: string } }>('POST', '/v3/assets', {
    rawBody: multipart.body,
    headers: { 'Content-Type': multipart.contentType },
    key,
  });
  expect(result.status, JSON.stringify(result.body)).toBe(201);
  return result.body.data.asset_id;
}

describe('public icons (Tabler Icons)', () => {
  it('ranks icons by name and tags, best first, each a transparent 512×512 PNG and its SVG', async () => {
    const result = await search('query=minimalist%20rocket%20icon&type=icon&limit=5');
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    const icons = result.body.data;
    expect(icons.length).toBe(5);
    expect(icons[0]).toMatchObject({
      id: 'tabler-rocket',
      type: 'icon',
      name: 'rocket',
      width: 512,
      height: 512,
      is_transparent: true,
      orientation: 'square',
    });
    const scores = icons.map((icon) => icon.score);
    expect(scores).toEqual([...scores].sort((a, b) => b - a));
    expect(scores.every((score) => score > 0 && score <= 1)).toBe(true);

    const png = await download(icons[0]?.url as string);
    expect(png.contentType).toBe('image/png');
    const decoded = sharp(png.bytes);
    const metadata = await decoded.metadata();
    expect(metadata).toMatchObject({ format: 'png', width: 512, height: 512, hasAlpha: true });
    const { data, info } = await decoded.ensureAlpha().raw().toBuffer({ resolveWithObject: true });
    const alphas = Array.from({ length: info.width * info.height }, (_, pixel) => data[pixel * 4 + 3] ?? 0);
    // Mostly transparent background, with the rocket's strokes drawn opaque.
    expect(alphas.filter((alpha) => alpha === 0).length / alphas.length).toBeGreaterThan(0.6);
    expect(alphas.some((alpha) => alpha === 255)).toBe(true);
    expect(alphas[0]).toBe(0);

    const svg = await download(icons[0]?.svg_url as string);
    expect(svg.contentType).toBe('image/svg+xml');
    expect(svg.bytes.toString('utf8')).toContain('icon-tabler-rocket');
  });

  it("finds icons by the package's tags and style", async () => {
    const pizza = await search('query=pepperoni%20pizza&type=icon&limit=3');
    expect(pizza.body.data[0]?.id).toBe('tabler-pizza');
    expect(pizza.body.data[0]?.tags).toContain('pepperoni');
    const filled = await search('query=filled%20pizza&type=icon&limit=1');
    expect(filled.body.data[0]?.id).toBe('tabler-pizza-filled');
    const filledPng = sharp((await download(filled.body.data[0]?.url as string)).bytes);
    expect(await filledPng.metadata()).toMatchObject({ width: 512, height: 512, hasAlpha: true });
  });

  it('pages the ranking with next_token, bound to the search', async () => {
    const all = await search('query=arrow&type=icon&limit=50');
    expect(all.body.has_more).toBe(true);
    const first = await search('query=arrow&type=icon&limit=3');
    expect(first.body).toMatchObject({ has_more: true });
    const token = first.body.next_token as string;
    const second = await search(`query=arrow&type=icon&limit=3&token=${encodeURIComponent(token)}`);
    expect(second.status).toBe(200);
    expect([...first.body.data, ...second.body.data].map((icon) => icon.id)).toEqual(
      all.body.data.slice(0, 6).map((icon) => icon.id),
    );
    // The token of one search is refused by another.
    const other = await search(`query=rocket&type=icon&limit=3&token=${encodeURIComponent(token)}`);
    expect(other.status).toBe(400);
    expect(errorOf(other)).toMatchObject({ code: 'invalid_parameter', param: 'token' });
  });

  it('finds nothing for words no icon has', async () => {
    const result = await search('query=zzyzxqv&type=icon');
    expect(result.body).toEqual({ data: [], has_more: false, next_token: null });
  });
});

describe('public images (the stock presenters)', () => {
  it('holds the stock presenter images, transparent portraits and backdrop previews, at their real size', async () => {
    const result = await search('query=business%20presenter&type=image&limit=50');
    expect(result.status).toBe(200);
    const images = result.body.data;
    expect(images.length).toBeGreaterThan(0);
    expect(images.every((image) => image.type === 'image' && image.svg_url === null)).toBe(true);
    const portrait = images.find(
      (image) => image.id.endsWith('-portrait') && image.tags.includes('business'),
    );
    const preview = images.find((image) => image.id.endsWith('-preview') && image.tags.includes('business'));
    for (const image of [portrait, preview]) {
      expect(image).toBeDefined();
      const metadata = await sharp((await download(image?.url as string)).bytes).metadata();
      expect({ width: metadata.width, height: metadata.height }).toEqual({
        width: image?.width,
        height: image?.height,
      });
    }
    expect(portrait?.is_transparent).toBe(true);
    expect(preview?.is_transparent).toBe(false);
  });

  it('says nothing rather than return a presenter for a pizza', async () => {
    const result = await search('query=pepperoni%20pizza%20on%20a%20wooden%20table&type=image');
    expect(result.body.data).toEqual([]);
  });
});

describe('personal assets', () => {
  it("searches the workspace's images by file name, format and the text in their metadata", async () => {
    const { workspaceId, apiKey } = await api.newWorkspace();
    const described = withPngText(
      await cutOut(64, 32).png().toBuffer(),
      'Description',
      'Company mascot waving hello',
    );
    const mascot = await upload(described, 'mascot.png', 'image/png', apiKey);
    const beach = await upload(
      await opaque(40, 30)
        .jpeg()
        .withExif({ IFD0: { ImageDescription: 'Sunset over the beach' } })
        .toBuffer(),
      'IMG_0042.jpg',
      'image/jpeg',
      apiKey,
    );
    const logo = await upload(
      await cutOut(48, 48)
        .webp({ lossless: true })
        .withXmp(
          '<x:xmpmeta xmlns:x="adobe:ns:meta/"><rdf:RDF xmlns:rdf="http://www.w3.org/1999/02/22-rdf-syntax-ns#"><rdf:Description xmlns:dc="http://purl.org/dc/elements/1.1/"><dc:subject><rdf:Bag><rdf:li>brand</rdf:li><rdf:li>logo</rdf:li></rdf:Bag></dc:subject></rdf:Description></rdf:RDF></x:xmpmeta>',
        )
        .toBuffer(),
      'acme.webp',
      'image/webp',
      apiKey,
    );
    const teamPhoto = await upload(
      await opaque(30, 50).png().toBuffer(),
      'Team_Photo.png',
      'image/png',
      apiKey,
    );

    const personal = (query: string) => search(`scope=personal&${query}`, apiKey);
    const byText = await personal('query=mascot%20waving&type=image');
    expect(byText.body.data.map((image) => image.id)).toEqual([mascot]);
    expect(byText.body.data[0]).toMatchObject({
      type: 'image',
      name: 'mascot.png',
      width: 64,
      height: 32,
      is_transparent: true,
      orientation: 'landscape',
      tags: [],
      svg_url: null,
    });
    expect((await download(byText.body.data[0]?.url as string)).bytes.equals(described)).toBe(true);

    expect((await personal('query=sunset%20beach&type=image')).body.data).toMatchObject([
      { id: beach, width: 40, height: 30, is_transparent: false },
    ]);
    expect((await personal('query=logo&type=image')).body.data.map((image) => image.id)).toEqual([logo]);
    expect((await personal('query=team%20photo&type=image')).body.data).toMatchObject([
      { id: teamPhoto, orientation: 'portrait' },
    ]);
    // By format: the two PNGs, the better match first.
    const pngs = await personal('query=png&type=image');
    expect(pngs.body.data.map((image) => image.id).sort()).toEqual([mascot, teamPhoto].sort());
    // Icons of a workspace: its images with an alpha channel.
    const icons = await personal('query=image&type=icon');
    expect(icons.body.data.map((image) => image.id).sort()).toEqual([mascot, logo].sort());
    expect(icons.body.data.every((icon) => icon.type === 'icon' && icon.is_transparent)).toBe(true);

    // Another workspace sees none of them, even with the same words.
    expect((await search('scope=personal&query=mascot&type=image')).body.data).toEqual([]);
    expect(workspaceId).not.toBe(api.workspaceId);
  });

  it('does not list assets that are not ready images', async () => {
    const { apiKey } = await api.newWorkspace();
    const pending = await api.call('POST', '/v3/assets/direct-uploads', {
      body: { filename: 'pending-banner.png', content_type: 'image/png', size_bytes: 100 },
      key: apiKey,
    });
    expect(pending.status).toBe(201);
    const result = await search('scope=personal&query=banner&type=image', apiKey);
    expect(result.body.data).toEqual([]);
  });
});

describe('errors and access', () => {
  it.each([
    ['type=icon', 'query'],
    ['query=rocket', 'type'],
    ['query=rocket&type=video', 'type'],
    ['query=rocket&type=icon&scope=everyone', 'scope'],
    ['query=rocket&type=icon&limit=0', 'limit'],
    ['query=rocket&type=icon&limit=51', 'limit'],
    ['query=%20%20&type=icon', 'query'],
    ['query=rocket&type=icon&token=not-a-token', 'token'],
  ])('refuses %s, naming %s', async (query, param) => {
    const result = await search(query);
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
  });

  it('answers any query string with 200 or a 400 naming the parameter, never 5xx', async () => {
    await fc.assert(
      fc.asyncProperty(
        fc.record({
          query: fc.option(fc.string({ maxLength: 250 }), { nil: undefined }),
          type: fc.option(fc.constantFrom('image', 'icon', 'ICON', ''), { nil: undefined }),
          scope: fc.option(fc.constantFrom('public', 'personal', 'x'), { nil: undefined }),
          limit: fc.option(fc.oneof(fc.integer({ min: -5, max: 60 }).map(String), fc.string()), {
            nil: undefined,
          }),
        }),
        async (parameters) => {
          const query = new URLSearchParams(
            Object.entries(parameters).filter((entry): entry is [string, string] => entry[1] !== undefined),
          );
          const result = await search(query.toString());
          if (result.status !== 200) {
            expect(result.status).toBe(400);
            expect(Object.keys(parameters)).toContain(errorOf(result).param);
          }
        },
      ),
      { seed: 20261124, numRuns: 40 },
    );
  });

  it('needs the assets:read scope', async () => {
    const noAssets = await api.newKey(api.workspaceId, 'custom', ['videos:read']);
    const refused = await search('query=rocket&type=icon', noAssets);
    expect(refused.status).toBe(403);
    const readOnly = await api.newKey(api.workspaceId, 'custom', ['assets:read']);
    expect((await search('query=rocket&type=icon&limit=1', readOnly)).status).toBe(200);
    const anonymous = await api.call('GET', '/v3/assets/search?query=rocket&type=icon', { key: null });
    expect(anonymous.status).toBe(401);
  });
});
