/**
 * Background removal over HTTP, on a source whose layout is known exactly: a stock portrait (its alpha
 * is the true person mask) sliding across a drawn wall, 1.2 s at 480×270, encoded as H.264. One removal
 * of all three layers is shared by the tests; its layers are decoded and compared with the truth the
 * way a user would look at them: the mask white on the person and black on the wall, the foreground's
 * alpha the mask, the background layer showing the wall where the person stands now but stood
 * elsewhere before.
 *
 * Measured (2 shared cores): mask IoU against the truth 0.90–0.92, the mask 242–246 on the person's
 * inside and 0 on the wall away from them; the foreground's alpha within 0.2 of the mask on average; the
 * background layer within 4.2 of the wall (mean absolute difference per channel) where the person
 * stands in the last frame and the first frame showed the wall, where the source differs from it by 78.
 */
import { execFile, spawn } from 'node:child_process';
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { promisify } from 'node:util';
import sharp from 'sharp';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWorkspace } from '../../lambdas/accounts/workspaces.js';
import { renderPortrait } from '../../lambdas/catalog/render-portrait.js';
import { findStockLook } from '../../lambdas/catalog/stock-avatars.js';
import { ffmpegPath, ffprobePath } from '../../lambdas/engines/composition/ffmpeg-binaries.js';
import { type EventCapture, eventCapture } from '../support/event-capture.js';
import { png } from '../support/sample-media.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

const run = promisify(execFile);

const WIDTH = 480;
const HEIGHT = 270;
const FRAMES = 30;
/** The portrait's horizontal offset in frame `n`: from -75 px to +70 px, 5 px a frame. */
const offsetOf = (frame: number) => -75 + 5 * frame;

interface Removal {
  id: string;
  title: string | null;
  status: string;
  requested_layers: string[];
  layers: Record<string, string>;
  progress: number;
  duration: number | null;
  error: string | null;
  failure_code: string | null;
  failure_message: string | null;
  request_id: string | null;
  created_at: number;
  completed_at: number | null;
}

let api: TestStack;
let events: EventCapture;
let scratch: string;
let sourceBase64: string;
/** The wall, RGB, and the portrait's alpha at offset 0 (the true mask before shifting). */
let wall: Buffer;
let figureAlpha: Buffer;
let figureRgb: Buffer;
let removal: Removal;
let creditsBefore: number;
/** Decoded layers of the shared removal: one buffer per frame. */
let maskFrames: Buffer[];
let foregroundFrames: Buffer[];
let backgroundFrames: Buffer[];

/** The true mask of frame `n`: the portrait's alpha moved by its offset. */
function truthAt(frame: number, x: number, y: number): number {
  const from = x - offsetOf(frame);
  return from < 0 || from >= WIDTH ? 0 : (figureAlpha[y * WIDTH + from] as number);
}

/** Whether every pixel within `radius` of (x, y) is on the same side of the true mask (not an edge). */
function clearly(frame: number, x: number, y: number, person: boolean, radius = 6): boolean {
  for (let dy = -radius; dy <= radius; dy += 2) {
    for (let dx = -radius; dx <= radius; dx += 2) {
      const [nx, ny] = [Math.min(WIDTH - 1, Math.max(0, x + dx)), Math.min(HEIGHT - 1, Math.max(0, y + dy))];
      if (truthAt(frame, nx, ny) >= 128 !== person) return false;
    }
  }
  return true;
}

/** The outcome event of a removal, once the bus has delivered it (soon after the job ended). */
async function outcomeEvent(id: string) {
  const deadline = Date.now() + 15_000;
  for (;;) {
    const event = events.events.find(
      (candidate) => (candidate.detail as { entity_id?: string }).entity_id === id,
    );
    if (event || Date.now() > deadline) return event;
    await new Promise((resolve) => setTimeout(resolve, 100));
  }
}

