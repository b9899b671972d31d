import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { STOCK_LOOKS } from '../../lambdas/catalog/stock-avatars.js';
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
  preview_audio_url: string;
}

interface List<T> {
  data: T[];
  has_more: boolean;
  next_token: string | null;
}

let api: TestStack;
beforeAll(async () => {
  api = await startTestStack({
    // Part of the subject is the voice previews' speech (length, loudness): the real engines.
    engines: 'reference',
  });
});
afterAll(() => api.stop());

async function voiceIds(query: string): Promise<string[]> {
  const result = await api.call<List<Voice>>('GET', `/v3/voices?limit=100&${query}`);
  expect(result.status, query).toBe(200);
  expect(result.body.has_more).toBe(false);
  return result.body.data.map((voice) => voice.voice_id);
}

const idsWhere = (keep: (voice: (typeof STOCK_VOICES)[number]) => boolean) =>
  STOCK_VOICES.filter(keep).map((voice) => voice.voiceId);

describe('GET /v3/voices', () => {
  it('lists the stock voices with the reference fields', async () => {
    const result = await api.call<List<Voice>>('GET', '/v3/voices?limit=100');
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ has_more: false, next_token: null });
    expect(result.body.data.map((voice) => voice.voice_id)).toEqual(
      STOCK_VOICES.map((voice) => voice.voiceId),
    );
    for (const voice of result.body.data) {
      const stock = STOCK_VOICES.find((candidate) => candidate.voiceId === voice.voice_id);
      expect(voice).toEqual({
        voice_id: stock?.voiceId,
        name: stock?.name,
        language: stock?.language,
        gender: stock?.gender,
        type: 'public',
        support_pause: false,
        support_locale: false,
        preview_audio_url: expect.stringMatching(/^http/),
      });
    }
  });

  it('pages 20 at a time by default, with opaque tokens', async () => {
    const first = await api.call<List<Voice>>('GET', '/v3/voices');
    expect(first.body.data).toHaveLength(20);
    expect(first.body.has_more).toBe(true);
    const seen: string[] = [];
    let token: string | null = null;
    let pages = 0;
    do {
      const query: string = `/v3/voices?limit=7${token ? `&token=${encodeURIComponent(token)}` : ''}`;
      const page = await api.call<List<Voice>>('GET', query);
      expect(page.status).toBe(200);
      expect(page.body.has_more).toBe(page.body.next_token !== null);
      seen.push(...page.body.data.map((voice) => voice.voice_id));
      token = page.body.next_token;
      pages++;
    } while (token && pages < 20);
    expect(pages).toBe(Math.ceil(STOCK_VOICES.length / 7));
    expect(seen).toEqual(STOCK_VOICES.map((voice) => voice.voiceId));
  });

  it('filters by language tag, primary language or language name', async () => {
    expect(await voiceIds('language=en-US')).toEqual(['en-us-olivia', 'en-us-ethan']);
    expect(await voiceIds('language=EN-gb')).toEqual(['en-gb-charlotte', 'en-gb-oliver']);
    const english = idsWhere((voice) => voice.language.startsWith('en-'));
    expect(await voiceIds('language=en')).toEqual(english);
    expect(await voiceIds('language=English')).toEqual(english);
    expect(await voiceIds('language=Spanish%20(Mexico)')).toEqual(['es-mx-valentina', 'es-mx-diego']);
    expect(await voiceIds('language=zh')).toEqual(['zh-cn-li-na', 'zh-cn-wei']);
    expect(await voiceIds('language=tlh')).toEqual([]);
  });

  it('filters by gender, type and engine', async () => {
    expect(await voiceIds('gender=female')).toEqual(idsWhere((voice) => voice.gender === 'female'));
    expect(await voiceIds('gender=male&language=fr')).toEqual(['fr-fr-julien']);
    expect(await voiceIds('type=public')).toHaveLength(STOCK_VOICES.length);
    expect(await voiceIds('type=private')).toEqual([]);
    expect(await voiceIds('engine=espeak')).toHaveLength(STOCK_VOICES.length);
    expect(await voiceIds('engine=polly')).toEqual(
      idsWhere((voice) => voice.engineVoices.polly !== undefined),
    );
    expect(await voiceIds('engine=polly')).not.toContain('hi-in-arjun');
    // The hosted provider's engine names mean this deployment's engine (eSpeak here): every voice.
    expect(await voiceIds('engine=starfish')).toHaveLength(STOCK_VOICES.length);
  });

  it('binds a token to its filters', async () => {
    const page = await api.call<List<Voice>>('GET', '/v3/voices?gender=female&limit=2');
    const token = encodeURIComponent(page.body.next_token ?? '');
    const same = await api.call<List<Voice>>('GET', `/v3/voices?gender=female&limit=2&token=${token}`);
    expect(same.body.data.map((voice) => voice.voice_id)).toEqual(
      idsWhere((voice) => voice.gender === 'female').slice(2, 4),
    );
    const changed = await api.call('GET', `/v3/voices?gender=male&limit=2&token=${token}`);
    expect(changed.status).toBe(400);
    expect(errorOf(changed)).toMatchObject({ code: 'invalid_parameter', param: 'token' });
  });

  it.each([
    ['limit=0', 'limit'],
    ['limit=101', 'limit'],
    ['limit=ten', 'limit'],
    ['gender=robot', 'gender'],
    ['type=shared', 'type'],
    ['engine=whisper', 'engine'],
    ['language=', 'language'],
    ['token=nope', 'token'],
  ])('rejects %s naming %s', async (query, param) => {
    const result = await api.call('GET', `/v3/voices?${query}`);
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
  });

  it('includes the default voice of every stock look', async () => {
    const ids = new Set(await voiceIds(''));
    for (const look of STOCK_LOOKS) expect(ids.has(look.defaultVoiceId), look.id).toBe(true);
  });
});

describe('voice previews', () => {
  it('are WAV files of speech in the voice: a few seconds, clearly above silence', async () => {
    const result = await api.call<List<Voice>>('GET', '/v3/voices?limit=100');
    const previews = await Promise.all(
      result.body.data.map(async (voice) => {
        const response = await fetch(voice.preview_audio_url);
        expect(response.status, voice.voice_id).toBe(200);
        expect(response.headers.get('content-type'), voice.voice_id).toBe('audio/wav');
        return { voice, wav: decodeWavPcm16(new Uint8Array(await response.arrayBuffer())) };
      }),
    );
    for (const { voice, wav } of previews) {
      expect(wav.channels, voice.voice_id).toBe(1);
      const seconds = wav.samples.length / wav.sampleRate;
      expect(seconds, voice.voice_id).toBeGreaterThan(1.5);
      expect(seconds, voice.voice_id).toBeLessThan(8);
      let sum = 0;
      let loud = 0;
      for (const sample of wav.samples) {
        sum += sample * sample;
        if (Math.abs(sample) > 2000) loud++;
      }
      expect(Math.sqrt(sum / wav.samples.length), voice.voice_id).toBeGreaterThan(500);
      expect(loud / wav.samples.length, voice.voice_id).toBeGreaterThan(0.05);
    }
  });

  it('differ between voices', async () => {
    const result = await api.call<List<Voice>>('GET', '/v3/voices?language=en-US');
    const [a, b] = await Promise.all(
      result.body.data.map(async (voice) =>
        Buffer.from(await (await fetch(voice.preview_audio_url)).arrayBuffer()),
      ),
    );
    expect(a && b && a.equals(b)).toBe(false);
  });
});
