/**
 * Where transitions sit between scenes: never moving a scene or changing the video's length, never
 * more than half of either neighbour, cutting where the scenes are too short.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { sceneFrameCounts } from '../../../../lambdas/engines/composition/ffmpeg-arguments.js';
import {
  MIN_NEIGHBOUR_RATIO,
  transitionFrameCount,
  transitionTimeline,
} from '../../../../lambdas/engines/composition/transition-timeline.js';

describe('the transition timeline', () => {
  it('keeps every scene where it was and the total the sum of the scenes, for any durations', () => {
    fc.assert(
      fc.property(
        fc.array(fc.integer({ min: 100, max: 20_000 }), { minLength: 1, maxLength: 12 }),
        fc.integer({ min: 0, max: 5000 }),
        fc.constantFrom(10, 24, 25, 30, 60),
        (durationsMs, transitionMs, fps) => {
          const frames = sceneFrameCounts(durationsMs, fps);
          const transition = transitionFrameCount({ kind: 'fade', durationMs: transitionMs }, fps);
          const { boundaries, spans } = transitionTimeline(frames, transition);
          // The joined picture: every scene's part alone, and between them the transitions.
          const joined =
            spans.reduce((sum, span) => sum + span.alone, 0) + boundaries.reduce((a, b) => a + b, 0);
          const planned = Math.round((durationsMs.reduce((a, b) => a + b, 0) * fps) / 1000);
          expect(joined).toBe(planned);
          // Walking the joined picture: each scene's frames show when the cut version shows them.
          let plannedStart = 0;
          let shown = 0;
          spans.forEach((span, index) => {
            const own = frames[index] as number;
            expect(span.enter + span.alone + span.leave).toBe(span.head + own + span.tail);
            expect(span.alone).toBeGreaterThan(0);
            shown += span.enter;
            // The part shown alone starts with the scene's own frame `enter - head`.
            expect(shown - (span.enter - span.head)).toBe(plannedStart);
            shown += span.alone;
            plannedStart += own;
          });
          boundaries.forEach((frames_, boundary) => {
            const shorter = Math.min(frames[boundary] as number, frames[boundary + 1] as number);
            expect(frames_ === 0 || frames_ === transition).toBe(true);
            expect(frames_ * MIN_NEIGHBOUR_RATIO).toBeLessThanOrEqual(shorter);
            // Both neighbours long enough: it takes place.
            if (transition >= 2 && shorter >= MIN_NEIGHBOUR_RATIO * transition)
              expect(frames_).toBe(transition);
          });
        },
      ),
    );
  });

  it('centres a transition on the boundary: the first half before it, the rest after', () => {
    const { boundaries, spans } = transitionTimeline([50, 50, 50], 7);
    expect(boundaries).toEqual([7, 7]);
    expect(spans).toEqual([
      { head: 0, tail: 4, enter: 0, alone: 47, leave: 7 },
      { head: 3, tail: 4, enter: 7, alone: 43, leave: 7 },
      { head: 3, tail: 0, enter: 7, alone: 46, leave: 0 },
    ]);
  });

  it('cuts next to a scene shorter than twice the transition, and for cuts or transitions under 2 frames', () => {
    expect(transitionTimeline([50, 19, 50], 10).boundaries).toEqual([0, 0]);
    expect(transitionTimeline([50, 20, 50], 10).boundaries).toEqual([10, 10]);
    expect(transitionTimeline([50, 50], 10, () => false).boundaries).toEqual([0]);
    expect(transitionFrameCount({ kind: 'cut', durationMs: 1000 }, 25)).toBe(0);
    expect(transitionFrameCount({ kind: 'fade', durationMs: 40 }, 25)).toBe(0);
    expect(transitionFrameCount({ kind: 'fade', durationMs: 500 }, 25)).toBe(13);
    expect(transitionFrameCount(undefined, 25)).toBe(0);
  });
});
