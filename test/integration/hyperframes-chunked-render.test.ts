/**
 * A chunked HyperFrames render against the same composition rendered in one pass, with the real
 * renderer (HyperFrames' producer, the Chromium of `@sparticuz/chromium`, the npm ffmpeg): 320×180,
 * 3 s at 30 fps (90 frames), a box moved 3 px a frame by a GSAP timeline over a 440 Hz tone.
 *
 * The chunked render is cut into 3 chunks of 30 frames, each rendered from a directory holding only
 * `plan.json` and the files `planFiles` names for that chunk (what a RenderChunk invocation fetches),
 * then assembled. Held against the one-pass render:
 * - the same number of frames, each within PSNR 35 dB of the one-pass frame (the encodes differ only in
 *   where their keyframes fall: a chunk starts with one);
 * - the box where the one-pass render has it in every frame (±1 px), moving 3 px a frame across the
 *   joins too: a frame duplicated or missing at a join would show as a step of 0 or 6 px;
 * - timestamps exactly one frame apart, and the audio as long as the video within one frame.
 */
import { mkdir, mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { dirname, join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { ffmpegPath, ffprobePath, runProcess } from '../../lambdas/engines/composition/ffmpeg-binaries.js';
import { probeMedia } from '../../lambdas/engines/composition/probe.js';
import { createProducerHyperframesEngine } from '../../lambdas/engines/hyperframes/producer-engine.js';
import { leftEdgePerFrame } from '../support/frame-edges.js';

const WIDTH = 320;
const HEIGHT = 180;
const FPS = 30;
const SECONDS = 3;
const FRAMES = FPS * SECONDS;
const CHUNK_FRAMES = 30;
const BOX = { top: 60, left: 10, size: 40, pixelsPerFrame: 3 } as const;
/** The least PSNR of a chunked frame against the one-pass frame (measured: see the test's output). */
const MIN_PSNR_DB = 35;
const BOX_ROW = { row: BOX.top + BOX.size / 2, width: WIDTH };

const composition = `<!doctype html>
<html><head><meta charset="utf-8">
<script src="https://cdn.jsdelivr.net/npm/gsap@3.12.5/dist/gsap.min.js"></script>
<style>html,body{margin:0;background:#000}
#box{position:absolute;left:${BOX.left}px;top:${BOX.top}px;width:${BOX.size}px;height:${BOX.size}px;background:#fff}</style>
</head><body>
<div id="root" data-composition-id="main" data-start="0" data-duration="${SECONDS}" data-width="${WIDTH}" data-height="${HEIGHT}">
  <div id="box"></div>
  <audio id="tone" src="tone.wav" data-start="0" data-duration="${SECONDS}" data-track-index="1"></audio>
</div>
<script>
  const tl = gsap.timeline({ paused: true });
  tl.to('#box', { x: ${BOX.pixelsPerFrame * FPS * SECONDS}, duration: ${SECONDS}, ease: 'none' }, 0);
  window.__timelines = window.__timelines || {};
  window.__timelines['main'] = tl;
</script>
</body></html>`;

let scratch: string;
let projectDir: string;
const engine = createProducerHyperframesEngine();
const settings = {
  entryFile: 'index.html',
  fps: FPS,
  quality: 'standard',
  format: 'mp4',
  variables: {},
  outputPreset: null,
  timeoutMs: 120_000,
} as const;

async function run(command: string, args: string[]): Promise<string> {
  const { stdout } = await runProcess(command, args, { timeoutMs: 60_000 });
  return stdout;
}

/** The presentation times of the video's frames, seconds. */
async function frameTimes(video: string): Promise<number[]> {
  // biome-ignore format: one option per line
  const out = await run(ffprobePath(), [
    '-v', 'error', '-select_streams', 'v:0', '-show_entries', 'frame=pts_time', '-of', 'json', video,
  ]);
  return (JSON.parse(out) as { frames: { pts_time: string }[] }).frames.map((frame) =>
    Number(frame.pts_time),
  );
}

/** Per-frame PSNR (average over the planes) of `video` against `reference`. */
async function psnrPerFrame(video: string, reference: string): Promise<number[]> {
  const stats = join(scratch, 'psnr.log');
  // biome-ignore format: one option per line
  await run(ffmpegPath(), [
    '-v', 'error', '-i', video, '-i', reference, '-lavfi', `psnr=stats_file=${stats}`, '-f', 'null', '-',
  ]);
  return (await readFile(stats, 'utf8'))
    .split('\n')
    .filter(Boolean)
    .map((line) => {
      const value = /psnr_avg:(\S+)/.exec(line)?.[1] ?? '0';
      return value === 'inf' ? Number.POSITIVE_INFINITY : Number(value);
    });
}

async function streamDurations(video: string): Promise<{ video: number; audio: number }> {
  // biome-ignore format: one option per line
  const out = await run(ffprobePath(), [
    '-v', 'error', '-show_entries', 'stream=codec_type,duration', '-of', 'csv=p=0', video,
  ]);
  const durations = Object.fromEntries(
    out
      .split('\n')
      .filter(Boolean)
      .map((line) => {
        const [type = '', duration = ''] = line.split(',');
        return [type, Number(duration)];
      }),
  );
  return { video: durations.video ?? 0, audio: durations.audio ?? 0 };
}

beforeAll(async () => {
  scratch = await mkdtemp(join(tmpdir(), 'hyperframes-chunked-'));
  projectDir = join(scratch, 'project');
  await mkdir(projectDir);
  await writeFile(join(projectDir, 'index.html'), composition);
  // biome-ignore format: one option per line
  await run(ffmpegPath(), [
    '-v', 'error', '-y', '-f', 'lavfi', '-i', `sine=frequency=440:duration=${SECONDS}`,
    '-ar', '48000', join(projectDir, 'tone.wav'),
  ]);
}, 60_000);

afterAll(async () => {
  await rm(scratch, { recursive: true, force: true });
});

describe('a chunked HyperFrames render', () => {
  it('matches the one-pass render frame for frame, with no frame duplicated or missing at the joins, and its audio as long as its video', async () => {
    const onePass = join(scratch, 'one-pass.mp4');
    const onePassStarted = performance.now();
    const single = await engine.render({
      ...settings,
      projectDir,
      outputPath: onePass,
      onProgress: () => undefined,
    });
    const onePassMs = performance.now() - onePassStarted;
    expect(single.totalFrames).toBe(FRAMES);

    const chunkedStarted = performance.now();
    const planDir = join(scratch, 'plan');
    const plan = await engine.plan({
      ...settings,
      projectDir,
      planDir,
      width: WIDTH,
      height: HEIGHT,
      chunkFrames: CHUNK_FRAMES,
      maxChunks: 100,
    });
    expect(plan.totalFrames).toBe(FRAMES);
    expect(plan.chunks).toEqual([
      { startFrame: 0, endFrame: 30 },
      { startFrame: 30, endFrame: 60 },
      { startFrame: 60, endFrame: 90 },
    ]);
    /** A directory with what a role's machine fetches: plan.json and the files named for it. */
    const fetchedFor = async (name: string, role: Parameters<typeof engine.planFiles>[1]) => {
      const directory = join(scratch, name);
      await mkdir(directory);
      const files = ['plan.json', ...(await engine.planFiles(planDir, role))];
      for (const file of files) {
        await mkdir(dirname(join(directory, file)), { recursive: true });
        await writeFile(join(directory, file), await readFile(join(planDir, file)));
      }
      return directory;
    };
    const chunkPaths: string[] = [];
    for (const [index, chunk] of plan.chunks.entries()) {
      const chunkDir = await fetchedFor(`chunk-plan-${index}`, { chunk: index });
      const chunkPath = join(scratch, `chunk-${index}.mp4`);
      const frames = await engine.renderChunk(chunkDir, index, chunkPath, 120_000);
      expect(frames).toBe(chunk.endFrame - chunk.startFrame);
      chunkPaths.push(chunkPath);
    }
    const chunked = join(scratch, 'chunked.mp4');
    await engine.assemble(await fetchedFor('assembler-plan', 'assembler'), chunkPaths, chunked);
    const chunkedMs = performance.now() - chunkedStarted;
    console.info(
      `HyperFrames ${WIDTH}×${HEIGHT}, ${FRAMES} frames: one pass ${(onePassMs / 1000).toFixed(1)} s; 3 chunks one after another ${(chunkedMs / 1000).toFixed(1)} s`,
    );

    const reference = await leftEdgePerFrame(onePass, BOX_ROW);
    const positions = await leftEdgePerFrame(chunked, BOX_ROW);
    expect(positions).toHaveLength(FRAMES);
    expect(reference).toHaveLength(FRAMES);
    for (const [frame, position] of positions.entries()) {
      expect(Math.abs(position - (reference[frame] ?? -99)), `frame ${frame}`).toBeLessThanOrEqual(1);
    }
    const steps = positions.slice(1).map((position, frame) => position - (positions[frame] ?? 0));
    for (const [frame, step] of steps.entries()) {
      expect(step, `frame ${frame} → ${frame + 1}`).toBeGreaterThanOrEqual(BOX.pixelsPerFrame - 1);
      expect(step, `frame ${frame} → ${frame + 1}`).toBeLessThanOrEqual(BOX.pixelsPerFrame + 1);
    }

    const psnr = await psnrPerFrame(chunked, onePass);
    expect(psnr).toHaveLength(FRAMES);
    console.info(
      `PSNR of the chunked frames against the one-pass ones: min ${Math.min(...psnr).toFixed(1)} dB`,
    );
    expect(Math.min(...psnr)).toBeGreaterThanOrEqual(MIN_PSNR_DB);

    const times = await frameTimes(chunked);
    expect(times).toHaveLength(FRAMES);
    for (const [frame, time] of times.entries()) expect(time, `frame ${frame}`).toBeCloseTo(frame / FPS, 3);

    const durations = await streamDurations(chunked);
    expect(durations.video).toBeCloseTo(SECONDS, 2);
    expect(Math.abs(durations.audio - durations.video)).toBeLessThanOrEqual(1 / FPS);
    const onePassDurations = await streamDurations(onePass);
    expect(Math.abs(durations.audio - onePassDurations.audio)).toBeLessThanOrEqual(1 / FPS);
    const info = await probeMedia(chunked);
    expect(info.streams.find((stream) => stream.type === 'video')).toMatchObject({
      width: WIDTH,
      height: HEIGHT,
    });
  }, 180_000);
});
