/**
 * The HyperFrames engine's test double (`HYPERFRAMES_ENGINE=test-double`, tests only: see
 * `TEST_DOUBLE_ENGINE` in core/config.ts). For tests whose subject is not the pictures (routes,
 * billing, events, deletes): it keeps the contract without starting Chromium.
 *
 * Kept: the composition is read (its root's `data-duration`, 1 s when it has none), the output is a
 * real video of that length at the requested fps and format, progress is reported frame by frame. A
 * chunked render cuts the frames as the producer does (chunks of `chunkFrames`, at most `maxChunks`),
 * each chunk a video of its frames, joined by ffmpeg's concat demuxer without re-encoding.
 * Not kept: the pictures (a grey frame scaled down to 64 px on its long side) and the network
 * guard (nothing is loaded).
 */
import { mkdir, readFile, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { TEST_DOUBLE_ENGINE } from '../../core/config.js';
import { JobFailure } from '../../core/errors.js';
import { ensureExecutable, ffmpegPath, runProcess } from '../composition/ffmpeg-binaries.js';
import { doubleFrameSize } from '../composition/test-double-composition-engine.js';
import { authoredComposition } from './composition-root.js';
import {
  HYPERFRAMES_FAILURE,
  type HyperframesChunk,
  type HyperframesEngine,
  type HyperframesPlan,
  type HyperframesPlanRequest,
  type HyperframesRenderRequest,
  type HyperframesRenderResult,
} from './hyperframes-engine.js';

const RUN_TIMEOUT_MS = 60_000;
const CODECS = {
  mp4: ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'],
  mov: ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p'],
  webm: ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8'],
} as const;

class TestDoubleHyperframesEngine implements HyperframesEngine {
  readonly name = TEST_DOUBLE_ENGINE;

  async render(request: HyperframesRenderRequest): Promise<HyperframesRenderResult> {
    const { seconds, size } = await readComposition(request);
    const totalFrames = Math.max(1, Math.round(seconds * request.fps));
    await encodeFrames(
      { ...size, fps: request.fps, format: request.format },
      totalFrames,
      request.outputPath,
    );
    for (let frame = 1; frame <= totalFrames; frame++) request.onProgress(frame, totalFrames);
    return { totalFrames, description: TEST_DOUBLE_ENGINE };
  }

  async plan(request: HyperframesPlanRequest): Promise<HyperframesPlan> {
    const { seconds, size } = await readComposition(request);
    const totalFrames = Math.max(1, Math.round(seconds * request.fps));
    const count = Math.min(request.maxChunks, Math.ceil(totalFrames / request.chunkFrames));
    const chunkFrames = Math.ceil(totalFrames / count);
    const chunks: HyperframesChunk[] = [];
    for (let start = 0; start < totalFrames; start += chunkFrames) {
      chunks.push({ startFrame: start, endFrame: Math.min(totalFrames, start + chunkFrames) });
    }
    const plan: DoublePlan = { ...size, fps: request.fps, format: request.format, chunks };
    await mkdir(request.planDir, { recursive: true });
    await writeFile(path.join(request.planDir, PLAN_FILE), JSON.stringify(plan));
    return { totalFrames, chunks, description: TEST_DOUBLE_ENGINE };
  }

  async planFiles(): Promise<string[]> {
    return [];
  }

  async renderChunk(planDir: string, chunkIndex: number, outputPath: string): Promise<number> {
    const plan = JSON.parse(await readFile(path.join(planDir, PLAN_FILE), 'utf8')) as DoublePlan;
    const chunk = plan.chunks[chunkIndex];
    if (!chunk)
      throw new JobFailure(HYPERFRAMES_FAILURE.renderFailed, `The plan has no chunk ${chunkIndex}.`);
    const frames = chunk.endFrame - chunk.startFrame;
    await encodeFrames(plan, frames, outputPath);
    return frames;
  }

  async assemble(_planDir: string, chunkPaths: readonly string[], outputPath: string): Promise<void> {
    const list = `${outputPath}.chunks.txt`;
    await writeFile(list, chunkPaths.map((chunk) => `file '${chunk.replaceAll("'", "'\\''")}'`).join('\n'));
    // biome-ignore format: one option per line
    await runProcess(await ffmpeg(), [
      '-hide_banner', '-nostdin', '-loglevel', 'error', '-y',
      '-f', 'concat', '-safe', '0', '-i', list, '-c', 'copy', outputPath,
    ], { timeoutMs: RUN_TIMEOUT_MS });
  }
}

const PLAN_FILE = 'plan.json';

interface DoublePlan {
  width: number;
  height: number;
  fps: number;
  format: HyperframesRenderRequest['format'];
  chunks: HyperframesChunk[];
}

async function readComposition(request: { projectDir: string; entryFile: string }) {
  const html = await readFile(path.join(request.projectDir, request.entryFile), 'utf8').catch(() => {
    throw new JobFailure(HYPERFRAMES_FAILURE.renderFailed, `${request.entryFile} cannot be read.`);
  });
  const authored = authoredComposition(html);
  return { seconds: authored.durationSeconds ?? 1, size: doubleFrameSize(authored.width, authored.height) };
}

async function ffmpeg(): Promise<string> {
  const command = ffmpegPath();
  await ensureExecutable(command);
  return command;
}

/** `frames` grey frames at the video's size and rate (a new file starts with a keyframe). */
async function encodeFrames(
  video: Pick<DoublePlan, 'width' | 'height' | 'fps' | 'format'>,
  frames: number,
  outputPath: string,
): Promise<void> {
  // biome-ignore format: one option per line
  await runProcess(await ffmpeg(), [
    '-hide_banner', '-nostdin', '-loglevel', 'error', '-y',
    '-f', 'lavfi', '-i', `color=c=gray:s=${video.width}x${video.height}:r=${video.fps}`,
    '-frames:v', String(frames), ...CODECS[video.format], outputPath,
  ], { timeoutMs: RUN_TIMEOUT_MS });
}

export function createTestDoubleHyperframesEngine(): HyperframesEngine {
  return new TestDoubleHyperframesEngine();
}
