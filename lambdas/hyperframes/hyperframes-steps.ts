/**
 * The HyperFrames render job's steps (hyperframes-job.ts), in the media container on AWS: a render is
 * cut into chunks of frames so that its length is bound neither by one Lambda's 15 minutes nor by one
 * machine's cores (the design of HeyGen's `@hyperframes/aws-lambda`: plan → Map → assemble).
 *
 * - Plan: the project zip unpacked (checked again) and planned by the engine (compiled, probed, its
 *   audio mixed, the frames cut into chunks that each start with a keyframe and share the encoder
 *   settings); the plan directory is stored under the render's `work/` prefix, with the chunk list.
 * - RenderChunk, once per chunk in the workflow's Map state (`max_concurrency` at a time): the plan
 *   files that chunk needs fetched, its frames rendered and encoded, the chunk stored; its frames and
 *   share of the progress added to the record.
 * - Assemble: the chunks joined without re-encoding, the audio laid once, the video probed (a render
 *   that made no video is a failure, never an empty result), a thumbnail taken, both stored, the
 *   minutes rendered charged.
 */
import { mkdir, mkdtemp, readdir, readFile, rm } from 'node:fs/promises';
import { dirname, join } from 'node:path';
import pLimit from 'p-limit';
import { z } from 'zod';
import { videoCredits } from '../billing/plans.js';
import { config } from '../core/config.js';
import { JobFailure } from '../core/errors.js';
import { extractFrame } from '../engines/composition/media-cuts.js';
import { probeMedia } from '../engines/composition/probe.js';
import {
  HYPERFRAMES_FAILURE,
  type HyperframesChunk,
  type HyperframesEngine,
  type HyperframesPlanRole,
  hyperframesEngine,
} from '../engines/hyperframes/index.js';
import { endJob, resumeJob } from '../jobs/job-lifecycle.js';
import { jobStep } from '../jobs/job-steps.js';
import { downloadMediaObject, putMediaObject, readMediaObject } from '../media/media-store.js';
import {
  type HyperframesChunkRef,
  type HyperframesRenderPlan,
  type HyperframesRenderRef,
  hyperframesRenderJob,
} from './hyperframes-job.js';
import { unpackProject } from './hyperframes-project.js';
import {
  addRenderedChunk,
  completeHyperframesRender,
  HYPERFRAMES_RENDER_STATUS,
  type HyperframesRenderRecord,
  hyperframesMediaKeys,
  updateRunningHyperframesRender,
} from './hyperframes-records.js';

/** Progress: 5 once planned, 5–90 as chunks are stored (each its share of the frames), 100 when stored. */
const PROGRESS_PLANNED = 5;
const PROGRESS_CHUNKS_SPAN = 85;
/** Plan files fetched or stored at once. */
const TRANSFER_CONCURRENCY = 16;
/** The plan's file every role reads first (see `HyperframesEngine.planFiles`). */
const PLAN_FILE = 'plan.json';

const CONTENT_TYPES = { mp4: 'video/mp4', webm: 'video/webm', mov: 'video/quicktime' } as const;

/** What the Plan step stores beside the engine's plan: the chunks, for the chunks' progress and the join. */
const chunkListSchema = z.object({
  total_frames: z.number().int().positive(),
  chunks: z.array(z.object({ startFrame: z.number().int(), endFrame: z.number().int() })),
  description: z.string(),
});
type ChunkList = z.infer<typeof chunkListSchema>;
const chunkListKey = (record: HyperframesRenderRecord) => `${hyperframesMediaKeys.work(record)}chunks.json`;

/**
 * The progress points of one chunk: its share of the span, rounded so that the chunks' shares add up
 * to the span exactly whatever order they end in.
 */
export function chunkProgressPoints(chunk: HyperframesChunk, totalFrames: number): number {
  const at = (frame: number) => Math.floor((PROGRESS_CHUNKS_SPAN * frame) / totalFrames);
  return at(chunk.endFrame) - at(chunk.startFrame);
}

