import { mkdtemp, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  DeleteObjectCommand,
  GetObjectCommand,
  HeadObjectCommand,
  PutObjectCommand,
} from '@aws-sdk/client-s3';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_VERSION_METADATA, catalogMediaItems } from '../../lambdas/catalog/catalog-media.js';
import { publishCatalogMedia } from '../../lambdas/catalog/publish-catalog-media.js';
import { PREVIEW_SCALE, STOCK_AVATAR_GROUPS, STOCK_LOOKS } from '../../lambdas/catalog/stock-avatars.js';
import { findStockVoice } from '../../lambdas/catalog/stock-voices.js';
import { s3Client } from '../../lambdas/core/aws-clients.js';
import { config } from '../../lambdas/core/config.js';
import { espeakEngine } from '../../lambdas/engines/speech/espeak-engine.js';
import { decodeWavPcm16 } from '../../lambdas/engines/speech/wav.js';
import { LOCAL_CATALOG_SCOPE } from '../../lib/local/local-stack.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

interface Group {
  id: string;
  name: string;
  created_at: number;
  looks_count: number;
  preview_image_url: string;
  gender: string;
  default_voice_id: string;
  status: string;
}

interface Look {
  id: string;
  name: string;
  avatar_type: string;
  group_id: string;
  gender: string;
  default_voice_id: string;
  image_width: number;
  image_height: number;
  preferred_orientation: string;
  preview_image_url: string;
  status: string;
  supported_api_engines: string[];
  tags: string[];
}

interface List<T> {
  data: T[];
  has_more: boolean;
  next_token: string | null;
}

const GROUP_FIELDS = [
  'created_at',
  'default_voice_id',
  'gender',
  'id',
  'looks_count',
  'name',
  'preview_image_url',
  'status',
];
const LOOK_FIELDS = [
  'avatar_type',
  'default_voice_id',
  'gender',
  'group_id',
  'id',
  'image_height',
  'image_width',
  'name',
  'preferred_orientation',
  'preview_image_url',
  'status',
  'supported_api_engines',
  'tags',
];

let api: TestStack;
beforeAll(async () => {
  api = await startTestStack({
    // The subject is the catalog media, published with the reference engines: the real engines.
    engines: 'reference',
  });
});
afterAll(() => api.stop());

/** Every item of a list, page by page, checking the envelope of each page. */
async function collect<T>(path: string, limit: number, key?: string): Promise<{ items: T[]; pages: number }> {
  const items: T[] = [];
  let token: string | null = null;
  let pages = 0;
  do {
    const separator = path.includes('?') ? '&' : '?';
    const query: string = `${path}${separator}limit=${limit}${token ? `&token=${encodeURIComponent(token)}` : ''}`;
    const page = await api.call<List<T>>('GET', query, key ? { key } : {});
    expect(page.status, query).toBe(200);
    expect(page.body.data.length).toBeLessThanOrEqual(limit);
    expect(page.body.has_more).toBe(page.body.next_token !== null);
    items.push(...page.body.data);
    token = page.body.next_token;
    pages++;
  } while (token && pages < 50);
  return { items, pages };
}

async function download(url: string): Promise<{ contentType: string | null; bytes: Uint8Array }> {
  const response = await fetch(url);
  expect(response.status, url).toBe(200);
  return {
    contentType: response.headers.get('content-type'),
    bytes: new Uint8Array(await response.arrayBuffer()),
  };
}

async function bucketObject(key: string): Promise<Uint8Array> {
  const result = await s3Client().send(new GetObjectCommand({ Bucket: config().bucketName, Key: key }));
  return (await result.Body?.transformToByteArray()) ?? new Uint8Array();
}