async function waitFor(id: string): Promise<Removal> {
  const deadline = Date.now() + 120_000;
  for (;;) {
    const result = await api.call<{ data: Removal }>('GET', `/v3/background-removals/${id}`);
    expect(result.status, JSON.stringify(result.body)).toBe(200);
    if (result.body.data.status === 'completed' || result.body.data.status === 'failed')
      return result.body.data;
    if (Date.now() > deadline) throw new Error(`${id} still ${result.body.data.status}`);
    await new Promise((resolve) => setTimeout(resolve, 150));
  }
}

/** Every frame of a downloaded layer as raw pixels of `format`. */
async function decodeLayer(url: string, name: string, format: 'gray' | 'rgba' | 'rgb24'): Promise<Buffer[]> {
  const response = await fetch(url);
  expect(response.status).toBe(200);
  const file = join(scratch, name);
  await writeFile(file, Buffer.from(await response.arrayBuffer()));
  // VP8's alpha is a second stream libvpx decodes; ffmpeg's own VP8 decoder would drop it.
  const decoder = name.endsWith('.webm') ? ['-c:v', 'libvpx'] : [];
  const { stdout } = await run(
    ffmpegPath(),
    ['-v', 'error', ...decoder, '-i', file, '-f', 'rawvideo', '-pix_fmt', format, 'pipe:1'],
    { encoding: 'buffer', maxBuffer: 256 * 1024 * 1024 },
  );
  const size = WIDTH * HEIGHT * { gray: 1, rgba: 4, rgb24: 3 }[format];
  return Array.from({ length: stdout.length / size }, (_, index) =>
    stdout.subarray(index * size, (index + 1) * size),
  );
}

