import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWorkspace } from '../../lambdas/accounts/workspaces.js';
import { STOCK_LOOKS } from '../../lambdas/catalog/stock-avatars.js';
import { decodeMonoPcm16 } from '../../lambdas/engines/composition/audio-decode.js';
import { probeMedia } from '../../lambdas/engines/composition/probe.js';
import { parseSubtitles } from '../../lambdas/engines/composition/subtitle-files.js';
import { type ModelServer, startModelServer } from '../support/model-server.js';
import { wav } from '../support/sample-media.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

/** What the fake translation server knows: English lines of the source video and their Spanish. */
const SPANISH: Readonly<Record<string, string>> = {
  'Welcome to the studio.': 'Bienvenidos al estudio.',
  'Today we build a robot together.': 'Hoy construimos un robot juntos.',
};
const SCRIPT = Object.keys(SPANISH).join(' ');

let api: TestStack;
let translator: ModelServer;
let scratch: string;
let sourceVideoUrl: string;
let sourceDuration: number;

interface Translation {
  id: string;
  status: string;
  title: string;
  input_language: string | null;
  output_language: string;
  duration: number | null;
  video_url: string | null;
  audio_url: string | null;
  srt_caption_url: string | null;
  vtt_caption_url: string | null;
  failure_code: string | null;
  failure_message: string | null;
  engines: Record<string, string>;
  transcript_source: string | null;
}

