/**
 * The model video job's step (model-video-job.ts): Generate, in the media container on AWS. The frame is
 * settled (a fixed ratio, or `adaptive`: the ratio nearest the first frame's, or the first reference's),
 * the deployment's generation engine films the prompt in its whole shots (Nova Reel: 6 s each) into the
 * media bucket, and ffmpeg fits the result to the frame (scaled to cover it, centred, cropped) and the
 * length asked for before it is stored. An engine that cannot make the video (none configured, a frame
 * or mode it does not have) fails the job `engine_unavailable`, refunded, with the engine's reason.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { config } from '../core/config.js';
import { JobFailure } from '../core/errors.js';
import { nowSeconds } from '../core/ids.js';
import {
  ensureExecutable,
  ffmpegPath,
  ProcessError,
  runProcess,
} from '../engines/composition/ffmpeg-binaries.js';
import { probeMedia } from '../engines/composition/probe.js';
import {
  generationEngine,
  MEDIA_GENERATION_NOT_CONFIGURED,
  videoGenerationConfigured,
} from '../engines/generation/index.js';
import { endJob, resumeJob } from '../jobs/job-lifecycle.js';
import { jobStep } from '../jobs/job-steps.js';
import { downloadMediaObject, putMediaObject, readMediaObject } from '../media/media-store.js';
import { MODEL_VIDEO_FAILURE, type ModelVideoRef, modelVideoJob } from './model-video-job.js';
import {
  ADAPTIVE_ASPECT_RATIO,
  HIGH_RESOLUTION_ASPECT_RATIOS,
  isHighResolution,
  MODEL_VIDEO_ASPECT_RATIOS,
  MODEL_VIDEO_STATUS,
  type ModelVideoAspectRatio,
  type ModelVideoRecord,
  modelVideoFrame,
  modelVideoMediaKeys,
  nearestAspectRatio,
  updateRunningModelVideo,
} from './model-video-records.js';

/** The engines film whole shots of this length; the video is made long enough and cut. */
const SHOT_SECONDS = 6;
/** Deadline of the ffmpeg pass that fits the footage: a 15 s clip re-encodes in seconds. */
const FIT_TIMEOUT_MS = 120_000;

/** The picture `adaptive` follows: the first frame, else the first reference image, else video. */
function pictureToFollow(record: ModelVideoRecord): string | undefined {
  return (record.image ?? record.reference_images[0] ?? record.reference_videos[0])?.key;
}

async function settleAspectRatio(record: ModelVideoRecord, workDir: string): Promise<ModelVideoAspectRatio> {
  if (record.aspect_ratio !== ADAPTIVE_ASPECT_RATIO) return record.aspect_ratio;
  const key = pictureToFollow(record);
  if (!key) return '16:9';
  const info = await probeMedia(await downloadMediaObject(key, join(workDir, 'follow'))).catch(
    (error: unknown) => {
      throw new JobFailure(
        MODEL_VIDEO_FAILURE.invalidInput,
        'The picture the aspect ratio follows (the first frame, or the first reference) cannot be read as an image or video.',
        { cause: error },
      );
    },
  );
  const picture = info.streams.find((stream) => stream.type === 'video' && stream.width && stream.height);
  if (!picture?.width || !picture.height) {
    throw new JobFailure(
      MODEL_VIDEO_FAILURE.invalidInput,
      'The picture the aspect ratio follows (the first frame, or the first reference) has no picture in it.',
    );
  }
  // At 1080p and 2k, reference videos are 16:9 or 9:16; image to video follows its image at any size.
  const allowed =
    record.mode === 'reference_to_video' && isHighResolution(record.resolution)
      ? HIGH_RESOLUTION_ASPECT_RATIOS
      : MODEL_VIDEO_ASPECT_RATIOS;
  return nearestAspectRatio(picture.width, picture.height, allowed);
}

