/**
 * `GET /v3/audio/sounds` over HTTP: the catalog of music and sound effects this project makes
 * itself, published under `catalog/sounds/`, each playable (ffprobe) and as long as it says, and
 * searched by words.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ListObjectsV2Command } from '@aws-sdk/client-s3';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { CATALOG_SOUNDS } from '../../lambdas/catalog/sound-catalog.js';
import { s3Client } from '../../lambdas/core/aws-clients.js';
import { config } from '../../lambdas/core/config.js';
import { probeMedia } from '../../lambdas/engines/composition/index.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

interface Sound {
  id: string;
  name: string;
  description: string;
  type: string;
  audio_url: string;
  duration: number;
  score: number;
  peak_offset: number | null;
  placement: string | null;
  tags: string[];
  bpm?: number;
}
interface List {
  data: Sound[];
  has_more: boolean;
  next_token: string | null;
}

let api: TestStack;
let workDir: string;

beforeAll(async () => {
  api = await startTestStack({
    // The subject is the sound catalog media: the real engines.
    engines: 'reference',
  });
  workDir = await mkdtemp(join(tmpdir(), 'audio-sounds-'));
});
afterAll(async () => {
  await api?.stop();
  if (workDir) await rm(workDir, { recursive: true, force: true });
});

const list = (query = '') => api.call<List>('GET', `/v3/audio/sounds${query}`);

async function probeSound(sound: Sound) {
  const response = await fetch(sound.audio_url);
  expect(response.status).toBe(200);
  const path = join(workDir, `${sound.id}.mp3`);
  await writeFile(path, Buffer.from(await response.arrayBuffer()));
  return probeMedia(path);
}

describe('GET /v3/audio/sounds', () => {
  it('lists the music by default, each track with the reference fields and playable', async () => {
    // A query of filler words only asks for the type: every track, in catalog order, scoring 1.
    const result = await list('?query=music&limit=50');
    expect(result.status).toBe(200);
    expect(result.body).toMatchObject({ has_more: false, next_token: null });
    const music = CATALOG_SOUNDS.filter((sound) => sound.type === 'music');
    expect(result.body.data.map((sound) => sound.id)).toEqual(music.map((sound) => sound.id));
    for (const sound of result.body.data) {
      expect(sound).toMatchObject({
        type: 'music',
        score: 1,
        peak_offset: null,
        placement: null,
        audio_url: expect.stringMatching(/^http/),
      });
      expect(sound.name.length).toBeGreaterThan(0);
      expect(sound.description.length).toBeGreaterThan(20);
      expect(sound.duration).toBeGreaterThan(20);
    }
    // Every track decodes, stereo at 44.1 kHz, as long as the list says.
    await Promise.all(
      result.body.data.map(async (sound) => {
        const probed = await probeSound(sound);
        expect(probed.streams, sound.id).toEqual([
          expect.objectContaining({ type: 'audio', codec: 'mp3', channels: 2 }),
        ]);
        expect(Math.abs(probed.durationSeconds - sound.duration), sound.id).toBeLessThan(0.15);
      }),
    );
  });

  it('lists sound effects with their placement and loudest moment', async () => {
    const result = await list('?type=sound_effects&query=sound%20effects&limit=50');
    expect(result.status).toBe(200);
    const effects = CATALOG_SOUNDS.filter((sound) => sound.type === 'sound_effects');
    expect(result.body.data.map((sound) => sound.id)).toEqual(effects.map((sound) => sound.id));
    for (const sound of result.body.data) {
      expect(sound.type).toBe('sound_effects');
      expect(['hit', 'riser', 'bed']).toContain(sound.placement);
      expect(sound.peak_offset).toBeGreaterThanOrEqual(0);
      expect(sound.peak_offset).toBeLessThanOrEqual(sound.duration);
    }
    await Promise.all(
      result.body.data.map(async (sound) => {
        const probed = await probeSound(sound);
        expect(probed.streams[0]?.codec, sound.id).toBe('mp3');
        expect(Math.abs(probed.durationSeconds - sound.duration), sound.id).toBeLessThan(0.15);
      }),
    );
  });

  it.each([
    ['sound_effects', 'whoosh for a scene change', 'sfx-whoosh'],
    ['sound_effects', 'cash register cha-ching', 'sfx-cash-register'],
    ['sound_effects', 'tense cinematic riser', 'sfx-tension-riser'],
    ['music', 'upbeat corporate', 'music-bright-steps'],
    ['music', 'chill lofi hip-hop for studying', 'music-sunrise-lofi'],
    ['music', 'sad piano', 'music-soft-focus'],
  ])('ranks %s for %j with %s first', async (type, query, first) => {
    const result = await list(`?type=${type}&query=${encodeURIComponent(query)}`);
    expect(result.status).toBe(200);
    expect(result.body.data[0]?.id).toBe(first);
    const scores = result.body.data.map((sound) => sound.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    for (const score of scores) {
      expect(score).toBeGreaterThan(0);
      expect(score).toBeLessThanOrEqual(1);
    }
  });

  it('answers an empty list for a query nothing matches', async () => {
    const result = await list('?query=bagpipes');
    expect(result.status).toBe(200);
    expect(result.body).toEqual({ data: [], has_more: false, next_token: null });
  });

  it('pages with limit and opaque tokens bound to the query', async () => {
    const seen: string[] = [];
    let token: string | null = null;
    do {
      const page: { status: number; body: List } = await list(
        `?type=sound_effects&query=sfx&limit=5${token ? `&token=${encodeURIComponent(token)}` : ''}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.has_more).toBe(page.body.next_token !== null);
      seen.push(...page.body.data.map((sound) => sound.id));
      token = page.body.next_token;
    } while (token);
    expect(seen).toEqual(
      CATALOG_SOUNDS.filter((sound) => sound.type === 'sound_effects').map((sound) => sound.id),
    );
    const first = await list('?type=sound_effects&query=sfx&limit=5');
    const other = await list(
      `?type=music&query=sfx&limit=5&token=${encodeURIComponent(first.body.next_token ?? '')}`,
    );
    expect(other.status).toBe(400);
    expect(errorOf(other)).toMatchObject({ param: 'token' });
  });

  it.each([
    ['query=rain&type=podcasts', 'type'],
    ['query=rain&limit=0', 'limit'],
    ['query=rain&limit=51', 'limit'],
    ['query=rain&min_score=1.5', 'min_score'],
    ['query=rain&token=x', 'token'],
    ['query=', 'query'],
    ['type=music', 'query'],
  ])('answers ?%s with 400 naming %s', async (query, param) => {
    const result = await list(`?${query}`);
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
  });

  it('keeps the files under catalog/sounds/ of the media bucket', async () => {
    const listed = await s3Client().send(
      new ListObjectsV2Command({ Bucket: config().bucketName, Prefix: 'catalog/sounds/' }),
    );
    expect((listed.Contents ?? []).map((object) => object.Key).sort()).toEqual(
      CATALOG_SOUNDS.map((sound) => `catalog/sounds/${sound.id}.mp3`).sort(),
    );
  });
});
