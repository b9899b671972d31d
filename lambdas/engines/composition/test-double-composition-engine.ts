/**
 * The composition engine's test double (`COMPOSITION_ENGINE=test-double`, tests only: see
 * `TEST_DOUBLE_ENGINE` in core/config.ts). For tests whose subject is not the media (authorization,
 * webhooks, billing, restarts...): it keeps the engine's contract at a fraction of its cost, so callers
 * never special-case it, and renders nothing a viewer would recognise.
 *
 * Kept from the contract: the request is validated like any engine's, every input file is probed (an
 * unreadable file fails with `invalid_media`, naming it), and every output exists and decodes: an MP4
 * (H.264 + AAC) or WebM (VP9 + Opus) as long as the scenes, a JPEG thumbnail and a GIF preview.
 * Not kept: the pictures and sound. The frame is the requested one scaled down to fit 64x64 (1280x720
 * gives 64x36), filled with the first colour background (grey otherwise), at `DOUBLE_FPS`, with silence;
 * captions (and their style), the watermark and the logo are not drawn (the logo is probed, as an input
 * file), and a separate captioned video is a copy of the main one.
 *
 * One ffmpeg run writes all three outputs, then ffprobe measures the video, as the reference engine does.
 */
import { copyFile } from 'node:fs/promises';
import path from 'node:path';
import { TEST_DOUBLE_ENGINE } from '../../core/config.js';
import {
  type CompositionEngine,
  type CompositionRequest,
  type CompositionResult,
  compositionInputFiles,
  compositionOutputPaths,
  validateCompositionRequest,
} from './composition-engine.js';
import { compositionFailureOf, ensureExecutable, ffmpegPath, runProcess } from './ffmpeg-binaries.js';
import { probeMedia } from './probe.js';

/** Longest side of the double's frames, in pixels. */
export const DOUBLE_MAX_SIDE = 64;
/** The double's frame rate: a few frames a second is enough for a video that decodes. */
export const DOUBLE_FPS = 4;
const DOUBLE_SAMPLE_RATE = 16_000;
const FALLBACK_COLOR = '#808080';
const RUN_TIMEOUT_MS = 60_000;

/** The requested frame scaled down to fit `DOUBLE_MAX_SIDE`, keeping its shape; sides even, at least 16. */
export function doubleFrameSize(width: number, height: number): { width: number; height: number } {
  const scale = Math.min(1, DOUBLE_MAX_SIDE / Math.max(width, height));
  const side = (value: number) => Math.max(16, 2 * Math.round((value * scale) / 2));
  return { width: side(width), height: side(height) };
}

class TestDoubleCompositionEngine implements CompositionEngine {
  readonly name = TEST_DOUBLE_ENGINE;

  async compose(request: CompositionRequest): Promise<CompositionResult> {
    validateCompositionRequest(request);
    // Probed like the reference engine's inputs, so a file it would refuse is refused here too.
    await Promise.all(compositionInputFiles(request).map((file) => probeMedia(file)));
    const workDir = path.resolve(request.workDir);
    const outputs = compositionOutputPaths(workDir, request.format);
    const separateCaptionedVideo =
      !request.burnCaptions && request.captions.some((cue) => cue.text.trim().length > 0);
    if (!separateCaptionedVideo) outputs.captionedVideoPath = outputs.videoPath;

    const seconds = request.scenes.reduce((total, scene) => total + scene.durationMs, 0) / 1000;
    const size = doubleFrameSize(request.width, request.height);
    const first = request.scenes[0]?.background;
    const color = first?.type === 'color' ? first.color : FALLBACK_COLOR;
    const codecs =
      request.format === 'mp4'
        ? ['-c:v', 'libx264', '-preset', 'ultrafast', '-pix_fmt', 'yuv420p', '-c:a', 'aac']
        : ['-c:v', 'libvpx-vp9', '-deadline', 'realtime', '-cpu-used', '8', '-c:a', 'libopus'];
    const command = ffmpegPath();
    await ensureExecutable(command);
    // biome-ignore format: one output per line
    const args = [
      '-hide_banner', '-nostdin', '-loglevel', 'error', '-y',
      '-f', 'lavfi', '-i', `color=c=${color}:s=${size.width}x${size.height}:r=${DOUBLE_FPS}:d=${seconds}`,
      '-f', 'lavfi', '-i', `anullsrc=r=${DOUBLE_SAMPLE_RATE}:cl=mono`,
      '-filter_complex', '[0:v]split=3[video][thumbnail][gif]',
      '-map', '[video]', '-map', '1:a', '-t', String(seconds), ...codecs, outputs.videoPath,
      '-map', '[thumbnail]', '-frames:v', '1', outputs.thumbnailPath,
      '-map', '[gif]', '-frames:v', String(DOUBLE_FPS), outputs.gifPath,
    ];
    try {
      await runProcess(command, args, { cwd: workDir, timeoutMs: RUN_TIMEOUT_MS });
      if (separateCaptionedVideo) await copyFile(outputs.videoPath, outputs.captionedVideoPath);
    } catch (error) {
      throw compositionFailureOf(error);
    }
    const written = await probeMedia(outputs.videoPath);
    return { ...outputs, durationSeconds: written.durationSeconds, ...size };
  }
}

/** A new composition test double; like the reference engine, it holds no resources between compositions. */
export function createTestDoubleCompositionEngine(): CompositionEngine {
  return new TestDoubleCompositionEngine();
}