async function withWorkDir<T>(renderId: string, work: (directory: string) => Promise<T>): Promise<T> {
  const directory = await mkdtemp(join(config().mediaWorkDir, `hyperframes-${renderId}-`));
  try {
    return await work(directory);
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}

/** The plan files a role needs, fetched into `planDir` (`plan.json` first: it names the others). */
async function fetchPlan(
  engine: HyperframesEngine,
  record: HyperframesRenderRecord,
  planDir: string,
  role: HyperframesPlanRole,
): Promise<void> {
  await mkdir(planDir, { recursive: true });
  await downloadMediaObject(hyperframesMediaKeys.plan(record, PLAN_FILE), join(planDir, PLAN_FILE));
  const limit = pLimit(TRANSFER_CONCURRENCY);
  await Promise.all(
    (await engine.planFiles(planDir, role)).map((file) =>
      limit(async () => {
        const path = join(planDir, ...file.split('/'));
        await mkdir(dirname(path), { recursive: true });
        await downloadMediaObject(hyperframesMediaKeys.plan(record, file), path);
      }),
    ),
  );
}

async function storePlan(record: HyperframesRenderRecord, planDir: string): Promise<void> {
  const entries = await readdir(planDir, { recursive: true, withFileTypes: true });
  const files = entries
    .filter((entry) => entry.isFile())
    .map((entry) =>
      join(entry.parentPath, entry.name)
        .slice(planDir.length + 1)
        .split('\\')
        .join('/'),
    )
    .filter((file) => file !== PLAN_FILE);
  const limit = pLimit(TRANSFER_CONCURRENCY);
  await Promise.all(
    files.map((file) =>
      limit(async () =>
        putMediaObject(
          record.workspace_id,
          hyperframesMediaKeys.plan(record, file),
          await readFile(join(planDir, file)),
          'application/octet-stream',
        ),
      ),
    ),
  );
  // Last: a plan whose `plan.json` can be read has all its files (a retried Plan rewrites them).
  await putMediaObject(
    record.workspace_id,
    hyperframesMediaKeys.plan(record, PLAN_FILE),
    await readFile(join(planDir, PLAN_FILE)),
    'application/json',
  );
}

async function readChunkList(record: HyperframesRenderRecord): Promise<ChunkList> {
  return chunkListSchema.parse(JSON.parse((await readMediaObject(chunkListKey(record))).toString('utf8')));
}

async function plan(ref: HyperframesRenderRef): Promise<HyperframesRenderPlan> {
  const settings = config().hyperframes;
  const record = await resumeJob(hyperframesRenderJob, ref);
  const running =
    record &&
    (await updateRunningHyperframesRender(record, {
      status: HYPERFRAMES_RENDER_STATUS.rendering,
      progress: 1,
    }));
  // Ended or gone: nothing to render (the Map runs no chunk, Assemble finds it ended).
  if (!running) return { chunk_indexes: [], max_concurrency: 1 };
  return withWorkDir(ref.render_id, async (workDir) => {
    const projectDir = join(workDir, 'project');
    await mkdir(projectDir);
    await unpackProject(
      await readMediaObject(running.project.key),
      running.composition,
      projectDir,
      settings,
    );
    const planDir = join(workDir, 'plan');
    const planned = await hyperframesEngine().plan({
      projectDir,
      planDir,
      entryFile: running.composition,
      fps: running.fps,
      quality: running.quality,
      format: running.format,
      variables: running.variables,
      outputPreset: running.output_preset,
      width: running.width,
      height: running.height,
      timeoutMs: settings.renderTimeoutMs,
      chunkFrames: settings.chunkFrames,
      maxChunks: settings.maxChunks,
    });
    await storePlan(running, planDir);
    const chunkList: ChunkList = {
      total_frames: planned.totalFrames,
      chunks: planned.chunks,
      description: planned.description,
    };
    await putMediaObject(
      running.workspace_id,
      chunkListKey(running),
      Buffer.from(JSON.stringify(chunkList)),
      'application/json',
    );
    await updateRunningHyperframesRender(running, {
      progress: PROGRESS_PLANNED,
      frames_rendered: 0,
      total_frames: planned.totalFrames,
    });
    return {
      chunk_indexes: planned.chunks.map((_, index) => index),
      max_concurrency: Math.min(config().renderChunkConcurrency, Math.max(1, planned.chunks.length)),
    };
  });
}

async function renderChunk(input: HyperframesChunkRef): Promise<null> {
  const { chunk_index: chunkIndex, ...ref } = input;
  const record = await resumeJob(hyperframesRenderJob, ref);
  if (!record) return null;
  const engine = hyperframesEngine();
  const chunkList = await readChunkList(record);
  const chunk = chunkList.chunks[chunkIndex];
  if (!chunk) throw new Error(`render ${ref.render_id} has no chunk ${chunkIndex}`);
  return withWorkDir(ref.render_id, async (workDir) => {
    const planDir = join(workDir, 'plan');
    await fetchPlan(engine, record, planDir, { chunk: chunkIndex });
    const chunkPath = join(workDir, `chunk.${record.format}`);
    const frames = await engine.renderChunk(
      planDir,
      chunkIndex,
      chunkPath,
      config().hyperframes.renderTimeoutMs,
    );
    await putMediaObject(
      record.workspace_id,
      hyperframesMediaKeys.chunk(record, chunkIndex, record.format),
      await readFile(chunkPath),
      CONTENT_TYPES[record.format],
    );
    await addRenderedChunk(record, {
      frames,
      progressPoints: chunkProgressPoints(chunk, chunkList.total_frames),
    });
    return null;
  });
}

async function assemble(ref: HyperframesRenderRef): Promise<null> {
  const record = await resumeJob(hyperframesRenderJob, ref);
  if (!record) return null;
  const engine = hyperframesEngine();
  const chunkList = await readChunkList(record);
  return withWorkDir(ref.render_id, async (workDir) => {
    const planDir = join(workDir, 'plan');
    await fetchPlan(engine, record, planDir, 'assembler');
    const chunkPaths = await Promise.all(
      chunkList.chunks.map((_, index) =>
        downloadMediaObject(
          hyperframesMediaKeys.chunk(record, index, record.format),
          join(workDir, `chunk-${String(index).padStart(5, '0')}.${record.format}`),
        ),
      ),
    );
    const videoPath = join(workDir, `video.${record.format}`);
    await engine.assemble(planDir, chunkPaths, videoPath);

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
    // The frames the chunks made (a one-pass plan learns its count as it renders).
    const rendered = record.frames_rendered ?? chunkList.total_frames;
    const done = await completeHyperframesRender(record, {
      outputs: { video_key: videoKey, thumbnail_key: thumbnailKey },
      duration,
      frames_rendered: rendered,
      total_frames: rendered,
      engines: { render: `${engine.name}: ${chunkList.description}` },
      credits_due: Math.min(record.credits_reserved ?? 0, videoCredits(duration, record.resolution)),
    });
    await endJob(hyperframesRenderJob, hyperframesRenderJob.refOf(record), done);
    return null;
  });
}

export const Plan = /* @__PURE__ */ jobStep(hyperframesRenderJob, 'Plan', plan);
export const RenderChunk = /* @__PURE__ */ jobStep(hyperframesRenderJob, 'RenderChunk', renderChunk);
export const Assemble = /* @__PURE__ */ jobStep(hyperframesRenderJob, 'Assemble', assemble);
