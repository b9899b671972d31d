/**
 * Where a chunked render cuts a video's frames (pure): chunks of whole GOPs, so every chunk starts on a
 * frame where the single pass has a key frame too, and the concat demuxer can join the chunks as they
 * were encoded.
 */
import { type CompositionRequest, compositionInputFiles, DEFAULT_FPS } from './composition-engine.js';
import { sceneFrameCounts } from './ffmpeg-arguments.js';

/** Frames `[startFrame, endFrame)` of the joined video. */
export interface FrameChunk {
  index: number;
  startFrame: number;
  endFrame: number;
}

/**
 * The chunks of a video of `totalFrames`: each `chunkSeconds` rounded down to whole GOPs (at least
 * one GOP), the last one what is left. One chunk when the video is no longer than one.
 */
export function frameChunks(options: {
  totalFrames: number;
  fps: number;
  gopFrames: number;
  chunkSeconds: number;
}): FrameChunk[] {
  const { totalFrames, fps, gopFrames } = options;
  const chunkFrames = Math.max(1, Math.floor((options.chunkSeconds * fps) / gopFrames)) * gopFrames;
  const chunks: FrameChunk[] = [];
  for (let startFrame = 0; startFrame < totalFrames; startFrame += chunkFrames)
    chunks.push({
      index: chunks.length,
      startFrame,
      endFrame: Math.min(totalFrames, startFrame + chunkFrames),
    });
  return chunks;
}

/** Frames of the joined video of `request` (its scenes on the cumulative frame grid). */
export function compositionFrameCount(request: Pick<CompositionRequest, 'scenes' | 'fps'>): number {
  return sceneFrameCounts(
    request.scenes.map((scene) => scene.durationMs),
    request.fps ?? DEFAULT_FPS,
  ).reduce((sum, frames) => sum + frames, 0);
}

/**
 * Every file a request reads (inputs, marks, the caption font): what a chunk rendered elsewhere needs
 * a copy of.
 */
export function compositionFiles(request: CompositionRequest): string[] {
  const files = new Set(compositionInputFiles(request));
  for (const file of [
    request.watermark?.imagePath,
    request.logo?.imagePath,
    request.captionStyle?.font?.path,
  ])
    if (file) files.add(file);
  return [...files];
}

/**
 * The request with every file path in `paths` replaced (a file of the request is a whole string
 * value: paths are absolute, no caption or colour equals one).
 */
export function withFilePaths<T extends object>(request: T, paths: ReadonlyMap<string, string>): T {
  return JSON.parse(JSON.stringify(request), (_key, value) =>
    typeof value === 'string' ? (paths.get(value) ?? value) : value,
  ) as T;
}
