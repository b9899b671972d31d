/**
 * Videos end to end over HTTP: create every type, poll to completion, download the outputs through
 * their presigned URLs and check them with ffprobe and sharp; failure paths end `failed` with a
 * reason and the credits back; the events are on the bus with their payload.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it, vi } from 'vitest';
import { getWorkspace, updateWorkspace } from '../../lambdas/accounts/workspaces.js';
import { findStockLook } from '../../lambdas/catalog/stock-avatars.js';
import { findStockVoice } from '../../lambdas/catalog/stock-voices.js';
import { probeMedia } from '../../lambdas/engines/composition/index.js';
import { createEspeakEngine } from '../../lambdas/engines/speech/espeak-engine.js';
import { getVideo } from '../../lambdas/videos/videos.js';
import { eventCapture } from '../support/event-capture.js';
import { multipartBody, png, wav } from '../support/sample-media.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

const capture = eventCapture();
const events = capture.events;

let api: TestStack;
let scratch: string;
let lookId: string;
let voiceId: string;

beforeAll(async () => {
  api = await startTestStack({
    // The subject is the rendered videos themselves (ffprobe, durations, frames, captions vs speech): the real engines.
    engines: 'reference',
    stepFunctionsTimeScale: 0.001,
    ...capture.stackOptions,
  });
  await capture.subscribe(api);
  scratch = await mkdtemp(join(tmpdir(), 'videos-test-'));
  const looks = await api.call<{ data: { id: string; default_voice_id: string }[] }>(
    'GET',
    '/v3/avatars/looks?limit=1',
  );
  lookId = looks.body.data[0]?.id as string;
  voiceId = looks.body.data[0]?.default_voice_id as string;
}, 60_000);

afterAll(async () => {
  await api.stop();
  await rm(scratch, { recursive: true, force: true });
});

interface VideoView {
  id: string;
  status: string;
  title: string | null;
  duration: number | null;
  folder_id: string | null;
  video_url: string | null;
  captioned_video_url: string | null;
  subtitle_url: string | null;
  thumbnail_url: string | null;
  gif_url: string | null;
  failure_code: string | null;
  failure_message: string | null;
}

async function createVideo(body: Record<string, unknown>, key?: string): Promise<string> {
  const created = await api.call<{ data: { video_id: string; status: string } }>('POST', '/v3/videos', {
    body,
    ...(key ? { key } : {}),
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  expect(created.body.data.status).toBe('pending');
  return created.body.data.video_id;
}

async function waitForVideo(videoId: string, key?: string): Promise<VideoView> {
  const deadline = Date.now() + 90_000;
  for (;;) {
    const result = await api.call<{ data: VideoView }>('GET', `/v3/videos/${videoId}`, key ? { key } : {});
    expect(result.status).toBe(200);
    if (result.body.data.status === 'completed' || result.body.data.status === 'failed')
      return result.body.data;
    if (Date.now() > deadline) throw new Error(`Video ${videoId} still ${result.body.data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 100));
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

async function speechSeconds(
  text: string,
  stockVoiceId: string,
): Promise<{ seconds: number; words: string[] }> {
  const engine = createEspeakEngine();
  try {
    const voice = findStockVoice(stockVoiceId);
    const result = await engine.synthesize({ text, voiceId: voice?.engineVoices.espeak as string });
    return { seconds: result.durationMs / 1000, words: result.words.map((word) => word.word) };
  } finally {
    await engine.close();
  }
}

const SCRIPT =
  'Welcome to the quarterly update. Revenue grew in every region, and the new studio opens in May.';

describe('avatar videos', () => {
  it('renders a stock avatar speaking the script: MP4, captions, SRT, thumbnail, GIF, event, credits', async () => {
    const before = (await getWorkspace(api.workspaceId, true))?.remaining_credits as number;
    const videoId = await createVideo({
      type: 'avatar',
      avatar_id: lookId,
      voice_id: voiceId,
      script: SCRIPT,
      title: 'Quarterly update',
      caption: { file_format: 'srt' },
      callback_id: 'cb-1',
    });
    const video = await waitForVideo(videoId);
    expect(video.failure_message).toBeNull();
    expect(video.status).toBe('completed');
    expect(video.title).toBe('Quarterly update');

    const mp4 = await probeMedia(await download(video.video_url, 'avatar.mp4'));
    expect(mp4.streams.map((stream) => stream.codec).sort()).toEqual(['aac', 'h264']);
    expect(mp4.streams.find((stream) => stream.type === 'video')).toMatchObject({ width: 1280, height: 720 });
    const speech = await speechSeconds(SCRIPT, voiceId);
    expect(Math.abs(mp4.durationSeconds - speech.seconds) / speech.seconds).toBeLessThan(0.05);
    expect(video.duration).toBeCloseTo(mp4.durationSeconds, 1);
    // The look talks with its drawn mouths (the frames themselves: test/unit/engines/composition/talking-presenter).
    expect((await getVideo(api.workspaceId, videoId, true))?.engines.presenter).toBe('stock_sprites');

    // A sidecar SRT always; the plain video has no burned captions, the captioned one has.
    const srt = await readFile(await download(video.subtitle_url, 'avatar.srt'), 'utf8');
    expect(srt).toMatch(/^1\n00:00:00,\d{3} --> \d{2}:\d{2}:\d{2},\d{3}\n/);
    const srtWords = srt
      .split('\n\n')
      .flatMap((cue) => cue.split('\n').slice(2))
      .join(' ')
      .split(/\s+/)
      .filter(Boolean);
    expect(srtWords).toEqual(SCRIPT.split(/\s+/));
    expect(video.captioned_video_url).not.toBe(video.video_url);
    const captioned = await probeMedia(await download(video.captioned_video_url, 'avatar-captioned.mp4'));
    expect(captioned.durationSeconds).toBeCloseTo(mp4.durationSeconds, 1);

    const thumbnail = await sharp(await download(video.thumbnail_url, 'avatar.jpg')).metadata();
    expect(thumbnail.format).toBe('jpeg');
    const gif = await sharp(await download(video.gif_url, 'avatar.gif'), { animated: true }).metadata();
    expect(gif.format).toBe('gif');
    expect(gif.pages).toBeGreaterThan(1);

    // Settled: a video under a minute costs one credit at 720p.
    expect((await getWorkspace(api.workspaceId, true))?.remaining_credits).toBe(before - 1);
    const event = events.find(
      (candidate) => candidate.detail && (candidate.detail as { entity_id?: string }).entity_id === videoId,
    );
    expect(event?.['detail-type']).toBe('avatar_video.success');
    expect((event?.detail as { event_data?: Record<string, unknown> } | undefined)?.event_data).toMatchObject(
      {
        video_id: videoId,
        callback_id: 'cb-1',
        url: expect.stringMatching(/^http/),
        gif_download_url: expect.stringMatching(/^http/),
      },
    );
  }, 120_000);

  it('speaks with the look’s default voice and renders 9:16 when asked', async () => {
    const videoId = await createVideo({
      type: 'avatar',
      avatar_id: lookId,
      script: 'Short and vertical.',
      aspect_ratio: '9:16',
    });
    const video = await waitForVideo(videoId);
    expect(video.status).toBe('completed');
    const mp4 = await probeMedia(await download(video.video_url, 'vertical.mp4'));
    expect(mp4.streams.find((stream) => stream.type === 'video')).toMatchObject({ width: 720, height: 1280 });
    const scenes = await api.call<{ error: null; data: { scenes: { script: { voice_id: string }[] }[] } }>(
      'GET',
      `/v3/videos/${videoId}/scenes`,
    );
    expect(scenes.body.data.scenes[0]?.script[0]?.voice_id).toBe(findStockLook(lookId)?.defaultVoiceId);
  }, 120_000);

  it('lip-syncs an uploaded recording: duration of the audio, no captions without words', async () => {
    const file = multipartBody('file', 'voice.wav', 'audio/wav', wav(1.5, 16000));
    const upload = await api.call<{ data: { asset_id: string } }>('POST', '/v3/assets', {
      rawBody: file.body,
      headers: { 'Content-Type': file.contentType },
    });
    expect(upload.status).toBe(201);
    const videoId = await createVideo({
      type: 'avatar',
      avatar_id: lookId,
      audio_asset_id: upload.body.data.asset_id,
    });
    const video = await waitForVideo(videoId);
    expect(video.status).toBe('completed');
    const mp4 = await probeMedia(await download(video.video_url, 'recording.mp4'));
    expect(mp4.durationSeconds).toBeCloseTo(1.5, 0);
    // Its mouth follows the recording's loudness.
    expect((await getVideo(api.workspaceId, videoId, true))?.engines.presenter).toBe('stock_sprites');
    expect(video.subtitle_url).toBeNull();
    expect(video.captioned_video_url).toBeNull();
  }, 120_000);
});

describe('image and studio videos', () => {
  it('animates an inline image into a WebM with burned captions', async () => {
    const videoId = await createVideo({
      type: 'image',
      image: {
        type: 'base64',
        media_type: 'image/png',
        data: png(64, 96, [30, 120, 200]).toString('base64'),
      },
      script: 'An image that talks.',
      voice_id: voiceId,
      output_format: 'webm',
      caption: { style: 'default' },
    });
    const video = await waitForVideo(videoId);
    expect(video.status).toBe('completed');
    // Burned into the main render, so the captioned render is the same file.
    expect(new URL(video.captioned_video_url as string).pathname).toBe(
      new URL(video.video_url as string).pathname,
    );
    const webm = await probeMedia(await download(video.video_url, 'image.webm'));
    expect(webm.streams.find((stream) => stream.type === 'video')?.codec).toMatch(/^vp[89]$/);
    expect(webm.streams.find((stream) => stream.type === 'audio')?.codec).toMatch(/^(opus|vorbis)$/);
  }, 120_000);

  it('joins studio scenes in order: avatar, silent image, narrated image', async () => {
    const videoId = await createVideo({
      type: 'studio',
      title: 'Three scenes',
      scenes: [
        {
          type: 'avatar_video',
          input: {
            type: 'avatar',
            avatar_id: lookId,
            script: 'First scene.',
            background: { type: 'color', color: '#223344' },
          },
        },
        {
          type: 'image',
          source: { type: 'base64', media_type: 'image/png', data: png(32, 18).toString('base64') },
          duration: 1.5,
        },
        {
          type: 'image',
          source: {
            type: 'base64',
            media_type: 'image/png',
            data: png(32, 18, [20, 200, 20]).toString('base64'),
          },
          script: 'Third scene.',
          voice_id: voiceId,
        },
      ],
    });
    const video = await waitForVideo(videoId);
    expect(video.failure_message).toBeNull();
    const first = await speechSeconds('First scene.', findStockLook(lookId)?.defaultVoiceId as string);
    const third = await speechSeconds('Third scene.', voiceId);
    const mp4 = await probeMedia(await download(video.video_url, 'studio.mp4'));
    const expected = first.seconds + 1.5 + third.seconds;
    expect(Math.abs(mp4.durationSeconds - expected) / expected).toBeLessThan(0.05);
    // Studio videos default to 1080p.
    expect(mp4.streams.find((stream) => stream.type === 'video')).toMatchObject({
      width: 1920,
      height: 1080,
    });

    const scenes = await api.call<{
      error: null;
      data: Record<string, unknown> & { scenes: Record<string, unknown>[] };
    }>('GET', `/v3/videos/${videoId}/scenes`);
    expect(scenes.status).toBe(200);
    expect(scenes.body.error).toBeNull();
    expect(Object.keys(scenes.body.data).sort()).toEqual(['edit_version', 'scenes', 'video', 'video_id']);
    expect(scenes.body.data.video).toEqual({
      title: 'Three scenes',
      aspect_ratio: '16:9',
      resolution: '1080p',
      caption: null,
      brand_glossary_id: null,
    });
    expect(scenes.body.data.scenes.map((scene) => (scene.background as { type: string }).type)).toEqual([
      'color',
      'image',
      'image',
    ]);
    expect(scenes.body.data.scenes[0]).toMatchObject({
      id: 'scene_1',
      background: { type: 'color', color: '#223344' },
      elements: [{ type: 'avatar', avatar_id: lookId, engine: 'avatar_iv' }],
      script: [
        {
          type: 'text',
          text: 'First scene.',
          trim_to_speech: true,
          voice_settings: { speed: 1, pitch: 0, volume: 1 },
        },
      ],
    });
    expect(scenes.body.data.scenes[1]).toEqual({
      id: 'scene_2',
      background: { type: 'image' },
      elements: [],
      script: [],
    });
  }, 120_000);
});

describe('captions of every word', () => {
  it('puts every word of every scene in the SRT, in order, in cues that never overlap', async () => {
    // eSpeak folds "am", "the" and "a" into the word before them; the captions used to lose them.
    // A scene shorter than a cue's 0.7 s minimum ("Hi.") used to keep its cue up into the next scene's.
    const scripts = [
      'Hi.',
      'I am Daniel.',
      "It's shown for the second scene, in the web m format.",
      'Thanks.',
    ];
    const videoId = await createVideo({
      type: 'studio',
      resolution: '720p',
      caption: { file_format: 'srt' },
      scenes: scripts.map((script, index) => ({
        type: 'image',
        source: {
          type: 'base64',
          media_type: 'image/png',
          data: png(32, 18, [20 * index, 100, 200]).toString('base64'),
        },
        script,
        voice_id: voiceId,
      })),
    });
    const video = await waitForVideo(videoId);
    expect(video.failure_message).toBeNull();
    const srt = await readFile(await download(video.subtitle_url, 'every-word.srt'), 'utf8');
    const cues = srt
      .trim()
      .split('\n\n')
      .map((block) => {
        const [, times = '', ...lines] = block.split('\n');
        const [start = 0, end = 0] = times.split(' --> ').map((time) => {
          const [h, m, sec, ms] = time.split(/[:,]/).map(Number) as [number, number, number, number];
          return ((h * 60 + m) * 60 + sec) * 1000 + ms;
        });
        return { start, end, text: lines.join(' ') };
      });
    expect(cues.map((cue) => cue.text).join(' ')).toBe(scripts.join(' '));
    let previousEnd = 0;
    for (const cue of cues) {
      expect(cue.start, srt).toBeGreaterThanOrEqual(previousEnd);
      expect(cue.end, srt).toBeGreaterThan(cue.start);
      previousEnd = cue.end;
    }
    expect(previousEnd / 1000).toBeLessThanOrEqual((video.duration as number) + 0.05);
  }, 120_000);
});

describe('watermarks (Enterprise plans)', () => {
  it('lays the watermark over the video in the chosen corner', async () => {
    const enterprise = await api.newWorkspace({ plan: 'enterprise', included_credits: 10 });
    const videoId = await createVideo(
      {
        type: 'avatar',
        avatar_id: lookId,
        script: 'Branded.',
        background: { type: 'color', value: '#0000ff' },
        watermark: {
          image: {
            type: 'base64',
            media_type: 'image/png',
            data: png(96, 48, [255, 0, 0]).toString('base64'),
          },
          placement: { position: 'top_left' },
        },
      },
      enterprise.apiKey,
    );
    const video = await waitForVideo(videoId, enterprise.apiKey);
    expect(video.failure_message).toBeNull();
    const thumbnail = await download(video.thumbnail_url, 'watermarked.jpg');
    const { data, info } = await sharp(thumbnail).raw().toBuffer({ resolveWithObject: true });
    const pixel = (x: number, y: number) =>
      Array.from(data.subarray((y * info.width + x) * 3, (y * info.width + x) * 3 + 3));
    const [red, , blue] = pixel(60, 40) as [number, number, number];
    expect(red).toBeGreaterThan(200);
    expect(blue).toBeLessThan(60);
    const [farRed, , farBlue] = pixel(info.width - 40, 40) as [number, number, number];
    expect(farRed).toBeLessThan(60);
    expect(farBlue).toBeGreaterThan(200);
  }, 120_000);
});

describe('failures end failed with a reason and give the credits back', () => {
  const cases: [string, Record<string, unknown>, string][] = [
    [
      'an unknown voice',
      { type: 'avatar', avatar_id: 'LOOK', voice_id: 'xx-nobody', script: 'Hello.' },
      'voice_not_found',
    ],
    [
      'an unknown avatar',
      { type: 'avatar', avatar_id: 'no-such-look', voice_id: 'VOICE', script: 'Hello.' },
      'avatar_not_found',
    ],
    [
      'a cinematic avatar (no generative model)',
      { type: 'cinematic_avatar', avatar_id: ['LOOK'], prompt: 'A walk on the beach', duration: 5 },
      'engine_unavailable',
    ],
  ];
  it.each(cases)(
    '%s',
    async (_name, template, failureCode) => {
      const body = JSON.parse(
        JSON.stringify(template).replaceAll('LOOK', lookId).replaceAll('VOICE', voiceId),
      ) as Record<string, unknown>;
      const before = (await getWorkspace(api.workspaceId, true))?.remaining_credits as number;
      const videoId = await createVideo({ ...body, callback_id: `fail-${failureCode}` });
      const video = await waitForVideo(videoId);
      expect(video.status).toBe('failed');
      expect(video.failure_code).toBe(failureCode);
      expect(video.failure_message?.length).toBeGreaterThan(20);
      expect(video.video_url).toBeNull();
      // The refund follows the failed status (job-lifecycle.ts, `finishJob`) within moments.
      await expect
        .poll(async () => (await getWorkspace(api.workspaceId, true))?.remaining_credits, {
          timeout: 5000,
          interval: 20,
        })
        .toBe(before);
      // The event is published after the refund (finishJob's order): it may follow it by moments.
      const event = await vi.waitFor(() => {
        const found = events.find(
          (candidate) => (candidate.detail as { entity_id?: string }).entity_id === videoId,
        );
        if (!found) throw new Error(`no event for ${videoId} yet`);
        return found;
      });
      expect(event['detail-type']).toBe('avatar_video.fail');
      expect((event.detail as { event_data?: Record<string, unknown> }).event_data).toMatchObject({
        video_id: videoId,
        failure_code: failureCode,
        callback_id: `fail-${failureCode}`,
      });
    },
    120_000,
  );
});

describe('refusals at create: 4xx, nothing charged, nothing written', () => {
  it('names the field of a bad request', async () => {
    const cases: [Record<string, unknown>, string][] = [
      [{ type: 'avatar', avatar_id: 'x' }, 'script'],
      [{ type: 'avatar', avatar_id: 'x', script: 'Hi', audio_url: 'https://example.com/a.mp3' }, 'audio_url'],
      [
        { type: 'image', image: { type: 'base64', media_type: 'image/png', data: 'AAAA' }, script: 'Hi' },
        'voice_id',
      ],
      [
        {
          type: 'avatar',
          avatar_id: 'x',
          script: 'Hi',
          output_format: 'webm',
          background: { type: 'color', value: '#000000' },
        },
        'background',
      ],
      [
        { type: 'avatar', avatar_id: 'x', script: 'Hi', background: { type: 'color', value: 'red' } },
        'background.value',
      ],
      [
        { type: 'avatar', avatar_id: 'x', script: 'Hi', voice_settings: { speed: 3 } },
        'voice_settings.speed',
      ],
      [{ type: 'studio', scenes: [] }, 'scenes'],
      [
        {
          type: 'studio',
          scenes: [{ type: 'image', source: { type: 'url', url: 'https://example.com/a.png' } }],
        },
        'scenes[0].duration',
      ],
      [{ type: 'cinematic_avatar', avatar_id: ['x'], prompt: 'p', duration: 20 }, 'duration'],
      [{ type: 'hologram' }, 'type'],
      [
        { type: 'avatar', avatar_id: 'x', script: 'Hi', folder_id: '0123456789abcdef0123456789abcdef' },
        'folder_id',
      ],
      [
        {
          type: 'avatar',
          avatar_id: 'x',
          script: 'Hi',
          background: { type: 'image', asset_id: '0123456789abcdef0123456789abcdef' },
        },
        'background.asset_id',
      ],
    ];
    for (const [body, param] of cases) {
      const result = await api.call('POST', '/v3/videos', { body });
      expect(result.status, JSON.stringify(body)).toBe(400);
      expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
    }
  });

  it('refuses a resolution above the plan with 400 resolution_not_allowed', async () => {
    const free = await api.newWorkspace({ plan: 'free', included_credits: 10 });
    const result = await api.call('POST', '/v3/videos', {
      key: free.apiKey,
      body: { type: 'avatar', avatar_id: lookId, script: 'Hi', resolution: '1080p' },
    });
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'resolution_not_allowed', param: 'resolution' });
  });

  it('answers 402 with the billing code the workspace calls for', async () => {
    const body = { type: 'avatar', avatar_id: lookId, script: 'Hi' };
    const broke = await api.newWorkspace({ plan: 'pro', included_credits: 0 });
    const insufficient = await api.call('POST', '/v3/videos', { key: broke.apiKey, body });
    expect(insufficient.status).toBe(402);
    expect(errorOf(insufficient)).toMatchObject({
      code: 'insufficient_credit',
      message: 'Not enough credits: have 0, required 1.',
    });

    const trialOver = await api.newWorkspace({ plan: 'free', included_credits: 100 });
    await updateWorkspaceFields(trialOver.workspaceId, { trial_videos_used: 3 });
    expect(errorOf(await api.call('POST', '/v3/videos', { key: trialOver.apiKey, body })).code).toBe(
      'trial_limit_exceeded',
    );

    const trialCredits = await api.newWorkspace({ plan: 'free', included_credits: 0 });
    expect(errorOf(await api.call('POST', '/v3/videos', { key: trialCredits.apiKey, body })).code).toBe(
      'subscription_required',
    );

    const limited = await api.newWorkspace({ plan: 'pro', included_credits: 100 });
    await updateWorkspace(limited.workspaceId, { usage_limit_credits: 0 });
    expect(errorOf(await api.call('POST', '/v3/videos', { key: limited.apiKey, body })).code).toBe(
      'usage_limit_reached',
    );

    const watermark = await api.call('POST', '/v3/videos', {
      body: {
        ...body,
        watermark: { image: { type: 'base64', media_type: 'image/png', data: png().toString('base64') } },
      },
    });
    expect(watermark.status).toBe(402);
    expect(errorOf(watermark)).toMatchObject({ code: 'plan_upgrade_required', param: 'watermark' });

    for (const workspace of [broke, trialCredits, limited]) {
      expect(
        (await api.call<{ data: unknown[] }>('GET', '/v3/videos', { key: workspace.apiKey })).body.data,
      ).toEqual([]);
    }
  });
});

async function updateWorkspaceFields(workspaceId: string, fields: { trial_videos_used: number }) {
  const workspace = await getWorkspace(workspaceId, true);
  const { saveWorkspace } = await import('../../lambdas/accounts/workspaces.js');
  await saveWorkspace({ ...(workspace as NonNullable<typeof workspace>), ...fields });
}

describe('reading, listing and deleting', () => {
  it('lists newest first with title and folder filters, and deletes a video with its media', async () => {
    const other = await api.newWorkspace();
    const folder = await api.call<{ data: { folder_id: string } }>('POST', '/v3/folders', {
      key: other.apiKey,
      body: { name: 'Launch', type: 'video' },
    });
    const first = await createVideo(
      { type: 'avatar', avatar_id: lookId, script: 'One.', title: 'Alpha launch' },
      other.apiKey,
    );
    const second = await createVideo(
      {
        type: 'avatar',
        avatar_id: lookId,
        script: 'Two.',
        title: 'Beta',
        folder_id: folder.body.data.folder_id,
      },
      other.apiKey,
    );
    const list = await api.call<{ data: VideoView[]; has_more: boolean }>('GET', '/v3/videos', {
      key: other.apiKey,
    });
    expect(list.body.data.map((video) => video.id)).toEqual([second, first]);
    const byTitle = await api.call<{ data: VideoView[] }>('GET', '/v3/videos?title=alpha', {
      key: other.apiKey,
    });
    expect(byTitle.body.data.map((video) => video.id)).toEqual([first]);
    const byFolder = await api.call<{ data: VideoView[] }>(
      `GET`,
      `/v3/videos?folder_id=${folder.body.data.folder_id}`,
      { key: other.apiKey },
    );
    expect(byFolder.body.data.map((video) => video.id)).toEqual([second]);
    const page = await api.call<{ data: VideoView[]; next_token: string }>('GET', '/v3/videos?limit=1', {
      key: other.apiKey,
    });
    const next = await api.call<{ data: VideoView[]; has_more: boolean }>(
      'GET',
      `/v3/videos?limit=1&token=${page.body.next_token}`,
      { key: other.apiKey },
    );
    expect(next.body.data.map((video) => video.id)).toEqual([first]);

    // Another workspace's video does not exist for this one.
    const foreign = await api.call('GET', `/v3/videos/${first}`);
    expect(foreign.status).toBe(404);
    expect(errorOf(foreign)).toMatchObject({ code: 'not_found', message: 'Video not found.' });

    const done = await waitForVideo(first, other.apiKey);
    const deleted = await api.call<{ data: { id: string; deleted: boolean } }>(
      'DELETE',
      `/v3/videos/${first}`,
      { key: other.apiKey },
    );
    expect(deleted.body.data).toEqual({ id: first, deleted: true });
    expect((await api.call('GET', `/v3/videos/${first}`, { key: other.apiKey })).status).toBe(404);
    expect((await fetch(done.video_url as string)).status).toBe(404);
    expect((await api.call('DELETE', `/v3/videos/${first}`, { key: other.apiKey })).status).toBe(404);
    await waitForVideo(second, other.apiKey);
  }, 120_000);
});

describe('batches and bulk statuses', () => {
  it('creates every item, fails the ones the create refuses, and closes the batch', async () => {
    const accepted = await api.call<{
      data: { batch_id: string; items: { item_index: number; video_id: string }[] };
    }>('POST', '/v3/videos/batches', {
      body: {
        title: 'Two videos',
        videos: [
          { type: 'avatar', avatar_id: lookId, script: 'Batch item one.' },
          { type: 'avatar', avatar_id: lookId, audio_url: 'https://127.0.0.1/audio.mp3' },
        ],
      },
    });
    expect(accepted.status).toBe(202);
    const { batch_id: batchId, items } = accepted.body.data;
    expect(items.map((item) => item.item_index)).toEqual([0, 1]);

    const deadline = Date.now() + 90_000;
    let batch: {
      status: string;
      counts_by_status: Record<string, number>;
      items: { status: string; video_id: string; error: { code: string } | null }[];
    };
    do {
      await new Promise((resolve) => setTimeout(resolve, 200));
      batch = (await api.call<{ data: typeof batch }>('GET', `/v3/videos/batches/${batchId}`)).body.data;
    } while (batch.status === 'processing' && Date.now() < deadline);
    expect(batch.status).toBe('completed');
    expect(batch.counts_by_status).toEqual({ queued: 0, processing: 0, completed: 1, failed: 1 });
    expect(batch.items.map((item) => item.status)).toEqual(['completed', 'failed']);
    expect(batch.items[1]?.error?.code).toBe('invalid_parameter');

    const statuses = await api.call<{
      data: { video_id: string | null; status: string; batch_id: string | null }[];
    }>(
      'GET',
      `/v3/videos/statuses?video_ids=${items[0]?.video_id},0123456789abcdef0123456789abcdef&batch_ids=${batchId}`,
    );
    expect(statuses.body.data.map((entry) => entry.status)).toEqual([
      'completed',
      'not_found',
      'completed',
      'failed',
    ]);
    const tooMany = await api.call(
      'GET',
      `/v3/videos/statuses?video_ids=${Array.from({ length: 101 }, (_, index) => `v${index}`).join(',')}`,
    );
    expect(errorOf(tooMany)).toMatchObject({ code: 'invalid_parameter', param: 'video_ids' });
  }, 120_000);

  it('refuses a batch item that names its own folder, naming the item', async () => {
    const result = await api.call('POST', '/v3/videos/batches', {
      body: { videos: [{ type: 'avatar', avatar_id: lookId, script: 'x', folder_id: 'f' }] },
    });
    expect(result.status).toBe(400);
    expect(errorOf(result).param).toBe('videos[0].folder_id');
  });
});
