/**
 * The mask's pixel work (`mask-edges.ts`): each fast path (flat runs filled at once, only the edge's
 * band blurred, edge colours from blocks) against the plain computation it stands for, on seeded
 * random masks made of blocks (flat areas and edges, like a person's).
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../../support/property-seed.js';
import {
  blurMaskEdges,
  chokeMask,
  gaussianKernel,
  rgbaWithEdgeColours,
  scaleUpBilinear,
} from '../../../../lambdas/engines/vision/mask-edges.js';

/** A `width` × `height` mask of rectangles of random levels on 0, some of them on each other. */
const blockyMask = (width: number, height: number) =>
  fc
    .array(
      fc.record({
        x: fc.integer({ min: 0, max: width - 1 }),
        y: fc.integer({ min: 0, max: height - 1 }),
        w: fc.integer({ min: 1, max: width }),
        h: fc.integer({ min: 1, max: height }),
        level: fc.constantFrom(255, 255, 128, 40),
      }),
      { maxLength: 4 },
    )
    .map((blocks) => {
      const mask = new Uint8Array(width * height);
      for (const block of blocks) {
        for (let y = block.y; y < Math.min(height, block.y + block.h); y++) {
          mask.fill(block.level, y * width + block.x, y * width + Math.min(width, block.x + block.w));
        }
      }
      return mask;
    });

/** Bilinear sampling, one pixel at a time, the way the formula reads. */
function naiveBilinear(low: Uint8Array, lowWidth: number, lowHeight: number, width: number, height: number) {
  const out = new Uint8Array(width * height);
  const at = (x: number, y: number) => low[y * lowWidth + x] as number;
  for (let y = 0; y < height; y++) {
    const sy = Math.min(lowHeight - 1, Math.max(0, ((y + 0.5) * lowHeight) / height - 0.5));
    const y0 = Math.floor(sy);
    const y1 = Math.min(lowHeight - 1, y0 + 1);
    for (let x = 0; x < width; x++) {
      const sx = Math.min(lowWidth - 1, Math.max(0, ((x + 0.5) * lowWidth) / width - 0.5));
      const x0 = Math.floor(sx);
      const x1 = Math.min(lowWidth - 1, x0 + 1);
      const top = at(x0, y0) + (sx - x0) * (at(x1, y0) - at(x0, y0));
      const bottom = at(x0, y1) + (sx - x0) * (at(x1, y1) - at(x0, y1));
      out[y * width + x] = Math.round(top + (sy - y0) * (bottom - top));
    }
  }
  return out;
}

/** A Gaussian blur of every pixel, across then down, edges clamped, rounded after each pass. */
function naiveBlur(mask: Uint8Array, width: number, height: number, sigma: number) {
  const { weights, radius } = gaussianKernel(sigma);
  const pass = (source: Uint8Array, step: 'across' | 'down') => {
    const out = new Uint8Array(source.length);
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        let sum = 0;
        for (let offset = -radius; offset <= radius; offset++) {
          const sx = step === 'across' ? Math.min(width - 1, Math.max(0, x + offset)) : x;
          const sy = step === 'down' ? Math.min(height - 1, Math.max(0, y + offset)) : y;
          sum += (weights[offset + radius] as number) * (source[sy * width + sx] as number);
        }
        out[y * width + x] = Math.round(sum);
      }
    }
    return out;
  };
  return pass(pass(mask, 'across'), 'down');
}

describe('scaleUpBilinear', () => {
  it('is bilinear sampling of the small mask, pixel for pixel (to the rounding of a half)', () => {
    fc.assert(
      fc.property(
        blockyMask(9, 7),
        fc.integer({ min: 9, max: 40 }),
        fc.integer({ min: 7, max: 30 }),
        (low, width, height) => {
          const scaled = scaleUpBilinear(low, 9, 7, width, height);
          const expected = naiveBilinear(low, 9, 7, width, height);
          expect(scaled).toHaveLength(width * height);
          // The same formula in another order: a value at exactly .5 may round the other way.
          for (let pixel = 0; pixel < width * height; pixel++) {
            expect(Math.abs((scaled[pixel] as number) - (expected[pixel] as number))).toBeLessThanOrEqual(1);
          }
        },
      ),
      { numRuns: 60 },
    );
  });

  it('refuses a mask of the wrong size', () => {
    expect(() => scaleUpBilinear(new Uint8Array(10), 4, 4, 8, 8)).toThrow(RangeError);
  });
});

describe('blurMaskEdges', () => {
  // 40 wide: rows of whole 32-bit words, scanned four pixels at a time; 37: pixel by pixel.
  it.each([40, 37])(
    'equals a Gaussian blur of the whole mask, though it only computes the band around edges (%i wide)',
    (width) => {
      fc.assert(
        fc.property(blockyMask(width, 30), fc.double({ min: 0.3, max: 4, noNaN: true }), (mask, sigma) => {
          const expected = naiveBlur(mask, width, 30, sigma);
          expect(blurMaskEdges(Uint8Array.from(mask), width, 30, sigma)).toEqual(expected);
        }),
        { numRuns: 60 },
      );
    },
  );

  it('leaves a mask alone below the smallest visible blur', () => {
    const mask = Uint8Array.of(0, 255, 0, 255);
    expect(blurMaskEdges(Uint8Array.from(mask), 2, 2, 0.1)).toEqual(mask);
  });
});

