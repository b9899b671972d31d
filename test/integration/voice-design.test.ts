/**
 * `POST /v3/voices` (design) over HTTP: batches by seed, stored as the workspace's own voices, listed,
 * read, spoken at once, deleted; every refusal names its field.
 */
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STOCK_VOICES } from '../../lambdas/catalog/stock-voices.js';
import { decodeWavPcm16 } from '../../lambdas/engines/speech/wav.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

interface Voice {
  voice_id: string;
  name: string;
  language: string;
  gender: string;
  type: string;
  support_pause: boolean;
  support_locale: boolean;
  preview_audio_url?: string;
}

let api: TestStack;
beforeAll(async () => {
  api = await startTestStack({
    // The subject is the designed voices and their spoken previews: the real engines.
    engines: 'reference',
  });
});
afterAll(() => api.stop());

async function design(body: Record<string, unknown>, key?: string) {
  return api.call<{ data: { voices: Voice[]; seed: number } }>('POST', '/v3/voices', {
    body,
    ...(key ? { key } : {}),
  });
}

describe('POST /v3/voices', () => {
  it('designs three private voices that match the description, the same ones every time', async () => {
    const first = await design({ prompt: 'A deep, authoritative British man for documentaries' });
    expect(first.status).toBe(200);
    expect(first.body.data.seed).toBe(0);
    const voices = first.body.data.voices;
    expect(voices).toHaveLength(3);
    expect(voices[0]).toEqual({
      voice_id: 'dv-en-gb-oliver-deep',
      name: 'Oliver (deep and authoritative)',
      language: 'en-GB',
      gender: 'male',
      type: 'private',
      support_pause: false,
      support_locale: false,
      preview_audio_url: expect.stringMatching(/^http/),
    });
    for (const voice of voices) expect(voice.gender).toBe('male');

    const again = await design({ prompt: 'A deep, authoritative British man for documentaries', seed: 0 });
    expect(again.body.data.voices.map((voice) => voice.voice_id)).toEqual(
      voices.map((voice) => voice.voice_id),
    );

    const next = await design({ prompt: 'A deep, authoritative British man for documentaries', seed: 1 });
    expect(next.body.data.seed).toBe(1);
    expect(next.body.data.voices).toHaveLength(3);
    const firstIds = new Set(voices.map((voice) => voice.voice_id));
    for (const voice of next.body.data.voices) expect(firstIds.has(voice.voice_id)).toBe(false);

    // Far past the last batch: nothing more.
    const past = await design({ prompt: 'A deep, authoritative British man for documentaries', seed: 5000 });
    expect(past.status).toBe(200);
    expect(past.body.data).toEqual({ voices: [], seed: 5000 });
  });

  it('plays a preview in the designed voice', async () => {
    const result = await design({ prompt: 'bright cheerful young woman', locale: 'en-US' });
    const [voice] = result.body.data.voices;
    const response = await fetch(voice?.preview_audio_url ?? '');
    expect(response.status).toBe(200);
    const wav = decodeWavPcm16(new Uint8Array(await response.arrayBuffer()));
    expect(wav.samples.length / wav.sampleRate).toBeGreaterThan(1);
  });

  it('filters by gender and locale', async () => {
    const female = await design({ prompt: 'deep man', gender: 'female' });
    expect(female.body.data.voices.every((voice) => voice.gender === 'female')).toBe(true);
    const french = await design({ prompt: 'narrator', locale: 'fr-FR', gender: null });
    expect(french.body.data.voices.length).toBeGreaterThan(0);
    expect(french.body.data.voices.every((voice) => voice.language === 'fr-FR')).toBe(true);
    const none = await design({ prompt: 'narrator', locale: 'sv-SE' });
    expect(none.body.data.voices).toEqual([]);
  });

  it('lists designed voices first, reads them, speaks with them and deletes them', async () => {
    const { apiKey } = await api.newWorkspace();
    const designed = await design({ prompt: 'calm slow storyteller grandmother' }, apiKey);
    const ids = designed.body.data.voices.map((voice) => voice.voice_id);
    expect(ids).toHaveLength(3);

    const list = await api.call<{ data: Voice[] }>('GET', '/v3/voices?type=private&limit=100', {
      key: apiKey,
    });
    expect(list.body.data.map((voice) => voice.voice_id).sort()).toEqual([...ids].sort());
    // Without `type`, the list is the public voices, as the hosted API's.
    const all = await api.call<{ data: Voice[] }>('GET', '/v3/voices?limit=100', { key: apiKey });
    expect(all.body.data.every((voice) => voice.type === 'public')).toBe(true);
    expect(all.body.data).toHaveLength(STOCK_VOICES.length);
    const filtered = await api.call<{ data: Voice[] }>('GET', '/v3/voices?type=private&gender=male', {
      key: apiKey,
    });
    expect(filtered.body.data).toEqual([]);
    // Pages run through the own voices without repeating or skipping one.
    const seen: Voice[] = [];
    let token: string | null = null;
    do {
      const query: string = `/v3/voices?type=private&limit=2${token ? `&token=${encodeURIComponent(token)}` : ''}`;
      const page = await api.call<{ data: Voice[]; next_token: string | null }>('GET', query, {
        key: apiKey,
      });
      expect(page.status).toBe(200);
      seen.push(...page.body.data);
      token = page.body.next_token;
    } while (token && seen.length < 100);
    expect(
      seen
        .slice(0, 3)
        .map((voice) => voice.voice_id)
        .sort(),
    ).toEqual([...ids].sort());
    expect(new Set(seen.map((voice) => voice.voice_id)).size).toBe(seen.length);
    expect(seen.length).toBe(3);

    const id = ids[0] as string;
    const read = await api.call<{ data: Record<string, unknown> }>('GET', `/v3/voices/${id}`, {
      key: apiKey,
    });
    expect(read.status).toBe(200);
    expect(read.body.data).toMatchObject({
      voice_id: id,
      type: 'private',
      support_pause: false,
      support_interactive_avatar: false,
      created_at: expect.any(Number),
    });
    expect(read.body.data.status).toBeUndefined();

    const spoken = await api.call<{ data: { duration: number } }>('POST', '/v3/voices/speech', {
      key: apiKey,
      body: { text: 'Once upon a time.', voice_id: id },
    });
    expect(spoken.status).toBe(200);
    expect(spoken.body.data.duration).toBeGreaterThan(0.5);

    // Another workspace does not see it.
    expect((await api.call('GET', `/v3/voices/${id}`)).status).toBe(404);

    const deleted = await api.call('DELETE', `/v3/voices/${id}`, { key: apiKey });
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ data: { voice_id: id } });
    const gone = await api.call('GET', `/v3/voices/${id}`, { key: apiKey });
    expect(gone.status).toBe(404);
    expect(errorOf(gone)).toMatchObject({ code: 'voice_not_found', param: 'voice_id' });
    const twice = await api.call('DELETE', `/v3/voices/${id}`, { key: apiKey });
    expect(twice.status).toBe(404);
    expect(errorOf(twice)).toMatchObject({ code: 'voice_not_found', param: 'voice_id' });
    const speakGone = await api.call('POST', '/v3/voices/speech', {
      key: apiKey,
      body: { text: 'Hello.', voice_id: id },
    });
    expect(speakGone.status).toBe(404);
  });

  it('reads stock voices and refuses to delete them', async () => {
    const stock = await api.call<{ data: Record<string, unknown> }>('GET', '/v3/voices/en-us-olivia');
    expect(stock.status).toBe(200);
    expect(stock.body.data).toMatchObject({ voice_id: 'en-us-olivia', type: 'public', name: 'Olivia' });
    const refused = await api.call('DELETE', '/v3/voices/en-us-olivia');
    expect(refused.status).toBe(403);
    expect(errorOf(refused)).toMatchObject({ code: 'forbidden', param: 'voice_id' });
    const unknown = await api.call('GET', '/v3/voices/xx-nobody');
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown)).toMatchObject({ code: 'voice_not_found', param: 'voice_id' });
  });

  it.each([
    [{}, 'prompt'],
    [{ prompt: '' }, 'prompt'],
    [{ prompt: '   ' }, 'prompt'],
    [{ prompt: 'x'.repeat(1001) }, 'prompt'],
    [{ prompt: 42 }, 'prompt'],
    [{ prompt: 'a voice', seed: -1 }, 'seed'],
    [{ prompt: 'a voice', seed: 1.5 }, 'seed'],
    [{ prompt: 'a voice', seed: '1' }, 'seed'],
    [{ prompt: 'a voice', gender: 'robot' }, 'gender'],
    [{ prompt: 'a voice', locale: 'English please' }, 'locale'],
    [{ prompt: 'a voice', style: 'warm' }, 'style'],
  ])('refuses %j naming %s', async (body, param) => {
    const result = await design(body);
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
  });
});
