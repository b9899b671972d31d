/**
 * Chunked video renders (docs/architecture.md, "Chunked video renders"): a video longer than one chunk
 * (`VIDEO_RENDER_CHUNK_SECONDS`, rounded down to whole GOPs) is rendered by the workflow's Map state, a
 * Lambda invocation per chunk, instead of by one ffmpeg run in Compose.
 *
 * Compose stores the composition request with a copy of every file it reads (work keys in place of its
 * paths), renders the whole timeline's sound once and answers the chunks; each ComposeChunk loads the
 * request into its own scratch directory and renders its frames' pictures; JoinChunks concatenates the
 * chunks and muxes the sound, nothing re-encoded. Everything lives under the video's `work/compose/`,
 * which the job framework removes when the video ends.
 */
import { mkdir, mkdtemp, readFile, rm } from 'node:fs/promises';
import { basename, join } from 'node:path';
import { config } from '../core/config.js';
import {
  type ChunkedComposition,
  type CompositionRequest,
  compositionFiles,
  compositionFrameCount,
  DEFAULT_FPS,
  type FrameChunk,
  frameChunks,
  withFilePaths,
} from '../engines/composition/index.js';
import { downloadMediaObject, putMediaObject, readMediaObject } from '../media/media-store.js';
import { composing, publishTextOutputs, putVideoOutputs } from './render-outputs.js';
import type { ComposePlan, ComposeResult, RenderChunk, VideoRef } from './video-render-job.js';
import { type VideoRecord, videoMediaKeys } from './videos.js';

export const composeWork = {
  /** A work file of Compose's for the join (the SRT, the transcript). */
  kept: (ref: VideoRef) => (name: string) => videoMediaKeys.work(ref, `compose/${name}`),
  request: (ref: VideoRef) => videoMediaKeys.work(ref, 'compose/request.json'),
  file: (ref: VideoRef, index: number, path: string) =>
    videoMediaKeys.work(ref, `compose/files/${index}-${basename(path)}`),
  sound: (ref: VideoRef) => videoMediaKeys.work(ref, 'compose/sound.m4a'),
  chunk: (ref: VideoRef, index: number, captioned: boolean) =>
    videoMediaKeys.work(ref, `compose/chunks/${index}${captioned ? '-captioned' : ''}.mp4`),
};

/** The stored request: its files by key (each with the name it is downloaded as) and the request. */
interface StoredComposition {
  files: { key: string; name: string }[];
  request: CompositionRequest;
}

/**
 * The chunks `request` is rendered in, or none: the engine renders in chunks (mp4 only) and the video
 * is longer than one chunk.
 */
export function chunksOf(request: CompositionRequest, chunked: ChunkedComposition | undefined): FrameChunk[] {
  if (!chunked || request.format !== 'mp4') return [];
  const fps = request.fps ?? DEFAULT_FPS;
  const chunks = frameChunks({
    totalFrames: compositionFrameCount(request),
    fps,
    gopFrames: chunked.gopFrames(fps),
    chunkSeconds: config().videoRenderChunkSeconds,
  });
  return chunks.length > 1 ? chunks : [];
}

/**
 * Compose's part of a chunked render: the request and its files stored for the chunks, the sound
 * rendered once and stored; the plan the Map state and JoinChunks follow.
 */
