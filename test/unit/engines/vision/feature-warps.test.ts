/**
 * The geometry of photo presenters without the model: landmark measures, column maps, areas, and the
 * warps on a drawn face whose landmarks are known exactly.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { VISEMES } from '../../../../lambdas/engines/speech/visemes.js';
import {
  eyeOpening,
  type FaceLandmarks,
  faceFromMesh,
  MESH_INDICES,
  MESH_POINTS,
  mouthOpening,
  mouthWidth,
  type Point,
} from '../../../../lambdas/engines/vision/face-landmarks.js';
import {
  areaWeight,
  ascending,
  ColumnContour,
  eyeArea,
  eyeGeometry,
  featureFrame,
  knotMap,
  mouthArea,
  mouthGeometry,
  type RgbaImage,
  toImage,
  toLocal,
} from '../../../../lambdas/engines/vision/feature-warps.js';
import { VisionEngineError } from '../../../../lambdas/engines/vision/human-runtime.js';
import { presenterSprites, stillReason } from '../../../../lambdas/engines/vision/photo-presenter.js';

// ---------------------------------------------------------------------------------------------------
// A drawn face with known landmarks

interface DrawnFace {
  /** Mouth centre, mouth width, inner gap (pixels). */
  mouth: { x: number; y: number; width: number; gap: number };
  /** Eye centres, eye width, lid gap. */
  eyes: { y: number; xs: [number, number]; width: number; gap: number };
}

const DRAWN: DrawnFace = {
  mouth: { x: 200, y: 260, width: 100, gap: 2 },
  eyes: { y: 150, xs: [150, 250], width: 50, gap: 16 },
};

/** `count` points from `from` to `to` along a parabola bulging `bulge` pixels downwards at the middle. */
function arc(from: Point, to: Point, bulge: number, count: number): Point[] {
  return Array.from({ length: count }, (_, index) => {
    const share = index / (count - 1);
    return {
      x: from.x + (to.x - from.x) * share,
      y: from.y + (to.y - from.y) * share + bulge * 4 * share * (1 - share),
    };
  });
}

/** A 478-point mesh (`[x, y, z]`) whose contours are a simple face: lips, eyes, brows, jaw, nose. */
function drawnMesh(face: DrawnFace): number[][] {
  const mesh: number[][] = Array.from({ length: MESH_POINTS }, () => [face.mouth.x, 200, 0]);
  const place = (indices: readonly number[], points: readonly Point[]) => {
    indices.forEach((meshIndex, index) => {
      const point = points[index] as Point;
      mesh[meshIndex] = [point.x, point.y, 0];
    });
  };
  const { mouth, eyes } = face;
  const right = { x: mouth.x - mouth.width / 2, y: mouth.y };
  const left = { x: mouth.x + mouth.width / 2, y: mouth.y };
  const half = mouth.gap / 2;
  place(MESH_INDICES.lipsUpperOuter, arc(right, left, -12, 11));
  place(MESH_INDICES.lipsLowerOuter, arc(right, left, 14, 11));
  place(MESH_INDICES.lipsUpperInner, arc(right, left, -half, 11));
  place(MESH_INDICES.lipsLowerInner, arc(right, left, half, 11));
  const eye = (
    x: number,
    upperIndices: readonly number[],
    lowerIndices: readonly number[],
    browIndices: readonly number[],
  ) => {
    const outer = { x: x - eyes.width / 2, y: eyes.y };
    const inner = { x: x + eyes.width / 2, y: eyes.y };
    place(upperIndices, arc(outer, inner, -eyes.gap / 2, 9));
    place(lowerIndices, arc(outer, inner, eyes.gap / 2, 9));
    place(browIndices, arc({ x: outer.x, y: eyes.y - 30 }, { x: inner.x, y: eyes.y - 30 }, -4, 6));
  };
  eye(eyes.xs[0], MESH_INDICES.rightEyeUpper, MESH_INDICES.rightEyeLower, MESH_INDICES.rightBrowLower);
  eye(eyes.xs[1], MESH_INDICES.leftEyeUpper, MESH_INDICES.leftEyeLower, MESH_INDICES.leftBrowLower);
  place(MESH_INDICES.jaw, arc({ x: 100, y: 250 }, { x: 300, y: 250 }, 120, MESH_INDICES.jaw.length));
  place(MESH_INDICES.noseBottom, [{ x: mouth.x, y: mouth.y - 40 }]);
  return mesh;
}

const SKIN = [214, 170, 140] as const;
const LIP = [170, 80, 85] as const;
const EYE_WHITE = [240, 240, 240] as const;

