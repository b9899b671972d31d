/**
 * The background layer's model (`background-plate.ts`): a scene whose true background is known, with a
 * "person" (a block of other colours) moving over it, as the segmentation pass would hand it over.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../../support/property-seed.js';
import {
  backgroundLayerFrame,
  createBackgroundPlate,
  inpaintUnseen,
  personCover,
} from '../../../../lambdas/engines/vision/background-plate.js';

const WIDTH = 24;
const HEIGHT = 16;

/** A background of arbitrary colours, a frame with blocks pasted over it, and the blocks' cover. */
function frameWith(
  background: Uint8Array,
  blocks: { x: number; y: number; w: number; h: number }[],
  ink: number,
) {
  const rgb = Uint8Array.from(background);
  const cover = new Uint8Array(WIDTH * HEIGHT);
  for (const block of blocks) {
    for (let y = block.y; y < Math.min(HEIGHT, block.y + block.h); y++) {
      for (let x = block.x; x < Math.min(WIDTH, block.x + block.w); x++) {
        const pixel = y * WIDTH + x;
        cover[pixel] = 255;
        rgb.set([ink, 255 - ink, ink], pixel * 3);
      }
    }
  }
  return { rgb, cover };
}

const block = fc.record({
  x: fc.integer({ min: 0, max: WIDTH - 1 }),
  y: fc.integer({ min: 0, max: HEIGHT - 1 }),
  w: fc.integer({ min: 1, max: 10 }),
  h: fc.integer({ min: 1, max: 10 }),
});
const backgroundPixels = fc.uint8Array({ minLength: WIDTH * HEIGHT * 3, maxLength: WIDTH * HEIGHT * 3 });

