/**
 * Where the transitions between scenes sit on a composition's frame grid (pure; the ffmpeg graph in
 * ffmpeg-transitions.ts follows it).
 *
 * A transition never moves or shortens anything: each scene keeps the frames `sceneFrameCounts` gives it
 * and its narration starts where it did with cuts. A transition of `D` frames is centred on the boundary
 * between scene `j` and `j + 1`: it takes the last `before = floor(D / 2)` frames of scene `j` and the
 * first `after = D - before` frames of scene `j + 1`, and shows both pictures over those `D` frames. Scene
 * `j`'s picture is therefore held (its last frame repeated) for `after` frames past its end, and scene
 * `j + 1`'s is shown (its first frame held) `before` frames ahead of its start; the audio, the captions and
 * the presenter's lips stay on the scenes' own frames. The joined picture has exactly the frames of the
 * cut version, so the video's length is the plan's.
 *
 * A boundary gets its transition only when both neighbours last at least `MIN_NEIGHBOUR_RATIO` times
 * its length (no scene is more than half transition) and it is at least 2 frames long; otherwise, it
 * cuts.
 */
import type { SceneTransition } from './composition-engine.js';

/** A scene must last this many times a transition for the transition to touch it. */
export const MIN_NEIGHBOUR_RATIO = 2;

/** Frames of `transition` at `fps` (0 for a cut, or one too short to show anything). */
export function transitionFrameCount(transition: SceneTransition | undefined, fps: number): number {
  if (!transition || transition.kind === 'cut') return 0;
  const frames = Math.round((transition.durationMs * fps) / 1000);
  return frames >= 2 ? frames : 0;
}

/** How one scene's picture takes part in the join, in frames. */
export interface SceneSpan {
  /** Frames shown ahead of the scene's start (its first frame, held), inside the transition into it. */
  head: number;
  /** Frames shown past the scene's end (its last frame, held), inside the transition out of it. */
  tail: number;
  /**
   * Frames of the extended picture (`head` + the scene's own frames + `tail`) that go into the
   * transition into it (the first `enter`), alone (`alone`), and into the transition out of it (the last
   * `leave`): `enter + alone + leave` is the extended picture.
   */
  enter: number;
  alone: number;
  leave: number;
}

export interface TransitionTimeline {
  /** Frames of the transition after each scene but the last (`boundaries[j]` joins scene j and j + 1; 0 = cut). */
  boundaries: number[];
  spans: SceneSpan[];
}

/**
 * The transitions of scenes of `sceneFrames` frames joined by transitions of `transitionFrames` frames;
 * `joinable(j)` may refuse boundary `j` (it cuts).
 */
export function transitionTimeline(
  sceneFrames: readonly number[],
  transitionFrames: number,
  joinable: (boundary: number) => boolean = () => true,
): TransitionTimeline {
  const boundaries = sceneFrames.slice(1).map((next, index) => {
    const previous = sceneFrames[index] as number;
    const fits = transitionFrames >= 2 && Math.min(previous, next) >= MIN_NEIGHBOUR_RATIO * transitionFrames;
    return fits && joinable(index) ? transitionFrames : 0;
  });
  const before = (boundary: number) => Math.floor((boundaries[boundary] ?? 0) / 2);
  const after = (boundary: number) => (boundaries[boundary] ?? 0) - before(boundary);
  const spans = sceneFrames.map((frames, index) => {
    const head = index > 0 ? before(index - 1) : 0;
    const tail = after(index);
    const enter = index > 0 ? (boundaries[index - 1] as number) : 0;
    const leave = boundaries[index] ?? 0;
    return { head, tail, enter, alone: head + frames + tail - enter - leave, leave };
  });
  return { boundaries, spans };
}