describe('GET /v3/avatars', () => {
  it('lists the stock characters with the reference fields', async () => {
    const result = await api.call<List<Group>>('GET', '/v3/avatars');
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ has_more: false, next_token: null });
    expect(result.body.data.map((group) => group.id)).toEqual(STOCK_AVATAR_GROUPS.map((group) => group.id));
    for (const group of result.body.data) {
      expect(Object.keys(group).sort()).toEqual(GROUP_FIELDS);
      const stock = STOCK_AVATAR_GROUPS.find((candidate) => candidate.id === group.id);
      expect(group).toMatchObject({
        name: stock?.name,
        looks_count: stock?.looks.length,
        gender: stock?.gender,
        default_voice_id: stock?.defaultVoiceId,
        status: 'completed',
      });
      expect(Number.isInteger(group.created_at)).toBe(true);
      expect(findStockVoice(group.default_voice_id)?.gender).toBe(group.gender);
    }
  });

  it('pages with opaque tokens that only work for the same list, filters and workspace', async () => {
    const { items, pages } = await collect<Group>('/v3/avatars', 2);
    expect(pages).toBe(Math.ceil(STOCK_AVATAR_GROUPS.length / 2));
    expect(items.map((group) => group.id)).toEqual(STOCK_AVATAR_GROUPS.map((group) => group.id));

    const first = await api.call<List<Group>>('GET', '/v3/avatars?limit=2');
    const token = first.body.next_token as string;
    expect(token).not.toMatch(/offset|source/);
    const tampered = `${token.slice(0, -2)}${token.endsWith('AA') ? 'BB' : 'AA'}`;
    const attempts = [
      `/v3/avatars?limit=2&token=${encodeURIComponent(tampered)}`,
      `/v3/avatars?limit=2&ownership=public&token=${encodeURIComponent(token)}`,
      `/v3/avatars/looks?limit=2&token=${encodeURIComponent(token)}`,
      '/v3/avatars?token=e30.e30',
    ];
    for (const path of attempts) {
      const result = await api.call('GET', path);
      expect(result.status, path).toBe(400);
      expect(errorOf(result), path).toMatchObject({ code: 'invalid_parameter', param: 'token' });
    }
    const other = await api.newWorkspace();
    const elsewhere = await api.call('GET', `/v3/avatars?limit=2&token=${encodeURIComponent(token)}`, {
      key: other.apiKey,
    });
    expect(errorOf(elsewhere).param).toBe('token');
  });

  it('filters by ownership: public is the stock catalog, private the workspace’s own (none yet)', async () => {
    const publicOnly = await api.call<List<Group>>('GET', '/v3/avatars?ownership=public');
    expect(publicOnly.body.data.length).toBe(STOCK_AVATAR_GROUPS.length);
    const privateOnly = await api.call<List<Group>>('GET', '/v3/avatars?ownership=private');
    expect(privateOnly.status).toBe(200);
    expect(privateOnly.body).toEqual({ data: [], has_more: false, next_token: null });
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=51', 'limit'],
    ['limit=two', 'limit'],
    ['limit=1.5', 'limit'],
    ['ownership=mine', 'ownership'],
    ['token=', 'token'],
  ])('rejects %s naming %s', async (query, param) => {
    const result = await api.call('GET', `/v3/avatars?${query}`);
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
  });

  it('ignores a parameter it does not know, as the hosted API does', async () => {
    const ids = (result: { body: { data: { id: string }[] } }) => result.body.data.map((group) => group.id);
    const plain = await api.call<{ data: { id: string }[] }>('GET', '/v3/avatars');
    const extra = await api.call<{ data: { id: string }[] }>('GET', '/v3/avatars?owner=public');
    expect(extra.status).toBe(200);
    expect(ids(extra)).toEqual(ids(plain));
  });

  it('accepts the largest page size', async () => {
    expect((await api.call('GET', '/v3/avatars?limit=50')).status).toBe(200);
  });
});

describe('GET /v3/avatars/{group_id}', () => {
  it('returns a group as the list does', async () => {
    const list = await api.call<List<Group>>('GET', '/v3/avatars');
    for (const listed of list.body.data) {
      const result = await api.call<{ data: Group }>('GET', `/v3/avatars/${listed.id}`);
      expect(result.status).toBe(200);
      expect({ ...result.body.data, preview_image_url: '' }).toEqual({ ...listed, preview_image_url: '' });
    }
  });

  it.each(['nobody', 'a'.repeat(32), 'maya-office', 'constructor'])(
    'answers 404 avatar_not_found for %s',
    async (id) => {
      const result = await api.call('GET', `/v3/avatars/${id}`);
      expect(result.status).toBe(404);
      expect(errorOf(result)).toMatchObject({ code: 'avatar_not_found', param: 'group_id' });
    },
  );
});

