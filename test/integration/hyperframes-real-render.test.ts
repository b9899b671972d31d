/**
 * HyperFrames renders over HTTP with the real renderer: HyperFrames' producer in the Chromium of
 * `@sparticuz/chromium`, the npm ffmpeg, in chunks of 10 frames (`HYPERFRAMES_CHUNK_FRAMES`) for the
 * frame rates the chunked renderer takes (24, 30, 60), in one pass otherwise. Few renders (Chromium is
 * slow to start):
 * - a 320×180 composition of 1 s at 30 fps: three chunks, the GET showing frames rendered grow chunk by
 *   chunk, the video 1 s of 30 frames with its box moving steadily across the joins;
 * - a 1920×1080 composition of 1 s at 10 fps whose box turns from red to blue with GSAP loaded from
 *   jsDelivr: the video is measured (length, fps, size) and the box's colour read early and late, which
 *   only changes if GSAP ran, i.e. if the CDN script was served from the vendored package; its first
 *   colour comes from the request's `variables` (green without them);
 * - a composition that loads https://example.com/x.png: it fails naming the URL, charging nothing (in
 *   one pass at 10 fps, and chunked at 30: the Plan step loads the page);
 * - a composition whose script asks the network while the page runs (`fetch`, an image made in script):
 *   Chromium's requests meet the render's blocking proxy, and the failure names them (chunked).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { zipSync } from 'fflate';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { getWorkspace } from '../../lambdas/accounts/workspaces.js';
import { ffmpegPath, runProcess } from '../../lambdas/engines/composition/ffmpeg-binaries.js';
import { probeMedia } from '../../lambdas/engines/composition/probe.js';
import { leftEdgePerFrame } from '../support/frame-edges.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

let api: TestStack;
let scratch: string;

const BOX = { left: 760, top: 340, size: 400 };

const animatedBox = `<!doctype html>
<html><head><meta charset="utf-8">
<script src="https://cdn.jsdelivr.net/npm/gsap@3.12.5/dist/gsap.min.js"></script>
<style>html,body{margin:0;background:#000}
#box{position:absolute;left:${BOX.left}px;top:${BOX.top}px;width:${BOX.size}px;height:${BOX.size}px;background:#00ff00}</style>
</head><body>
<div id="root" data-composition-id="main" data-start="0" data-duration="1" data-width="1920" data-height="1080">
  <div id="box"></div>
</div>
<script>
  // The request's variables (HyperFrames hands them to the page as window.__hfVariables).
  document.getElementById('box').style.backgroundColor = (window.__hfVariables || {}).from || '#00ff00';
  const tl = gsap.timeline({ paused: true });
  tl.to('#box', { backgroundColor: '#0000ff', duration: 1, ease: 'none' });
  window.__timelines = window.__timelines || {};
  window.__timelines['main'] = tl;
</script>
</body></html>`;

/** A white box 8 px further each frame (1 s at 30 fps). */
const steadyBox = `<!doctype html>
<html><head><meta charset="utf-8">
<script src="https://cdn.jsdelivr.net/npm/gsap@3.12.5/dist/gsap.min.js"></script>
<style>html,body{margin:0;background:#000}#box{position:absolute;left:0;top:70px;width:40px;height:40px;background:#ffffff}</style>
</head><body>
<div id="root" data-composition-id="main" data-start="0" data-duration="1" data-width="320" data-height="180"><div id="box"></div></div>
<script>
  const tl = gsap.timeline({ paused: true });
  tl.to('#box', { x: 240, duration: 1, ease: 'none' }, 0);
  window.__timelines = window.__timelines || {};
  window.__timelines['main'] = tl;
</script>
</body></html>`;

const remoteImage = `<!doctype html>
<html><body style="margin:0;background:#000">
<div id="root" data-composition-id="main" data-start="0" data-duration="1" data-width="1920" data-height="1080" data-no-timeline>
  <img src="https://example.com/x.png" style="width:200px;height:200px">
</div>
</body></html>`;

