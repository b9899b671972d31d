/**
 * The arithmetic of dubbing, without ffmpeg: where the original soundtrack is ducked and by how much at
 * each instant (as an ffmpeg expression), how speech clips share lanes, and how a retimed picture maps
 * source time to output time (as an ffmpeg `setpts` expression).
 *
 * Expressions are built as balanced `if(lt(t,…),…,…)` trees over the breakpoints, so ffmpeg evaluates
 * O(log n) comparisons per audio frame or video frame however many lines a video has (a flat sum of one
 * term per line would cost O(n) per frame: an hour of dialogue at 750 gain updates a second is too slow).
 */

/** One stretch of a piecewise function of time: from `fromSeconds` up to the next piece's start. */
export interface ExpressionPiece {
  fromSeconds: number;
  /** The ffmpeg expression valid on this piece, in terms of the variable named by the caller. */
  expression: string;
}

/** A number as ffmpeg's expression parser reads it: fixed notation, no exponent, trailing zeros cut. */
export function expressionNumber(value: number): string {
  if (!Number.isFinite(value)) throw new Error(`not a finite number: ${value}`);
  const fixed = value.toFixed(6);
  const trimmed = fixed.includes('.') ? fixed.replace(/0+$/, '').replace(/\.$/, '') : fixed;
  return trimmed === '-0' ? '0' : trimmed;
}

/**
 * One expression for a piecewise function of `variable`: before the first piece's start the first
 * piece applies. Pieces must be sorted by `fromSeconds`.
 */
export function piecewiseExpression(pieces: readonly ExpressionPiece[], variable: string): string {
  if (pieces.length === 0) throw new Error('a piecewise expression needs at least one piece');
  const build = (from: number, to: number): string => {
    if (to - from === 1) return (pieces[from] as ExpressionPiece).expression;
    const middle = Math.floor((from + to) / 2);
    const split = expressionNumber((pieces[middle] as ExpressionPiece).fromSeconds);
    return `if(lt(${variable},${split}),${build(from, middle)},${build(middle, to)})`;
  };
  return build(0, pieces.length);
}

export interface TimeInterval {
  startMs: number;
  endMs: number;
}

/**
 * The intervals joined where they overlap or the gap between them is shorter than `bridgeMs`: the duck
 * stays down across a short pause between two lines instead of letting the music swell for a moment
 * (which sounds like pumping). Returned sorted.
 */
export function mergeIntervals(intervals: readonly TimeInterval[], bridgeMs: number): TimeInterval[] {
  const sorted = [...intervals].sort((a, b) => a.startMs - b.startMs);
  const merged: TimeInterval[] = [];
  for (const interval of sorted) {
    const last = merged.at(-1);
    if (last && interval.startMs - last.endMs < bridgeMs) last.endMs = Math.max(last.endMs, interval.endMs);
    else merged.push({ ...interval });
  }
  return merged;
}

/**
 * How far down the duck is at each instant, 0 (not ducked) to 1 (fully ducked), as an expression of `t`
 * (seconds): fully down from each interval's start to its end, easing in (raised cosine) over `fadeMs`
 * BEFORE the start, so the first syllable of a new line already has the old soundtrack at its lowest,
 * and easing out over `fadeMs` after the end. Intervals must be sorted, disjoint and at least
 * 2 × `fadeMs` apart (`mergeIntervals` with a bridge of at least that). `0` without intervals.
 */
export function duckDepthPieces(intervals: readonly TimeInterval[], fadeMs: number): ExpressionPiece[] {
  const pieces: ExpressionPiece[] = [{ fromSeconds: 0, expression: '0' }];
  const fade = fadeMs / 1000;
  for (const { startMs, endMs } of intervals) {
    const start = startMs / 1000;
    const end = endMs / 1000;
    if (fade > 0) {
      const rampFrom = Math.max(0, start - fade);
      // Raised cosine from 0 at start - fade to 1 at start: smooth at both ends, so no click.
      pieces.push({
        fromSeconds: rampFrom,
        expression: `(0.5-0.5*cos(PI*(t-(${expressionNumber(start - fade)}))/${expressionNumber(fade)}))`,
      });
    }
    pieces.push({ fromSeconds: start, expression: '1' });
    if (fade > 0) {
      pieces.push({
        fromSeconds: end,
        expression: `(0.5+0.5*cos(PI*(t-${expressionNumber(end)})/${expressionNumber(fade)}))`,
      });
    }
    pieces.push({ fromSeconds: end + fade, expression: '0' });
  }
  // A ramp clipped at 0 s can start at the same instant as the piece before it: keep the later one.
  return pieces.filter((piece, index) => pieces[index + 1]?.fromSeconds !== piece.fromSeconds);
}

