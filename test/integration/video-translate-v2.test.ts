import { createServer, type IncomingMessage, type Server, type ServerResponse } from 'node:http';
import type { AddressInfo } from 'node:net';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWorkspace } from '../../lambdas/accounts/workspaces.js';
import { buildOpenApiDocument } from '../../lambdas/api/openapi.js';
import { ROUTES } from '../../lambdas/api/routes.js';
import { STOCK_LOOKS } from '../../lambdas/catalog/stock-avatars.js';
import { newId } from '../../lambdas/core/ids.js';
import { putItem } from '../../lambdas/core/repository.js';
import { parseSubtitles } from '../../lambdas/engines/composition/subtitle-files.js';
import {
  getTranslation,
  translationItem,
  type VideoTranslationRecord,
} from '../../lambdas/translations/translation-records.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

/** The translation itself, given as subtitles (`srt_role: output`): no recognition or translation engine. */
const SPANISH_SRT =
  '1\n00:00:00,200 --> 00:00:01,800\nHola a todos.\n\n2\n00:00:02,000 --> 00:00:03,500\nGracias por venir.\n';

let api: TestStack;
let files: Server;
let filesUrl: string;
let sourceVideoUrl: string;

interface V2Translation {
  video_translate_id: string;
  title: string;
  status: string;
  url: string | null;
  message: string | null;
  output_language: string;
  callback_id: string | null;
}

interface V2Created {
  error: null;
  data: { video_translate_id: string | null; video_translate_ids: string[] | null };
}

/** Serves the subtitle files the `/v2` requests point `srt_url` at. */
function serveFile(request: IncomingMessage, response: ServerResponse) {
  const bodies: Record<string, string> = {
    '/spanish.srt': SPANISH_SRT,
    '/backwards.srt': '1\n00:00:02,000 --> 00:00:01,000\nBad\n',
  };
  const body = bodies[request.url ?? ''];
  if (body === undefined) {
    response.writeHead(404).end();
    return;
  }
  response.writeHead(200, { 'Content-Type': 'application/x-subrip' }).end(body);
}

