/**
 * The frames and prices of model videos, as the contract states them and as properties: 16:9 at 1080p
 * is 1890x1080 and 9:16 is 1080x1890; every frame has even sides (H.264 in 4:2:0), its short side is the
 * resolution's and its orientation the ratio's; `adaptive` picks the nearest ratio; 1080p costs the 2k
 * rate, 3× 768p. The request schema's cross-field rules name the field at fault.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { modelVideoCredits } from '../../../lambdas/billing/plans.js';
import {
  MODEL_VIDEO_ASPECT_RATIOS,
  MODEL_VIDEO_RESOLUTIONS,
  modelVideoFrame,
  nearestAspectRatio,
} from '../../../lambdas/model-videos/model-video-records.js';
import { createModelVideoBody } from '../../../lambdas/model-videos/model-video-request.js';

const SHORT = { '480p': 480, '768p': 768, '1080p': 1080, '2k': 1440 } as const;

describe('model video frames', () => {
  it("are the contract's at 1080p", () => {
    expect(modelVideoFrame('1080p', '16:9')).toEqual({ width: 1890, height: 1080 });
    expect(modelVideoFrame('1080p', '9:16')).toEqual({ width: 1080, height: 1890 });
    expect(modelVideoFrame('768p', '1:1')).toEqual({ width: 768, height: 768 });
  });

  it('have even sides, the short side of the resolution and the orientation of the ratio', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...MODEL_VIDEO_RESOLUTIONS),
        fc.constantFrom(...MODEL_VIDEO_ASPECT_RATIOS),
        (resolution, aspect) => {
          const { width, height } = modelVideoFrame(resolution, aspect);
          expect(width % 2).toBe(0);
          expect(height % 2).toBe(0);
          expect(Math.min(width, height)).toBe(SHORT[resolution]);
          const [w, h] = aspect.split(':').map(Number) as [number, number];
          expect(Math.sign(width - height)).toBe(Math.sign(w - h));
        },
      ),
    );
  });

  it('adaptive picks a ratio itself, and the nearest one for any picture', () => {
    fc.assert(
      fc.property(
        fc.constantFrom(...MODEL_VIDEO_ASPECT_RATIOS),
        fc.double({ min: 0.97, max: 1.03, noNaN: true }),
        (aspect, jitter) => {
          const { width, height } = modelVideoFrame('768p', aspect);
          expect(nearestAspectRatio(width * jitter, height)).toBe(aspect);
        },
      ),
    );
    expect(nearestAspectRatio(90, 160)).toBe('9:16');
    expect(nearestAspectRatio(4000, 3000, ['16:9', '9:16'])).toBe('16:9');
  });
});

describe('model video credits', () => {
  it('charge 1080p at the 2k rate, 3 times the 768p rate, per started 5 s', () => {
    fc.assert(
      fc.property(fc.integer({ min: 5, max: 15 }), (seconds) => {
        expect(modelVideoCredits(seconds, '1080p')).toBe(modelVideoCredits(seconds, '2k'));
        expect(modelVideoCredits(seconds, '1080p')).toBe(3 * modelVideoCredits(seconds, '768p'));
        expect(modelVideoCredits(seconds, '768p')).toBe(Math.ceil(seconds / 5));
      }),
    );
  });
});

describe('the create body', () => {
  const base = { mode: 'text_to_video', model: 'service-video-1', prompt: 'A kite' };
  const image = { type: 'asset_id', asset_id: 'a' };
  const paramOf = (body: unknown) => {
    const result = createModelVideoBody.safeParse(body);
    return result.success ? undefined : result.error.issues[0]?.path.join('.');
  };

  it('takes each mode with what it needs', () => {
    expect(paramOf(base)).toBeUndefined();
    expect(paramOf({ ...base, mode: 'image_to_video', image })).toBeUndefined();
    expect(paramOf({ ...base, mode: 'reference_to_video', reference_videos: [image] })).toBeUndefined();
  });

  it('counts every reference toward the 12, and names the list that went over', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 9 }),
        fc.integer({ min: 0, max: 3 }),
        fc.integer({ min: 0, max: 3 }),
        (images, videos, audio) => {
          const body = {
            ...base,
            mode: 'reference_to_video',
            reference_images: Array(images).fill(image),
            reference_videos: Array(videos).fill(image),
            reference_audio: Array(audio).fill(image),
          };
          const param = paramOf(body);
          if (images + videos === 0) expect(param).toBe('reference_images');
          else if (images + videos + audio > 12)
            expect(param).toBe(
              audio > 0 ? 'reference_audio' : videos > 0 ? 'reference_videos' : 'reference_images',
            );
          else expect(param).toBeUndefined();
        },
      ),
    );
  });
});
