/**
 * A workspace's own avatars over HTTP, with the real engines: a photo becomes a talking look, a prompt
 * a drawn presenter, a look a look pack; looks are renamed and deleted; a digital twin needs approved
 * consent before a video may show it. The photos are our own stock portraits laid over a textured
 * backdrop (`renderLookPhoto`), so the test owns every pixel; frames of the videos are measured.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWorkspace, updateWorkspace } from '../../lambdas/accounts/workspaces.js';
import { getGroupRecord, LOOK_ORIGINS, LOOK_STATUS, lookItem } from '../../lambdas/avatars/avatar-records.js';
import { renderLookPhoto } from '../../lambdas/catalog/render-portrait.js';
import { findStockLook } from '../../lambdas/catalog/stock-avatars.js';
import { newId, nowSeconds } from '../../lambdas/core/ids.js';
import { putNewItem } from '../../lambdas/core/repository.js';
import { ffmpegPath, runProcess } from '../../lambdas/engines/composition/ffmpeg-binaries.js';
import { probeMedia } from '../../lambdas/engines/composition/probe.js';
import { findFaces, mouthOpening } from '../../lambdas/engines/vision/face-landmarks.js';
import { getVideo } from '../../lambdas/videos/videos.js';
import { eventCapture } from '../support/event-capture.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

interface Look {
  id: string;
  name: string;
  avatar_type: string;
  group_id: string;
  status: string;
  preview_image_url?: string;
  preview_video_url?: string;
  image_width?: number;
  image_height?: number;
  default_voice_id?: string;
  tags: string[];
  error?: { code: string; message: string };
}
interface Group {
  id: string;
  name: string;
  looks_count: number;
  status: string;
  consent_status?: string;
  default_voice_id?: string;
  error?: { code: string; message: string };
}
interface Created {
  avatar_id: string;
  avatar_group_id: string;
  avatar_group: Group;
  avatar_item: Look;
}

const maya = findStockLook('maya-office');
const daniel = findStockLook('daniel-business');
const capture = eventCapture();
let api: TestStack;
let scratch: string;
let mayaPhoto: Buffer;

beforeAll(async () => {
  if (!maya || !daniel) throw new Error('stock looks missing');
  api = await startTestStack({
    engines: 'reference',
    stepFunctionsTimeScale: 0.001,
    ...capture.stackOptions,
  });
  await capture.subscribe(api);
  scratch = await mkdtemp(join(tmpdir(), 'private-avatars-'));
  // Half size: a photo of 960×540 trains and renders quickly and still has a 150-pixel face.
  mayaPhoto = await sharp(await renderLookPhoto(maya))
    .resize(960, 540)
    .jpeg({ quality: 90 })
    .toBuffer();
}, 60_000);

afterAll(async () => {
  await api?.stop();
  await rm(scratch, { recursive: true, force: true });
});

const base64 = (bytes: Buffer, mediaType: string) => ({
  type: 'base64',
  media_type: mediaType,
  data: bytes.toString('base64'),
});

async function settledLook(lookId: string, key = api.apiKey): Promise<Look> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const look = (await api.call<{ data: Look }>('GET', `/v3/avatars/looks/${lookId}`, { key })).body.data;
    if (look.status !== 'processing' || Date.now() > deadline) return look;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function settledVideo(videoId: string) {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const video = (
      await api.call<{
        data: {
          status: string;
          failure_code: string | null;
          failure_message: string | null;
          video_url: string | null;
        };
      }>('GET', `/v3/videos/${videoId}`)
    ).body.data;
    if (video.status === 'completed' || video.status === 'failed' || Date.now() > deadline) return video;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function credits(): Promise<number> {
  return (await getWorkspace(api.workspaceId, true))?.remaining_credits as number;
}

/** A frame of a video file as raw RGB. */
async function frameAt(file: string, seconds: number) {
  const png = join(scratch, `frame-${seconds}-${Math.random()}.png`);
  await runProcess(ffmpegPath(), ['-v', 'error', '-ss', String(seconds), '-i', file, '-frames:v', '1', png], {
    timeoutMs: 30_000,
  });
  return sharp(png).raw().toBuffer({ resolveWithObject: true });
}

async function download(url: string, name: string): Promise<string> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  const file = join(scratch, name);
  await writeFile(file, Buffer.from(await response.arrayBuffer()));
  return file;
}