/** A 400 × 400 picture of the drawn face: skin, red lips between the outer contours, white eyes. */
function drawnPhoto(face: FaceLandmarks): RgbaImage {
  const width = 400;
  const height = 400;
  const data = new Uint8Array(width * height * 4);
  const lipsUpper = new ColumnContour(face.lips.upperOuter.map((p) => ({ s: p.x, t: p.y })));
  const lipsLower = new ColumnContour(face.lips.lowerOuter.map((p) => ({ s: p.x, t: p.y })));
  const eyes = [face.rightEye, face.leftEye].map((eye) => ({
    upper: new ColumnContour(eye.upper.map((p) => ({ s: p.x, t: p.y }))),
    lower: new ColumnContour(eye.lower.map((p) => ({ s: p.x, t: p.y }))),
    start: eye.upper[0]?.x ?? 0,
    end: eye.upper.at(-1)?.x ?? 0,
  }));
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const cx = x + 0.5;
      const cy = y + 0.5;
      let colour: readonly number[] = SKIN;
      const inLips =
        cx > (face.lips.upperOuter[0]?.x ?? 0) &&
        cx < (face.lips.upperOuter.at(-1)?.x ?? 0) &&
        cy > lipsUpper.at(cx) &&
        cy < lipsLower.at(cx);
      if (inLips) colour = LIP;
      for (const eye of eyes) {
        if (cx > eye.start && cx < eye.end && cy > eye.upper.at(cx) && cy < eye.lower.at(cx))
          colour = EYE_WHITE;
      }
      // A little texture, so moved pixels are told from unmoved ones.
      const grain = ((x * 7 + y * 13) % 9) - 4;
      const at = (y * width + x) * 4;
      data[at] = (colour[0] as number) + grain;
      data[at + 1] = (colour[1] as number) + grain;
      data[at + 2] = (colour[2] as number) + grain;
      data[at + 3] = 255;
    }
  }
  return { data, width, height, channels: 4 };
}

const drawnFace = faceFromMesh(drawnMesh(DRAWN), 0.98, [100, 80, 200, 240]);

// ---------------------------------------------------------------------------------------------------

describe('face landmarks from the mesh', () => {
  it('pairs the lip and lid contours and measures their openings', () => {
    expect(drawnFace.lips.upperInner).toHaveLength(11);
    expect(drawnFace.lips.lowerInner).toHaveLength(11);
    expect(mouthWidth(drawnFace)).toBeCloseTo(DRAWN.mouth.width, 6);
    // The middle three pairs of the parabolas: gap × (1, 0.96, 0.96) on average.
    const middleShare = (1 + 2 * 0.96) / 3;
    expect(mouthOpening(drawnFace)).toBeCloseTo((DRAWN.mouth.gap * middleShare) / DRAWN.mouth.width, 6);
    const eyeMiddle = (1 + 2 * (4 * (3 / 8) * (5 / 8))) / 3;
    expect(eyeOpening(drawnFace)).toBeCloseTo((DRAWN.eyes.gap * eyeMiddle) / DRAWN.eyes.width, 6);
  });

  it('scales points and box into the full picture', () => {
    const scaled = faceFromMesh(drawnMesh(DRAWN), 0.9, [10, 20, 30, 40], 2.5);
    expect(scaled.box).toEqual({ x: 25, y: 50, width: 75, height: 100 });
    expect(scaled.noseBottom).toEqual({ x: 500, y: 550 });
    expect(mouthOpening(scaled)).toBeCloseTo(mouthOpening(drawnFace), 9);
  });

  it('refuses a mesh without the iris points', () => {
    expect(() => faceFromMesh(drawnMesh(DRAWN).slice(0, 468), 1, [0, 0, 1, 1])).toThrow(VisionEngineError);
  });
});

