/**
 * The HyperFrames engine's test double (`HYPERFRAMES_ENGINE=test-double`, tests only: see
 * `TEST_DOUBLE_ENGINE` in core/config.ts). For tests whose subject is not the pictures (routes,
 * billing, events, deletes): it keeps the contract without starting Chromium.
 *
 * Kept: the composition is read (its root's `data-duration`, 1 s when it has none), the output is a
 * real video of that length at the requested fps and format, progress is reported frame by frame.
 * Not kept: the pictures (a grey frame scaled down to 64 px on its long side) and the network
 * guard (nothing is loaded).
 */
import { readFile } from 'node:fs/promises';
import path from 'node:path';
import { TEST_DOUBLE_ENGINE } from '../../core/config.js';
import { JobFailure } from '../../core/errors.js';
import { ensureExecutable, ffmpegPath, runProcess } from '../composition/ffmpeg-binaries.js';
import { doubleFrameSize } from '../composition/test-double-composition-engine.js';
import { authoredComposition } from './composition-root.js';
import {
  HYPERFRAMES_FAILURE,
  type HyperframesEngine,
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
    const html = await readFile(path.join(request.projectDir, request.entryFile), 'utf8').catch(() => {
      throw new JobFailure(HYPERFRAMES_FAILURE.renderFailed, `${request.entryFile} cannot be read.`);
    });
    const authored = authoredComposition(html);
    const seconds = authored.durationSeconds ?? 1;
    const totalFrames = Math.max(1, Math.round(seconds * request.fps));
    const size = doubleFrameSize(authored.width, authored.height);
    const command = ffmpegPath();
    await ensureExecutable(command);
    // biome-ignore format: one option per line
    await runProcess(command, [
      '-hide_banner', '-nostdin', '-loglevel', 'error', '-y',
      '-f', 'lavfi', '-i', `color=c=gray:s=${size.width}x${size.height}:r=${request.fps}:d=${seconds}`,
      '-frames:v', String(totalFrames), ...CODECS[request.format], request.outputPath,
    ], { timeoutMs: RUN_TIMEOUT_MS });
    for (let frame = 1; frame <= totalFrames; frame++) request.onProgress(frame, totalFrames);
    return { totalFrames, description: TEST_DOUBLE_ENGINE };
  }
}

export function createTestDoubleHyperframesEngine(): HyperframesEngine {
  return new TestDoubleHyperframesEngine();
}
