/**
 * The HyperFrames render job's step (hyperframes-job.ts): Render, in the media container on AWS. The
 * project zip unpacked (checked again), the composition rendered by the configured engine with its
 * progress written as frames are captured, the video probed (a render that made no video is a failure,
 * never an empty result), a thumbnail taken, both stored, the minutes rendered charged.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { join } from 'node:path';
import { videoCredits } from '../billing/plans.js';
import { config } from '../core/config.js';
import { JobFailure } from '../core/errors.js';
import { extractFrame } from '../engines/composition/media-cuts.js';
import { probeMedia } from '../engines/composition/probe.js';
import { HYPERFRAMES_FAILURE, hyperframesEngine } from '../engines/hyperframes/index.js';
import { endJob, resumeJob } from '../jobs/job-lifecycle.js';
import { jobStep } from '../jobs/job-steps.js';
import { putMediaObject, readMediaObject } from '../media/media-store.js';
import { type HyperframesRenderRef, hyperframesRenderJob } from './hyperframes-job.js';
import { unpackProject } from './hyperframes-project.js';
import {
  completeHyperframesRender,
  HYPERFRAMES_RENDER_STATUS,
  hyperframesMediaKeys,
  updateRunningHyperframesRender,
} from './hyperframes-records.js';

/** Progress: 5 once the project is unpacked, 5–90 while frames are captured, 100 when stored. */
const PROGRESS_CAPTURE_FROM = 5;
const PROGRESS_CAPTURE_SPAN = 85;
/** Progress is written when it moved by this many points (and at the last frame). */
const PROGRESS_WRITE_EVERY = 5;

const CONTENT_TYPES = { mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime' } as const;

async function render(ref: HyperframesRenderRef): Promise<null> {
  const record = await resumeJob(hyperframesRenderJob, ref);
  if (!record) return null;
  const running = await updateRunningHyperframesRender(record, {
    status: HYPERFRAMES_RENDER_STATUS.rendering,
    progress: 1,
  });
  if (!running) return null;
  const settings = config().hyperframes;
  const workDir = await mkdtemp(join(config().mediaWorkDir, `hyperframes-${ref.render_id}-`));
  try {
    const projectDir = join(workDir, 'project');
    await mkdir(projectDir);
    await unpackProject(await readMediaObject(record.project.key), record.composition, projectDir, settings);
    await updateRunningHyperframesRender(record, { progress: PROGRESS_CAPTURE_FROM });

    const engine = hyperframesEngine();
    const videoPath = join(workDir, `video.${record.format}`);
    let progressWritten = PROGRESS_CAPTURE_FROM;
    let progressWrite: Promise<unknown> = Promise.resolve();
    const result = await engine.render({
      projectDir,
      entryFile: record.composition,
      fps: record.fps,
      quality: record.quality,
      format: record.format,
      variables: record.variables,
      outputPreset: record.output_preset,
      outputPath: videoPath,
      timeoutMs: settings.renderTimeoutMs,
      onProgress: (framesDone, totalFrames) => {
        const progress =
          PROGRESS_CAPTURE_FROM + Math.floor((PROGRESS_CAPTURE_SPAN * framesDone) / Math.max(1, totalFrames));
        if (progress - progressWritten < PROGRESS_WRITE_EVERY && framesDone < totalFrames) return;
        progressWritten = progress;
        // In order, never two at a time; a failed progress write does not fail the render.
        progressWrite = progressWrite
          .then(() =>
            updateRunningHyperframesRender(record, {
              progress,
              frames_rendered: framesDone,
              total_frames: totalFrames,
            }),
          )
          .catch(() => undefined);
      },
    });
    await progressWrite;

    const info = await probeMedia(videoPath).catch((error: unknown) => {
      throw new JobFailure(HYPERFRAMES_FAILURE.renderFailed, 'The render wrote no readable video.', {
        cause: error,
      });
    });
    const video = info.streams.find((stream) => stream.type === 'video');
    if (!video || !(info.durationSeconds > 0)) {
      throw new JobFailure(HYPERFRAMES_FAILURE.renderFailed, 'The render wrote a video without pictures.');
    }
    const duration = Math.round(info.durationSeconds * 1000) / 1000;
    // A frame inside the video: many compositions fade in from an empty first frame.
    const thumbnail = await extractFrame(
      videoPath,
      Math.min(1000, Math.floor((duration * 1000) / 2)),
      join(workDir, 'thumbnail.jpg'),
    );
    const videoKey = hyperframesMediaKeys.output(record, `video.${record.format}`);
    const thumbnailKey = hyperframesMediaKeys.output(record, 'thumbnail.jpg');
    await putMediaObject(
      record.workspace_id,
      videoKey,
      await readFile(videoPath),
      CONTENT_TYPES[record.format],
    );
    await putMediaObject(record.workspace_id, thumbnailKey, await readFile(thumbnail), 'image/jpeg');
    const done = await completeHyperframesRender(record, {
      outputs: { video_key: videoKey, thumbnail_key: thumbnailKey },
      duration,
      frames_rendered: result.totalFrames,
      total_frames: result.totalFrames,
      engines: { render: `${engine.name}: ${result.description}` },
      credits_due: Math.min(record.credits_reserved ?? 0, videoCredits(duration, record.resolution)),
    });
    await endJob(hyperframesRenderJob, hyperframesRenderJob.refOf(record), done);
    return null;
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

export const Render = /* @__PURE__ */ jobStep(hyperframesRenderJob, 'Render', render);