describe('feature frames and column maps', () => {
  it('turns with a tilted feature and points down towards the chin', () => {
    const frame = featureFrame({ x: 0, y: 0 }, { x: 30, y: 40 }, { x: -100, y: 100 });
    expect(frame.across.x).toBeCloseTo(0.6);
    expect(frame.down.x * -100 + frame.down.y * 100).toBeGreaterThan(0);
    const point = { x: 12.5, y: -7.25 };
    const local = toLocal(frame, point);
    const back = toImage(frame, local.s, local.t);
    expect(back.x).toBeCloseTo(point.x, 9);
    expect(back.y).toBeCloseTo(point.y, 9);
  });

  it('interpolates a contour and holds its ends', () => {
    const contour = new ColumnContour([
      { s: 10, t: 5 },
      { s: 0, t: 1 },
    ]);
    expect(contour.at(-5)).toBe(1);
    expect(contour.at(5)).toBeCloseTo(3);
    expect(contour.at(20)).toBe(5);
  });

  it('maps knots onto knots, the identity outside them, NaN in the opened span', () => {
    const out = [0, 10, 14, 20];
    const source = [0, 10, 10, 20];
    expect(knotMap(-3, out, source)).toBe(-3);
    expect(knotMap(25, out, source)).toBe(25);
    expect(knotMap(5, out, source)).toBe(5);
    expect(knotMap(17, out, source)).toBeCloseTo(10 + (3 / 6) * 10);
    expect(knotMap(12, out, source, 1)).toBeNaN();
  });

  it('never folds over: knots that start and end together give a non-decreasing map, knots onto knots', () => {
    const cumulative = (steps: readonly number[], total: number) => {
      const sum = steps.reduce((a, b) => a + b, 0) || 1;
      let at = 10;
      return Float64Array.from([10, ...steps.map((step) => (at += (step / sum) * total))]);
    };
    const steps = fc.array(fc.double({ min: 0, max: 1, noNaN: true }), { minLength: 3, maxLength: 6 });
    fc.assert(
      fc.property(
        steps,
        steps,
        fc.double({ min: 1, max: 200, noNaN: true }),
        (outSteps, sourceSteps, total) => {
          const count = Math.min(outSteps.length, sourceSteps.length);
          const out = ascending(cumulative(outSteps.slice(0, count), total));
          const source = ascending(cumulative(sourceSteps.slice(0, count), total));
          let previous = Number.NEGATIVE_INFINITY;
          for (let t = 0; t < total + 20; t += 0.25) {
            const mapped = knotMap(t, out, source);
            expect(mapped).toBeGreaterThanOrEqual(previous - 1e-9);
            previous = mapped;
          }
          // Each knot maps onto its source knot (a collapsed span maps onto its end).
          out.forEach((knot, index) => {
            if (index === out.length - 1 || (out[index + 1] as number) <= knot) return;
            expect(knotMap(knot, out, source)).toBeCloseTo(source[index] as number, 6);
          });
        },
      ),
    );
  });
});