describe('GET /v3/avatars/looks', () => {
  it('lists every stock look as a studio avatar with the reference fields', async () => {
    const { items } = await collect<Look>('/v3/avatars/looks', 50);
    expect(items.map((look) => look.id)).toEqual(STOCK_LOOKS.map((look) => look.id));
    for (const look of items) {
      expect(Object.keys(look).sort()).toEqual(LOOK_FIELDS);
      const stock = STOCK_LOOKS.find((candidate) => candidate.id === look.id);
      expect(look).toEqual({
        id: stock?.id,
        name: stock?.name,
        avatar_type: 'studio_avatar',
        group_id: stock?.groupId,
        gender: stock?.gender,
        default_voice_id: stock?.defaultVoiceId,
        image_width: stock?.imageWidth,
        image_height: stock?.imageHeight,
        preferred_orientation: stock?.preferredOrientation,
        preview_image_url: expect.stringMatching(/^http/),
        status: 'completed',
        supported_api_engines: stock?.supportedApiEngines,
        tags: stock?.tags,
      });
    }
  });

  it('pages through the looks', async () => {
    const { items, pages } = await collect<Look>('/v3/avatars/looks', 4);
    expect(pages).toBe(Math.ceil(STOCK_LOOKS.length / 4));
    expect(items.map((look) => look.id)).toEqual(STOCK_LOOKS.map((look) => look.id));
  });

  it('filters by group, type and ownership', async () => {
    const ids = async (query: string) => {
      const result = await api.call<List<Look>>('GET', `/v3/avatars/looks?limit=50&${query}`);
      expect(result.status, query).toBe(200);
      return result.body.data.map((look) => look.id);
    };
    const maya = STOCK_LOOKS.filter((look) => look.groupId === 'maya').map((look) => look.id);
    expect(await ids('group_id=maya')).toEqual(maya);
    expect(await ids('group_id=maya&avatar_type=studio_avatar&ownership=public')).toEqual(maya);
    expect(await ids('avatar_type=studio_avatar')).toHaveLength(STOCK_LOOKS.length);
    expect(await ids('avatar_type=photo_avatar')).toEqual([]);
    expect(await ids('avatar_type=digital_twin')).toEqual([]);
    expect(await ids('ownership=private')).toEqual([]);
    expect(await ids('group_id=nobody')).toEqual([]);

    // A filtered page's token belongs to that filter.
    const page = await api.call<List<Look>>('GET', '/v3/avatars/looks?group_id=maya&limit=1');
    const next = await api.call<List<Look>>(
      'GET',
      `/v3/avatars/looks?group_id=maya&limit=1&token=${encodeURIComponent(page.body.next_token ?? '')}`,
    );
    expect(next.body.data.map((look) => look.id)).toEqual(maya.slice(1, 2));
    const otherFilter = await api.call(
      'GET',
      `/v3/avatars/looks?group_id=daniel&limit=1&token=${encodeURIComponent(page.body.next_token ?? '')}`,
    );
    expect(errorOf(otherFilter).param).toBe('token');
  });

  it.each([
    ['avatar_type=hologram', 'avatar_type'],
    ['ownership=everyone', 'ownership'],
    ['limit=51', 'limit'],
    ['limit=-1', 'limit'],
    ['group_id=', 'group_id'],
  ])('rejects %s naming %s', async (query, param) => {
    const result = await api.call('GET', `/v3/avatars/looks?${query}`);
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
  });
});

describe('GET /v3/avatars/looks/{look_id}', () => {
  it('returns a look as the list does', async () => {
    const list = await api.call<List<Look>>('GET', '/v3/avatars/looks?group_id=amara');
    for (const listed of list.body.data) {
      const result = await api.call<{ data: Look }>('GET', `/v3/avatars/looks/${listed.id}`);
      expect(result.status).toBe(200);
      expect({ ...result.body.data, preview_image_url: '' }).toEqual({ ...listed, preview_image_url: '' });
    }
  });

  it.each(['nobody', 'f'.repeat(32), 'maya', '__proto__'])(
    'answers 404 avatar_not_found for %s',
    async (id) => {
      const result = await api.call('GET', `/v3/avatars/looks/${id}`);
      expect(result.status).toBe(404);
      expect(errorOf(result)).toMatchObject({ code: 'avatar_not_found', param: 'look_id' });
    },
  );
});