describe('chokeMask', () => {
  it('cuts the faint part of the edge and stretches the rest back to 0–255, monotonically', () => {
    fc.assert(
      fc.property(fc.integer({ min: 0, max: 254 }), (choke) => {
        const levels = chokeMask(
          Uint8Array.from({ length: 256 }, (_, value) => value),
          choke,
        );
        expect(levels[0]).toBe(0);
        expect(levels[255]).toBe(255);
        expect(levels[choke]).toBe(0);
        for (let value = 1; value < 256; value++) {
          expect(levels[value] as number).toBeGreaterThanOrEqual(levels[value - 1] as number);
        }
      }),
    );
  });
});

/** Masks of runs of 0, 255 and partial values, of any length, at any offset in their buffer. */
const runsMask = fc
  .array(
    fc.record({ level: fc.constantFrom(0, 255, 255, 100, 200), length: fc.integer({ min: 1, max: 12 }) }),
    {
      maxLength: 12,
    },
  )
  .chain((runs) => fc.record({ runs: fc.constant(runs), offset: fc.integer({ min: 0, max: 3 }) }))
  .map(({ runs, offset }) => {
    const bytes = runs.flatMap((run) => Array<number>(run.length).fill(run.level));
    const buffer = new Uint8Array(bytes.length + offset);
    buffer.set(bytes, offset);
    return buffer.subarray(offset);
  });

describe('chokeMask on whole masks', () => {
  it('maps every byte as its level alone would be mapped, whatever the stretches of 0 and 255 around it', () => {
    fc.assert(
      fc.property(runsMask, fc.integer({ min: 1, max: 254 }), (mask, choke) => {
        const levels = chokeMask(
          Uint8Array.from({ length: 256 }, (_, value) => value),
          choke,
        );
        const expected = Array.from(mask, (value) => levels[value]);
        expect([...chokeMask(mask, choke)]).toEqual(expected);
      }),
      { numRuns: 80 },
    );
  });
});

describe('rgbaWithEdgeColours', () => {
  // A red person (opaque on the left) over a green wall, a soft outline of partial pixels between.
  const width = 60;
  const height = 20;
  const scene = () => {
    const rgb = new Uint8Array(width * height * 3);
    const mask = new Uint8Array(width * height);
    for (let pixel = 0; pixel < width * height; pixel++) {
      const x = pixel % width;
      mask[pixel] = x < 30 ? 255 : x < 34 ? 255 - (x - 29) * 50 : 0;
      // The outline shows the wall's green through the person's red, as a camera sees it.
      const personShare = (mask[pixel] as number) / 255;
      rgb.set([Math.round(200 * personShare), Math.round(180 * (1 - personShare)), 0], pixel * 3);
    }
    return { rgb, mask };
  };

  it('takes the mask as alpha and keeps the colours of opaque and transparent pixels', () => {
    const { rgb, mask } = scene();
    const rgba = rgbaWithEdgeColours(rgb, mask, width, height, 3);
    for (let pixel = 0; pixel < width * height; pixel++) {
      expect(rgba[pixel * 4 + 3]).toBe(mask[pixel]);
      if (mask[pixel] === 0 || mask[pixel] === 255) {
        expect([...rgba.subarray(pixel * 4, pixel * 4 + 3)]).toEqual([
          ...rgb.subarray(pixel * 3, pixel * 3 + 3),
        ]);
      }
    }
  });

  it('gives the outline the person’s colour instead of the wall’s showing through', () => {
    const { rgb, mask } = scene();
    const rgba = rgbaWithEdgeColours(rgb, mask, width, height, 3);
    for (let y = 0; y < height; y++) {
      for (let x = 30; x < 34; x++) {
        const at = (y * width + x) * 4;
        expect(rgba[at], `red at ${x},${y}`).toBeGreaterThan(190);
        expect(rgba[at + 1], `green at ${x},${y}`).toBeLessThan(10);
      }
    }
    // Without the repair (sigma 0) the outline keeps its mixed colours.
    const plain = rgbaWithEdgeColours(rgb, mask, width, height, 0);
    expect(plain[(5 * width + 33) * 4 + 1]).toBeGreaterThan(100);
  });

  it('keeps the colour of an outline with no opaque person pixel within reach', () => {
    const rgb = new Uint8Array(width * height * 3).fill(90);
    const mask = new Uint8Array(width * height).fill(120);
    const rgba = rgbaWithEdgeColours(rgb, mask, width, height, 3);
    for (let pixel = 0; pixel < width * height; pixel++) expect(rgba[pixel * 4]).toBe(90);
  });
});
