/**
 * The background removal job's step (background-removal-job.ts): Separate, in the media container on
 * AWS. One decode of the source, every frame segmented once, each requested layer encoded as the frames
 * go (`separateVideoLayers` of the segmentation engine), the layers stored, the source minutes charged.
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { backgroundRemovalCredits } from '../billing/plans.js';
import { config } from '../core/config.js';
import { JobFailure } from '../core/errors.js';
import { nowSeconds } from '../core/ids.js';
import { probeMedia } from '../engines/composition/probe.js';
import { VISION_FAILURE, VisionEngineError } from '../engines/vision/human-runtime.js';
import { LAYER_FORMATS, separateVideoLayers } from '../engines/vision/segmentation.js';
import { endJob, resumeJob } from '../jobs/job-lifecycle.js';
import { jobStep } from '../jobs/job-steps.js';
import { downloadMediaObject, putMediaObject } from '../media/media-store.js';
import {
  BACKGROUND_REMOVAL_FAILURE,
  type BackgroundRemovalRef,
  backgroundRemovalJob,
} from './background-removal-job.js';
import {
  BACKGROUND_REMOVAL_STATUS,
  type BackgroundRemovalLayer,
  backgroundRemovalMediaKeys,
  MAX_SOURCE_SECONDS,
  updateRunningBackgroundRemoval,
} from './background-removal-records.js';

/** Progress: 5 once the source is read, 5–95 while frames are processed, 100 when the layers are stored. */
const PROGRESS_WRITE_EVERY = 5;

async function separate(ref: BackgroundRemovalRef): Promise<null> {
  const record = await resumeJob(backgroundRemovalJob, ref);
  if (!record) return null;
  const running = await updateRunningBackgroundRemoval(record, {
    status: BACKGROUND_REMOVAL_STATUS.processing,
    progress: 1,
  });
  if (!running) return null;
  const workDir = await mkdtemp(
    join(config().mediaWorkDir, `background-removal-${ref.background_removal_id}-`),
  );
  try {
    const source = await downloadMediaObject(record.source.key, join(workDir, 'source'));
    const info = await probeMedia(source);
    const video = info.streams.find((stream) => stream.type === 'video' && !stream.attachedPicture);
    if (!video) {
      throw new JobFailure(
        BACKGROUND_REMOVAL_FAILURE.invalidMedia,
        'The source has no video stream: a background removal needs a video (MP4, MOV, WebM...).',
      );
    }
    const seconds = info.durationSeconds || video.durationSeconds || 0;
    if (seconds > MAX_SOURCE_SECONDS) {
      throw new JobFailure(
        BACKGROUND_REMOVAL_FAILURE.sourceTooLong,
        `The video is ${seconds.toFixed(1)} s long; one background removal processes at most ${MAX_SOURCE_SECONDS} s. Cut it into parts.`,
      );
    }
    await updateRunningBackgroundRemoval(record, {
      progress: 5,
      credits_due: Math.min(record.credits_reserved ?? 0, backgroundRemovalCredits(seconds)),
    });

    const files = Object.fromEntries(
      record.layers.map((layer) => [layer, join(workDir, `${layer}.${LAYER_FORMATS[layer].extension}`)]),
    ) as Partial<Record<BackgroundRemovalLayer, string>>;
    const expectedFrames = Math.max(1, Math.round(seconds * (video.frameRate ?? 25)));
    let progressWritten = 5;
    let progressWrite: Promise<unknown> = Promise.resolve();
    const result = await separateVideoLayers({
      inputPath: source,
      outputs: files,
      // The Lambda's deadline is 900 s; the engine stops first so the failure says what happened.
      timeoutMs: 840_000,
      onFrame: (done) => {
        const progress =
          5 +
          Math.floor((90 * Math.min(1, done / expectedFrames)) / PROGRESS_WRITE_EVERY) * PROGRESS_WRITE_EVERY;
        if (progress <= progressWritten) return;
        progressWritten = progress;
        // In order, never two at a time; a failed progress write does not fail the job.
        progressWrite = progressWrite
          .then(() => updateRunningBackgroundRemoval(record, { progress }))
          .catch(() => undefined);
      },
    }).catch((error: unknown) => {
      if (error instanceof VisionEngineError && error.failureCode === VISION_FAILURE.timeout) {
        throw new JobFailure(
          BACKGROUND_REMOVAL_FAILURE.timeout,
          `${error.message}: the video is too long or too large for one run. Cut it into parts.`,
        );
      }
      throw error;
    });
    await progressWrite;
    if (result.personFrames === 0) {
      throw new JobFailure(
        BACKGROUND_REMOVAL_FAILURE.noPerson,
        `No person was found in any of the ${result.frames} frames, so there is no foreground to separate; the person segmentation model looks for people (upper body or whole) facing the camera.`,
      );
    }

    const outputs: Partial<Record<BackgroundRemovalLayer, string>> = {};
    for (const layer of record.layers) {
      const { extension, contentType } = LAYER_FORMATS[layer];
      const key = backgroundRemovalMediaKeys.output(record, `${layer}.${extension}`);
      await putMediaObject(record.workspace_id, key, await readFile(files[layer] as string), contentType);
      outputs[layer] = key;
    }
    const done = await updateRunningBackgroundRemoval(record, {
      status: BACKGROUND_REMOVAL_STATUS.completed,
      outputs,
      duration: Math.round((result.frames / result.frameRate) * 1000) / 1000,
      engines: {
        segmentation: 'mediapipe-selfie (tfjs wasm), smoothed over time',
        foreground: 'vp8 with alpha (webm)',
        background: `running background plate, ${(result.inpaintedFraction * 100).toFixed(1)} % of covered pixels inpainted`,
      },
      progress: 100,
      completed_at: nowSeconds(),
    });
    await endJob(backgroundRemovalJob, backgroundRemovalJob.refOf(record), done);
    return null;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

export const Separate = /* @__PURE__ */ jobStep(backgroundRemovalJob, 'Separate', separate);
