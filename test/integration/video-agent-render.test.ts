/**
 * The video agent's one real render: a one-line prompt to a finished video with the real engines
 * (eSpeak NG, ffmpeg) and the local planner. The frames are checked where each scene plays: every
 * scene's picture differs from the others, its headline is drawn in the style's text colour at the
 * top, and the presenter stands on the presenter scenes (the frame differs from the bare card there);
 * the music bed plays in the pauses.
 * Frames are written to `VIDEO_AGENT_FRAMES` (a directory) when it is set, to look at.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import sharp from 'sharp';
import { afterAll, beforeAll, expect, it } from 'vitest';
import { decodeMonoPcm16 } from '../../lambdas/engines/composition/audio-decode.js';
import { ffmpegPath, runProcess } from '../../lambdas/engines/composition/ffmpeg-binaries.js';
import { countWords } from '../../lambdas/engines/text-generation/index.js';
import { readMediaObject } from '../../lambdas/media/media-store.js';
import { styleOf } from '../../lambdas/video-agents/agent-styles.js';
import type { TranscriptWord } from '../../lambdas/videos/videos.js';
import { getVideo } from '../../lambdas/videos/videos.js';
import { startTestStack, type TestStack } from '../support/test-stack.js';

let api: TestStack;
let scratch: string;

beforeAll(async () => {
  api = await startTestStack({ engines: 'reference', stepFunctionsTimeScale: 0.001 });
  scratch = await mkdtemp(join(tmpdir(), 'video-agent-render-'));
});

afterAll(async () => {
  await api?.stop();
  if (scratch) await rm(scratch, { recursive: true, force: true });
});

/** The frame at `seconds`, as raw RGB. */
async function frameAt(video: string, seconds: number, name: string) {
  const file = join(scratch, `${name}.png`);
  await runProcess(
    ffmpegPath(),
    ['-v', 'error', '-y', '-ss', seconds.toFixed(2), '-i', video, '-frames:v', '1', file],
    {
      timeoutMs: 60_000,
    },
  );
  if (process.env.VIDEO_AGENT_FRAMES)
    await writeFile(join(process.env.VIDEO_AGENT_FRAMES, `${name}.png`), await readFile(file));
  return sharp(file).removeAlpha().raw().toBuffer({ resolveWithObject: true });
}

/** Mean absolute difference of two RGB images of the same size, over a region (fractions of the frame). */
function difference(
  a: { data: Buffer; info: { width: number; height: number } },
  b: { data: Buffer },
  region = { top: 0, bottom: 1, left: 0, right: 1 },
): number {
  const { width, height } = a.info;
  let sum = 0;
  let count = 0;
  for (let y = Math.floor(region.top * height); y < Math.floor(region.bottom * height); y++)
    for (let x = Math.floor(region.left * width); x < Math.floor(region.right * width); x++)
      for (let c = 0; c < 3; c++) {
        const index = (y * width + x) * 3 + c;
        sum += Math.abs((a.data[index] ?? 0) - (b.data[index] ?? 0));
        count++;
      }
  return sum / count;
}

/** Share of the pixels of a band of the frame within 40 of `hex` in every channel. */
function shareOfColour(
  image: { data: Buffer; info: { width: number; height: number } },
  hex: string,
  top: number,
  bottom: number,
): number {
  const target = [1, 3, 5].map((offset) => Number.parseInt(hex.slice(offset, offset + 2), 16));
  const { width, height } = image.info;
  let hits = 0;
  let count = 0;
  for (let y = Math.floor(top * height); y < Math.floor(bottom * height); y++)
    for (let x = 0; x < width; x++) {
      const index = (y * width + x) * 3;
      if (target.every((value, c) => Math.abs((image.data[index + c] ?? 0) - value) <= 40)) hits++;
      count++;
    }
  return hits / count;
}