/** The footage scaled to cover the frame, centred and cropped, cut to `seconds`, as H.264 (+ AAC) MP4. */
async function fitFootage(
  input: string,
  output: string,
  frame: { width: number; height: number },
  seconds: number,
): Promise<void> {
  const ffmpeg = ffmpegPath();
  await ensureExecutable(ffmpeg);
  const { width, height } = frame;
  try {
    await runProcess(
      ffmpeg,
      [
        '-hide_banner',
        '-nostdin',
        '-loglevel',
        'error',
        '-y',
        '-i',
        `file:${input}`,
        '-t',
        String(seconds),
        '-map',
        '0:v:0',
        '-map',
        '0:a:0?',
        '-vf',
        `scale=${width}:${height}:force_original_aspect_ratio=increase:flags=lanczos,crop=${width}:${height},setsar=1`,
        '-c:v',
        'libx264',
        '-preset',
        'veryfast',
        '-crf',
        '20',
        '-pix_fmt',
        'yuv420p',
        '-c:a',
        'aac',
        '-movflags',
        '+faststart',
        `file:${output}`,
      ],
      { timeoutMs: FIT_TIMEOUT_MS },
    );
  } catch (error) {
    if (error instanceof ProcessError && error.reason === 'exit_code') {
      throw new JobFailure(
        MODEL_VIDEO_FAILURE.generationFailed,
        'The engine made a video ffmpeg cannot read; its credits were returned.',
        { cause: error },
      );
    }
    throw error;
  }
}

async function generate(ref: ModelVideoRef): Promise<null> {
  const found = await resumeJob(modelVideoJob, ref);
  if (!found) return null;
  const record = await updateRunningModelVideo(found, { status: MODEL_VIDEO_STATUS.processing });
  if (!record) return null;
  if (!videoGenerationConfigured()) {
    throw new JobFailure(
      MODEL_VIDEO_FAILURE.engineUnavailable,
      `Model videos need a video generation model. ${MEDIA_GENERATION_NOT_CONFIGURED}`,
    );
  }
  await mkdir(config().mediaWorkDir, { recursive: true });
  const workDir = await mkdtemp(join(config().mediaWorkDir, `model-video-${ref.video_id}-`));
  try {
    const aspectRatio = await settleAspectRatio(record, workDir);
    const frame = modelVideoFrame(record.resolution, aspectRatio);
    const engine = generationEngine();
    const generated = await engine.generateVideo({
      prompt: record.prompt,
      durationSeconds: Math.ceil(record.duration / SHOT_SECONDS) * SHOT_SECONDS,
      seed: record.seed,
      output: { bucket: config().bucketName, prefix: modelVideoMediaKeys.engineOutput(record) },
      runId: record.video_id,
      frame,
      ...(record.image
        ? {
            firstFrame: { bytes: await readMediaObject(record.image.key), mediaType: record.image.mime_type },
          }
        : {}),
      ...(record.mode === 'reference_to_video'
        ? {
            references: {
              images: record.reference_images.map((input) => input.key),
              videos: record.reference_videos.map((input) => input.key),
              audio: record.reference_audio.map((input) => input.key),
            },
          }
        : {}),
    });
    const raw = await downloadMediaObject(generated.key, join(workDir, 'generated.mp4'));
    const fitted = join(workDir, 'video.mp4');
    await fitFootage(raw, fitted, frame, record.duration);
    const key = modelVideoMediaKeys.video(record);
    await putMediaObject(record.workspace_id, key, await readFile(fitted), 'video/mp4');
    const rendered = `${generated.width}x${generated.height}`;
    const delivered = `${frame.width}x${frame.height}`;
    const done = await updateRunningModelVideo(record, {
      status: MODEL_VIDEO_STATUS.completed,
      video_key: key,
      width: frame.width,
      height: frame.height,
      aspect_ratio: aspectRatio,
      engines: {
        generation: `${generated.engine} (${generated.model}), ${generated.durationSeconds} s at ${rendered}`,
        fit:
          rendered === delivered
            ? `ffmpeg: cut to ${record.duration} s`
            : `ffmpeg: scaled from ${rendered} to cover ${delivered} (lanczos, centred crop), cut to ${record.duration} s`,
      },
      completed_at: nowSeconds(),
    });
    await endJob(modelVideoJob, ref, done);
    return null;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

export const Generate = /* @__PURE__ */ jobStep(modelVideoJob, 'Generate', generate);
