/**
 * The timeline of a dub, pure: what is said when, and how fast. A transcript (words of a video this
 * service made, words a recognizer heard, or cues of given subtitles) is cut into segments, each a
 * sentence or a stretch of speech between pauses; each segment's translation is spoken in the time the
 * original had for it, up to the next segment's start (the pause after a line is the line's to use).
 *
 * Fitting: a translation that is longer than its slot is spoken faster, up to `maxSpeed` (beyond it
 * speech sounds rushed); a shorter one at its natural pace, the rest of the slot left silent (never
 * slowed: slowed speech sounds drunk). Still too long:
 * - `dynamicDuration` (the API's `enable_dynamic_duration`, on by default): the picture of that slot is
 *   slowed to the speech's length (`pictureSpans`), so lips and speech stay together and the video
 *   grows a little;
 * - otherwise the speech runs on into the next slot, and the lines after it move later as needed; the
 *   soundtrack may end after the picture, whose last frame is then held.
 */

export interface TimedText {
  text: string;
  startMs: number;
  endMs: number;
}

export interface TimedWord {
  word: string;
  startMs: number;
  endMs: number;
}

export interface SegmentOptions {
  /** A silence this long between two words ends a segment. @default 700 */
  pauseMs?: number;
  /** A segment is cut before it would grow longer than this. @default 15000 */
  maxSegmentMs?: number;
}

const SENTENCE_END = /[.!?…。！？]["'”’)\]]*$/u;

/** Sentences (or stretches between pauses) of timed words, in order. */
export function segmentsFromWords(words: readonly TimedWord[], options: SegmentOptions = {}): TimedText[] {
  const pauseMs = options.pauseMs ?? 700;
  const maxSegmentMs = options.maxSegmentMs ?? 15_000;
  const segments: TimedText[] = [];
  let current: TimedWord[] = [];
  const close = () => {
    const first = current[0];
    const last = current[current.length - 1];
    if (first && last) {
      segments.push({
        text: current.map((word) => word.word).join(' '),
        startMs: first.startMs,
        endMs: last.endMs,
      });
    }
    current = [];
  };
  for (const word of words) {
    const previous = current[current.length - 1];
    const first = current[0];
    if (
      previous &&
      first &&
      (word.startMs - previous.endMs >= pauseMs || word.endMs - first.startMs > maxSegmentMs)
    ) {
      close();
    }
    current.push(word);
    if (SENTENCE_END.test(word.word)) close();
  }
  close();
  return segments;
}

export interface FitOptions {
  /** Fastest speaking rate a line is sped up to. @default 1.35 */
  maxSpeed?: number;
  /** See the module comment. */
  dynamicDuration: boolean;
  /** Length of the source, ms: the last segment's slot runs to it. */
  sourceMs: number;
}

export interface PlannedLine {
  /** Index of the segment. */
  segment: number;
  /** Speaking rate to synthesize at (1 = the voice's own). */
  speed: number;
  /** Where the line starts on the OUTPUT timeline. */
  startMs: number;
  /** Its expected length at `speed`. */
  durationMs: number;
}

/** A stretch of the source picture and how long it lasts in the output. */
export interface PictureSpan {
  sourceStartMs: number;
  sourceEndMs: number;
  outputMs: number;
}

export interface DubPlan {
  lines: PlannedLine[];
  /** The source picture, span by span, as the output shows it (equal lengths where nothing is slowed). */
  pictureSpans: PictureSpan[];
  /** Length of the output. */
  outputMs: number;
}

/**
 * Plans the lines of segments whose translations take `naturalMs` each at speed 1 (measured by
 * synthesizing them once). `segments` are in order on the source timeline.
 */
export function planDub(
  segments: readonly TimedText[],
  naturalMs: readonly number[],
  options: FitOptions,
): DubPlan {
  const maxSpeed = options.maxSpeed ?? 1.35;
  const lines: PlannedLine[] = [];
  const pictureSpans: PictureSpan[] = [];
  let shiftMs = 0; // how much later the output runs than the source, from stretched slots
  let spokenUntilMs = 0; // output time the previous line ends
  let pictureFromMs = 0; // source time the next picture span starts
  segments.forEach((segment, index) => {
    const slotStart = segment.startMs;
    const slotEnd = Math.max(slotStart + 1, segments[index + 1]?.startMs ?? options.sourceMs);
    const slotMs = slotEnd - slotStart;
    const natural = naturalMs[index] ?? 0;
    const speed = natural > slotMs ? Math.min(maxSpeed, natural / slotMs) : 1;
    const durationMs = Math.round(natural / speed);
    if (options.dynamicDuration) {
      if (slotStart > pictureFromMs) {
        pictureSpans.push({
          sourceStartMs: pictureFromMs,
          sourceEndMs: slotStart,
          outputMs: slotStart - pictureFromMs,
        });
      }
      const outputMs = Math.max(slotMs, durationMs);
      pictureSpans.push({ sourceStartMs: slotStart, sourceEndMs: slotEnd, outputMs });
      lines.push({ segment: index, speed, startMs: slotStart + shiftMs, durationMs });
      shiftMs += outputMs - slotMs;
      pictureFromMs = slotEnd;
    } else {
      const startMs = Math.max(slotStart, spokenUntilMs);
      lines.push({ segment: index, speed, startMs, durationMs });
      spokenUntilMs = startMs + durationMs;
    }
  });
  if (options.dynamicDuration) {
    if (options.sourceMs > pictureFromMs) {
      pictureSpans.push({
        sourceStartMs: pictureFromMs,
        sourceEndMs: options.sourceMs,
        outputMs: options.sourceMs - pictureFromMs,
      });
    }
    return { lines, pictureSpans, outputMs: options.sourceMs + shiftMs };
  }
  const outputMs = Math.max(options.sourceMs, spokenUntilMs);
  return {
    lines,
    pictureSpans: [
      { sourceStartMs: 0, sourceEndMs: options.sourceMs, outputMs: options.sourceMs },
      ...(outputMs > options.sourceMs
        ? [
            {
              sourceStartMs: options.sourceMs,
              sourceEndMs: options.sourceMs,
              outputMs: outputMs - options.sourceMs,
            },
          ]
        : []),
    ],
    outputMs,
  };
}

/** Whether a plan slows any of the picture (so the picture must be re-timed, not copied). */
export const retimesPicture = (plan: DubPlan) =>
  plan.pictureSpans.some((span) => span.outputMs !== span.sourceEndMs - span.sourceStartMs);