it('renders "a 45-second explainer about how solar panels work, friendly tone" into a real multi-scene video', async () => {
  const started = Date.now();
  const created = await api.call<{ data: { session_id: string } }>('POST', '/v3/video-agents', {
    body: { prompt: 'a 45-second explainer about how solar panels work, friendly tone' },
  });
  expect(created.status).toBe(200);
  const sessionId = created.body.data.session_id;
  let session: { status: string; video_id?: string; failure_message: string | null };
  for (;;) {
    session = (await api.call<{ data: typeof session }>('GET', `/v3/video-agents/${sessionId}`)).body.data;
    if (session.status === 'completed' || session.status === 'failed') break;
    if (Date.now() - started > 300_000) throw new Error(`still ${session.status}`);
    await new Promise((resolve) => setTimeout(resolve, 200));
  }
  const seconds = (Date.now() - started) / 1000;
  console.log(`video agent: prompt to finished video in ${seconds.toFixed(1)} s`);
  expect(session.failure_message).toBeNull();
  expect(session.status).toBe('completed');

  const video = await getVideo(api.workspaceId, session.video_id as string);
  if (!video?.outputs?.transcript_key) throw new Error('no outputs');
  expect(video.duration).toBeGreaterThan(30);
  expect(video.duration).toBeLessThan(70);
  const file = join(scratch, 'agent.mp4');
  await writeFile(file, await readMediaObject(video.outputs.video_key));
  if (process.env.VIDEO_AGENT_FRAMES)
    await writeFile(join(process.env.VIDEO_AGENT_FRAMES, 'agent.mp4'), await readFile(file));

  // Where each scene plays: its first spoken word, from the video's transcript.
  const words = JSON.parse(
    (await readMediaObject(video.outputs.transcript_key)).toString('utf8'),
  ) as TranscriptWord[];
  const scenes = video.render.scenes;
  expect(scenes.length).toBeGreaterThanOrEqual(4);
  const starts: number[] = [];
  let index = 0;
  for (const scene of scenes) {
    starts.push((words[index]?.startMs ?? 0) / 1000);
    index += countWords(scene.speech?.kind === 'script' ? scene.speech.text : '');
  }
  const ends = [...starts.slice(1), video.duration ?? 0];
  const style = styleOf('clean-explainer');
  // The style's transition goes to the renderer with the draft (the composition engine's tests measure it).
  expect(video.render.transition).toEqual(style.transition);
  const frames = [];
  for (const [position, scene] of scenes.entries()) {
    const middle = ((starts[position] ?? 0) + (ends[position] ?? 0)) / 2;
    const frame = await frameAt(file, middle, scene.id);
    frames.push(frame);
    // The headline, in the style's text colour: above the presenter, or in the middle of a full-frame card
    // (captions are burned in below both).
    expect(
      shareOfColour(frame, style.palette.text, scene.presenter ? 0.08 : 0.3, scene.presenter ? 0.35 : 0.7),
      `${scene.id} headline`,
    ).toBeGreaterThan(0.01);
    if (scene.background.type !== 'image') continue;
    const card = await sharp(await readMediaObject(scene.background.key))
      .resize(frame.info.width, frame.info.height)
      .removeAlpha()
      .raw()
      .toBuffer({ resolveWithObject: true });
    // The lower middle of the frame: the presenter stands there on presenter scenes, the bare card shows elsewhere
    // (captions are burned in at the bottom, so the band stops above them).
    const lower = difference(frame, card, { top: 0.45, bottom: 0.8, left: 0.35, right: 0.65 });
    if (scene.presenter) expect(lower, `${scene.id} presenter`).toBeGreaterThan(25);
    else expect(lower, `${scene.id} no presenter`).toBeLessThan(10);
  }
  // The music bed, ranked from the sound catalog for the plan's mood, plays where nobody speaks:
  // the pauses between scenes are not silent.
  expect(video.render.music?.sound_id).toMatch(/^music-/);
  const sampleRate = 8000;
  const pcm = await decodeMonoPcm16(file, { sampleRate });
  const pauses = words
    .slice(1)
    .map((word, position) => ({
      from: (words[position] as TranscriptWord).endMs + 60,
      to: word.startMs - 60,
    }))
    .filter((pause) => pause.to - pause.from >= 150 && pause.from > 1500);
  expect(pauses.length).toBeGreaterThan(0);
  for (const pause of pauses.slice(0, 3)) {
    const samples = pcm.subarray(
      Math.floor((pause.from * sampleRate) / 1000),
      Math.floor((pause.to * sampleRate) / 1000),
    );
    const rms = Math.sqrt(samples.reduce((sum, sample) => sum + sample * sample, 0) / samples.length) / 32768;
    expect(rms, `sound between ${pause.from} and ${pause.to} ms`).toBeGreaterThan(0.003);
  }
  // Every scene looks different from the next.
  for (let position = 1; position < frames.length; position++)
    expect(
      difference(
        frames[position - 1] as (typeof frames)[number],
        frames[position] as (typeof frames)[number],
      ),
    ).toBeGreaterThan(3);
}, 400_000);
