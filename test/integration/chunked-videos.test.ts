/**
 * A `POST /v3/videos` render long enough for several chunks (2 s chunks here, `VIDEO_RENDER_CHUNK_SECONDS`)
 * goes through the workflow's Map state, two chunks at a time, and completes as one video: as long as
 * its speech, every frame there once (timestamps a frame apart across the joins), the sound as long as
 * the picture, a captioned copy of the same length, the SRT with every word. The frames themselves are
 * compared with a single pass in test/unit/engines/composition/chunked-composition.test.ts.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { DescribeExecutionCommand, SFNClient } from '@aws-sdk/client-sfn';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { findStockVoice } from '../../lambdas/catalog/stock-voices.js';
import { ffprobePath, runProcess } from '../../lambdas/engines/composition/ffmpeg-binaries.js';
import { probeMedia } from '../../lambdas/engines/composition/index.js';
import { createEspeakEngine } from '../../lambdas/engines/speech/espeak-engine.js';
import type { ComposePlan } from '../../lambdas/videos/video-render-job.js';
import { LOCAL_REGION } from '../../lib/local/storage-emulators.js';
import { localWorkflowArn } from '../../lib/local/task-functions.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

const FPS = 25;
const SCRIPT =
  'Long videos are rendered in pieces. Each piece is a chunk of two seconds, and the chunks are joined without a seam.';

let api: TestStack;
let scratch: string;

beforeAll(async () => {
  api = await startTestStack({
    engines: 'reference',
    stepFunctionsTimeScale: 0.001,
    environment: { VIDEO_RENDER_CHUNK_SECONDS: '2', RENDER_CHUNK_CONCURRENCY: '2' },
  });
  scratch = await mkdtemp(join(tmpdir(), 'chunked-videos-test-'));
}, 60_000);

afterAll(async () => {
  await api.stop();
  await rm(scratch, { recursive: true, force: true });
});

async function download(url: string | null, name: string): Promise<string> {
  expect(url).toMatch(/^http/);
  const response = await fetch(url as string);
  expect(response.status).toBe(200);
  const path = join(scratch, name);
  await writeFile(path, Buffer.from(await response.arrayBuffer()));
  return path;
}

/** The presentation times (in frames) of the video stream's packets, in presentation order (not decoded). */
async function framePts(file: string): Promise<number[]> {
  const { stdout } = await runProcess(
    ffprobePath(),
    [
      '-v',
      'error',
      '-select_streams',
      'v:0',
      '-show_entries',
      'stream=time_base:packet=pts',
      '-of',
      'json',
      file,
    ],
    { timeoutMs: 60_000 },
  );
  const probe = JSON.parse(stdout) as { streams: { time_base: string }[]; packets: { pts: number }[] };
  const [numerator = 0, denominator = 1] = (probe.streams[0]?.time_base ?? '').split('/').map(Number);
  return probe.packets.map((packet) => (packet.pts * numerator * FPS) / denominator).sort((a, b) => a - b);
}

describe('a video longer than a chunk', () => {
  it('renders in chunks through the Map state and completes as one seamless video', async () => {
    const looks = await api.call<{ data: { id: string; default_voice_id: string }[] }>(
      'GET',
      '/v3/avatars/looks?limit=1',
    );
    const look = looks.body.data[0];
    const created = await api.call<{ data: { video_id: string } }>('POST', '/v3/videos', {
      body: {
        type: 'avatar',
        avatar_id: look?.id,
        voice_id: look?.default_voice_id,
        script: SCRIPT,
        caption: { file_format: 'srt' },
      },
    });
    expect(created.status, JSON.stringify(created.body)).toBe(200);
    const videoId = created.body.data.video_id;
    let video: Record<string, string | number | null> = {};
    const deadline = Date.now() + 90_000;
    while (video.status !== 'completed' && video.status !== 'failed') {
      if (Date.now() > deadline) throw new Error(`video ${videoId} still ${video.status}`);
      await new Promise((resolve) => setTimeout(resolve, 200));
      video = (await api.call<{ data: typeof video }>('GET', `/v3/videos/${videoId}`)).body.data;
    }
    expect(video.failure_message).toBeNull();
    expect(video.status).toBe('completed');

    // The workflow planned several chunks (its output keeps Compose's plan).
    const client = new SFNClient({});
    const executionArn = `${localWorkflowArn(LOCAL_REGION, 'video-render').replace(':stateMachine:', ':execution:')}:${videoId}`;
    let execution = await client.send(new DescribeExecutionCommand({ executionArn }));
    // Finalize completes the video a moment before the execution ends.
    while (execution.status === 'RUNNING' && Date.now() < deadline) {
      await new Promise((resolve) => setTimeout(resolve, 100));
      execution = await client.send(new DescribeExecutionCommand({ executionArn }));
    }
    client.destroy();
    const plan = (JSON.parse(execution.output ?? '{}') as { plan?: ComposePlan }).plan;
    expect(plan?.chunks.length).toBeGreaterThanOrEqual(3);
    expect(plan?.max_concurrency).toBe(2);

    const speaker = createEspeakEngine();
    const speech = await speaker
      .synthesize({
        text: SCRIPT,
        voiceId: findStockVoice(look?.default_voice_id as string)?.engineVoices.espeak as string,
      })
      .finally(() => speaker.close());
    const mp4Path = await download(video.video_url as string, 'chunked.mp4');
    const mp4 = await probeMedia(mp4Path);
    const picture = mp4.streams.find((stream) => stream.type === 'video');
    const sound = mp4.streams.find((stream) => stream.type === 'audio');
    expect(picture).toMatchObject({ codec: 'h264', width: 1280, height: 720 });
    expect(Math.abs(mp4.durationSeconds - speech.durationMs / 1000)).toBeLessThan(1 / FPS + 0.001);
    expect(Math.abs((picture?.durationSeconds ?? 0) - (sound?.durationSeconds ?? 0))).toBeLessThanOrEqual(
      1 / FPS,
    );
    expect(video.duration).toBeCloseTo(mp4.durationSeconds, 1);
    // Every frame once, a frame apart: nothing repeated or missing where the chunks meet.
    const pts = await framePts(mp4Path);
    expect(pts.length).toBe(Math.round((speech.durationMs * FPS) / 1000));
    expect(pts).toEqual(pts.map((_, index) => index));

    const captioned = await download(video.captioned_video_url as string, 'chunked-captioned.mp4');
    expect(captioned).not.toBe(mp4Path);
    expect((await framePts(captioned)).length).toBe(pts.length);
    const srt = await readFile(await download(video.subtitle_url as string, 'chunked.srt'), 'utf8');
    const words = srt
      .split('\n\n')
      .flatMap((cue) => cue.split('\n').slice(2))
      .join(' ')
      .split(/\s+/)
      .filter(Boolean);
    expect(words).toEqual(SCRIPT.split(/\s+/));
    expect(
      (await probeMedia(await download(video.thumbnail_url as string, 'chunked.jpg'))).streams[0],
    ).toMatchObject({
      width: 1280,
      height: 720,
    });
    expect(
      (await readFile(await download(video.gif_url as string, 'chunked.gif'))).subarray(0, 3).toString(),
    ).toBe('GIF');
  }, 120_000);
});