describe('avatar images', () => {
  it('serves previews: PNGs of the figure in front of its backdrop, at half the portrait size', async () => {
    const { items } = await collect<Look>('/v3/avatars/looks', 50);
    const sizes = await Promise.all(
      items.map(async (look) => {
        const { contentType, bytes } = await download(look.preview_image_url);
        expect(contentType).toBe('image/png');
        const metadata = await sharp(bytes).metadata();
        expect(metadata.format).toBe('png');
        return [metadata.width, metadata.height, look.image_width, look.image_height];
      }),
    );
    for (const [width, height, imageWidth, imageHeight] of sizes) {
      expect(width).toBe(Math.round((imageWidth as number) * PREVIEW_SCALE));
      expect(height).toBe(Math.round((imageHeight as number) * PREVIEW_SCALE));
    }
  });

  it('shows a group with the preview of its first look', async () => {
    const group = await api.call<{ data: Group }>('GET', '/v3/avatars/sofia');
    const look = await api.call<{ data: Look }>('GET', '/v3/avatars/looks/sofia-newsroom');
    const [groupImage, lookImage] = await Promise.all([
      download(group.body.data.preview_image_url),
      download(look.body.data.preview_image_url),
    ]);
    expect(Buffer.from(groupImage.bytes).equals(Buffer.from(lookImage.bytes))).toBe(true);
  });

  it('has published every presenter portrait: a transparent PNG of the look’s size', async () => {
    await Promise.all(
      STOCK_LOOKS.map(async (look) => {
        const png = await bucketObject(look.portraitKey);
        const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
        expect([info.width, info.height], look.id).toEqual([look.imageWidth, look.imageHeight]);
        expect(data[3], `${look.id} top-left corner`).toBe(0);
        const centre = (Math.floor(info.height * 0.4) * info.width + Math.floor(info.width / 2)) * 4 + 3;
        expect(data[centre], `${look.id} face`).toBe(255);
      }),
    );
  });
});

describe('publishing catalog media', () => {
  const head = (key: string) =>
    s3Client().send(new HeadObjectCommand({ Bucket: config().bucketName, Key: key }));

  // As the local stack publishes: without the icons and style previews, published on first use.
  it('uploads nothing when every object is current', async () => {
    const result = await publishCatalogMedia({ speechEngine: espeakEngine(), ...LOCAL_CATALOG_SCOPE });
    expect(result).toMatchObject({ present: result.total, uploaded: 0, generated: 0 });
    expect(result.total).toBe(catalogMediaItems('espeak', LOCAL_CATALOG_SCOPE).length);
  });

  it('replaces missing and outdated objects from the disk cache without generating', async () => {
    const [portrait, preview] = [STOCK_LOOKS[1]?.portraitKey ?? '', STOCK_LOOKS[2]?.previewKey ?? ''];
    const original = await bucketObject(portrait);
    await s3Client().send(new DeleteObjectCommand({ Bucket: config().bucketName, Key: portrait }));
    await s3Client().send(
      new PutObjectCommand({
        Bucket: config().bucketName,
        Key: preview,
        Body: 'stale',
        Metadata: { [CATALOG_VERSION_METADATA]: 'an-older-version' },
      }),
    );
    const result = await publishCatalogMedia({ speechEngine: espeakEngine(), ...LOCAL_CATALOG_SCOPE });
    expect(result).toMatchObject({ uploaded: 2, generated: 0 });
    expect(Buffer.from(await bucketObject(portrait)).equals(Buffer.from(original))).toBe(true);
    expect((await head(preview)).ContentType).toBe('image/png');
    expect((await head(portrait)).ServerSideEncryption).toBe('aws:kms');
  });

  it('generates what the cache lacks, the same media again', async () => {
    const cacheDirectory = await mkdtemp(join(tmpdir(), 'catalog-cache-'));
    try {
      const voicePreview = 'catalog/voices/de-de-hannah.wav';
      const portrait = STOCK_LOOKS.find((look) => look.preferredOrientation === 'square')?.previewKey ?? '';
      const originals = await Promise.all([bucketObject(voicePreview), bucketObject(portrait)]);
      for (const key of [voicePreview, portrait]) {
        await s3Client().send(new DeleteObjectCommand({ Bucket: config().bucketName, Key: key }));
      }
      const result = await publishCatalogMedia({
        speechEngine: espeakEngine(),
        cacheDirectory,
        ...LOCAL_CATALOG_SCOPE,
      });
      expect(result).toMatchObject({ uploaded: 2, generated: 2 });
      const again = await Promise.all([bucketObject(voicePreview), bucketObject(portrait)]);
      // eSpeak's output varies by a few samples with the state its worker is in; the drawing does not.
      const [before, after] = [decodeWavPcm16(originals[0]), decodeWavPcm16(again[0])];
      expect(after.sampleRate).toBe(before.sampleRate);
      expect(Math.abs(after.samples.length - before.samples.length)).toBeLessThan(
        before.samples.length * 0.05,
      );
      expect(Buffer.from(again[1]).equals(Buffer.from(originals[1]))).toBe(true);
    } finally {
      await rm(cacheDirectory, { recursive: true, force: true });
    }
  });
});