async function waitFor<T extends { status: string }>(path: string, key?: string): Promise<T> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const result = await api.call<{ data: T }>('GET', path, key ? { key } : {});
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    if (result.body.data.status === 'completed' || result.body.data.status === 'failed')
      return result.body.data;
    if (Date.now() > deadline) throw new Error(`${path} still ${result.body.data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

async function download(url: string | null, name: string): Promise<string> {
  expect(url).toMatch(/^http/);
  const response = await fetch(url as string);
  expect(response.status).toBe(200);
  const path = join(scratch, name);
  await writeFile(path, Buffer.from(await response.arrayBuffer()));
  return path;
}

async function translate(body: Record<string, unknown>, key?: string): Promise<string[]> {
  const created = await api.call<{ data: { video_translation_ids: string[] } }>(
    'POST',
    '/v3/video-translations',
    {
      body,
      ...(key ? { key } : {}),
    },
  );
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  return created.body.data.video_translation_ids;
}

/** `HH:MM:SS,mmm`. */
const stamp = (ms: number) =>
  `${new Date(ms).toISOString().slice(11, 19)},${String(ms % 1000).padStart(3, '0')}`;

/** RMS level (dBFS) of 16 kHz mono samples between two times. */
function levelDb(samples: Int16Array, fromMs: number, toMs: number): number {
  const from = Math.floor((fromMs / 1000) * 16_000);
  const to = Math.min(samples.length, Math.floor((toMs / 1000) * 16_000));
  let sum = 0;
  for (let index = from; index < to; index++) sum += ((samples[index] ?? 0) / 32768) ** 2;
  return 10 * Math.log10(sum / Math.max(1, to - from) + 1e-12);
}

beforeAll(async () => {
  translator = await startModelServer((request) => {
    const body = JSON.parse(request.body.toString('utf8')) as {
      messages: { role: string; content: string }[];
    };
    const user = body.messages.find((message) => message.role === 'user')?.content ?? '{}';
    const segments = (JSON.parse(user) as { segments: string[] }).segments;
    const content = JSON.stringify({
      segments: segments.map((segment) => SPANISH[segment] ?? `¿${segment}?`),
    });
    return { json: { choices: [{ message: { role: 'assistant', content } }] } };
  });
  api = await startTestStack({
    // The subject is the dubbed media (speech, timing, captions): the real engines, a fake translator.
    engines: 'reference',
    stepFunctionsTimeScale: 0.001,
    environment: {
      TRANSLATION_ENGINE: 'openai',
      TRANSLATION_BASE_URL: translator.baseUrl,
      MODEL_HOSTS_ALLOW_PRIVATE: 'true',
    },
  });
  scratch = await mkdtemp(join(tmpdir(), 'translations-test-'));
  const created = await api.call<{ data: { video_id: string } }>('POST', '/v3/videos', {
    body: {
      type: 'avatar',
      avatar_id: STOCK_LOOKS[0]?.id,
      voice_id: 'en-us-olivia',
      script: SCRIPT,
      resolution: '720p',
      title: 'Robot workshop',
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const video = await waitFor<{ status: string; video_url: string; duration: number }>(
    `/v3/videos/${created.body.data.video_id}`,
  );
  expect(video.status).toBe('completed');
  sourceVideoUrl = video.video_url;
  sourceDuration = video.duration;
}, 180_000);

afterAll(async () => {
  await api?.stop();
  await translator?.close();
  await rm(scratch, { recursive: true, force: true });
});

describe('video translations', () => {
  it('lists the languages this deployment speaks, in the hosted naming', async () => {
    const result = await api.call<{ data: { languages: string[] } }>(
      'GET',
      '/v3/video-translations/languages',
    );
    expect(result.status).toBe(200);
    expect(result.body.data.languages).toEqual(
      expect.arrayContaining(['Spanish (Spain)', 'English (United States)']),
    );
    expect([...result.body.data.languages].sort((a, b) => a.localeCompare(b))).toEqual(
      result.body.data.languages,
    );
  });

  it('translates a video made here into Spanish: its stored words, translated, spoken in Spanish, captioned', async () => {
    const before = (await getWorkspace(api.workspaceId, true))?.remaining_credits as number;
    const [id] = await translate({
      video: { type: 'url', url: sourceVideoUrl },
      output_languages: ['Spanish (Spain)'],
      title: 'Taller de robots',
      enable_caption: true,
    });
    const done = await waitFor<Translation>(`/v3/video-translations/${id}`);
    expect(done.failure_message).toBeNull();
    expect(done).toMatchObject({
      status: 'completed',
      title: 'Taller de robots',
      output_language: 'Spanish (Spain)',
      input_language: 'English (United States)',
      transcript_source: 'stored_script',
    });
    expect(done.engines).toMatchObject({ translation: 'openai', speech: 'espeak' });
    expect(done.engines.voice).toMatch(/espeak-es/);
    // The presenter's lips were re-animated to the Spanish on most frames where it is spoken.
    const lips = /^footage_lips \((\d+) of (\d+) frames/.exec(done.engines.lips ?? '');
    expect(lips, done.engines.lips).not.toBeNull();
    expect(Number(lips?.[1])).toBeGreaterThan(0.8 * Number(lips?.[2]));

    // The captions are the Spanish lines, in order, inside the video.
    const cues = parseSubtitles(await (await fetch(done.srt_caption_url as string)).text()).cues;
    expect(cues.map((cue) => cue.text.replace(/\n/g, ' ')).join(' ')).toBe(Object.values(SPANISH).join(' '));
    const vtt = await (await fetch(done.vtt_caption_url as string)).text();
    expect(vtt.startsWith('WEBVTT')).toBe(true);

    // It plays: H.264 + AAC, about as long as the source (a little longer where Spanish needs time).
    const video = await download(done.video_url, 'spanish.mp4');
    const probe = await probeMedia(video);
    expect(probe.streams.map((stream) => stream.type).sort()).toEqual(['audio', 'video']);
    expect(probe.durationSeconds).toBeGreaterThan(sourceDuration * 0.9);
    expect(probe.durationSeconds).toBeLessThan(sourceDuration * 1.6);
    expect(done.duration).toBeCloseTo(probe.durationSeconds, 0);

    // The new speech is where the captions say: loud inside the first cue, the old voice ducked away.
    const samples = await decodeMonoPcm16(video, { sampleRate: 16_000 });
    const first = cues[0] as { startMs: number; endMs: number };
    expect(levelDb(samples, first.startMs, first.endMs)).toBeGreaterThan(-35);
    const audio = await probeMedia(await download(done.audio_url, 'spanish.mp3'));
    expect(audio.streams[0]?.type).toBe('audio');

    // Charged by the source's minutes: one credit for under a minute.
    const after = (await getWorkspace(api.workspaceId, true))?.remaining_credits as number;
    expect(before - after).toBe(1);
    expect(translator.requests.length).toBeGreaterThan(0);
  });

  it('speaks given output subtitles with no translation engine involved', async () => {
    const srt =
      '1\n00:00:00,200 --> 00:00:01,800\nHola a todos.\n\n2\n00:00:02,000 --> 00:00:03,500\nGracias por venir.\n';
    const served = translator.requests.length;
    const [id] = await translate({
      video: { type: 'url', url: sourceVideoUrl },
      output_languages: ['Spanish (Mexico)'],
      srt: { type: 'base64', media_type: 'application/x-subrip', data: Buffer.from(srt).toString('base64') },
      srt_role: 'output',
      enable_dynamic_duration: false,
    });
    const done = await waitFor<Translation>(`/v3/video-translations/${id}`);
    expect(done.failure_message).toBeNull();
    expect(done).toMatchObject({ status: 'completed', transcript_source: 'output_subtitles' });
    expect(done.engines.lips).toMatch(/^footage_lips/);
    expect(done.engines.translation).toBeUndefined();
    expect(translator.requests.length).toBe(served);
    const cues = parseSubtitles(await (await fetch(done.srt_caption_url as string)).text()).cues;
    expect(cues.map((cue) => cue.text)).toEqual(['Hola a todos.', 'Gracias por venir.']);
    // Each line starts where its subtitle did.
    expect(cues[0]?.startMs).toBe(200);
    expect(cues[1]?.startMs).toBe(2000);
  });

  it.each([
    [{ output_languages: ['Klingon'] }, 'output_languages[0]'],
    [{ output_languages: ['Spanish (Spain)', 'spanish (spain)'] }, 'output_languages[1]'],
    [{ output_languages: [] }, 'output_languages'],
    [{ output_languages: ['Spanish (Spain)'], input_language: 'Elvish!' }, 'input_language'],
    [{ output_languages: ['Spanish (Spain)'], start_time: 3, end_time: 2 }, 'end_time'],
    [{ output_languages: ['Spanish (Spain)'], srt_role: 'output' }, 'srt_role'],
    [{ output_languages: ['Spanish (Spain)'], mode: 'turbo' }, 'mode'],
    [{ output_languages: ['Spanish (Spain)'], brand_glossary_id: 'f'.repeat(32) }, 'brand_glossary_id'],
    [{ output_languages: ['Spanish (Spain)'], folder_id: 'f'.repeat(32) }, 'folder_id'],
    [
      {
        output_languages: ['Spanish (Spain)'],
        srt: {
          type: 'base64',
          media_type: 'application/x-subrip',
          data: Buffer.from('1\n00:00:02,000 --> 00:00:01,000\nBad\n').toString('base64'),
        },
      },
      'srt',
    ],
  ])('refuses %j naming %s, creating nothing', async (fields, param) => {
    const result = await api.call('POST', '/v3/video-translations', {
      body: { video: { type: 'url', url: sourceVideoUrl }, ...fields },
    });
    expect(result.status, JSON.stringify(result.body)).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
  });

  it('names the line of a bad subtitle file', async () => {
    const result = await api.call('POST', '/v3/video-translations', {
      body: {
        video: { type: 'url', url: sourceVideoUrl },
        output_languages: ['Spanish (Spain)'],
        srt: {
          type: 'base64',
          media_type: 'application/x-subrip',
          data: Buffer.from(
            '1\n00:00:00,000 --> 00:00:01,000\nFine\n\n2\n00:00:03,000 --> 00:00:02,000\nBackwards\n',
          ).toString('base64'),
        },
      },
    });
    expect(errorOf(result).message).toMatch(/Line 6/);
  });

  it('gates stock voices behind the administrator’s setting', async () => {
    const result = await api.call('POST', '/v3/video-translations', {
      body: {
        video: { type: 'url', url: sourceVideoUrl },
        output_languages: ['Spanish (Spain)'],
        stock_voice_config: { use_stock_voice: true },
      },
    });
    expect(result.status).toBe(403);
    expect(errorOf(result)).toMatchObject({ param: 'stock_voice_config.use_stock_voice' });
  });

  it('reads, renames, lists, reports statuses and deletes, within the workspace only', async () => {
    const [id] = await translate({
      video: { type: 'url', url: sourceVideoUrl },
      output_languages: ['Spanish (Spain)'],
      title: 'Before',
      // Not about the lips: leave them as recorded (the test takes seconds less).
      translate_audio_only: true,
    });
    const renamed = await api.call<{ data: Translation }>('PATCH', `/v3/video-translations/${id}`, {
      body: { title: 'After' },
    });
    expect(renamed.body.data.title).toBe('After');
    const list = await api.call<{ data: Translation[] }>('GET', '/v3/video-translations?limit=100');
    expect(list.body.data.map((item) => item.id)).toContain(id);
    const statuses = await api.call<{ data: { video_id: string; status: string }[] }>(
      'GET',
      `/v3/video-translations/statuses?video_translation_ids=${id},${'f'.repeat(32)}`,
    );
    expect(statuses.body.data[0]?.video_id).toBe(id);
    expect(['queued', 'processing', 'completed']).toContain(statuses.body.data[0]?.status);
    expect(statuses.body.data[1]).toMatchObject({ status: 'not_found' });

    const other = await api.newWorkspace();
    for (const method of ['GET', 'DELETE'] as const) {
      const result = await api.call(method, `/v3/video-translations/${id}`, { key: other.apiKey });
      expect(result.status).toBe(404);
    }
    await waitFor<Translation>(`/v3/video-translations/${id}`);
    const deleted = await api.call('DELETE', `/v3/video-translations/${id}`);
    expect(deleted.body).toEqual({ data: { id } });
    expect((await api.call('GET', `/v3/video-translations/${id}`)).status).toBe(404);
  });

  it('proofreads: translated subtitles to review and edit, then a translation spoken from the edit', async () => {
    const created = await api.call<{ data: { proofread_ids: string[]; status: string } }>(
      'POST',
      '/v3/video-translations/proofreads',
      {
        body: {
          video: { type: 'url', url: sourceVideoUrl },
          output_languages: ['Spanish (Spain)'],
          title: 'Review',
        },
      },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.data.status).toBe('processing');
    const [proofreadId] = created.body.data.proofread_ids;
    const proofread = await waitFor<{ status: string; output_language: string; input_language: string }>(
      `/v3/video-translations/proofreads/${proofreadId}`,
    );
    expect(proofread).toMatchObject({ status: 'completed', output_language: 'Spanish (Spain)' });
    // A proofread is not a translation: not read, not renamed through the translations' routes.
    expect((await api.call('GET', `/v3/video-translations/${proofreadId}`)).status).toBe(404);
    const renamed = await api.call('PATCH', `/v3/video-translations/${proofreadId}`, {
      body: { title: 'Not a translation' },
    });
    expect(renamed.status).toBe(404);
    expect(
      await waitFor<{ status: string; title?: string | null }>(
        `/v3/video-translations/proofreads/${proofreadId}`,
      ),
    ).not.toMatchObject({
      title: 'Not a translation',
    });

    const files = await api.call<{ data: { srt_url: string; original_srt_url: string } }>(
      'GET',
      `/v3/video-translations/proofreads/${proofreadId}/srt`,
    );
    const translated = parseSubtitles(await (await fetch(files.body.data.srt_url)).text()).cues;
    const original = parseSubtitles(await (await fetch(files.body.data.original_srt_url)).text()).cues;
    expect(translated.map((cue) => cue.text)).toEqual(Object.values(SPANISH));
    expect(original.map((cue) => cue.text)).toEqual(Object.keys(SPANISH));

    const bad = await api.call('PUT', `/v3/video-translations/proofreads/${proofreadId}/srt`, {
      body: {
        srt: {
          type: 'base64',
          media_type: 'application/x-subrip',
          data: Buffer.from(
            '1\n00:00:00,000 --> 00:00:01,000\nHola\n\n2\n00:00:03,000 --> 00:00:02,000\nAl revés\n',
          ).toString('base64'),
        },
      },
    });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toMatchObject({ param: 'srt' });
    expect(errorOf(bad).message).toMatch(/Line 6/);

    const edited = translated.map((cue, index) => ({
      ...cue,
      text: index === 0 ? 'Bienvenidas al taller.' : cue.text,
    }));
    const srt = edited
      .map((cue, index) => `${index + 1}\n${stamp(cue.startMs)} --> ${stamp(cue.endMs)}\n${cue.text}\n`)
      .join('\n');
    const put = await api.call('PUT', `/v3/video-translations/proofreads/${proofreadId}/srt`, {
      body: {
        srt: {
          type: 'base64',
          media_type: 'application/x-subrip',
          data: Buffer.from(srt).toString('base64'),
        },
      },
    });
    expect(put.status, JSON.stringify(put.body)).toBe(200);

    const served = translator.requests.length;
    const generated = await api.call<{ data: { video_translation_id: string } }>(
      'POST',
      `/v3/video-translations/proofreads/${proofreadId}/generate`,
      { body: { captions: true, translate_audio_only: true } },
    );
    expect(generated.status, JSON.stringify(generated.body)).toBe(200);
    const done = await waitFor<Translation>(
      `/v3/video-translations/${generated.body.data.video_translation_id}`,
    );
    expect(done.failure_message).toBeNull();
    expect(done.status).toBe('completed');
    // Spoken from the reviewed words: nothing was translated again.
    expect(translator.requests.length).toBe(served);
    const cues = parseSubtitles(await (await fetch(done.srt_caption_url as string)).text()).cues;
    expect(cues.map((cue) => cue.text.replace(/\n/g, ' ')).join(' ')).toBe(
      edited.map((cue) => cue.text).join(' '),
    );
  });

  it('translates a batch: languages expand to items, a refused payload fails its items, the batch closes', async () => {
    const srt = '1\n00:00:00,200 --> 00:00:01,800\nHola a todos.\n';
    const payloadSrt = {
      type: 'base64',
      media_type: 'application/x-subrip',
      data: Buffer.from(srt).toString('base64'),
    };
    const created = await api.call<{ data: { batch_id: string } }>('POST', '/v3/video-translations/batches', {
      body: {
        title: 'Launch dubs',
        video_translations: [
          {
            video: { type: 'url', url: sourceVideoUrl },
            output_languages: ['Spanish (Spain)', 'Spanish (Mexico)'],
            srt: payloadSrt,
            srt_role: 'output',
            translate_audio_only: true,
          },
          {
            video: { type: 'url', url: sourceVideoUrl },
            output_languages: ['Spanish (Spain)'],
            folder_id: 'f'.repeat(32),
          },
        ],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const batchId = created.body.data.batch_id;
    interface BatchView {
      status: string;
      title: string;
      total_items: number;
      counts_by_status: Record<string, number>;
      items: { video_id: string; item_index: number; status: string; error: { code: string } | null }[];
    }
    const deadline = Date.now() + 120_000;
    let batch: BatchView;
    for (;;) {
      batch = (await api.call<{ data: BatchView }>('GET', `/v3/video-translations/batches/${batchId}`)).body
        .data;
      if (batch.status !== 'processing') break;
      expect(Date.now()).toBeLessThan(deadline);
      await new Promise((resolve) => setTimeout(resolve, 200));
    }
    expect(batch).toMatchObject({ status: 'completed', title: 'Launch dubs', total_items: 3 });
    expect(batch.counts_by_status).toEqual({ queued: 0, processing: 0, completed: 2, failed: 1 });
    expect(batch.items.map((item) => [item.item_index, item.status])).toEqual([
      [0, 'completed'],
      [1, 'completed'],
      [2, 'failed'],
    ]);
    expect(batch.items[2]?.error?.code).toBe('invalid_parameter');
    const statuses = await api.call<{ data: { video_id: string; batch_id: string }[] }>(
      'GET',
      `/v3/video-translations/statuses?batch_ids=${batchId}`,
    );
    expect(statuses.body.data.map((entry) => entry.video_id)).toEqual(
      batch.items.map((item) => item.video_id),
    );
    // translate_audio_only: the dub keeps the recorded lips.
    const first = await api.call<{ data: Translation }>(
      'GET',
      `/v3/video-translations/${batch.items[0]?.video_id}`,
    );
    expect(first.body.data.engines.lips).toMatch(/^none/);
  });

  it('refuses a bad batch payload naming its index, and more than 100 items', async () => {
    const bad = await api.call('POST', '/v3/video-translations/batches', {
      body: {
        video_translations: [
          { video: { type: 'url', url: sourceVideoUrl }, output_languages: ['Spanish (Spain)'] },
          { video: { type: 'url', url: sourceVideoUrl } },
        ],
      },
    });
    expect(bad.status).toBe(400);
    expect(errorOf(bad)).toMatchObject({ code: 'invalid_parameter', param: 'video_translations' });
    expect(errorOf(bad).message).toContain('video_translations[1].output_languages');
    const languages = (
      await api.call<{ data: { languages: string[] } }>('GET', '/v3/video-translations/languages')
    ).body.data.languages;
    const tooMany = await api.call('POST', '/v3/video-translations/batches', {
      body: {
        video_translations: Array.from({ length: 11 }, () => ({
          video: { type: 'url', url: sourceVideoUrl },
          output_languages: languages.slice(0, 10),
        })),
      },
    });
    expect(tooMany.status).toBe(400);
    expect(errorOf(tooMany).message).toMatch(/video_translations\[10\].*at most 100/);
  });

  it('dubs with audio of your own: it is the new speech, the lips follow it over the whole video', async () => {
    const srt = '1\n00:00:00,000 --> 00:00:02,000\nHola.\n';
    const [id] = await translate({
      video: { type: 'url', url: sourceVideoUrl },
      output_languages: ['Spanish (Spain)'],
      srt: { type: 'base64', media_type: 'application/x-subrip', data: Buffer.from(srt).toString('base64') },
      srt_role: 'output',
      audio: { type: 'base64', media_type: 'audio/wav', data: wav(2, 16_000).toString('base64') },
    });
    const done = await waitFor<Translation>(`/v3/video-translations/${id}`);
    expect(done.failure_message).toBeNull();
    expect(done.engines.voice).toBe('given audio');
    const lips = /^footage_lips \((\d+) of (\d+) frames/.exec(done.engines.lips ?? '');
    // Every frame of the video is re-animated (the audio drives the mouth everywhere).
    expect(Number(lips?.[2])).toBeGreaterThan(sourceDuration * 20);
    expect(done.duration).toBeGreaterThanOrEqual(sourceDuration - 0.1);
  });

  it('answers 404 for every id that names nothing of the workspace', async () => {
    const unknown = 'f'.repeat(32);
    for (const [method, path, code] of [
      ['GET', `/v3/video-translations/${unknown}`, 'not_found'],
      ['PATCH', `/v3/video-translations/${unknown}`, 'not_found'],
      ['DELETE', `/v3/video-translations/${unknown}`, 'not_found'],
      ['GET', `/v3/video-translations/batches/${unknown}`, 'batch_not_found'],
      ['GET', `/v3/video-translations/proofreads/${unknown}`, 'not_found'],
      ['GET', `/v3/video-translations/proofreads/${unknown}/srt`, 'not_found'],
      ['PUT', `/v3/video-translations/proofreads/${unknown}/srt`, 'not_found'],
      ['POST', `/v3/video-translations/proofreads/${unknown}/generate`, 'not_found'],
    ] as const) {
      const body =
        method === 'PATCH'
          ? { title: 'x' }
          : method === 'PUT'
            ? {
                srt: {
                  type: 'base64',
                  media_type: 'application/x-subrip',
                  data: Buffer.from('1\n00:00:00,000 --> 00:00:01,000\nHola\n').toString('base64'),
                },
              }
            : method === 'POST'
              ? {}
              : undefined;
      const result = await api.call(method, path, body ? { body } : {});
      expect(result.status, `${method} ${path}`).toBe(404);
      expect(errorOf(result).code, `${method} ${path}`).toBe(code);
    }
  });
});
