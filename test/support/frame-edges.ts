/**
 * Where a bright shape's left edge is in each frame of a video: one row of every frame decoded (grey)
 * and scanned from the left. Tests of moving boxes read from it whether every frame is there once, in
 * order (a duplicated frame shows as no move, a missing one as a double move).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ffmpegPath, runProcess } from '../../lambdas/engines/composition/ffmpeg-binaries.js';

/** Per frame, the first column of row `row` brighter than `threshold` (0–255), or -1. */
export async function leftEdgePerFrame(
  video: string,
  { row, width, threshold = 128 }: { row: number; width: number; threshold?: number },
): Promise<number[]> {
  const scratch = await mkdtemp(join(tmpdir(), 'frame-edges-'));
  try {
    const raw = join(scratch, 'rows.gray');
    // Grey before the crop: a one-pixel row has no chroma row of its own in yuv420p.
    // biome-ignore format: one option per line
    await runProcess(ffmpegPath(), [
      '-v', 'error', '-y', '-i', video,
      '-vf', `format=gray,crop=${width}:1:0:${row}`, '-f', 'rawvideo', raw,
    ], { timeoutMs: 60_000 });
    const bytes = await readFile(raw);
    const edges: number[] = [];
    for (let offset = 0; offset + width <= bytes.length; offset += width) {
      edges.push(bytes.subarray(offset, offset + width).findIndex((value) => value > threshold));
    }
    return edges;
  } finally {
    await rm(scratch, { recursive: true, force: true });
  }
}