describe('backgroundLayerFrame', () => {
  it('shows the true background wherever any frame so far showed it, and the frame itself elsewhere', () => {
    fc.assert(
      fc.property(
        backgroundPixels,
        fc.array(fc.array(block, { maxLength: 3 }), { minLength: 1, maxLength: 6 }),
        fc.integer({ min: 0, max: 255 }),
        (background, frames, ink) => {
          const plate = createBackgroundPlate(WIDTH, HEIGHT);
          const seenSoFar = new Uint8Array(WIDTH * HEIGHT);
          for (const blocks of frames) {
            const { rgb, cover } = frameWith(background, blocks, ink);
            const layer = backgroundLayerFrame(plate, rgb, cover);
            let holes = 0;
            for (let pixel = 0; pixel < WIDTH * HEIGHT; pixel++) {
              if (cover[pixel] === 0) seenSoFar[pixel] = 1;
              const out = [...layer.rgb.subarray(pixel * 3, pixel * 3 + 3)];
              const truth = [...background.subarray(pixel * 3, pixel * 3 + 3)];
              if (cover[pixel] === 0 || seenSoFar[pixel] === 1) expect(out).toEqual(truth);
              else holes++;
            }
            expect(layer.inpaintedPixels).toBe(holes);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('fills a never-seen hole with colours of the background around it, never with the person', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 0, max: 255 }),
        fc.integer({ min: 0, max: 255 }),
        block,
        (grey, ink, hole) => {
          // A flat background: whatever the hole is filled from, it can only be that grey.
          const background = new Uint8Array(WIDTH * HEIGHT * 3).fill(grey);
          const plate = createBackgroundPlate(WIDTH, HEIGHT);
          const { rgb, cover } = frameWith(background, [hole], ink);
          const layer = backgroundLayerFrame(plate, rgb, cover);
          // Blocks are at most 10 of the 24×16 pixels wide: some background always shows.
          for (const value of layer.rgb) expect(Math.abs(value - grey)).toBeLessThanOrEqual(1);
        },
      ),
      { numRuns: 40 },
    );
  });

  it('blends the soft edge of the cover between the frame and the plate', () => {
    const plate = createBackgroundPlate(1, 1);
    backgroundLayerFrame(plate, Uint8Array.of(200, 100, 0), Uint8Array.of(0));
    const half = backgroundLayerFrame(plate, Uint8Array.of(0, 0, 0), Uint8Array.of(128));
    expect([...half.rgb]).toEqual([100, 50, 0]);
  });
});

describe('inpaintUnseen', () => {
  it('fills exactly the unseen pixels asked for, within the range of the seen colours', () => {
    fc.assert(
      fc.property(
        backgroundPixels,
        fc
          .uint8Array({ minLength: WIDTH * HEIGHT, maxLength: WIDTH * HEIGHT })
          .map((bytes) => bytes.map((b) => b & 1)),
        fc
          .uint8Array({ minLength: WIDTH * HEIGHT, maxLength: WIDTH * HEIGHT })
          .map((bytes) => bytes.map((b) => (b & 1) * 255)),
        (colours, seen, wanted) => {
          fc.pre(seen.some((value) => value === 1));
          const plate = createBackgroundPlate(WIDTH, HEIGHT);
          plate.colours.set(colours);
          plate.seen.set(seen);
          const filled = inpaintUnseen(plate, wanted);
          let low = 255;
          let high = 0;
          let unseenWanted = 0;
          for (let pixel = 0; pixel < WIDTH * HEIGHT; pixel++) {
            if (seen[pixel] !== 1) {
              if (wanted[pixel] !== 0) unseenWanted++;
              continue;
            }
            for (let channel = 0; channel < 3; channel++) {
              const value = colours[pixel * 3 + channel] as number;
              low = Math.min(low, value);
              high = Math.max(high, value);
            }
          }
          expect(filled).toHaveLength(unseenWanted * 3);
          for (const value of filled) {
            expect(value).toBeGreaterThanOrEqual(low - 1e-3);
            expect(value).toBeLessThanOrEqual(high + 1e-3);
          }
        },
      ),
      { numRuns: 40 },
    );
  });

  it('fills a hole in a two-coloured plate with the colour of its own side', () => {
    // Left half red, right half blue, seen everywhere but two holes: one deep in each half.
    const plate = createBackgroundPlate(WIDTH, HEIGHT);
    const wanted = new Uint8Array(WIDTH * HEIGHT);
    for (let pixel = 0; pixel < WIDTH * HEIGHT; pixel++) {
      plate.colours.set(pixel % WIDTH < WIDTH / 2 ? [255, 0, 0] : [0, 0, 255], pixel * 3);
      plate.seen[pixel] = 1;
    }
    for (const pixel of [8 * WIDTH + 2, 8 * WIDTH + WIDTH - 3]) {
      plate.seen[pixel] = 0;
      wanted[pixel] = 255;
    }
    const [leftRed, , leftBlue, rightRed, , rightBlue] = inpaintUnseen(plate, wanted) as unknown as number[];
    expect(leftRed).toBeGreaterThan(200);
    expect(leftBlue).toBeLessThan(55);
    expect(rightBlue).toBeGreaterThan(200);
    expect(rightRed).toBeLessThan(55);
  });
});

describe('personCover', () => {
  it('is the set of pixels within the radius (square) of a probability at or above the threshold', () => {
    fc.assert(
      fc.property(
        fc.array(fc.double({ min: 0, max: 1, noNaN: true }), {
          minLength: WIDTH * HEIGHT,
          maxLength: WIDTH * HEIGHT,
        }),
        fc.integer({ min: 0, max: 4 }),
        (probabilities, radius) => {
          const cover = personCover(probabilities, WIDTH, HEIGHT, 0.5, radius);
          for (let y = 0; y < HEIGHT; y++) {
            for (let x = 0; x < WIDTH; x++) {
              let near = false;
              for (let dy = -radius; dy <= radius && !near; dy++) {
                for (let dx = -radius; dx <= radius && !near; dx++) {
                  const [ny, nx] = [y + dy, x + dx];
                  if (ny < 0 || nx < 0 || ny >= HEIGHT || nx >= WIDTH) continue;
                  near = (probabilities[ny * WIDTH + nx] as number) >= 0.5;
                }
              }
              expect(cover[y * WIDTH + x]).toBe(near ? 255 : 0);
            }
          }
        },
      ),
      { numRuns: 40 },
    );
  });
});
