/**
 * Where a chunked render cuts a video's frames (pure): chunks of whole GOPs, so every chunk starts on a
 * frame where the single pass has a key frame too, and the concat demuxer can join the chunks as they
 * were encoded.
 */

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