const runtimeRequests = `<!doctype html>
<html><body style="margin:0;background:#000">
<div id="root" data-composition-id="main" data-start="0" data-duration="1" data-width="1920" data-height="1080" data-no-timeline></div>
<script>
  fetch('https://api.example.org/data.json').catch(() => {});
  new Image().src = 'http://198.51.100.7/pixel.gif';
</script>
</body></html>`;

const zipOf = (html: string) => ({
  type: 'base64',
  media_type: 'application/zip',
  data: Buffer.from(zipSync({ 'index.html': new TextEncoder().encode(html) })).toString('base64'),
});

const CHUNK_FRAMES = 10;

/** The render once it ended; `seen` gets every reading of it while it ran. */
async function render(
  html: string,
  key: string,
  variables: Record<string, unknown> = {},
  fps = 10,
  seen: Record<string, unknown>[] = [],
): Promise<Record<string, unknown>> {
  const created = await api.call<{ data: { render_id: string } }>('POST', '/v3/hyperframes/renders', {
    body: { project: zipOf(html), fps, quality: 'draft', variables },
    key,
  });
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  const deadline = Date.now() + 120_000;
  for (;;) {
    const result = await api.call<{ data: Record<string, unknown> }>(
      'GET',
      `/v3/hyperframes/renders/${created.body.data.render_id}`,
      { key },
    );
    if (result.body.data.status === 'completed' || result.body.data.status === 'failed')
      return result.body.data;
    seen.push(result.body.data);
    if (Date.now() > deadline) throw new Error('render still running');
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
}

/** The RGB of the pixel at (x, y) of each frame. */
async function pixelPerFrame(video: string, x: number, y: number): Promise<number[][]> {
  const raw = join(scratch, 'pixels.rgb');
  await runProcess(
    ffmpegPath(),
    [
      '-v',
      'error',
      '-y',
      '-i',
      video,
      '-vf',
      `crop=2:2:${x}:${y},scale=1:1`,
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      raw,
    ],
    { timeoutMs: 60_000 },
  );
  const bytes = await readFile(raw);
  const frames: number[][] = [];
  for (let offset = 0; offset + 3 <= bytes.length; offset += 3)
    frames.push([...bytes.subarray(offset, offset + 3)]);
  return frames;
}

beforeAll(async () => {
  api = await startTestStack({
    engines: 'reference',
    stepFunctionsTimeScale: 0.001,
    environment: { HYPERFRAMES_CHUNK_FRAMES: String(CHUNK_FRAMES) },
  });
  scratch = await mkdtemp(join(tmpdir(), 'hyperframes-real-'));
}, 60_000);

afterAll(async () => {
  await api?.stop();
  await rm(scratch, { recursive: true, force: true });
});

describe('HyperFrames renders with the real renderer', () => {
  it('renders GSAP loaded from a CDN (served from the vendored package): 1 s, 10 fps, 1920×1080, the box turns from the red of the variables to blue', async () => {
    const started = Date.now();
    const done = await render(animatedBox, api.apiKey, { from: '#ff0000' });
    const seconds = (Date.now() - started) / 1000;
    expect(done, JSON.stringify(done)).toMatchObject({
      status: 'completed',
      frames_rendered: 10,
      total_frames: 10,
    });
    console.info(`HyperFrames real render (1 s, 10 fps, 1920×1080) through the API: ${seconds.toFixed(1)} s`);
    const video = join(scratch, 'box.mp4');
    await writeFile(video, Buffer.from(await (await fetch(done.video_url as string)).arrayBuffer()));
    const info = await probeMedia(video);
    const stream = info.streams.find((candidate) => candidate.type === 'video');
    expect(info.durationSeconds).toBeCloseTo(1, 1);
    expect(stream).toMatchObject({ width: 1920, height: 1080 });
    expect(stream?.frameRate).toBeCloseTo(10, 1);

    const pixels = await pixelPerFrame(video, BOX.left + BOX.size / 2, BOX.top + BOX.size / 2);
    expect(pixels).toHaveLength(10);
    const [firstRed = 0, , firstBlue = 0] = pixels[0] ?? [];
    const [lastRed = 0, , lastBlue = 0] = pixels.at(-1) ?? [];
    expect(firstRed).toBeGreaterThan(200);
    expect(firstBlue).toBeLessThan(60);
    expect(lastBlue).toBeGreaterThan(180);
    expect(lastRed).toBeLessThan(60);
    // Outside the box stays black.
    const [outside = [255, 255, 255]] = await pixelPerFrame(video, 100, 100);
    expect(Math.max(...outside)).toBeLessThan(20);
  }, 150_000);

  it('renders in chunks: the GET shows the frames grow chunk by chunk, and the video has every frame once, 1 s at 30 fps', async () => {
    const seen: Record<string, unknown>[] = [];
    const done = await render(steadyBox, api.apiKey, {}, 30, seen);
    expect(done, JSON.stringify(done)).toMatchObject({
      status: 'completed',
      progress: 100,
      frames_rendered: 30,
      total_frames: 30,
    });
    expect(done.duration as number).toBeCloseTo(1, 2);
    // While it rendered: frames rendered only ever grew, by whole chunks, and the progress with them.
    const rendering = seen.filter((reading) => reading.status === 'rendering' && reading.total_frames === 30);
    const frames = rendering.map((reading) => reading.frames_rendered as number);
    const progress = rendering.map((reading) => reading.progress as number);
    expect(frames).toEqual([...frames].sort((a, b) => a - b));
    expect(progress).toEqual([...progress].sort((a, b) => a - b));
    for (const count of frames) expect(count % CHUNK_FRAMES).toBe(0);
    expect(frames.length, 'the GET was read while chunks rendered').toBeGreaterThan(0);

    const video = join(scratch, 'steady.mp4');
    await writeFile(video, Buffer.from(await (await fetch(done.video_url as string)).arrayBuffer()));
    const info = await probeMedia(video);
    expect(info.durationSeconds).toBeCloseTo(1, 2);
    // Authored at 320×180, rendered at the request's default 1080p (HyperFrames' upsampling: ×6).
    expect(info.streams.find((candidate) => candidate.type === 'video')).toMatchObject({
      width: 1920,
      height: 1080,
    });
    // The box's left edge, frame by frame: 8 × 6 px further each frame, across the chunks' joins too.
    const edges = await leftEdgePerFrame(video, { row: 540, width: 1920 });
    expect(edges).toHaveLength(30);
    const steps = edges.slice(1).map((edge, frame) => edge - (edges[frame] ?? 0));
    for (const step of steps) expect(step).toBeGreaterThanOrEqual(44);
    for (const step of steps) expect(step).toBeLessThanOrEqual(52);
  }, 150_000);

  it.each([
    ['in one pass', 10],
    ['in chunks', 30],
  ])(
    'fails a composition that reaches the network, naming the URL, and charges nothing (%s)',
    async (_, fps) => {
      const { workspaceId, apiKey } = await api.newWorkspace();
      const before = (await getWorkspace(workspaceId, true))?.remaining_credits;
      const done = await render(remoteImage, apiKey, {}, fps);
      expect(done).toMatchObject({
        status: 'failed',
        failure_code: 'composition_network_blocked',
        video_url: null,
      });
      expect(done.failure_message).toContain('https://example.com/x.png');
      expect(done.failure_reason).toBe(done.failure_message);
      const deadline = Date.now() + 5_000;
      let after = (await getWorkspace(workspaceId, true))?.remaining_credits;
      while (after !== before && Date.now() < deadline) {
        await new Promise((resolve) => setTimeout(resolve, 50));
        after = (await getWorkspace(workspaceId, true))?.remaining_credits;
      }
      expect(after).toBe(before);
    },
    150_000,
  );

  it('blocks what the page asks while it runs, naming it (an HTTPS request by its host)', async () => {
    const done = await render(runtimeRequests, api.apiKey, {}, 30);
    expect(done).toMatchObject({ status: 'failed', failure_code: 'composition_network_blocked' });
    expect(done.failure_message).toContain('https://api.example.org');
    expect(done.failure_message).toContain('http://198.51.100.7/pixel.gif');
  }, 150_000);
});