/** `10^(db/20)`: the linear gain of a level change in decibels. */
export function gainOfDb(db: number): number {
  return 10 ** (db / 20);
}

/**
 * The gain of a signal that is 1 where the duck depth is 0 and `floorGain` where it is 1, as an
 * expression of `t` for ffmpeg's `volume` filter (`eval=frame`).
 */
export function duckGainExpression(depth: readonly ExpressionPiece[], floorGain: number): string {
  const drop = expressionNumber(1 - floorGain);
  return piecewiseExpression(
    depth.map(({ fromSeconds, expression }) => ({
      fromSeconds,
      expression:
        expression === '0'
          ? '1'
          : expression === '1'
            ? expressionNumber(floorGain)
            : `(1-${drop}*${expression})`,
    })),
    't',
  );
}

/** The gain `depth × peakGain`: a signal that only sounds where the duck is down. */
export function duckedOnlyGainExpression(depth: readonly ExpressionPiece[], peakGain: number): string {
  const peak = expressionNumber(peakGain);
  return piecewiseExpression(
    depth.map(({ fromSeconds, expression }) => ({
      fromSeconds,
      expression: expression === '0' ? '0' : expression === '1' ? peak : `(${peak}*${expression})`,
    })),
    't',
  );
}

export interface PlacedClip {
  /** Index in the caller's list. */
  index: number;
  startSample: number;
  samples: number;
}

/**
 * Clips grouped into lanes in which none overlaps another (first fit by start): each lane can be
 * written as one track of silence and clips, and the lanes summed. Clips that do not overlap (the usual
 * case) all land in one lane.
 */
export function speechLanes(clips: readonly PlacedClip[]): PlacedClip[][] {
  const lanes: { endSample: number; clips: PlacedClip[] }[] = [];
  for (const clip of [...clips].sort((a, b) => a.startSample - b.startSample || a.index - b.index)) {
    let lane = lanes.find((candidate) => candidate.endSample <= clip.startSample);
    if (!lane) {
      lane = { endSample: 0, clips: [] };
      lanes.push(lane);
    }
    lane.clips.push(clip);
    lane.endSample = clip.startSample + clip.samples;
  }
  return lanes.map((lane) => lane.clips);
}

/** A stretch of the source picture and how long it lasts in the output. */
export interface RetimeSpan {
  sourceStartMs: number;
  sourceEndMs: number;
  /** At least the span's source length: a picture is slowed down or held, never sped up. */
  outputMs: number;
}

/** How one span is played: slowed by `factor`, then its last frame held for `holdMs`. */
export interface RetimedSpan extends RetimeSpan {
  outputStartMs: number;
  factor: number;
  holdMs: number;
}

/**
 * Each span's output start, slowdown factor (at most `maxSlowdown`) and the time its last frame is held
 * beyond that. Spans must be ordered and contiguous from 0; throws a plain Error naming the first bad
 * span (callers turn it into their failure).
 */
export function retimeSchedule(spans: readonly RetimeSpan[], maxSlowdown: number): RetimedSpan[] {
  let outputStartMs = 0;
  let expectedStart = 0;
  return spans.map((span, index) => {
    const length = span.sourceEndMs - span.sourceStartMs;
    if (!(length > 0) || Math.abs(span.sourceStartMs - expectedStart) > 0.5) {
      throw new Error(
        `span ${index + 1} must start where the previous one ended (${expectedStart} ms) and be longer than 0`,
      );
    }
    if (!(span.outputMs >= length)) {
      throw new Error(
        `span ${index + 1} outputMs (${span.outputMs}) is shorter than its source (${length} ms)`,
      );
    }
    const factor = Math.min(span.outputMs / length, maxSlowdown);
    const retimed: RetimedSpan = {
      ...span,
      outputStartMs,
      factor,
      holdMs: Math.max(0, span.outputMs - length * factor),
    };
    expectedStart = span.sourceEndMs;
    outputStartMs += span.outputMs;
    return retimed;
  });
}

/**
 * The `setpts` expression mapping a source frame's time `T` (seconds) to its output time in time-base
 * units: within span i, `outputStart_i + factor_i × (T − sourceStart_i)`. A held span's frames end before
 * the next span's output start; ffmpeg's `fps` filter then repeats the last one across the gap.
 */
export function retimePtsExpression(schedule: readonly RetimedSpan[]): string {
  const pieces = schedule.map((span) => ({
    fromSeconds: span.sourceStartMs / 1000,
    expression: `(${expressionNumber(span.outputStartMs / 1000)}+${expressionNumber(span.factor)}*(T-${expressionNumber(span.sourceStartMs / 1000)}))`,
  }));
  return `${piecewiseExpression(pieces, 'T')}/TB`;
}
