/** What a dub's or lipsync's `engines.lips` says the lips step did. */
import { describe, expect, it } from 'vitest';
import { describeLips } from '../../../lambdas/engines/dub-render.js';
import type { ReanimatedLips } from '../../../lambdas/engines/vision/footage-lips.js';

function lips(faces: Partial<ReanimatedLips['faces']>): ReanimatedLips {
  return {
    videoPath: 'lips.mp4',
    width: 640,
    height: 360,
    frames: 52,
    frameRate: 25,
    faces: {
      framesInSpans: 52,
      framesWithFace: 52,
      framesReanimated: 52,
      framesSkipped: 0,
      reasons: {},
      tracks: 1,
      facesReanimated: 52,
      facesKept: {},
      ...faces,
    },
    timings: { totalMs: 1, detections: 7, detectionMs: 1, warpMs: 1 },
  };
}

describe('describeLips', () => {
  it('says how many frames and faces were re-animated, and why the rest kept their mouths', () => {
    expect(describeLips(lips({}))).toBe('footage_lips (52 of 52 frames, 1 face)');
    expect(
      describeLips(
        lips({
          framesReanimated: 40,
          framesSkipped: 12,
          reasons: { no_face: 12 },
          tracks: 2,
          facesReanimated: 70,
          facesKept: { face_turned: 10, mouths_overlap: 3 },
        }),
      ),
    ).toBe(
      'footage_lips (40 of 52 frames, 2 faces; kept: no_face 12; faces kept: face_turned 10, mouths_overlap 3)',
    );
  });
});
