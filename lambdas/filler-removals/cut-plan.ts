/**
 * What a filler-word removal cuts, as arithmetic (no media): the filler words and the long silences
 * of a source, turned into cuts on its frame grid, and the kept parts between them.
 *
 * - A filler word is cut whole, out to the frame boundaries around it, where that takes nothing of
 *   the words beside it (`notBeforeMs`, `notAfterMs`: a pause lies between). Where a word touches it
 *   (recognizers put words edge to edge), that side is cut at the nearest boundary instead: at most
 *   half a frame of the filler is left, at most half a frame of its neighbour taken.
 * - A silence longer than `silenceThresholdMs` is shortened to `silenceKeptMs` (half of it kept after
 *   the sound before, half before the sound after), so the speech keeps a natural pause.
 * - Cuts that overlap, touch, or leave less than `minKeptFrames` between them become one cut; nothing
 *   shorter than a frame is cut.
 *
 * Frames are the unit so that the picture is cut between frames and the sound at the same instants
 * (media-cuts.ts): the output lasts exactly the source's frames minus the cut frames.
 */

export interface TimeSpan {
  startMs: number;
  endMs: number;
}

/** A filler word's time, and where the words beside it end and start (absent: nothing beside it). */
export interface FillerSpan extends TimeSpan {
  notBeforeMs?: number;
  notAfterMs?: number;
}

export interface CutPlanInput {
  /** The source's frame rate (the grid of the cuts). */
  fps: number;
  /** Frames of the source. */
  totalFrames: number;
  /** The filler words' times. */
  fillers: readonly FillerSpan[];
  /** Silences, of any length. */
  silences: readonly TimeSpan[];
  silenceThresholdMs: number;
  silenceKeptMs: number;
  /** @default 2 */
  minKeptFrames?: number;
}

export interface PlannedCut {
  startFrame: number;
  endFrame: number;
  /** Filler words inside it (a cut of silence only has none). */
  fillers: number;
}

export interface CutPlan {
  cuts: PlannedCut[];
  /** The complement of `cuts` over the source's frames, in order. */
  kept: { startFrame: number; endFrame: number }[];
  /** Cuts with at least one filler word (the reference's `num_cuts`: silence-only cuts are not counted). */
  fillerCuts: number;
  keptFrames: number;
}

/** Finds the silences of mono 16-bit samples: runs of 10 ms windows quieter than `thresholdDb` (dBFS RMS). */
export function findSilences(
  samples: Int16Array,
  sampleRate: number,
  options: { thresholdDb: number; minMs: number },
): TimeSpan[] {
  const window = Math.max(1, Math.round(sampleRate / 100));
  const threshold = (10 ** (options.thresholdDb / 20) * 32768) ** 2;
  const silences: TimeSpan[] = [];
  let runStart: number | null = null;
  const windows = Math.ceil(samples.length / window);
  for (let index = 0; index <= windows; index++) {
    let quiet = false;
    if (index < windows) {
      const from = index * window;
      const to = Math.min(samples.length, from + window);
      let sum = 0;
      for (let sample = from; sample < to; sample++) sum += (samples[sample] as number) ** 2;
      quiet = sum / (to - from) < threshold;
    }
    if (quiet && runStart === null) runStart = index * window;
    if (!quiet && runStart !== null) {
      const end = Math.min(samples.length, index * window);
      const span = { startMs: (runStart * 1000) / sampleRate, endMs: (end * 1000) / sampleRate };
      if (span.endMs - span.startMs >= options.minMs) silences.push(span);
      runStart = null;
    }
  }
  return silences;
}

interface FrameCut {
  startFrame: number;
  endFrame: number;
  fillers: number;
}

export function planCuts(input: CutPlanInput): CutPlan {
  const { fps, totalFrames } = input;
  const minKept = input.minKeptFrames ?? 2;
  const frameAt = (ms: number) => (ms * fps) / 1000;
  const clamp = (frame: number) => Math.min(totalFrames, Math.max(0, frame));
  const raw: FrameCut[] = [];
  const msAt = (frame: number) => (frame * 1000) / fps;
  for (const filler of input.fillers) {
    const outerStart = Math.floor(frameAt(filler.startMs) + 1e-9);
    const outerEnd = Math.ceil(frameAt(filler.endMs) - 1e-9);
    raw.push({
      startFrame: clamp(
        msAt(outerStart) >= (filler.notBeforeMs ?? Number.NEGATIVE_INFINITY) - 1e-6
          ? outerStart
          : Math.round(frameAt(filler.startMs)),
      ),
      endFrame: clamp(
        msAt(outerEnd) <= (filler.notAfterMs ?? Number.POSITIVE_INFINITY) + 1e-6
          ? outerEnd
          : Math.round(frameAt(filler.endMs)),
      ),
      fillers: 1,
    });
  }
  for (const silence of input.silences) {
    if (silence.endMs - silence.startMs <= input.silenceThresholdMs) continue;
    const half = input.silenceKeptMs / 2;
    raw.push({
      startFrame: clamp(Math.round(frameAt(silence.startMs + half))),
      endFrame: clamp(Math.round(frameAt(silence.endMs - half))),
      fillers: 0,
    });
  }
  const sorted = raw
    .filter((cut) => cut.endFrame > cut.startFrame)
    .sort((a, b) => a.startFrame - b.startFrame || a.endFrame - b.endFrame);
  const cuts: FrameCut[] = [];
  for (const cut of sorted) {
    const last = cuts.at(-1);
    // A sliver of the source between two cuts (a frame of a pause) is not worth keeping.
    if (last && cut.startFrame - last.endFrame < minKept) {
      last.endFrame = Math.max(last.endFrame, cut.endFrame);
      last.fillers += cut.fillers;
    } else {
      cuts.push({ ...cut });
    }
  }
  // The same at the edges: a sliver before the first cut or after the last goes with it.
  const first = cuts[0];
  if (first && first.startFrame < minKept) first.startFrame = 0;
  const final = cuts.at(-1);
  if (final && totalFrames - final.endFrame < minKept) final.endFrame = totalFrames;

  const kept: CutPlan['kept'] = [];
  let cursor = 0;
  for (const cut of cuts) {
    if (cut.startFrame > cursor) kept.push({ startFrame: cursor, endFrame: cut.startFrame });
    cursor = cut.endFrame;
  }
  if (cursor < totalFrames) kept.push({ startFrame: cursor, endFrame: totalFrames });
  return {
    cuts,
    kept,
    fillerCuts: cuts.filter((cut) => cut.fillers > 0).length,
    keptFrames: kept.reduce((sum, span) => sum + span.endFrame - span.startFrame, 0),
  };
}