async function waitForVideo(videoId: string): Promise<{ status: string; video_url: string }> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const result = await api.call<{ data: { status: string; video_url: string } }>(
      'GET',
      `/v3/videos/${videoId}`,
    );
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    if (['completed', 'failed'].includes(result.body.data.status)) return result.body.data;
    if (Date.now() > deadline) throw new Error(`video ${videoId} still ${result.body.data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

/** Polls the `/v2` status route as the hosted API's clients do: until `success` or `failed`. */
async function waitForV2(id: string): Promise<V2Translation> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const result = await api.call<{ error: null; data: V2Translation }>('GET', `/v2/video_translate/${id}`);
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    expect(result.body.error).toBeNull();
    expect(['pending', 'running', 'success', 'failed']).toContain(result.body.data.status);
    if (result.body.data.status === 'success' || result.body.data.status === 'failed')
      return result.body.data;
    if (Date.now() > deadline) throw new Error(`${id} still ${result.body.data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

async function record(id: string): Promise<VideoTranslationRecord> {
  const found = await getTranslation(api.workspaceId, id, true);
  if (!found) throw new Error(`no translation ${id}`);
  return found;
}

/** A copy of a translation under a new id, in another state (a running or failed one, on demand). */
async function copyAs(source: VideoTranslationRecord, changes: Partial<VideoTranslationRecord>) {
  const copy = { ...source, ...changes, video_translation_id: newId() };
  await putItem(translationItem(copy));
  return copy.video_translation_id;
}

beforeAll(async () => {
  files = createServer(serveFile);
  await new Promise<void>((resolve) => files.listen(0, '127.0.0.1', resolve));
  filesUrl = `http://127.0.0.1:${(files.address() as AddressInfo).port}`;
  api = await startTestStack({
    stepFunctionsTimeScale: 0.001,
    // `srt_url` is downloaded from the loopback file server above.
    environment: { ALLOW_LOOPBACK_URLS: 'true' },
  });
  const created = await api.call<{ data: { video_id: string } }>('POST', '/v3/videos', {
    body: {
      type: 'avatar',
      avatar_id: STOCK_LOOKS[0]?.id,
      voice_id: 'en-us-olivia',
      script: 'Welcome to the studio. Today we build a robot together.',
      resolution: '720p',
      title: 'Robot workshop',
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  const video = await waitForVideo(created.body.data.video_id);
  expect(video.status).toBe('completed');
  sourceVideoUrl = video.video_url;
}, 180_000);

afterAll(async () => {
  await api?.stop();
  await new Promise((resolve) => files?.close(resolve));
});

describe('/v2 video translate', () => {
  let finished: string;

  it('lists the target languages under /v2 as /v3 names them', async () => {
    const v2 = await api.call<{ error: null; data: { languages: string[] } }>(
      'GET',
      '/v2/video_translate/target_languages',
    );
    expect(v2.status).toBe(200);
    expect(v2.body.error).toBeNull();
    const v3 = await api.call<{ data: { languages: string[] } }>('GET', '/v3/video-translations/languages');
    expect(v2.body.data.languages).toEqual(v3.body.data.languages);
    expect(v2.body.data.languages).toContain('Spanish (Spain)');
  });

  it('translates a video with output_language and srt_url, reports success with url, and serves its captions', async () => {
    const before = (await getWorkspace(api.workspaceId, true))?.remaining_credits as number;
    const created = await api.call<V2Created>('POST', '/v2/video_translate', {
      body: {
        video_url: sourceVideoUrl,
        output_language: 'Spanish (Spain)',
        title: 'Taller de robots',
        srt_url: `${filesUrl}/spanish.srt`,
        srt_role: 'output',
        mode: 'quality',
        callback_id: 'order-7',
        // The wire format is the subject, not the lips.
        translate_audio_only: true,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.error).toBeNull();
    expect(created.body.data.video_translate_ids).toBeNull();
    const id = created.body.data.video_translate_id as string;
    expect(id).toMatch(/^[0-9a-f]{32}$/);
    // `quality` is `/v3`'s `precision`: two credits per started minute.
    expect((await record(id)).options.mode).toBe('precision');
    expect(before - ((await getWorkspace(api.workspaceId, true))?.remaining_credits as number)).toBe(2);

    const done = await waitForV2(id);
    expect(done).toMatchObject({
      video_translate_id: id,
      title: 'Taller de robots',
      status: 'success',
      message: null,
      output_language: 'Spanish (Spain)',
      callback_id: 'order-7',
    });
    expect(done.url).toMatch(/^http/);
    expect((await fetch(done.url as string)).status).toBe(200);
    finished = id;

    for (const type of ['vtt', 'srt'] as const) {
      const caption = await api.call<{ error: null; data: { caption_url: string } }>(
        'GET',
        `/v2/video_translate/caption?video_translate_id=${id}&caption_type=${type}`,
      );
      expect(caption.status, JSON.stringify(caption.body)).toBe(200);
      expect(caption.body.error).toBeNull();
      const text = await (await fetch(caption.body.data.caption_url)).text();
      if (type === 'vtt') expect(text.startsWith('WEBVTT')).toBe(true);
      expect(parseSubtitles(text).cues.map((cue) => cue.text)).toEqual([
        'Hola a todos.',
        'Gracias por venir.',
      ]);
    }
    // `caption_type` defaults to `vtt`.
    const byDefault = await api.call<{ data: { caption_url: string } }>(
      'GET',
      `/v2/video_translate/caption?video_translate_id=${id}`,
    );
    expect(byDefault.status).toBe(200);
    expect(await (await fetch(byDefault.body.data.caption_url)).text()).toMatch(/^WEBVTT/);
  });

  it('answers output_languages with video_translate_ids, mapping mode and string booleans', async () => {
    const created = await api.call<V2Created>('POST', '/v2/video_translate', {
      body: {
        video_url: sourceVideoUrl,
        output_languages: ['Spanish (Spain)', 'German (Germany)'],
        srt_url: `${filesUrl}/spanish.srt`,
        srt_role: 'output',
        mode: 'fast',
        enable_dynamic_duration: 'false',
        translate_audio_only: true,
        // Sent by the vendor's own n8n node: accepted, no effect.
        use_disguised_voice: false,
        check_credits_sync: true,
        validate_only: false,
        create_collection: false,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.data.video_translate_id).toBeNull();
    const ids = created.body.data.video_translate_ids as string[];
    expect(ids).toHaveLength(2);
    const records = await Promise.all(ids.map(record));
    expect(records.map((each) => each.output_language)).toEqual(['Spanish (Spain)', 'German (Germany)']);
    for (const each of records) {
      expect(each.options).toMatchObject({
        mode: 'speed',
        enable_dynamic_duration: false,
        srt_role: 'output',
      });
    }
    await Promise.all(ids.map(waitForV2));
  });

  it.each([
    [{ output_language: 'Spanish (Spain)' }, 'video_url'],
    [{ video_url: 'SOURCE' }, 'output_language'],
    [
      { video_url: 'SOURCE', output_language: 'Spanish (Spain)', output_languages: ['Spanish (Spain)'] },
      'output_languages',
    ],
    [{ video_url: 'SOURCE', output_language: 'Klingon' }, 'output_language'],
    [{ video_url: 'SOURCE', output_languages: ['Spanish (Spain)', 'Klingon'] }, 'output_languages[1]'],
    [{ video_url: 'https://10.0.0.1/talk.mp4', output_language: 'Spanish (Spain)' }, 'video_url'],
    [{ audio_url: 'https://10.0.0.1/talk.mp3', output_language: 'Spanish (Spain)' }, 'audio_url'],
    [
      { video_url: 'SOURCE', audio_url: 'https://10.0.0.1/dub.mp3', output_language: 'Spanish (Spain)' },
      'audio_url',
    ],
    [{ video_url: 'SOURCE', output_language: 'Spanish (Spain)', srt_url: 'BACKWARDS' }, 'srt_url'],
    [{ video_url: 'SOURCE', output_language: 'Spanish (Spain)', srt_role: 'output' }, 'srt_role'],
    [{ video_url: 'SOURCE', output_language: 'Spanish (Spain)', mode: 'turbo' }, 'mode'],
    [
      { video_url: 'SOURCE', output_language: 'Spanish (Spain)', enable_dynamic_duration: 'yes' },
      'enable_dynamic_duration',
    ],
  ])('refuses %j naming the /v2 field %s', async (fields, param) => {
    const body = Object.fromEntries(
      Object.entries(fields).map(([name, value]) => [
        name,
        value === 'SOURCE' ? sourceVideoUrl : value === 'BACKWARDS' ? `${filesUrl}/backwards.srt` : value,
      ]),
    );
    const result = await api.call('POST', '/v2/video_translate', { body });
    expect(result.status, JSON.stringify(result.body)).toBe(400);
    const error = errorOf(result);
    expect(error).toMatchObject({ code: 'invalid_parameter', param });
    // Messages speak of the /v2 fields and routes too.
    expect(error.message).not.toMatch(
      /`(video|audio|srt)(\.url)?`|output_languages\[0\]|\/v3\/video-translations|needs srt\./,
    );
  });

  it('says which languages to pick from under /v2', async () => {
    const result = await api.call('POST', '/v2/video_translate', {
      body: { video_url: sourceVideoUrl, output_language: 'Klingon' },
    });
    expect(errorOf(result).message).toContain('GET /v2/video_translate/target_languages');
  });

  it('answers 404 in the service envelope for an unknown translation', async () => {
    const result = await api.call('GET', `/v2/video_translate/${'f'.repeat(32)}`);
    expect(result.status).toBe(404);
    expect(errorOf(result)).toMatchObject({ code: 'not_found', param: 'video_translate_id' });
  });

  it('reports a failed translation with its message and no url', async () => {
    const id = await copyAs(await record(finished), {
      status: 'failed',
      outputs: null,
      failure_code: 'source_unreadable',
      failure_message: 'The source has no audio track.',
    });
    const result = await api.call<{ data: V2Translation }>('GET', `/v2/video_translate/${id}`);
    expect(result.body.data).toMatchObject({
      status: 'failed',
      url: null,
      message: 'The source has no audio track.',
    });
    const caption = await api.call('GET', `/v2/video_translate/caption?video_translate_id=${id}`);
    expect(caption.status).toBe(404);
    expect(errorOf(caption).param).toBe('video_translate_id');
  });

  it('refuses captions of a translation still running (409), unknown (404) or asked badly (400)', async () => {
    const running = await copyAs(await record(finished), { status: 'running', outputs: null });
    const status = await api.call<{ data: V2Translation }>('GET', `/v2/video_translate/${running}`);
    expect(status.body.data).toMatchObject({ status: 'running', url: null, message: null });

    const notReady = await api.call('GET', `/v2/video_translate/caption?video_translate_id=${running}`);
    expect(notReady.status).toBe(409);
    expect(errorOf(notReady)).toMatchObject({ code: 'resource_not_ready', param: 'video_translate_id' });

    const unknown = await api.call('GET', `/v2/video_translate/caption?video_translate_id=${'f'.repeat(32)}`);
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown).param).toBe('video_translate_id');

    const missing = await api.call('GET', '/v2/video_translate/caption?caption_type=vtt');
    expect(missing.status).toBe(400);
    expect(errorOf(missing).param).toBe('video_translate_id');

    const badType = await api.call(
      'GET',
      `/v2/video_translate/caption?video_translate_id=${finished}&caption_type=ass`,
    );
    expect(badType.status).toBe(400);
    expect(errorOf(badType).param).toBe('caption_type');
  });

  it('marks the four /v2 operations deprecated in the OpenAPI document, naming the /v3 replacement', async () => {
    type Operation = { deprecated?: boolean; description?: string; responses: Record<string, unknown> };
    const served = await api.call<{ paths: Record<string, Record<string, Operation>> }>(
      'GET',
      '/v3/openapi.json',
      { key: null },
    );
    const built = buildOpenApiDocument(ROUTES, '0.0.0') as {
      paths: Record<string, Record<string, Operation>>;
    };
    const operations: [string, string][] = [
      ['/v2/video_translate', 'post'],
      ['/v2/video_translate/{video_translate_id}', 'get'],
      ['/v2/video_translate/target_languages', 'get'],
      ['/v2/video_translate/caption', 'get'],
    ];
    for (const document of [built, served.body]) {
      for (const [path, method] of operations) {
        const operation = document.paths[path]?.[method];
        expect(operation, `${method} ${path}`).toMatchObject({
          deprecated: true,
          responses: { 200: expect.anything() },
        });
        expect(operation?.description).toMatch(/Use (GET|POST) \/v3\/video-translations/);
      }
      expect(document.paths['/v3/video-translations']?.post?.deprecated).toBeUndefined();
    }
  });
});