describe('warps of a drawn face', () => {
  const photo = drawnPhoto(drawnFace);
  const sprites = presenterSprites(photo, drawnFace);
  const mouth = mouthGeometry(drawnFace, photo);
  const mouthRegion = mouthArea(mouth);
  const eyeRegions = [drawnFace.rightEye, drawnFace.leftEye].map((eye) =>
    eyeArea(eyeGeometry(eye, { x: DRAWN.mouth.x, y: DRAWN.mouth.y }, photo)),
  );

  /** The sprite pasted on the photo (alpha over), as RGB at picture coordinates. */
  function pasted(name: keyof typeof sprites): (x: number, y: number) => [number, number, number] {
    const { rgba, box } = sprites[name];
    return (x, y) => {
      const base = (y * photo.width + x) * 4;
      const inside = x >= box.x && y >= box.y && x < box.x + box.width && y < box.y + box.height;
      const at = inside ? ((y - box.y) * box.width + (x - box.x)) * 4 : -1;
      const alpha = at >= 0 ? (rgba[at + 3] as number) / 255 : 0;
      return [0, 1, 2].map(
        (c) =>
          (photo.data[base + c] as number) * (1 - alpha) + (at >= 0 ? (rgba[at + c] as number) : 0) * alpha,
      ) as [number, number, number];
    };
  }

  it('keeps every sprite transparent outside its area', () => {
    for (const [name, { rgba, box }] of Object.entries(sprites)) {
      const areas = name === 'blink' ? eyeRegions : [mouthRegion];
      for (let row = 0; row < box.height; row++) {
        for (let column = 0; column < box.width; column++) {
          const point = { x: box.x + column + 0.5, y: box.y + row + 0.5 };
          const weight = Math.max(...areas.map((area) => areaWeight(area, toLocal(area.frame, point))));
          if (weight === 0) expect(rgba[(row * box.width + column) * 4 + 3]).toBe(0);
        }
      }
    }
  });

  it('gives every mouth sprite one box, and rest covers all the others with the photo itself', () => {
    const mouthNames = Object.values(VISEMES);
    for (const name of mouthNames) expect(sprites[name].box).toEqual(sprites.rest.box);
    const rest = sprites.rest.rgba;
    for (let at = 0; at < rest.length; at += 4) {
      const covered = Math.max(...mouthNames.map((name) => sprites[name].rgba[at + 3] as number));
      expect(rest[at + 3]).toBe(covered);
    }
    const restLooks = pasted('rest');
    const { box } = sprites.rest;
    let difference = 0;
    for (let y = box.y; y < box.y + box.height; y++) {
      for (let x = box.x; x < box.x + box.width; x++) {
        const base = (y * photo.width + x) * 4;
        const [r, g, b] = restLooks(x, y);
        difference +=
          Math.abs(r - (photo.data[base] as number)) + Math.abs(g - (photo.data[base + 1] as number));
        difference += Math.abs(b - (photo.data[base + 2] as number));
      }
    }
    expect(difference / (box.width * box.height * 3)).toBeLessThan(0.01);
  });

  it('opens the mouth dark below the upper lip, deeper for open_wide', () => {
    const darkRows = (name: 'open_small' | 'open_wide' | 'closed') => {
      const look = pasted(name);
      let rows = 0;
      for (let y = DRAWN.mouth.y - 10; y < DRAWN.mouth.y + 60; y++) {
        const [r, g, b] = look(DRAWN.mouth.x, y);
        if (0.2126 * r + 0.7152 * g + 0.0722 * b < 60) rows++;
      }
      return rows;
    };
    const openWide = darkRows('open_wide');
    const openSmall = darkRows('open_small');
    expect(darkRows('closed')).toBe(0);
    expect(openSmall).toBeGreaterThan(3);
    expect(openWide).toBeGreaterThan(openSmall * 1.8);
  });

  it('narrows the lips for rounded and widens them for spread', () => {
    // From the first to the last pixel of the mouth (lips or opening) along the lip line.
    const lipSpan = (name: 'rest' | 'rounded' | 'spread') => {
      const look = pasted(name);
      const mouthColumns: number[] = [];
      for (let x = 60; x < 340; x++) {
        const [r, g, b] = look(x, DRAWN.mouth.y);
        const fromSkin = Math.abs(r - SKIN[0]) + Math.abs(g - SKIN[1]) + Math.abs(b - SKIN[2]);
        if (fromSkin > 60) mouthColumns.push(x);
      }
      return (mouthColumns.at(-1) ?? 0) - (mouthColumns[0] ?? 0) + 1;
    };
    const rest = lipSpan('rest');
    expect(rest).toBeGreaterThan(DRAWN.mouth.width * 0.9);
    expect(lipSpan('rounded')).toBeLessThan(rest * 0.82);
    expect(lipSpan('spread')).toBeGreaterThan(rest * 1.05);
  });

  it('closes both eyes for the blink: no white of the eye left', () => {
    const look = pasted('blink');
    for (const eyeX of DRAWN.eyes.xs) {
      let white = 0;
      for (let y = DRAWN.eyes.y - 10; y <= DRAWN.eyes.y + 10; y++) {
        for (let x = eyeX - 15; x <= eyeX + 15; x++) {
          const [r, g, b] = look(x, y);
          if (r > 225 && g > 225 && b > 225) white++;
        }
      }
      expect(white).toBe(0);
    }
  });
});

describe('which photos stay still', () => {
  const at = (dx: number, dy: number, width = 1): FaceLandmarks => {
    const mesh = drawnMesh(DRAWN).map(([x = 0, y = 0]) => [dx + (x - 200) * width + 200, dy + y, 0]);
    return faceFromMesh(mesh, 0.97, [dx + 100 - (width - 1) * 100, dy + 80, 200 * width, 240]);
  };

  it('animates one face, wide enough and inside the photo', () => {
    expect(stillReason([at(0, 0)], 400, 400)).toBeUndefined();
    // A weak second detection is not a second person.
    expect(stillReason([at(0, 0), { ...at(150, 0), score: 0.3 }], 400, 400)).toBeUndefined();
  });

  it('names the reason and what to do', () => {
    expect(stillReason([], 400, 400)?.reason).toBe('no_face');
    const several = stillReason([at(0, 0), at(200, 0)], 800, 400);
    expect(several?.reason).toBe('several_faces');
    expect(several?.message).toMatch(/one face/);
    expect(stillReason([at(0, 0, 0.3)], 400, 400)?.reason).toBe('face_too_small');
    expect(stillReason([at(0, 0)], 3000, 3000)?.message).toMatch(/at least 240 px/);
    expect(stillReason([at(-130, 0)], 400, 400)?.reason).toBe('face_cut_off');
    expect(stillReason([at(0, 0)], 400, 265)?.reason).toBe('face_cut_off');
  });
});