let photoLook: Look;

describe('a photo avatar', () => {
  it('trains from a photo: ids at once, completed with a preview, listed as private, one credit', async () => {
    const before = await credits();
    const created = await api.call<{ data: Created }>('POST', '/v3/avatars', {
      body: { type: 'photo', name: 'Maya (photo)', file: base64(mayaPhoto, 'image/jpeg') },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    const { avatar_id: lookId, avatar_group_id: groupId, avatar_item, avatar_group } = created.body.data;
    expect(avatar_item).toMatchObject({
      id: lookId,
      group_id: groupId,
      avatar_type: 'photo_avatar',
      status: 'processing',
    });
    expect(avatar_group).toMatchObject({
      id: groupId,
      name: 'Maya (photo)',
      looks_count: 1,
      status: 'processing',
    });

    photoLook = await settledLook(lookId);
    expect(photoLook.error).toBeUndefined();
    expect(photoLook).toMatchObject({
      status: 'completed',
      image_width: 960,
      image_height: 540,
      tags: ['photo'],
    });
    const preview = await fetch(photoLook.preview_image_url as string);
    expect(preview.headers.get('content-type')).toBe('image/jpeg');
    expect((await sharp(Buffer.from(await preview.arrayBuffer())).metadata()).width).toBe(640);

    const group = (await api.call<{ data: Group }>('GET', `/v3/avatars/${groupId}`)).body.data;
    expect(group).toMatchObject({ status: 'completed', looks_count: 1 });
    expect(group.consent_status).toBeUndefined();
    const groups = (await api.call<{ data: Group[] }>('GET', '/v3/avatars?ownership=private')).body.data;
    expect(groups.map((entry) => entry.id)).toEqual([groupId]);
    const looks = (
      await api.call<{ data: Look[] }>(
        'GET',
        `/v3/avatars/looks?ownership=private&avatar_type=photo_avatar&group_id=${groupId}`,
      )
    ).body.data;
    expect(looks.map((entry) => entry.id)).toEqual([lookId]);
    // All avatars: your own first, then the stock ones.
    const all = (await api.call<{ data: Look[] }>('GET', '/v3/avatars/looks?limit=2')).body.data;
    expect(all[0]?.id).toBe(lookId);
    expect(all[1]?.avatar_type).toBe('studio_avatar');

    expect(await credits()).toBe(before - 1);
    await expect
      .poll(() =>
        capture.events.find((event) => (event.detail as { entity_id?: string }).entity_id === lookId),
      )
      .toMatchObject({
        'detail-type': 'photo_avatar_train.success',
        detail: { event_data: { avatar_id: lookId, avatar_group_id: groupId, status: 'completed' } },
      });
  }, 120_000);

  it('talks in a video: the photo, its mouth moving with the speech', async () => {
    const created = await api.call<{ data: { video_id: string } }>('POST', '/v3/videos', {
      body: { type: 'avatar', avatar_id: photoLook.id, script: 'Hello there. I am a photo that talks.' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const video = await settledVideo(created.body.data.video_id);
    expect(video.failure_message).toBeNull();
    expect(video.status).toBe('completed');
    expect((await getVideo(api.workspaceId, created.body.data.video_id, true))?.engines.presenter).toBe(
      'look_sprites',
    );
    const file = await download(video.video_url as string, 'photo-look.mp4');
    const probe = await probeMedia(file);
    expect(probe.durationSeconds).toBeGreaterThan(1.5);
    // The landmark engine, run on the written frames, sees the mouth open and shut as it speaks. It
    // finds no face in a frame where the presenter blinks; blinks (150 ms, at least 2 s apart, placed by
    // a seed from the video id) fall on at most two of these samples 200 ms apart.
    const openings: number[] = [];
    let framesWithoutFace = 0;
    for (let t = 0.2; t < Math.min(2.4, probe.durationSeconds - 0.2); t += 0.2) {
      const { data, info } = await frameAt(file, t);
      expect(info.height).toBe(720);
      const faces = await findFaces({ data, width: info.width, height: info.height, channels: 3 });
      expect(faces.length).toBeLessThanOrEqual(1);
      if (faces[0]) openings.push(mouthOpening(faces[0]));
      else framesWithoutFace++;
    }
    expect(framesWithoutFace).toBeLessThanOrEqual(2);
    expect(openings.length).toBeGreaterThanOrEqual(6);
    expect(Math.max(...openings)).toBeGreaterThan(0.2);
    expect(Math.min(...openings)).toBeLessThan(0.1);
  }, 120_000);

  it('is framed around the face in a video of another shape', async () => {
    const created = await api.call<{ data: { video_id: string } }>('POST', '/v3/videos', {
      body: {
        type: 'avatar',
        avatar_id: photoLook.id,
        // Long enough (about 2 s) for frames on both sides of any blink.
        script: 'Hi there, this is me in a vertical video.',
        aspect_ratio: '9:16',
      },
    });
    const video = await settledVideo(created.body.data.video_id);
    expect(video.status).toBe('completed');
    expect((await getVideo(api.workspaceId, created.body.data.video_id, true))?.engines.presenter).toBe(
      'look_sprites, framed',
    );
    // The 16:9 photo cropped to 9:16 around her face fills the vertical frame: the face is a third of it.
    // Frames every 150 ms: a blink (150 ms, seeded by the random video id) hides the face from the
    // landmark engine in one or two of them.
    const file = await download(video.video_url as string, 'vertical.mp4');
    const duration = (await probeMedia(file)).durationSeconds;
    const widths: number[] = [];
    const times = Array.from(
      { length: Math.floor((duration - 0.1) / 0.15) },
      (_, index) => 0.1 + index * 0.15,
    );
    for (const seconds of times) {
      const { data, info } = await frameAt(file, seconds);
      expect([info.width, info.height]).toEqual([720, 1280]);
      const faces = await findFaces({ data, width: info.width, height: info.height, channels: 3 });
      expect(faces.length).toBeLessThanOrEqual(1);
      widths.push(...faces.map((face) => face.box.width / info.width));
    }
    // Blinks (a few in 2 s) and a wide-open mouth can each hide the face in a frame; most show it.
    expect(times.length).toBeGreaterThanOrEqual(10);
    expect(widths.length, `faces in ${widths.length} of ${times.length} frames`).toBeGreaterThanOrEqual(
      Math.ceil(times.length * 0.6),
    );
    expect(Math.min(...widths)).toBeGreaterThan(0.3);
  }, 120_000);

  it('fails a picture without a face with the reason, and gives the credit back', async () => {
    const before = await credits();
    const blank = await sharp({ create: { width: 640, height: 360, channels: 3, background: '#6a8caf' } })
      .png()
      .toBuffer();
    const created = await api.call<{ data: Created }>('POST', '/v3/avatars', {
      body: { type: 'photo', name: 'Nobody', file: base64(blank, 'image/png') },
    });
    expect(created.status).toBe(202);
    const look = await settledLook(created.body.data.avatar_id);
    expect(look.status).toBe('failed');
    expect(look.error?.code).toBe('no_face');
    expect(look.error?.message).toMatch(/face/i);
    const group = (await api.call<{ data: Group }>('GET', `/v3/avatars/${created.body.data.avatar_group_id}`))
      .body.data;
    expect(group).toMatchObject({ status: 'failed', error: { code: 'no_face' } });
    await expect.poll(credits).toBe(before);
    // A failed look cannot be in a video.
    const video = await api.call('POST', '/v3/videos', {
      body: { type: 'avatar', avatar_id: look.id, script: 'Hello.' },
    });
    expect(video.status).toBe(400);
    expect(errorOf(video)).toMatchObject({ code: 'invalid_parameter', param: 'avatar_id' });
  }, 120_000);
});

describe('a prompt avatar', () => {
  it('draws the presenter the prompt describes, the same for the same prompt', async () => {
    const prompt = 'a young woman with long red hair in a navy blazer, in an office';
    const previews: Buffer[] = [];
    for (const name of ['Redhead', 'Redhead again']) {
      const created = await api.call<{ data: Created }>('POST', '/v3/avatars', {
        body: { type: 'prompt', name, prompt },
      });
      expect(created.status, JSON.stringify(created.body)).toBe(202);
      const look = await settledLook(created.body.data.avatar_id);
      expect(look.error).toBeUndefined();
      expect(look).toMatchObject({ status: 'completed', tags: ['prompt'] });
      previews.push(Buffer.from(await (await fetch(look.preview_image_url as string)).arrayBuffer()));
    }
    expect(previews[0]?.equals(previews[1] as Buffer)).toBe(true);
    // Red hair near the top of the figure, a navy garment near the bottom.
    const { data, info } = await sharp(previews[0]).raw().toBuffer({ resolveWithObject: true });
    const pixel = (fx: number, fy: number) => {
      const at =
        (Math.round(fy * (info.height - 1)) * info.width + Math.round(fx * (info.width - 1))) * info.channels;
      return [data[at], data[at + 1], data[at + 2]] as [number, number, number];
    };
    const [r, g, b] = pixel(0.5, 0.95);
    expect(b).toBeGreaterThan(r);
    expect(b).toBeGreaterThan(g);
  }, 120_000);

  it.each([
    ['a prompt over 200 characters', { prompt: 'x'.repeat(201) }, 400, 'invalid_parameter', 'prompt'],
    [
      'four reference images',
      { reference_images: new Array(4).fill({ type: 'url', url: 'https://example.com/a.png' }) },
      400,
      'invalid_parameter',
      'reference_images',
    ],
    ['an unknown reference look', { avatar_id: '0'.repeat(32) }, 404, 'avatar_not_found', 'avatar_id'],
    ['a public group', { avatar_group_id: 'maya' }, 403, 'forbidden', 'avatar_group_id'],
  ])('refuses %s', async (_name, fields, status, code, param) => {
    const result = await api.call('POST', '/v3/avatars', {
      body: { type: 'prompt', name: 'Refused', prompt: 'a man in a suit', ...fields },
    });
    expect(result.status).toBe(status);
    expect(errorOf(result)).toMatchObject({ code, param });
  });

  it('takes a reference look only from its own group', async () => {
    const other = await api.call<{ data: Created }>('POST', '/v3/avatars', {
      body: { type: 'prompt', name: 'Other', prompt: 'an older man with a grey beard' },
    });
    const result = await api.call('POST', '/v3/avatars', {
      body: {
        type: 'prompt',
        name: 'Mixed',
        prompt: 'in a red hoodie',
        avatar_id: photoLook.id,
        avatar_group_id: other.body.data.avatar_group_id,
      },
    });
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param: 'avatar_id' });
  });
});

describe('looks of a look', () => {
  it('makes a look pack of a photo look: ids at once, each a real variation', async () => {
    const created = await api.call<{ data: { group_id: string; look_ids: string[] } }>(
      'POST',
      '/v3/avatars/looks',
      {
        body: { type: 'look_pack', reference_look_id: photoLook.id },
        headers: { 'Idempotency-Key': 'pack-1' },
      },
    );
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    expect(created.body.data.group_id).toBe(photoLook.group_id);
    expect(created.body.data.look_ids).toHaveLength(4);
    const looks = await Promise.all(created.body.data.look_ids.map((id) => settledLook(id)));
    for (const look of looks) expect(look.error, look.name).toBeUndefined();
    expect(looks.map((look) => look.status)).toEqual(['completed', 'completed', 'completed', 'completed']);
    const previews = await Promise.all(
      looks.map(async (look) =>
        Buffer.from(await (await fetch(look.preview_image_url as string)).arrayBuffer()),
      ),
    );
    expect(new Set(previews.map((preview) => preview.toString('base64'))).size).toBe(4);
    const closeUp = looks.find((look) => look.tags.includes('close-up'));
    expect(closeUp?.image_height).toBeLessThan(540);
    // The same key answers the same looks.
    const again = await api.call<{ data: { look_ids: string[] } }>('POST', '/v3/avatars/looks', {
      body: { type: 'look_pack', reference_look_id: photoLook.id },
      headers: { 'Idempotency-Key': 'pack-1' },
    });
    expect(again.body.data.look_ids).toEqual(created.body.data.look_ids);
    const group = (await api.call<{ data: Group }>('GET', `/v3/avatars/${photoLook.group_id}`)).body.data;
    expect(group.looks_count).toBe(5);
  }, 180_000);

  it('frames a look template for vertical video', async () => {
    const created = await api.call<{ data: { look_ids: string[] } }>('POST', '/v3/avatars/looks', {
      body: {
        type: 'template',
        reference_look_id: photoLook.id,
        template_id: 'studio',
        aspect_ratio: '9:16',
      },
    });
    expect(created.status).toBe(202);
    const look = await settledLook(created.body.data.look_ids[0] as string);
    expect(look.status).toBe('completed');
    expect((look.image_width as number) / (look.image_height as number)).toBeCloseTo(9 / 16, 1);
  }, 120_000);

  it('refuses a public look, an unknown one and a look still training', async () => {
    const stock = await api.call('POST', '/v3/avatars/looks', {
      body: { type: 'look_pack', reference_look_id: 'maya-office' },
    });
    expect(stock.status).toBe(403);
    const unknown = await api.call('POST', '/v3/avatars/looks', {
      body: { type: 'look_pack', reference_look_id: '1'.repeat(32) },
    });
    expect(errorOf(unknown)).toMatchObject({ code: 'avatar_not_found', param: 'reference_look_id' });
  });
});

describe('using, renaming and deleting looks', () => {
  it('refuses a video of a look that is still training with 409', async () => {
    const lookId = newId();
    await putNewItem(
      lookItem({
        workspace_id: api.workspaceId,
        look_id: lookId,
        group_id: photoLook.group_id,
        name: 'Training',
        avatar_type: 'photo_avatar',
        origin: LOOK_ORIGINS.photo,
        status: LOOK_STATUS.processing,
        created_at: nowSeconds(),
        gender: null,
        source_key: null,
        source_owned: false,
        prompt: null,
        reference_keys: [],
        reference_look_id: null,
        variation: null,
        presenter: null,
        preview_key: null,
        preview_video_key: null,
        image_width: null,
        image_height: null,
        engine: null,
        failure_code: null,
        failure_message: null,
        drawn: null,
      }),
    );
    const result = await api.call('POST', '/v3/videos', {
      body: { type: 'avatar', avatar_id: lookId, script: 'Hi.' },
    });
    expect(result.status).toBe(409);
    expect(errorOf(result)).toMatchObject({ code: 'resource_not_ready', param: 'avatar_id' });
    expect(errorOf(result).message).toContain('still being made');
    expect((await api.call('DELETE', `/v3/avatars/looks/${lookId}`)).status).toBe(200);
  });

  it('renames a look and sets the group default voice', async () => {
    const renamed = await api.call<{ data: Look }>('PATCH', `/v3/avatars/looks/${photoLook.id}`, {
      body: { name: 'Maya at work' },
    });
    expect(renamed.body.data).toMatchObject({ id: photoLook.id, name: 'Maya at work' });
    const badVoice = await api.call('PATCH', `/v3/avatars/${photoLook.group_id}`, {
      body: { default_voice_id: 'xx-nobody' },
    });
    expect(badVoice.status).toBe(400);
    expect(errorOf(badVoice).param).toBe('default_voice_id');
    const voice = await api.call<{ data: Group }>('PATCH', `/v3/avatars/${photoLook.group_id}`, {
      body: { default_voice_id: 'en-gb-oliver', name: 'Maya' },
    });
    expect(voice.body.data).toMatchObject({ name: 'Maya', default_voice_id: 'en-gb-oliver' });
    const look = (await api.call<{ data: Look }>('GET', `/v3/avatars/looks/${photoLook.id}`)).body.data;
    expect(look.default_voice_id).toBe('en-gb-oliver');
  });

  it('refuses edits of public avatars (403) and unknown ones (404)', async () => {
    for (const [method, path] of [
      ['DELETE', '/v3/avatars/looks/maya-office'],
      ['PATCH', '/v3/avatars/looks/maya-office'],
      ['DELETE', '/v3/avatars/maya'],
    ] as const) {
      const result = await api.call(method, path, method === 'PATCH' ? { body: { name: 'x' } } : {});
      expect(result.status, path).toBe(403);
      expect(errorOf(result).code).toBe('forbidden');
    }
    const unknown = await api.call('DELETE', `/v3/avatars/looks/${'2'.repeat(32)}`);
    expect(unknown.status).toBe(404);
    expect(errorOf(unknown)).toMatchObject({ code: 'not_found', param: 'look_id' });
  });

  it('keeps avatars to their workspace', async () => {
    const other = await api.newWorkspace();
    for (const path of [`/v3/avatars/looks/${photoLook.id}`, `/v3/avatars/${photoLook.group_id}`]) {
      expect((await api.call('GET', path, { key: other.apiKey })).status, path).toBe(404);
      expect((await api.call('DELETE', path, { key: other.apiKey })).status, path).toBe(404);
    }
    const theirs = (
      await api.call<{ data: Group[] }>('GET', '/v3/avatars?ownership=private', { key: other.apiKey })
    ).body.data;
    expect(theirs).toEqual([]);
  });

  it('deletes the group with its last look, and the look media with it', async () => {
    const created = await api.call<{ data: Created }>('POST', '/v3/avatars', {
      body: { type: 'prompt', name: 'Short-lived', prompt: 'a man with a buzz cut in a hoodie' },
    });
    const look = await settledLook(created.body.data.avatar_id);
    expect(look.status).toBe('completed');
    const deleted = await api.call<{ data: { id: string } }>('DELETE', `/v3/avatars/looks/${look.id}`);
    expect(deleted.body.data).toEqual({ id: look.id });
    expect((await api.call('GET', `/v3/avatars/looks/${look.id}`)).status).toBe(404);
    expect((await api.call('GET', `/v3/avatars/${look.group_id}`)).status).toBe(404);
    expect((await fetch(look.preview_image_url as string)).status).toBe(404);
  }, 120_000);
});

describe('a digital twin', () => {
  let twin: Created;

  /** A video of Maya's photo, `seconds` long, with speech when `speech` is given (an espeak WAV). */
  async function footage(photo: Buffer, seconds: number, name: string, speech?: string): Promise<Buffer> {
    const picture = join(scratch, `${name}.jpg`);
    await writeFile(picture, photo);
    const out = join(scratch, `${name}.mp4`);
    const audio = speech ? ['-i', speech] : ['-f', 'lavfi', '-i', 'anullsrc=r=16000:cl=mono'];
    await runProcess(
      ffmpegPath(),
      [
        '-y',
        '-v',
        'error',
        '-loop',
        '1',
        '-framerate',
        '25',
        '-i',
        picture,
        ...audio,
        '-t',
        String(seconds),
        '-vf',
        'scale=640:-2,format=yuv420p',
        '-c:v',
        'libx264',
        '-preset',
        'ultrafast',
        '-c:a',
        'aac',
        // The speech, then silence to the end (the picture's length).
        '-af',
        'apad',
        out,
      ],
      { timeoutMs: 60_000 },
    );
    return readFile(out);
  }

  it('needs a paid plan, trains, clones its voice, and waits for consent before videos may use it', async () => {
    const freePlan = await api.newWorkspace({ plan: 'free', included_credits: 10 });
    const free = await api.call('POST', '/v3/avatars', {
      key: freePlan.apiKey,
      body: {
        type: 'digital_twin',
        name: 'Twin',
        file: base64(await footage(mayaPhoto, 5, 'twin'), 'video/mp4'),
      },
    });
    expect(free.status).toBe(402);
    expect(errorOf(free).code).toBe('plan_upgrade_required');
    await updateWorkspace(api.workspaceId, { plan: 'enterprise' });

    const created = await api.call<{ data: Created }>('POST', '/v3/avatars', {
      body: {
        type: 'digital_twin',
        name: 'Maya twin',
        file: base64(await footage(mayaPhoto, 5, 'twin', await speechWav()), 'video/mp4'),
        create_voice_clone: true,
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(202);
    twin = created.body.data;
    expect(twin.avatar_group.consent_status).toBe('not_submitted');
    // The footage's voice is cloned by the clone workflow and is the group's default voice.
    const cloneId = twin.avatar_group.default_voice_id as string;
    expect(cloneId).toMatch(/^[0-9a-f]{32}$/);
    await expect
      .poll(
        async () =>
          (await api.call<{ data: { status: string } }>('GET', `/v3/voices/${cloneId}`)).body.data.status,
        {
          timeout: 60_000,
        },
      )
      .toBe('complete');
    const look = await settledLook(twin.avatar_id);
    expect(look.error).toBeUndefined();
    expect(look).toMatchObject({ status: 'pending_consent', avatar_type: 'digital_twin' });
    expect((await fetch(look.preview_video_url as string)).headers.get('content-type')).toBe('video/mp4');
    const refused = await api.call('POST', '/v3/videos', {
      body: { type: 'avatar', avatar_id: twin.avatar_id, script: 'Hi.' },
    });
    expect(refused.status).toBe(403);
    expect(errorOf(refused).message).toContain('consent');
  }, 180_000);

  it('takes consent from whitelisted Enterprise accounts only, on its page, and reviews the face', async () => {
    const groupId = twin.avatar_group_id;
    const notListed = await api.call('POST', `/v3/avatars/${groupId}/consent`, { body: {} });
    expect(notListed.status).toBe(403);
    await updateWorkspace(api.workspaceId, { consent_api: true });

    // Someone else's face is rejected with the reason.
    const danielPhoto = await sharp(await renderLookPhoto(daniel as NonNullable<typeof daniel>))
      .resize(960, 540)
      .jpeg()
      .toBuffer();
    const wrong = await api.call<{ data: { avatar_group: Group } }>(
      'POST',
      `/v3/avatars/${groupId}/consent`,
      {
        body: {
          consent_video: base64(await footage(danielPhoto, 3, 'wrong', await speechWav()), 'video/mp4'),
        },
      },
    );
    expect(wrong.status, JSON.stringify(wrong.body)).toBe(200);
    expect(wrong.body.data.avatar_group.consent_status).toBe('pending');
    await expect
      .poll(
        async () =>
          (await api.call<{ data: Group }>('GET', `/v3/avatars/${groupId}`)).body.data.consent_status,
        {
          timeout: 60_000,
        },
      )
      .toBe('rejected');
    expect((await getGroupRecord(api.workspaceId, groupId))?.consent_reason).toMatch(
      /does not show the person/,
    );

    // Without a video: a page to record one.
    const asked = await api.call<{ data: { url: string; avatar_group: Group } }>(
      'POST',
      `/v3/avatars/${groupId}/consent`,
      {
        body: {},
      },
    );
    expect(asked.status).toBe(200);
    const page = await fetch(asked.body.data.url);
    expect(page.headers.get('content-type')).toContain('text/html');
    const html = await page.text();
    expect(html).toContain('Maya twin');
    expect(html).toContain('name="consent_video"');
    const form = new FormData();
    form.append(
      'consent_video',
      new Blob([await footage(mayaPhoto, 3, 'consent', await speechWav())], { type: 'video/mp4' }),
      'consent.mp4',
    );
    const submitted = await fetch(asked.body.data.url, { method: 'POST', body: form });
    expect(submitted.status).toBe(200);
    expect(await submitted.text()).toContain('submitted');
    await expect
      .poll(
        async () =>
          (await api.call<{ data: Group }>('GET', `/v3/avatars/${groupId}`)).body.data.consent_status,
        {
          timeout: 60_000,
        },
      )
      .toBe('approved');
    expect(
      (await api.call<{ data: Look }>('GET', `/v3/avatars/looks/${twin.avatar_id}`)).body.data.status,
    ).toBe('completed');
    expect((await fetch(`${api.baseUrl}/v3/avatar-consent/${'x'.repeat(32)}`)).status).toBe(404);
  }, 180_000);

  it('talks in a video once consent is approved: the footage loops under the sprites', async () => {
    const created = await api.call<{ data: { video_id: string } }>('POST', '/v3/videos', {
      body: { type: 'avatar', avatar_id: twin.avatar_id, script: 'I am a digital twin.' },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const video = await settledVideo(created.body.data.video_id);
    expect(video.failure_message).toBeNull();
    expect((await getVideo(api.workspaceId, created.body.data.video_id, true))?.engines.presenter).toBe(
      'twin_footage',
    );
  }, 120_000);
});

/** A short spoken sentence (eSpeak through the speech route), as a WAV file. */
async function speechWav(): Promise<string> {
  const file = join(scratch, 'consent.wav');
  const spoken = await api.call<{ data: { audio_url: string } }>('POST', '/v3/voices/speech', {
    body: { text: 'I consent to the creation of my digital twin.', voice_id: 'en-us-olivia' },
  });
  await writeFile(file, Buffer.from(await (await fetch(spoken.body.data.audio_url)).arrayBuffer()));
  return file;
}