/** The source: the portrait over the wall at each frame's offset, encoded as H.264 by ffmpeg. */
async function makeSource(): Promise<Buffer> {
  const look = findStockLook('maya-office');
  if (!look) throw new Error('no stock look maya-office');
  const figure = await sharp(await renderPortrait(look))
    .resize(WIDTH, HEIGHT, { fit: 'fill' })
    .png()
    .toBuffer();
  figureAlpha = await sharp(figure).extractChannel(3).raw().toBuffer();
  figureRgb = await sharp(figure).removeAlpha().raw().toBuffer();
  // The wall: soft vertical bands in muted colours with a gradient, so each spot is recognisable.
  wall = Buffer.alloc(WIDTH * HEIGHT * 3);
  for (let y = 0; y < HEIGHT; y++) {
    for (let x = 0; x < WIDTH; x++) {
      const band = Math.floor(x / 40) % 3;
      wall.set(
        [[90, 140, 170][band] as number, 120 + Math.round((y / HEIGHT) * 60), [160, 110, 80][band] as number],
        (y * WIDTH + x) * 3,
      );
    }
  }
  const path = join(scratch, 'source.mp4');
  const encoder = spawn(ffmpegPath(), [
    ...[
      '-v',
      'error',
      '-y',
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      '-s',
      `${WIDTH}x${HEIGHT}`,
      '-framerate',
      '25',
    ],
    ...['-i', 'pipe:0', '-c:v', 'libx264', '-crf', '16', '-pix_fmt', 'yuv420p', path],
  ]);
  const exited = new Promise((resolve) => encoder.on('close', resolve));
  for (let frame = 0; frame < FRAMES; frame++) {
    const offset = offsetOf(frame);
    const shifted = await sharp(figure)
      .extract({ left: Math.max(0, -offset), top: 0, width: WIDTH - Math.abs(offset), height: HEIGHT })
      .toBuffer();
    const rgb = await sharp(wall, { raw: { width: WIDTH, height: HEIGHT, channels: 3 } })
      .composite([{ input: shifted, left: Math.max(0, offset), top: 0 }])
      .removeAlpha()
      .raw()
      .toBuffer();
    if (!encoder.stdin.write(rgb)) await new Promise((resolve) => encoder.stdin.once('drain', resolve));
  }
  encoder.stdin.end();
  expect(await exited).toBe(0);
  const { stdout } = await run('cat', [path], { encoding: 'buffer', maxBuffer: 16 * 1024 * 1024 });
  return stdout;
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'background-removals-test-'));
  events = eventCapture();
  api = await startTestStack({ stepFunctionsTimeScale: 0.001, ...events.stackOptions });
  await events.subscribe(api);
  sourceBase64 = (await makeSource()).toString('base64');
  creditsBefore = (await getWorkspace(api.workspaceId, true))?.remaining_credits as number;
  const created = await api.call<{ data: Removal }>('POST', '/v3/background-removals', {
    body: {
      video: { type: 'base64', media_type: 'video/mp4', data: sourceBase64 },
      title: 'Studio walk',
      request_id: 'walk-1',
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(200);
  expect(created.body.data).toMatchObject({ status: 'pending', layers: {}, request_id: 'walk-1' });
  removal = await waitFor(created.body.data.id);
  expect(removal.status, JSON.stringify(removal)).toBe('completed');
  [maskFrames, foregroundFrames, backgroundFrames] = await Promise.all([
    decodeLayer(removal.layers.mask as string, 'mask.mp4', 'gray'),
    decodeLayer(removal.layers.foreground as string, 'foreground.webm', 'rgba'),
    decodeLayer(removal.layers.background as string, 'background.mp4', 'rgb24'),
  ]);
}, 120_000);

afterAll(async () => {
  await api?.stop();
  await rm(scratch, { recursive: true, force: true });
});

describe('background removals', () => {
  it('makes all three layers by default, charges one minute, and says so in an event', async () => {
    expect(removal).toMatchObject({
      title: 'Studio walk',
      requested_layers: ['foreground', 'mask', 'background'],
      progress: 100,
      error: null,
      failure_code: null,
    });
    expect(Object.keys(removal.layers).sort()).toEqual(['background', 'foreground', 'mask']);
    expect(removal.duration).toBeCloseTo(FRAMES / 25, 1);
    expect(removal.completed_at).toBeGreaterThanOrEqual(removal.created_at);
    for (const frames of [maskFrames, foregroundFrames, backgroundFrames])
      expect(frames).toHaveLength(FRAMES);
    await expect
      .poll(
        async () =>
          creditsBefore - ((await getWorkspace(api.workspaceId, true))?.remaining_credits as number),
      )
      .toBe(1);
    const event = await outcomeEvent(removal.id);
    expect(event?.['detail-type']).toBe('background_removal.success');
    const data = (event?.detail as { event_data?: Record<string, unknown> } | undefined)?.event_data;
    expect(data).toMatchObject({
      id: removal.id,
      status: 'completed',
      title: 'Studio walk',
      request_id: 'walk-1',
    });
    expect(Object.keys(data?.layers as object).sort()).toEqual(['background', 'foreground', 'mask']);
  });

  it('draws the mask white on the person and black on the wall, frame after frame', () => {
    for (const frame of [5, 15, FRAMES - 1]) {
      const mask = maskFrames[frame] as Buffer;
      let intersection = 0;
      let union = 0;
      let personSum = 0;
      let personCount = 0;
      let wallSum = 0;
      let wallCount = 0;
      for (let y = 0; y < HEIGHT; y++) {
        for (let x = 0; x < WIDTH; x++) {
          const value = mask[y * WIDTH + x] as number;
          const truth = truthAt(frame, x, y) >= 128;
          if (truth && value >= 128) intersection++;
          if (truth || value >= 128) union++;
          if (clearly(frame, x, y, true)) {
            personSum += value;
            personCount++;
          } else if (clearly(frame, x, y, false, 12)) {
            wallSum += value;
            wallCount++;
          }
        }
      }
      expect(intersection / union, `frame ${frame}`).toBeGreaterThan(0.85);
      expect(personSum / personCount, `frame ${frame}`).toBeGreaterThan(235);
      expect(wallSum / wallCount, `frame ${frame}`).toBeLessThan(10);
    }
  });

  it('writes the foreground as VP8 with alpha in WebM (what browsers play transparent)', async () => {
    const { stdout } = await run(ffprobePath(), [
      ...['-v', 'error', '-print_format', 'json', '-show_streams', join(scratch, 'foreground.webm')],
    ]);
    const streams = (
      JSON.parse(stdout) as { streams: { codec_name: string; tags?: Record<string, string> }[] }
    ).streams;
    const video = streams.find((stream) => stream.codec_name === 'vp8');
    // Matroska's flag for the alpha side stream, which players and libvpx read.
    expect(video?.tags?.alpha_mode ?? video?.tags?.ALPHA_MODE).toBe('1');
  });

  it('gives the foreground the mask as its alpha, and the person their own colours', () => {
    for (const frame of [5, 15, FRAMES - 1]) {
      const mask = maskFrames[frame] as Buffer;
      const foreground = foregroundFrames[frame] as Buffer;
      let alphaError = 0;
      for (let pixel = 0; pixel < WIDTH * HEIGHT; pixel++) {
        alphaError += Math.abs((foreground[pixel * 4 + 3] as number) - (mask[pixel] as number));
      }
      expect(alphaError / (WIDTH * HEIGHT), `frame ${frame}`).toBeLessThan(2);
    }
  });

  it('shows the wall where the person stands now but stood elsewhere before', () => {
    const frame = FRAMES - 1;
    const background = backgroundFrames[frame] as Buffer;
    let layerError = 0;
    let personDifference = 0;
    let count = 0;
    for (let y = 0; y < HEIGHT; y += 2) {
      for (let x = 0; x < WIDTH; x += 2) {
        // The person covers it now, and the first frames showed the wall there.
        if (!clearly(frame, x, y, true) || !clearly(0, x, y, false, 12)) continue;
        const at = (y * WIDTH + x) * 3;
        const wallColour = [...wall.subarray(at, at + 3)];
        const shown = [...background.subarray(at, at + 3)];
        // What the source shows there: the person.
        const from = (y * WIDTH + x - offsetOf(frame)) * 3;
        const person = [...figureRgb.subarray(from, from + 3)];
        const difference = (colour: number[]) =>
          colour.reduce((sum, value, channel) => sum + Math.abs(value - (wallColour[channel] as number)), 0) /
          3;
        layerError += difference(shown);
        personDifference += difference(person);
        count++;
      }
    }
    expect(count).toBeGreaterThan(500);
    // The wall, within compression, where the source showed the person, who differs from it plainly.
    expect(layerError / count).toBeLessThan(8);
    expect(personDifference / count).toBeGreaterThan(40);
  });

  it('answers a repeated request_id with the original removal, charging nothing more, also when two race; Idempotency-Key replays too', async () => {
    const before = (await getWorkspace(api.workspaceId, true))?.remaining_credits as number;
    const again = await api.call<{ data: Removal }>('POST', '/v3/background-removals', {
      // Another body: the dedup is over the workspace and request_id, not the content.
      body: {
        video: { type: 'base64', media_type: 'image/png', data: png().toString('base64') },
        layers: ['mask'],
        request_id: 'walk-1',
      },
    });
    expect(again.status, JSON.stringify(again.body)).toBe(200);
    expect(again.body.data).toMatchObject({
      id: removal.id,
      status: 'completed',
      requested_layers: removal.requested_layers,
    });
    // The same request_id in another workspace is another removal's.
    const other = await api.newWorkspace();
    const elsewhere = await api.call<{ data: Removal }>('POST', '/v3/background-removals', {
      key: other.apiKey,
      body: {
        video: { type: 'base64', media_type: 'video/mp4', data: sourceBase64 },
        layers: ['mask'],
        request_id: 'walk-1',
      },
    });
    expect(elsewhere.status).toBe(200);
    expect(elsewhere.body.data.id).not.toBe(removal.id);
    await api.call('DELETE', `/v3/background-removals/${elsewhere.body.data.id}`, { key: other.apiKey });

    // Two requests with a new request_id at once: one removal, which both answer (or the second is told
    // the first is still being admitted).
    const racing = await Promise.all(
      [1, 2].map(() =>
        api.call<{ data: Removal }>('POST', '/v3/background-removals', {
          body: {
            video: { type: 'base64', media_type: 'video/mp4', data: sourceBase64 },
            layers: ['mask'],
            request_id: 'walk-race',
          },
        }),
      ),
    );
    const admitted = racing.filter((reply) => reply.status === 200);
    expect(admitted.length).toBeGreaterThan(0);
    for (const reply of racing.filter((candidate) => candidate.status !== 200)) {
      expect(reply.status).toBe(409);
      expect(errorOf(reply)).toMatchObject({ code: 'request_in_progress', param: 'request_id' });
    }
    expect(new Set(admitted.map((reply) => reply.body.data.id)).size).toBe(1);
    const raced = await waitFor(admitted[0]?.body.data.id as string);
    expect(raced).toMatchObject({ status: 'completed', requested_layers: ['mask'] });
    expect(Object.keys(raced.layers)).toEqual(['mask']);

    const headers = { 'Idempotency-Key': 'bg-removal-replay-1' };
    const body = { video: { type: 'base64', media_type: 'video/mp4', data: 'AAAA' } };
    const first = await api.call('POST', '/v3/background-removals', { body, headers });
    const replay = await api.call('POST', '/v3/background-removals', { body, headers });
    expect(first.status).toBe(400);
    expect(replay.status).toBe(400);
    expect(replay.body).toEqual(first.body);
    // The raced removal's minute, once; nothing for the repeats.
    expect((await getWorkspace(api.workspaceId, true))?.remaining_credits).toBe(before - 1);
  });

  it('fails a video without a person with a precise reason, returns the credits and says so in an event', async () => {
    const noPerson = join(scratch, 'bars.mp4');
    await run(ffmpegPath(), [
      ...['-v', 'error', '-y', '-f', 'lavfi', '-i', 'testsrc2=size=160x90:rate=25:duration=0.6'],
      ...['-c:v', 'libx264', '-pix_fmt', 'yuv420p', noPerson],
    ]);
    const before = (await getWorkspace(api.workspaceId, true))?.remaining_credits as number;
    const { stdout } = await run('base64', ['-w0', noPerson], { maxBuffer: 16 * 1024 * 1024 });
    const created = await api.call<{ data: Removal }>('POST', '/v3/background-removals', {
      body: {
        video: { type: 'base64', media_type: 'video/mp4', data: stdout },
        layers: ['background', 'mask', 'mask'],
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    expect(created.body.data.requested_layers).toEqual(['mask', 'background']);
    const failed = await waitFor(created.body.data.id);
    expect(failed).toMatchObject({ status: 'failed', failure_code: 'no_person_found', layers: {} });
    expect(failed.error).toMatch(/No person was found in any of the 15 frames/);
    expect(failed.failure_message).toBe(failed.error);
    // The refund lands a moment after the status (docs/architecture.md, "Jobs").
    await expect
      .poll(async () => (await getWorkspace(api.workspaceId, true))?.remaining_credits)
      .toBe(before);
    const event = await outcomeEvent(failed.id);
    expect(event?.['detail-type']).toBe('background_removal.fail');
    expect((event?.detail as { event_data?: Record<string, unknown> } | undefined)?.event_data).toMatchObject(
      {
        id: failed.id,
        status: 'failed',
        failure_code: 'no_person_found',
      },
    );
  });

  it('refuses bad input with 400 naming the field, and a workspace without credits with 402', async () => {
    const video = { type: 'base64', media_type: 'video/mp4', data: sourceBase64 };
    const cases: [Record<string, unknown>, string][] = [
      [{}, 'video'],
      [{ video: { type: 'url' } }, 'video.url'],
      [{ video, layers: ['foreground', 'shadow'] }, 'layers[1]'],
      [{ video, layers: [] }, 'layers'],
      [{ video, layers: 'mask' }, 'layers'],
      [{ video, request_id: '' }, 'request_id'],
      [{ video, title: 'x'.repeat(256) }, 'title'],
      [{ video, colour: 'green' }, 'colour'],
      [{ video: { type: 'base64', media_type: 'image/png', data: png().toString('base64') } }, 'video.data'],
    ];
    for (const [body, param] of cases) {
      const refused = await api.call('POST', '/v3/background-removals', { body });
      expect(refused.status, JSON.stringify(body).slice(0, 200)).toBe(400);
      expect(errorOf(refused).param, JSON.stringify(refused.body)).toBe(param);
    }
    const broke = await api.newWorkspace({ included_credits: 0 });
    const unpaid = await api.call('POST', '/v3/background-removals', { key: broke.apiKey, body: { video } });
    expect(unpaid.status).toBe(402);
    expect(errorOf(unpaid).code).toBe('insufficient_credit');
  });

  it('lists newest first with limit and token, within the workspace and its scopes only', async () => {
    // Page by page, one at a time: every removal of the workspace once, newest first.
    const seen: Removal[] = [];
    let token: string | null = null;
    do {
      const page: {
        status: number;
        body: { data: Removal[]; has_more: boolean; next_token: string | null };
      } = await api.call(
        'GET',
        `/v3/background-removals?limit=1${token ? `&token=${encodeURIComponent(token)}` : ''}`,
      );
      expect(page.status).toBe(200);
      expect(page.body.data).toHaveLength(1);
      expect(page.body.has_more).toBe(page.body.next_token !== null);
      seen.push(...page.body.data);
      token = page.body.next_token;
    } while (token);
    // This file's three: the shared removal, the raced one and the failed one.
    expect(seen).toHaveLength(3);
    expect(seen.map((entry) => entry.id)).toContain(removal.id);
    const created = seen.map((entry) => entry.created_at);
    expect(created).toEqual([...created].sort((a, b) => b - a));
    expect(seen.find((entry) => entry.id === removal.id)?.layers.mask).toMatch(/^http/);
    for (const query of ['limit=0', 'limit=101', 'limit=ten']) {
      const refused = await api.call('GET', `/v3/background-removals?${query}`);
      expect(refused.status).toBe(400);
      expect(errorOf(refused).param).toBe('limit');
    }

    const other = await api.newWorkspace();
    const foreignList = await api.call<{ data: Removal[] }>('GET', '/v3/background-removals', {
      key: other.apiKey,
    });
    expect(foreignList.body.data).toEqual([]);
    for (const method of ['GET', 'DELETE']) {
      const foreign = await api.call(method, `/v3/background-removals/${removal.id}`, { key: other.apiKey });
      expect(foreign.status).toBe(404);
      expect(errorOf(foreign).param).toBe('job_id');
    }

    const reader = await api.newKey(api.workspaceId, 'custom', ['background_removal:read']);
    expect((await api.call('GET', `/v3/background-removals/${removal.id}`, { key: reader })).status).toBe(
      200,
    );
    for (const [method, path] of [
      ['POST', '/v3/background-removals'],
      ['DELETE', `/v3/background-removals/${removal.id}`],
    ] as const) {
      const refused = await api.call(method, path, {
        key: reader,
        body: { video: { type: 'url', url: 'https://example.com/a.mp4' } },
      });
      expect(refused.status).toBe(403);
      expect(errorOf(refused).code).toBe('insufficient_api_key_scope');
    }
  });

  it('deletes softly: the layers go, the removal says deleted and is no longer listed', async () => {
    const deleted = await api.call('DELETE', `/v3/background-removals/${removal.id}`);
    expect(deleted.status).toBe(200);
    expect(deleted.body).toEqual({ data: { id: removal.id, deleted: true } });
    const after = await api.call<{ data: Removal }>('GET', `/v3/background-removals/${removal.id}`);
    expect(after.body.data).toMatchObject({ id: removal.id, status: 'deleted', layers: {} });
    expect((await fetch(removal.layers.mask as string)).status).toBe(404);
    const listed = await api.call<{ data: Removal[] }>('GET', '/v3/background-removals?limit=100');
    expect(listed.body.data.map((entry) => entry.id)).not.toContain(removal.id);
    expect((await api.call('DELETE', `/v3/background-removals/${removal.id}`)).status).toBe(200);
    for (const id of ['0'.repeat(32), 'not-an-id']) {
      for (const method of ['GET', 'DELETE']) {
        const missing = await api.call(method, `/v3/background-removals/${id}`);
        expect(missing.status).toBe(404);
        expect(errorOf(missing).code).toBe('not_found');
      }
    }
  });
});