export async function planChunkedRender(
  ref: VideoRef,
  request: CompositionRequest,
  chunked: ChunkedComposition,
  chunks: readonly FrameChunk[],
  text: { subtitle_key: string | null; transcript_key: string | null },
): Promise<ComposePlan> {
  const files = compositionFiles(request).map((path, index) => ({
    path,
    key: composeWork.file(ref, index, path),
    name: `${index}-${basename(path)}`,
  }));
  await Promise.all(
    files.map(async ({ path, key }) =>
      putMediaObject(ref.workspace_id, key, await readFile(path), 'application/octet-stream'),
    ),
  );
  const composition: StoredComposition = {
    files: files.map(({ key, name }) => ({ key, name })),
    request: withFilePaths(request, new Map(files.map(({ path, key }) => [path, key]))),
  };
  const compositionKey = composeWork.request(ref);
  await putMediaObject(
    ref.workspace_id,
    compositionKey,
    Buffer.from(JSON.stringify(composition)),
    'application/json',
  );
  const { soundPath } = await composing(() => chunked.composeSound(request));
  const soundKey = composeWork.sound(ref);
  await putMediaObject(ref.workspace_id, soundKey, await readFile(soundPath), 'audio/mp4');
  return {
    chunks: chunks.map((chunk) => ({
      index: chunk.index,
      start_frame: chunk.startFrame,
      end_frame: chunk.endFrame,
    })),
    max_concurrency: config().renderChunkConcurrency,
    chunked: {
      composition_key: compositionKey,
      sound_key: soundKey,
      captioned: text.subtitle_key !== null && !request.burnCaptions,
      width: request.width,
      height: request.height,
      fps: request.fps ?? DEFAULT_FPS,
      ...text,
    },
  };
}

async function scratch<T>(ref: VideoRef, work: (workDir: string) => Promise<T>): Promise<T> {
  await mkdir(config().mediaWorkDir, { recursive: true });
  const workDir = await mkdtemp(join(config().mediaWorkDir, `video-${ref.video_id}-`));
  try {
    return await work(workDir);
  } finally {
    await rm(workDir, { recursive: true, force: true });
  }
}

/** One chunk's pictures, rendered from the stored request and stored as the chunk's work files. */
export async function composeChunk(
  ref: VideoRef,
  compositionKey: string,
  chunk: RenderChunk,
  chunked: ChunkedComposition,
): Promise<void> {
  await scratch(ref, async (workDir) => {
    const composition = JSON.parse(
      (await readMediaObject(compositionKey)).toString('utf8'),
    ) as StoredComposition;
    const local = new Map<string, string>();
    await Promise.all(
      composition.files.map(async ({ key, name }) => {
        local.set(key, await downloadMediaObject(key, join(workDir, name)));
      }),
    );
    const request = { ...withFilePaths(composition.request, local), workDir };
    const pictures = await composing(() =>
      chunked.composePictures(request, { startFrame: chunk.start_frame, endFrame: chunk.end_frame }),
    );
    await Promise.all([
      putMediaObject(
        ref.workspace_id,
        composeWork.chunk(ref, chunk.index, false),
        await readFile(pictures.videoPath),
        'video/mp4',
      ),
      pictures.captionedVideoPath
        ? putMediaObject(
            ref.workspace_id,
            composeWork.chunk(ref, chunk.index, true),
            await readFile(pictures.captionedVideoPath),
            'video/mp4',
          )
        : undefined,
    ]);
  });
}

/** The chunks joined with the sound (nothing re-encoded) and the outputs stored. */
export async function joinChunks(
  video: VideoRecord,
  plan: ComposePlan & { chunked: NonNullable<ComposePlan['chunked']> },
  chunked: ChunkedComposition,
): Promise<NonNullable<ComposeResult>> {
  const spec = plan.chunked;
  return scratch(video, async (workDir) => {
    const download = (key: string, name: string) => downloadMediaObject(key, join(workDir, name));
    const chunks = await Promise.all(
      plan.chunks.map(async (chunk) => ({
        videoPath: await download(composeWork.chunk(video, chunk.index, false), `chunk-${chunk.index}.mp4`),
        captionedVideoPath: spec.captioned
          ? await download(composeWork.chunk(video, chunk.index, true), `chunk-${chunk.index}-captioned.mp4`)
          : null,
      })),
    );
    const soundPath = await download(spec.sound_key, 'sound.m4a');
    const result = await composing(() =>
      chunked.joinChunks({
        workDir,
        format: 'mp4',
        width: spec.width,
        height: spec.height,
        fps: spec.fps,
        chunks,
        soundPath,
      }),
    );
    return putVideoOutputs(video, 'mp4', result, await publishTextOutputs(video, spec));
  });
}
