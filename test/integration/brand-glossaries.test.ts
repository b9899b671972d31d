import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STOCK_LOOKS } from '../../lambdas/catalog/stock-avatars.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

let api: TestStack;
const LOOK_ID = STOCK_LOOKS[0]?.id as string;
beforeAll(async () => {
  api = await startTestStack();
});
afterAll(() => api.stop());

interface Glossary {
  brand_glossary_id: string;
  name: string;
  terms: { term: string; pronunciation: string }[];
  do_not_translate_terms: { term: string }[];
  forced_translations: { term: string; translation: string }[];
  created_at: string;
  updated_at: string;
}

async function createGlossary(body: Record<string, unknown>, key?: string): Promise<Glossary> {
  const created = await api.call<{ data: Glossary }>('POST', '/v3/brand-glossaries', {
    body,
    ...(key ? { key } : {}),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(201);
  return created.body.data;
}

interface Speech {
  duration: number;
  word_timestamps: { word: string; start: number; end: number }[];
}

async function speak(body: Record<string, unknown>) {
  const result = await api.call<{ data: Speech }>('POST', '/v3/voices/speech', {
    body: { voice_id: 'en-us-olivia', ...body },
  });
  expect(result.status, JSON.stringify(result.body)).toBe(200);
  return result.body.data;
}

describe('brand glossaries', () => {
  it('creates a glossary with every list and reads it back in full and in the list', async () => {
    const glossary = await createGlossary({
      name: 'Acme',
      terms: [{ term: 'Acme', pronunciation: 'ak mee' }],
      do_not_translate_terms: [{ term: 'Acme Cloud' }],
      forced_translations: [{ term: 'sign in', translation: 'iniciar sesión' }],
    });
    expect(glossary).toMatchObject({
      name: 'Acme',
      terms: [{ term: 'Acme', pronunciation: 'ak mee' }],
      do_not_translate_terms: [{ term: 'Acme Cloud' }],
      forced_translations: [{ term: 'sign in', translation: 'iniciar sesión' }],
    });
    expect(glossary.brand_glossary_id).toMatch(/^[0-9a-f]{32}$/);
    expect(new Date(glossary.created_at).toISOString()).toBe(glossary.created_at);

    const read = await api.call<{ data: Glossary }>(
      'GET',
      `/v3/brand-glossaries/${glossary.brand_glossary_id}`,
    );
    expect(read.body.data).toEqual(glossary);

    const list = await api.call<{ data: Record<string, unknown>[] }>('GET', '/v3/brand-glossaries?limit=100');
    expect(list.body.data).toContainEqual({
      brand_glossary_id: glossary.brand_glossary_id,
      name: 'Acme',
      created_at: glossary.created_at,
      updated_at: glossary.updated_at,
    });
  });

  it('lists newest first, page by page', async () => {
    const { apiKey } = await api.newWorkspace();
    const made = [];
    for (const name of ['one', 'two', 'three']) made.push(await createGlossary({ name }, apiKey));
    const first = await api.call<{ data: Glossary[]; has_more: boolean; next_token: string }>(
      'GET',
      '/v3/brand-glossaries?limit=2',
      { key: apiKey },
    );
    expect(first.body.data.map((glossary) => glossary.name)).toEqual(['three', 'two']);
    expect(first.body.has_more).toBe(true);
    const second = await api.call<{ data: Glossary[]; has_more: boolean }>(
      'GET',
      `/v3/brand-glossaries?limit=2&token=${encodeURIComponent(first.body.next_token)}`,
      { key: apiKey },
    );
    expect(second.body.data.map((glossary) => glossary.name)).toEqual(['one']);
    expect(second.body.has_more).toBe(false);
  });

  it('updates as PATCH says: a list replaces, an empty list clears, an omitted list stays', async () => {
    const glossary = await createGlossary({
      name: 'Before',
      terms: [{ term: 'Zed', pronunciation: 'zee' }],
      do_not_translate_terms: [{ term: 'Zed' }],
      forced_translations: [{ term: 'hello', translation: 'hola' }],
    });
    const patched = await api.call<{ data: Glossary }>(
      'PATCH',
      `/v3/brand-glossaries/${glossary.brand_glossary_id}`,
      { body: { terms: [{ term: 'Zed', pronunciation: 'zed' }], do_not_translate_terms: [] } },
    );
    expect(patched.status).toBe(200);
    expect(patched.body.data).toMatchObject({
      name: 'Before',
      terms: [{ term: 'Zed', pronunciation: 'zed' }],
      do_not_translate_terms: [],
      forced_translations: [{ term: 'hello', translation: 'hola' }],
    });
    const renamed = await api.call<{ data: Glossary }>(
      'PATCH',
      `/v3/brand-glossaries/${glossary.brand_glossary_id}`,
      { body: { name: 'After' } },
    );
    expect(renamed.body.data).toMatchObject({
      name: 'After',
      terms: [{ term: 'Zed', pronunciation: 'zed' }],
    });
  });

  it.each([
    [{}, 'name'],
    [{ name: '' }, 'name'],
    [{ name: 'x', terms: [{ term: 'a' }] }, 'terms[0].pronunciation'],
    [{ name: 'x', terms: [{ term: '', pronunciation: 'b' }] }, 'terms[0].term'],
    [
      {
        name: 'x',
        terms: [
          { term: 'Acme', pronunciation: 'ak mee' },
          { term: 'ACME', pronunciation: 'ak me' },
        ],
      },
      'terms[1].term',
    ],
    [{ name: 'x', forced_translations: [{ term: 'a' }] }, 'forced_translations[0].translation'],
    [{ name: 'x', do_not_translate_terms: ['Acme'] }, 'do_not_translate_terms[0]'],
    [{ name: 'x', vocabulary: [] }, 'vocabulary'],
  ])('refuses %j naming %s', async (body, param) => {
    const result = await api.call('POST', '/v3/brand-glossaries', { body });
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
  });

  it('keeps glossaries to their workspace: another workspace gets 404 resource_not_found', async () => {
    const glossary = await createGlossary({ name: 'Private' });
    const other = await api.newWorkspace();
    for (const [method, body] of [
      ['GET', undefined],
      ['PATCH', { name: 'Stolen' }],
      ['DELETE', undefined],
    ] as const) {
      const result = await api.call(method, `/v3/brand-glossaries/${glossary.brand_glossary_id}`, {
        key: other.apiKey,
        ...(body ? { body } : {}),
      });
      expect(result.status, method).toBe(404);
      expect(errorOf(result)).toMatchObject({ code: 'resource_not_found', param: 'brand_glossary_id' });
    }
    const list = await api.call<{ data: unknown[] }>('GET', '/v3/brand-glossaries', { key: other.apiKey });
    expect(list.body.data).toEqual([]);
    expect((await api.call('GET', `/v3/brand-glossaries/${glossary.brand_glossary_id}`)).status).toBe(200);
  });

  it('says brand words as the glossary says, while the words stay as written', async () => {
    const text = 'Meet XQ at noon.';
    const plain = await speak({ text });
    const glossary = await createGlossary({
      name: 'Pronounce',
      terms: [{ term: 'xq', pronunciation: 'the extraordinary quantum company' }],
    });
    const said = await speak({ text, brand_glossary_id: glossary.brand_glossary_id });
    expect(said.word_timestamps.map((word) => word.word)).toEqual(['Meet', 'XQ', 'at', 'noon']);
    expect(said.duration).toBeGreaterThan(plain.duration + 0.3);
    const [, term] = said.word_timestamps;
    expect((term?.end ?? 0) - (term?.start ?? 0)).toBeGreaterThan(0.5);
  });

  it('deletes irreversibly; requests still naming it keep working without its rules', async () => {
    const text = 'Meet XQ at noon.';
    const plain = await speak({ text });
    const glossary = await createGlossary({
      name: 'Short-lived',
      terms: [{ term: 'xq', pronunciation: 'the extraordinary quantum company' }],
    });
    const deleted = await api.call('DELETE', `/v3/brand-glossaries/${glossary.brand_glossary_id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ data: { brand_glossary_id: glossary.brand_glossary_id } });
    const again = await api.call('DELETE', `/v3/brand-glossaries/${glossary.brand_glossary_id}`);
    expect(errorOf(again)).toMatchObject({ code: 'resource_not_found' });
    expect((await api.call('GET', `/v3/brand-glossaries/${glossary.brand_glossary_id}`)).status).toBe(404);

    const after = await speak({ text, brand_glossary_id: glossary.brand_glossary_id });
    expect(after.duration).toBeCloseTo(plain.duration, 2);

    const video = await api.call<{ data: { video_id: string } }>('POST', '/v3/videos', {
      body: {
        type: 'avatar',
        avatar_id: LOOK_ID,
        script: text,
        brand_glossary_id: glossary.brand_glossary_id,
      },
    });
    expect(video.status, JSON.stringify(video.body)).toBe(200);
    // The scenes document names the glossary the request named.
    const deadline = Date.now() + 30_000;
    for (;;) {
      const scenes = await api.call<{ data: { video: { brand_glossary_id: string | null } } }>(
        'GET',
        `/v3/videos/${video.body.data.video_id}/scenes`,
      );
      if (scenes.status === 200) {
        expect(scenes.body.data.video.brand_glossary_id).toBe(glossary.brand_glossary_id);
        break;
      }
      expect(scenes.status).toBe(409);
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 100));
    }
  });

  it('refuses a glossary id the workspace never had, naming the field', async () => {
    for (const [path, body] of [
      ['/v3/voices/speech', { text: 'Hello.', voice_id: 'en-us-olivia' }],
      ['/v3/videos', { type: 'avatar', avatar_id: LOOK_ID, script: 'Hello.' }],
    ] as const) {
      const result = await api.call('POST', path, {
        body: { ...body, brand_glossary_id: 'f'.repeat(32) },
      });
      expect(result.status, path).toBe(400);
      expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param: 'brand_glossary_id' });
    }
  });
});
