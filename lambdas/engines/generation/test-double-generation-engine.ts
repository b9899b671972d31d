/**
 * The image and video generation test double (`MEDIA_GENERATION_ENGINE=test-double`, tests only: see
 * `TEST_DOUBLE_ENGINE` in core/config.ts). Real, valid, obviously generated-by-nobody media: solid grey
 * PNGs of the requested size (sharp), and a grey H.264 MP4 of the requested length and frame (64x36
 * when none is asked for; the npm ffmpeg, 4 fps) written to the media bucket where Nova Reel would put it
 * (`<prefix>/test-double-<run>/output.mp4`). Unlike Nova Reel it takes every frame and reference media
 * (it reads none of them), so that the jobs' paths around a capable engine can be tested.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { PutObjectCommand } from '@aws-sdk/client-s3';
import { s3Client } from '../../core/aws-clients.js';
import { TEST_DOUBLE_ENGINE } from '../../core/config.js';
import { ensureExecutable, ffmpegPath, runProcess } from '../composition/ffmpeg-binaries.js';
import {
  type ImageGenerationRequest,
  type ImageGenerationResult,
  type MediaGenerationEngine,
  MediaGenerationError,
  type VideoGenerationRequest,
  type VideoGenerationResult,
  validateImageRequest,
  validateVideoRequest,
} from './generation-engine.js';

class TestDoubleGenerationEngine implements MediaGenerationEngine {
  readonly name = TEST_DOUBLE_ENGINE;

  async generateImage(request: ImageGenerationRequest): Promise<ImageGenerationResult> {
    const { width, height, count } = validateImageRequest(request);
    // Loaded when used: every bundle that can pick an engine carries this module, and only the media
    // image has sharp.
    const { default: sharp } = await import('sharp');
    const png = await sharp({
      create: { width, height, channels: 3, background: { r: 128, g: 128, b: 128 } },
    })
      .png()
      .toBuffer();
    return {
      engine: this.name,
      model: TEST_DOUBLE_ENGINE,
      images: Array.from({ length: count }, () => new Uint8Array(png)),
      mediaType: 'image/png',
      width,
      height,
    };
  }

  async generateVideo(request: VideoGenerationRequest): Promise<VideoGenerationResult> {
    const durationSeconds = validateVideoRequest(request);
    // x264 with yuv420p needs even sides.
    const even = (side: number) => Math.max(2, Math.round(side / 2) * 2);
    const width = even(request.frame?.width ?? 64);
    const height = even(request.frame?.height ?? 36);
    const directory = await mkdtemp(path.join(tmpdir(), 'generation-double-'));
    try {
      const file = path.join(directory, 'output.mp4');
      const ffmpeg = ffmpegPath();
      await ensureExecutable(ffmpeg);
      await runProcess(
        ffmpeg,
        [
          '-v',
          'error',
          '-f',
          'lavfi',
          '-i',
          `color=c=gray:s=${width}x${height}:r=4:d=${durationSeconds}`,
          '-c:v',
          'libx264',
          '-pix_fmt',
          'yuv420p',
          '-y',
          file,
        ],
        { timeoutMs: 30_000 },
      );
      const prefix = request.output.prefix.replace(/^\/+|\/+$/g, '');
      const key = `${prefix ? `${prefix}/` : ''}test-double-${request.runId.replace(/[^A-Za-z0-9-]/g, '-')}/output.mp4`;
      await s3Client().send(
        new PutObjectCommand({
          Bucket: request.output.bucket,
          Key: key,
          Body: await readFile(file),
          ContentType: 'video/mp4',
        }),
      );
      return {
        engine: this.name,
        model: TEST_DOUBLE_ENGINE,
        bucket: request.output.bucket,
        key,
        mediaType: 'video/mp4',
        durationSeconds,
        width,
        height,
      };
    } catch (error) {
      throw new MediaGenerationError(
        'media_generation_failed',
        `The generation test double could not make its video: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    } finally {
      await rm(directory, { recursive: true, force: true });
    }
  }
}

export function createTestDoubleGenerationEngine(): MediaGenerationEngine {
  return new TestDoubleGenerationEngine();
}
