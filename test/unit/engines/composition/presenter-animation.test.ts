import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../../support/property-seed.js';
import { portraitFit, trackExpressions } from '../../../../lambdas/engines/composition/ffmpeg-arguments.js';
import {
  blinkFrames,
  DEFAULT_BLINK_TIMING,
  framesExpression,
  frameVisemes,
  rangesByViseme,
  scaledSpritePlacement,
} from '../../../../lambdas/engines/composition/presenter-animation.js';
import { normalizeVisemeCues, VISEMES, type VisemeCue } from '../../../../lambdas/engines/speech/visemes.js';

const visemeNames = Object.values(VISEMES);

describe('frameVisemes', () => {
  it('shows the shape covering most of each frame, and rest after the track ends', () => {
    const track = normalizeVisemeCues(
      [
        { startMs: 0, endMs: 50, viseme: VISEMES.open_wide },
        { startMs: 50, endMs: 70, viseme: VISEMES.closed },
        { startMs: 70, endMs: 160, viseme: VISEMES.rounded },
      ],
      160,
    );
    // 25 fps: frames of 40 ms. Frame 1 (40–80 ms): open_wide 10, closed 20, rounded 10.
    expect(frameVisemes(track, 6, 25)).toEqual([
      VISEMES.open_wide,
      VISEMES.closed,
      VISEMES.rounded,
      VISEMES.rounded,
      VISEMES.rest,
      VISEMES.rest,
    ]);
  });

  it('gives every frame a shape of the track, whatever the track', () => {
    const cue = fc.record({
      startMs: fc.integer({ min: 0, max: 5000 }),
      length: fc.integer({ min: 1, max: 400 }),
      viseme: fc.constantFrom(...visemeNames),
    });
    fc.assert(
      fc.property(fc.array(cue, { maxLength: 40 }), fc.constantFrom(24, 25, 30, 60), (cues, fps) => {
        const track = normalizeVisemeCues(
          cues.map(({ startMs, length, viseme }) => ({ startMs, endMs: startMs + length, viseme })),
          5400,
        );
        const frames = Math.ceil((5400 * fps) / 1000);
        const shown = frameVisemes(track, frames, fps);
        expect(shown).toHaveLength(frames);
        for (const [frame, viseme] of shown.entries()) {
          const start = (frame * 1000) / fps;
          const end = ((frame + 1) * 1000) / fps;
          const inFrame = track.filter((entry: VisemeCue) => entry.startMs < end && entry.endMs > start);
          expect(inFrame.map((entry) => entry.viseme).concat(VISEMES.rest)).toContain(viseme);
        }
        // The ranges of all shapes cover every frame exactly once.
        const covered = [...rangesByViseme(shown).values()]
          .flat()
          .reduce((sum, [a, b]) => sum + b - a + 1, 0);
        expect(covered).toBe(frames);
      }),
    );
  });
});

describe('blinkFrames', () => {
  it('blinks for about 150 ms every 2 to 6 s, the same way for the same seed', () => {
    fc.assert(
      fc.property(
        fc.integer(),
        fc.integer({ min: 1, max: 5000 }),
        fc.constantFrom(25, 30, 60),
        (seed, frames, fps) => {
          const blinks = blinkFrames(seed, frames, fps);
          expect(blinkFrames(seed, frames, fps)).toEqual(blinks);
          const length = Math.round((DEFAULT_BLINK_TIMING.durationMs * fps) / 1000);
          for (const [index, [first, last]] of blinks.entries()) {
            expect(first).toBeGreaterThanOrEqual(0);
            expect(last).toBeLessThan(frames);
            expect(last - first + 1).toBeLessThanOrEqual(length);
            const previous = blinks[index - 1];
            if (previous) {
              const gapMs = ((first - previous[0]) * 1000) / fps;
              expect(gapMs).toBeGreaterThanOrEqual(DEFAULT_BLINK_TIMING.minIntervalMs - 1000 / fps);
              expect(gapMs).toBeLessThanOrEqual(DEFAULT_BLINK_TIMING.maxIntervalMs + 1000 / fps);
            }
          }
          // A minute holds 10 to 30 blinks.
          if (frames >= 60 * fps) expect(blinks.length).toBeGreaterThanOrEqual(9);
        },
      ),
    );
  });

  it('writes frame ranges as an ffmpeg timeline expression', () => {
    expect(
      framesExpression([
        [3, 6],
        [90, 93],
      ]),
    ).toBe('between(n,3,6)+between(n,90,93)');
  });
});

describe('scaledSpritePlacement', () => {
  it('puts a sprite where its part of the portrait lands, on even pixels', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 200, max: 2000 }),
        fc.integer({ min: 200, max: 2000 }),
        fc.constantFrom('contain' as const, 'cover' as const),
        fc.double({ min: 0.05, max: 0.8, noNaN: true }),
        fc.double({ min: 0.05, max: 0.8, noNaN: true }),
        (portraitWidth, portraitHeight, fit, fx, fy) => {
          const portrait = { width: portraitWidth, height: portraitHeight };
          const scaled = portraitFit(fit, portrait, 640, 360, fit === 'cover' ? 4 : 0);
          const box = {
            x: Math.floor(fx * portraitWidth),
            y: Math.floor(fy * portraitHeight),
            width: 40,
            height: 20,
          };
          const place = scaledSpritePlacement(box, portrait, scaled);
          expect(Math.abs(place.offsetX % 2)).toBe(0);
          expect(Math.abs(place.offsetY % 2)).toBe(0);
          expect(place.padX === 0 || place.padX === 1).toBe(true);
          expect(place.padY === 0 || place.padY === 1).toBe(true);
          // The sprite's content starts within half a pixel of where the box's corner is scaled to.
          const expectedX = (box.x * scaled.width) / portraitWidth - scaled.cropX;
          expect(Math.abs(place.offsetX + place.padX - expectedX)).toBeLessThanOrEqual(0.5);
          const expectedY = (box.y * scaled.height) / portraitHeight - scaled.cropY;
          expect(Math.abs(place.offsetY + place.padY - expectedY)).toBeLessThanOrEqual(0.5);
        },
      ),
    );
  });
});

describe('trackExpressions', () => {
  it('turns a footage track into overlay offsets: runs of equal even offsets, scaled', () => {
    const track = {
      fps: 25,
      offsets: [
        { x: 0, y: 0 },
        { x: 1, y: 0 },
        { x: 1, y: -2 },
        { x: 3, y: -2 },
      ],
    };
    const frame = 'mod(floor(t*25+0.5),4)';
    expect(trackExpressions(track, 2)).toEqual({
      x: `(between(${frame},1,2)*(2)+eq(${frame},3)*(6))`,
      y: `(between(${frame},2,3)*(-4))`,
    });
    expect(trackExpressions({ fps: 25, offsets: [{ x: 0, y: 0 }] }, 1)).toEqual({ x: '0', y: '0' });
  });
});
