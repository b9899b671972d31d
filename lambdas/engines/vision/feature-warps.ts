/**
 * The warps that make a photographed face talk and blink: pure geometry and pixel work on raw RGBA,
 * no model and no sharp (`photo-presenter.ts` runs the detector and encodes the results).
 *
 * Each warp is a backward map: for every pixel of the sprite it says where in the photo to read
 * (bilinear) or that the pixel shows something the photo does not have (the inside of an opened
 * mouth, teeth). Maps are built per column of the feature's own axes (`FeatureFrame`: across the
 * mouth or eye and down towards the chin, so tilted heads work) as monotone piecewise-linear maps
 * between landmark contours: lips, lids and skin move as bands, never fold over, and every map is the
 * identity at the edges of its `FeatureArea`. A sprite's alpha is how far its map moves the pixel, so
 * it is transparent wherever the photo is unchanged and pasting it leaves no seam.
 */
import type { Viseme } from '../speech/visemes.js';
import type { EyeLids, FaceLandmarks, PixelBox, Point } from './face-landmarks.js';
import type { RawImage } from './human-runtime.js';

// ---------------------------------------------------------------------------------------------------
// Feature frames and contours

/** A feature's own axes in the picture: `across` runs along it (unit vector), `down` points to the chin. */
export interface FeatureFrame {
  origin: Point;
  across: Point;
  down: Point;
}

/** A point in a feature's axes: `s` along `across`, `t` along `down`, in pixels. */
export interface LocalPoint {
  s: number;
  t: number;
}

/** Axes along `from`→`to` through their midpoint, `down` on the side of `below`. */
export function featureFrame(from: Point, to: Point, below: Point): FeatureFrame {
  const origin = { x: (from.x + to.x) / 2, y: (from.y + to.y) / 2 };
  const length = Math.hypot(to.x - from.x, to.y - from.y) || 1;
  const across = { x: (to.x - from.x) / length, y: (to.y - from.y) / length };
  let down = { x: -across.y, y: across.x };
  if (down.x * (below.x - origin.x) + down.y * (below.y - origin.y) < 0) down = { x: -down.x, y: -down.y };
  return { origin, across, down };
}

export function toLocal(frame: FeatureFrame, point: Point): LocalPoint {
  const dx = point.x - frame.origin.x;
  const dy = point.y - frame.origin.y;
  return { s: dx * frame.across.x + dy * frame.across.y, t: dx * frame.down.x + dy * frame.down.y };
}

export function toImage(frame: FeatureFrame, s: number, t: number): Point {
  return {
    x: frame.origin.x + s * frame.across.x + t * frame.down.x,
    y: frame.origin.y + s * frame.across.y + t * frame.down.y,
  };
}

/**
 * A contour as `t` for each `s` (linear between its points, constant past its ends): the height of a
 * lip edge or lid over a column. Points are sorted by `s`, so either running direction works.
 */
export class ColumnContour {
  private readonly s: Float64Array;
  private readonly t: Float64Array;

  constructor(points: readonly LocalPoint[]) {
    const sorted = [...points].sort((a, b) => a.s - b.s);
    this.s = Float64Array.from(sorted, (point) => point.s);
    this.t = Float64Array.from(sorted, (point) => point.t);
  }

  static of(frame: FeatureFrame, points: readonly Point[]): ColumnContour {
    return new ColumnContour(points.map((point) => toLocal(frame, point)));
  }

  get first(): number {
    return this.s[0] ?? 0;
  }

  get last(): number {
    return this.s[this.s.length - 1] ?? 0;
  }

  at(s: number): number {
    const count = this.s.length;
    if (count === 0) return 0;
    if (s <= (this.s[0] as number)) return this.t[0] as number;
    if (s >= (this.s[count - 1] as number)) return this.t[count - 1] as number;
    // Binary search: contours found from pixels have a point per pixel column.
    let low = 0;
    let high = count - 1;
    while (high - low > 1) {
      const middle = (low + high) >> 1;
      if ((this.s[middle] as number) < s) low = middle;
      else high = middle;
    }
    const s0 = this.s[high - 1] as number;
    const s1 = this.s[high] as number;
    const t0 = this.t[high - 1] as number;
    const t1 = this.t[high] as number;
    return s1 > s0 ? t0 + ((s - s0) / (s1 - s0)) * (t1 - t0) : t1;
  }
}

export function smoothstep(edge0: number, edge1: number, value: number): number {
  if (edge1 === edge0) return value < edge0 ? 0 : 1;
  const x = Math.min(1, Math.max(0, (value - edge0) / (edge1 - edge0)));
  return x * x * (3 - 2 * x);
}

/**
 * Where output `t` reads from, given matching knots (both ascending): linear between knots, the
 * identity outside them. Returns `NaN` inside the output span `[outKnots[gap], outKnots[gap + 1])`
 * when `gap` is given: that span shows something the photo does not have.
 */
export function knotMap(
  t: number,
  outKnots: ArrayLike<number>,
  sourceKnots: ArrayLike<number>,
  gap = -1,
): number {
  const count = outKnots.length;
  if (t < (outKnots[0] as number) || t >= (outKnots[count - 1] as number)) return t;
  for (let i = 0; i < count - 1; i++) {
    const o0 = outKnots[i] as number;
    const o1 = outKnots[i + 1] as number;
    if (t >= o1) continue;
    if (i === gap) return Number.NaN;
    const k0 = sourceKnots[i] as number;
    const k1 = sourceKnots[i + 1] as number;
    return o1 > o0 ? k0 + ((t - o0) / (o1 - o0)) * (k1 - k0) : k1;
  }
  return t;
}

/** Makes knots non-decreasing in place (a knot below its predecessor moves up to it): maps never fold. */
export function ascending(knots: Float64Array, minimumStep = 0): Float64Array {
  for (let i = 1; i < knots.length; i++) {
    knots[i] = Math.max(knots[i] as number, (knots[i - 1] as number) + minimumStep);
  }
  return knots;
}

// ---------------------------------------------------------------------------------------------------
// Areas

/**
 * Where a feature's sprites may differ from the photo: a rounded rectangle (a superellipse of power 4)
 * in the feature's axes. Every warp is scaled down to nothing between `FADE_START` and its edge.
 */
export interface FeatureArea {
  frame: FeatureFrame;
  centre: LocalPoint;
  halfAcross: number;
  halfDown: number;
}

const FADE_START = 0.9;

/** 0 at the area's centre, 1 on its edge. */
export function areaRadius(area: FeatureArea, point: LocalPoint): number {
  const x = (point.s - area.centre.s) / area.halfAcross;
  const y = (point.t - area.centre.t) / area.halfDown;
  return Math.sqrt(Math.sqrt(x ** 4 + y ** 4));
}

const FADE_START_FOURTH = FADE_START ** 4;

/** 1 well inside the area, fading smoothly to 0 at its edge and beyond. */
export function areaWeight(area: FeatureArea, point: LocalPoint): number {
  // Every pixel of every sprite asks: the roots are taken only in the fade.
  const x = (point.s - area.centre.s) / area.halfAcross;
  const y = (point.t - area.centre.t) / area.halfDown;
  const x2 = x * x;
  const y2 = y * y;
  const fourth = x2 * x2 + y2 * y2;
  if (fourth <= FADE_START_FOURTH) return 1;
  if (fourth >= 1) return 0;
  return 1 - smoothstep(FADE_START, 1, Math.sqrt(Math.sqrt(fourth)));
}

/** The whole pixels that hold an area, within a `width` × `height` picture. */
export function areaBox(areas: readonly FeatureArea[], width: number, height: number): PixelBox {
  let left = Number.POSITIVE_INFINITY;
  let top = Number.POSITIVE_INFINITY;
  let right = Number.NEGATIVE_INFINITY;
  let bottom = Number.NEGATIVE_INFINITY;
  for (const area of areas) {
    for (const [sx, ty] of [
      [-1, -1],
      [1, -1],
      [-1, 1],
      [1, 1],
    ] as const) {
      const corner = toImage(
        area.frame,
        area.centre.s + sx * area.halfAcross,
        area.centre.t + ty * area.halfDown,
      );
      left = Math.min(left, corner.x);
      top = Math.min(top, corner.y);
      right = Math.max(right, corner.x);
      bottom = Math.max(bottom, corner.y);
    }
  }
  const x = Math.max(0, Math.floor(left));
  const y = Math.max(0, Math.floor(top));
  return {
    x,
    y,
    width: Math.max(0, Math.min(width, Math.ceil(right)) - x),
    height: Math.max(0, Math.min(height, Math.ceil(bottom)) - y),
  };
}

// ---------------------------------------------------------------------------------------------------
// Pixels

/** An RGBA picture (`channels` 4), as the warps read and write them. */
export type RgbaImage = RawImage & { channels: 4 };

export type Rgb = readonly [number, number, number];

/** Bilinear RGBA at a (fractional) pixel position, edges clamped, into `out`. */
export function sampleBilinear(image: RgbaImage, x: number, y: number, out: Float64Array): void {
  const maxX = image.width - 1;
  const maxY = image.height - 1;
  const cx = Math.min(maxX, Math.max(0, x - 0.5));
  const cy = Math.min(maxY, Math.max(0, y - 0.5));
  const x0 = Math.floor(cx);
  const y0 = Math.floor(cy);
  const x1 = Math.min(maxX, x0 + 1);
  const y1 = Math.min(maxY, y0 + 1);
  const fx = cx - x0;
  const fy = cy - y0;
  const data = image.data;
  const i00 = (y0 * image.width + x0) * 4;
  const i10 = (y0 * image.width + x1) * 4;
  const i01 = (y1 * image.width + x0) * 4;
  const i11 = (y1 * image.width + x1) * 4;
  for (let c = 0; c < 4; c++) {
    const top = (data[i00 + c] as number) * (1 - fx) + (data[i10 + c] as number) * fx;
    const bottom = (data[i01 + c] as number) * (1 - fx) + (data[i11 + c] as number) * fx;
    out[c] = top * (1 - fy) + bottom * fy;
  }
}

/** The mean colour of the photo at some points (bilinear). */
function meanColour(image: RgbaImage, points: readonly Point[]): Rgb {
  const sample = new Float64Array(4);
  const sum = [0, 0, 0];
  for (const point of points) {
    sampleBilinear(image, point.x, point.y, sample);
    for (let c = 0; c < 3; c++) sum[c] = (sum[c] as number) + (sample[c] as number);
  }
  const count = Math.max(1, points.length);
  return [(sum[0] as number) / count, (sum[1] as number) / count, (sum[2] as number) / count];
}

function luminance(colour: Rgb): number {
  return 0.2126 * colour[0] + 0.7152 * colour[1] + 0.0722 * colour[2];
}

/**
 * What one pixel of a sprite shows, written by a warp's pixel function: the photo at (`sourceX`,
 * `sourceY`), with `fill` (0..1) of `colour` (RGB 0..255) over it.
 */
interface PixelPlan {
  sourceX: number;
  sourceY: number;
  fill: number;
  colour: [number, number, number];
}

/**
 * A sprite of `box`: RGBA, `box.width` × `box.height`. Alpha is the photo's alpha where the pixel
 * changes, fading to 0 where the map moves it by less than half a pixel: the photo shows through
 * unchanged wherever the warp does nothing.
 */
function renderSprite(
  photo: RgbaImage,
  box: PixelBox,
  plan: (x: number, y: number, pixel: PixelPlan) => void,
): Uint8Array {
  const out = new Uint8Array(box.width * box.height * 4);
  const pixel: PixelPlan = { sourceX: 0, sourceY: 0, fill: 0, colour: [0, 0, 0] };
  const sample = new Float64Array(4);
  const own = new Float64Array(4);
  for (let row = 0; row < box.height; row++) {
    for (let column = 0; column < box.width; column++) {
      const x = box.x + column + 0.5;
      const y = box.y + row + 0.5;
      pixel.sourceX = x;
      pixel.sourceY = y;
      pixel.fill = 0;
      plan(x, y, pixel);
      const moved = Math.hypot(pixel.sourceX - x, pixel.sourceY - y);
      const change = Math.max(pixel.fill, smoothstep(0.02, 0.5, moved));
      if (change <= 0) continue;
      sampleBilinear(photo, pixel.sourceX, pixel.sourceY, sample);
      const at = (row * box.width + column) * 4;
      for (let c = 0; c < 3; c++) {
        const value = (sample[c] as number) * (1 - pixel.fill) + (pixel.colour[c] as number) * pixel.fill;
        out[at + c] = Math.round(Math.min(255, Math.max(0, value)));
      }
      // The photo's own alpha at the pixel bounds the sprite's: a cut-out portrait stays cut out.
      sampleBilinear(photo, x, y, own);
      out[at + 3] = Math.round(change * (own[3] as number));
    }
  }
  return out;
}

// ---------------------------------------------------------------------------------------------------
// The mouth

/** How a viseme reshapes the photographed mouth. Lengths are shares of the mouth's width. */
export interface MouthShape {
  /** The gap between the inner lip edges at the middle. */
  opening: number;
  /**
   * `true`: a mouth already open in the photo (a smile) still opens, by at least half of `opening`
   * (a full `opening` more would take a smiling mouth past anything natural); `false`: the lips end
   * up exactly `opening` apart.
   */
  opensFromPhoto: boolean;
  /** How the gap runs from the middle to its ends: `lens` (1 − x²), `round` (√(1 − x²)), `flat` (1 − x⁴). */
  openingProfile: 'lens' | 'round' | 'flat';
  /** Half the gap's length ÷ half the inner mouth's length (before `widthScale`). */
  openingSpan: number;
  /** The mouth's width ÷ its width in the photo. */
  widthScale: number;
  /** How far the middle of the upper lip goes up. */
  upperLipRaise: number;
  /** Each lip's thickness ÷ its thickness in the photo (pressed or tucked lips are thinner). */
  upperLipThickness: number;
  lowerLipThickness: number;
  /** The chin moves this many times as far as the lower lip's outer edge. */
  jawFollow: number;
  /** Upper and lower teeth seen in the gap, as shares of its height at the middle (tapering to its ends). */
  upperTeeth: number;
  lowerTeeth: number;
  /** How clearly the teeth show, 0..1 (in a wide-open mouth they are in the lip's shadow). */
  teethVisibility: number;
}

const SHAPE_DEFAULTS: MouthShape = {
  opening: 0,
  opensFromPhoto: false,
  openingProfile: 'lens',
  openingSpan: 0.9,
  widthScale: 1,
  upperLipRaise: 0,
  upperLipThickness: 1,
  lowerLipThickness: 1,
  jawFollow: 1.1,
  upperTeeth: 0,
  lowerTeeth: 0,
  teethVisibility: 1,
};

/**
 * The mouth of each viseme; `rest` is the photo's own (no warp). Openings follow the issue: the jaw
 * drops about 0.12 (open_small) and 0.3 (open_wide) of the mouth's width; rounded lips narrow to 0.75
 * of it around a small round opening; spread lips widen to 1.1 over a teeth band; for f/v the lower
 * lip tucks under the upper teeth.
 */
export const MOUTH_SHAPES: Readonly<Record<Exclude<Viseme, 'rest'>, MouthShape>> = {
  closed: { ...SHAPE_DEFAULTS, upperLipThickness: 0.85, lowerLipThickness: 0.85, jawFollow: 1 },
  open_small: {
    ...SHAPE_DEFAULTS,
    opening: 0.12,
    opensFromPhoto: true,
    upperLipRaise: 0.01,
    upperTeeth: 0.3,
    teethVisibility: 0.7,
  },
  open_wide: {
    ...SHAPE_DEFAULTS,
    opening: 0.3,
    opensFromPhoto: true,
    widthScale: 0.94,
    upperLipRaise: 0.03,
    upperTeeth: 0.16,
    teethVisibility: 0.6,
    jawFollow: 1.15,
  },
  rounded: {
    ...SHAPE_DEFAULTS,
    opening: 0.14,
    openingProfile: 'round',
    openingSpan: 0.42,
    widthScale: 0.75,
    upperLipThickness: 1.15,
    lowerLipThickness: 1.15,
    upperLipRaise: 0.04,
  },
  spread: {
    ...SHAPE_DEFAULTS,
    opening: 0.08,
    openingProfile: 'flat',
    openingSpan: 0.85,
    widthScale: 1.1,
    upperTeeth: 0.55,
    lowerTeeth: 0.3,
    lowerLipThickness: 0.9,
  },
  lip_teeth: {
    ...SHAPE_DEFAULTS,
    opening: 0.065,
    openingProfile: 'flat',
    openingSpan: 0.7,
    upperTeeth: 0.9,
    lowerLipThickness: 0.7,
    jawFollow: 1.6,
  },
};

/** The photographed mouth in its own axes (`across` from the right corner to the left, `down` to the chin). */
export interface MouthGeometry {
  frame: FeatureFrame;
  /** Corner to corner, pixels. */
  width: number;
  /** The inner corners' `s`: the lips' opening lies between them. */
  innerStart: number;
  innerEnd: number;
  upperOuter: ColumnContour;
  lowerOuter: ColumnContour;
  upperInner: ColumnContour;
  lowerInner: ColumnContour;
  jaw: ColumnContour;
  /** `t` of the nose's base: nothing above it moves. */
  noseBase: number;
  /** The lips' colour and brightness, which the mouth's inside and teeth are drawn in. */
  lipColour: Rgb;
}

export function mouthGeometry(face: FaceLandmarks, photo: RgbaImage): MouthGeometry {
  const { lips } = face;
  const rightCorner = lips.upperOuter[0] as Point;
  const leftCorner = lips.upperOuter.at(-1) as Point;
  const chin = face.jaw[Math.floor(face.jaw.length / 2)] as Point;
  const frame = featureFrame(rightCorner, leftCorner, chin);
  const upperOuter = ColumnContour.of(frame, lips.upperOuter);
  const lowerOuter = ColumnContour.of(frame, lips.lowerOuter);
  const meshUpperInner = ColumnContour.of(frame, lips.upperInner);
  const meshLowerInner = ColumnContour.of(frame, lips.lowerInner);
  const inner = lips.upperInner.map((point) => toLocal(frame, point).s);
  const innerStart = Math.min(...inner);
  const innerEnd = Math.max(...inner);
  const opening = photographedOpening(photo, frame, {
    innerStart,
    innerEnd,
    upperOuter,
    lowerOuter,
    upperInner: meshUpperInner,
    lowerInner: meshLowerInner,
  });
  return {
    frame,
    width: Math.hypot(leftCorner.x - rightCorner.x, leftCorner.y - rightCorner.y),
    innerStart: Math.min(innerStart, opening.start),
    innerEnd: Math.max(innerEnd, opening.end),
    upperOuter,
    lowerOuter,
    upperInner: opening.upperInner,
    lowerInner: opening.lowerInner,
    jaw: smoothedContour(ColumnContour.of(frame, face.jaw), 0.12 * mouthWidthOf(lips)),
    noseBase: toLocal(frame, face.noseBottom).t,
    lipColour: opening.lipColour,
  };
}

function mouthWidthOf(lips: FaceLandmarks['lips']): number {
  const right = lips.upperOuter[0] as Point;
  const left = lips.upperOuter.at(-1) as Point;
  return Math.hypot(left.x - right.x, left.y - right.y);
}

/**
 * A contour averaged over `radius` either side, every pixel: the mesh's jaw has kinks, and the skin,
 * collar or beard below a dropping chin would follow each one as a wave.
 */
export function smoothedContour(contour: ColumnContour, radius: number): ColumnContour {
  const points: LocalPoint[] = [];
  const step = 1;
  for (let s = contour.first; s <= contour.last; s += step) {
    let total = 0;
    let count = 0;
    for (let offset = -radius; offset <= radius; offset += step) {
      total += contour.at(s + offset);
      count++;
    }
    points.push({ s, t: total / Math.max(1, count) });
  }
  return new ColumnContour(points);
}

/** How fast an opening's half height may fall off along the mouth, pixels per pixel. */
const GAP_TAPER = 0.5;

/**
 * The photographed mouth's opening, from its pixels: the face mesh places the inner lip edges only
 * roughly (a smile's teeth often end up inside a "lip"), and every warp must take out all of the
 * photo's teeth and shadow or they show through as a white fringe. In every pixel column between the
 * mouth's corners, from the upper lip's top to the lower lip's bottom, the longest run of pixels much
 * brighter than the lips (teeth) or much darker (the inside) is the opening, widened where needed so
 * its edges are continuous (`GAP_TAPER`). A mouth without any opening keeps the mesh's inner edges,
 * joined to the corners. `start` and `end` are the outermost columns with an opening (else the mesh's inner
 * corners). The lips' colour is the columns' most saturated (`lipColourOf`).
 */
export function photographedOpening(
  photo: RgbaImage,
  frame: FeatureFrame,
  mesh: Pick<
    MouthGeometry,
    'innerStart' | 'innerEnd' | 'upperOuter' | 'lowerOuter' | 'upperInner' | 'lowerInner'
  >,
): { upperInner: ColumnContour; lowerInner: ColumnContour; lipColour: Rgb; start: number; end: number } {
  const sample = new Float64Array(4);
  const samplesPerPixel = 3;
  const outerStart = mesh.upperOuter.first;
  const outerEnd = mesh.upperOuter.last;
  const columns: { s: number; top: number; colours: Rgb[] }[] = [];
  for (let s = Math.ceil(outerStart) + 1; s < outerEnd - 1; s++) {
    const top = mesh.upperOuter.at(s);
    const bottom = Math.max(top + 1, mesh.lowerOuter.at(s));
    const steps = Math.ceil((bottom - top) * samplesPerPixel);
    const colours: Rgb[] = [];
    for (let step = 0; step <= steps; step++) {
      const point = toImage(frame, s, top + step / samplesPerPixel);
      sampleBilinear(photo, point.x, point.y, sample);
      colours.push([sample[0] as number, sample[1] as number, sample[2] as number]);
    }
    columns.push({ s, top, colours });
  }
  const lipColour = lipColourOf(columns.flatMap((column) => column.colours));
  const lipLuminance = luminance(lipColour);
  const lipChroma = chroma(lipColour);
  const isOpening = (colour: Rgb) => {
    const light = luminance(colour);
    const teeth = light > lipLuminance + 0.3 * (255 - lipLuminance) && chroma(colour) < 0.85 * lipChroma;
    return teeth || light < 0.55 * lipLuminance;
  };
  const runs: { s: number; top: number; bottom: number }[] = [];
  for (const { s, top, colours } of columns) {
    let best: [number, number] | undefined;
    let runStart = -1;
    for (let step = 0; step <= colours.length; step++) {
      const inside = step < colours.length && isOpening(colours[step] as Rgb);
      if (inside && runStart < 0) runStart = step;
      if (!inside && runStart >= 0) {
        if (!best || step - runStart > best[1] - best[0]) best = [runStart, step];
        runStart = -1;
      }
    }
    // A pixel or more, not touching the column's ends (that is skin or a beard); one and a half
    // pixels more each side, so the anti-aliased edge between lip and teeth goes too.
    if (best && best[1] - best[0] >= samplesPerPixel && best[0] > 0 && best[1] < colours.length) {
      runs.push({
        s,
        top: top + best[0] / samplesPerPixel - 1.5,
        bottom: top + best[1] / samplesPerPixel + 1.5,
      });
    }
  }
  const rightCorner = { s: outerStart, t: mesh.upperOuter.at(outerStart) };
  const leftCorner = { s: outerEnd, t: mesh.upperOuter.at(outerEnd) };
  const tops = medianSmoothed(runs.map((run) => ({ s: run.s, t: run.top })));
  const bottoms = medianSmoothed(runs.map((run) => ({ s: run.s, t: run.bottom })));
  const smoothed = tops.map((top, index) => ({ top, bottom: bottoms[index] as LocalPoint }));
  if (smoothed.length === 0) {
    const upper = [rightCorner, ...sampled(mesh.upperInner, mesh.innerStart, mesh.innerEnd), leftCorner];
    const lower = [rightCorner, ...sampled(mesh.lowerInner, mesh.innerStart, mesh.innerEnd), leftCorner];
    return {
      upperInner: new ColumnContour(upper),
      lowerInner: new ColumnContour(lower),
      lipColour,
      start: mesh.innerStart,
      end: mesh.innerEnd,
    };
  }
  // The opening's middle line runs through the middles of the openings and the corners; its half
  // height is the largest a detected opening allows at that distance (falling by GAP_TAPER per pixel),
  // so the edges are continuous and a blunt end of the teeth (a drawn smile's) is still covered.
  const seam = new ColumnContour([
    rightCorner,
    ...smoothed.map(({ top, bottom }) => ({ s: top.s, t: (top.t + bottom.t) / 2 })),
    leftCorner,
  ]);
  const halfGaps = smoothed.map(({ top, bottom }) => ({
    s: top.s,
    half: Math.max(0, (bottom.t - top.t) / 2),
  }));
  const upper: LocalPoint[] = [rightCorner];
  const lower: LocalPoint[] = [rightCorner];
  let start = Number.POSITIVE_INFINITY;
  let end = Number.NEGATIVE_INFINITY;
  for (const { s } of columns) {
    let half = 0;
    for (const gap of halfGaps) half = Math.max(half, gap.half - GAP_TAPER * Math.abs(s - gap.s));
    const middle = seam.at(s);
    upper.push({ s, t: middle - half });
    lower.push({ s, t: middle + half });
    if (half > 0) {
      start = Math.min(start, s - 1);
      end = Math.max(end, s + 1);
    }
  }
  upper.push(leftCorner);
  lower.push(leftCorner);
  return {
    upperInner: new ColumnContour(upper),
    lowerInner: new ColumnContour(lower),
    lipColour,
    start,
    end,
  };
}

/** A contour's points every pixel from `start` to `end`. */
function sampled(contour: ColumnContour, start: number, end: number): LocalPoint[] {
  const points: LocalPoint[] = [];
  for (let s = start; s <= end; s++) points.push({ s, t: contour.at(s) });
  return points;
}

function chroma(colour: Rgb): number {
  return Math.max(...colour) - Math.min(...colour);
}

/**
 * The lips' colour among the colours between their outer edges: the median (by brightness) of the
 * most saturated 40 %. Lips are more saturated than the skin, the teeth and the inside of the mouth,
 * so a wide smile's teeth do not brighten it.
 */
function lipColourOf(colours: readonly Rgb[]): Rgb {
  if (colours.length === 0) return [150, 90, 90];
  // Each colour's chroma and luminance once, not once per comparison.
  const saturated = colours
    .map((colour) => ({ colour, chroma: chroma(colour) }))
    .sort((a, b) => b.chroma - a.chroma)
    .slice(0, Math.max(1, Math.ceil(colours.length * 0.4)));
  const sorted = saturated
    .map(({ colour }) => ({ colour, light: luminance(colour) }))
    .sort((a, b) => a.light - b.light);
  return (sorted[Math.floor(sorted.length / 2)] as { colour: Rgb }).colour;
}

/** Each point's `t` replaced by the median of its 7 neighbours: one odd column does not make a notch. */
function medianSmoothed(points: readonly LocalPoint[]): LocalPoint[] {
  return points.map((point, index) => {
    const around = points
      .slice(Math.max(0, index - 3), index + 4)
      .map((neighbour) => neighbour.t)
      .sort((a, b) => a - b);
    return { s: point.s, t: around[Math.floor(around.length / 2)] as number };
  });
}

/** How far the horizontal reshaping reaches past the corners, × mouth width. */
const WIDTH_REACH = 0.45;
/** Where the chin's drop fades out sideways (from the middle, × mouth width). */
const JAW_SPAN: readonly [number, number] = [0.35, 0.85];

/** The largest chin drop of any shape, × mouth width (the mouth's area must hold its falloff). */
function largestChinDrop(): number {
  return Math.max(
    ...Object.values(MOUTH_SHAPES).map((shape) => (shape.opening + shape.upperLipRaise) * shape.jawFollow),
  );
}

/** Below the chin the drop fades over this length, long enough that the map never folds. */
function chinFalloff(width: number, chinDrop: number): number {
  return Math.max(0.35 * width, 2.2 * Math.abs(chinDrop));
}

/** The area every mouth sprite of this face stays in: the lips, the skin around them and the chin. */
export function mouthArea(geometry: MouthGeometry): FeatureArea {
  const { width } = geometry;
  const middle = (geometry.innerStart + geometry.innerEnd) / 2;
  const top = Math.min(geometry.upperOuter.at(middle) - 0.05 * width, lipBandTop(geometry) - 0.3 * width);
  // A photographed open mouth that closes lifts the chin by its gap.
  const photographedGap = geometry.lowerInner.at(middle) - geometry.upperInner.at(middle);
  const chinDrop = Math.max(largestChinDrop() * width, photographedGap * MOUTH_SHAPES.closed.jawFollow);
  const bottom = geometry.jaw.at(middle) + chinDrop + chinFalloff(width, chinDrop);
  const halfAcross = Math.max(0.5 + WIDTH_REACH, JAW_SPAN[1]) * width;
  const growth = 1.25;
  return {
    frame: geometry.frame,
    centre: { s: middle, t: (Math.max(top, geometry.noseBase) + bottom) / 2 },
    halfAcross: halfAcross * growth,
    halfDown: ((bottom - Math.max(top, geometry.noseBase)) / 2) * growth,
  };
}

function lipBandTop(geometry: MouthGeometry): number {
  let top = Number.POSITIVE_INFINITY;
  for (let s = geometry.upperOuter.first; s <= geometry.upperOuter.last; s += 1) {
    top = Math.min(top, geometry.upperOuter.at(s));
  }
  return Number.isFinite(top) ? top : 0;
}

function profileAt(profile: MouthShape['openingProfile'], x: number): number {
  const a = Math.abs(x);
  if (a >= 1) return 0;
  if (profile === 'round') return Math.sqrt(1 - a * a);
  if (profile === 'flat') return 1 - a ** 4;
  return 1 - a * a;
}

/**
 * Per column: source knots (philtrum, upper lip top, upper lip inner edge, lower lip inner edge, lower
 * lip bottom, jaw line, below the chin) and where they go. The gap between knot 2 and 3 in the output
 * is the opened mouth.
 */
class MouthColumns {
  private readonly source = new Float64Array(7);
  private readonly target = new Float64Array(7);
  private readonly middle: number;
  private readonly halfInner: number;
  private readonly width: number;
  private readonly above: number;
  private readonly chinDrop: number;
  private readonly falloff: number;
  /** How far the lips' outer edges move at the middle (set once the middle column is known). */
  private edgeMoves: { upper: number; lower: number } | undefined;

  constructor(
    private readonly geometry: MouthGeometry,
    private readonly shape: MouthShape,
  ) {
    this.width = geometry.width;
    this.middle = (geometry.innerStart + geometry.innerEnd) / 2;
    this.halfInner = Math.max(1, (geometry.innerEnd - geometry.innerStart) / 2);
    const philtrum = geometry.upperOuter.at(this.middle) - geometry.noseBase;
    this.above = Math.max(2, 0.5 * philtrum);
    // The lips' outer edges and the chin follow the middle's moves.
    this.columnTargets(this.middle, 0);
    this.edgeMoves = {
      upper: (this.target[1] as number) - (this.source[1] as number),
      lower: (this.target[4] as number) - (this.source[4] as number),
    };
    const lowerLipDrop = this.edgeMoves.lower;
    this.chinDrop = lowerLipDrop * shape.jawFollow;
    this.falloff = chinFalloff(this.width, this.chinDrop);
  }

  /** Fills `source` and `target` for column `s`; `chinDrop` is the drop of the chin at the middle. */
  private columnTargets(s: number, chinDrop: number): void {
    const { geometry, shape, width, source, target } = this;
    const upperOuter = geometry.upperOuter.at(s);
    const upperInner = Math.max(upperOuter, geometry.upperInner.at(s));
    const lowerInner = Math.max(upperInner, geometry.lowerInner.at(s));
    const lowerOuter = Math.max(lowerInner, geometry.lowerOuter.at(s));
    source[0] = upperOuter - this.above;
    source[1] = upperOuter;
    source[2] = upperInner;
    source[3] = lowerInner;
    source[4] = lowerOuter;
    source[5] = Math.max(lowerOuter + 0.2 * width, geometry.jaw.at(s));
    // The falloff is known once the chin's drop is (the constructor's first call, for the middle
    // column, reads only the lips).
    source[6] = (source[5] as number) + (this.falloff ?? 0.35 * width);
    const x = (s - this.middle) / this.halfInner;
    const opened = profileAt(shape.openingProfile, x / shape.openingSpan);
    // The upper lip rises with the opening's own profile, so a rounded mouth opens to an oval.
    const raise = shape.upperLipRaise * width * opened;
    const designed = shape.opening * width * opened;
    const photographed = lowerInner - upperInner;
    const gap = shape.opensFromPhoto ? Math.max(designed, photographed + designed / 2) : designed;
    target[0] = source[0] as number;
    target[2] = upperInner - raise;
    target[3] = (target[2] as number) + gap;
    const upperThickness = (upperInner - upperOuter) * shape.upperLipThickness;
    const lowerThickness = (lowerOuter - lowerInner) * shape.lowerLipThickness;
    if (this.edgeMoves) {
      // The lips' outer edges move as smoothly as the middle's move fades towards the corners,
      // whatever the opening's profile: a round opening must not notch the lips' outlines.
      const fade = profileAt('lens', x);
      target[1] = Math.min(
        upperOuter + this.edgeMoves.upper * fade,
        (target[2] as number) - 0.6 * upperThickness,
      );
      target[4] = Math.max(
        lowerOuter + this.edgeMoves.lower * fade,
        (target[3] as number) + 0.6 * lowerThickness,
      );
    } else {
      target[1] = (target[2] as number) - upperThickness;
      target[4] = (target[3] as number) + lowerThickness;
    }
    const sideways = 1 - smoothstep(JAW_SPAN[0] * width, JAW_SPAN[1] * width, Math.abs(s - this.middle));
    target[5] = (source[5] as number) + chinDrop * sideways;
    target[6] = source[6] as number;
    ascending(target);
  }

  /** The source `t` of output `t` in column `s`, or `NaN` inside the opened mouth. */
  sourceT(s: number, t: number): number {
    this.columnTargets(s, this.chinDrop);
    return knotMap(t, this.target, this.source, 2);
  }

  /** The opened mouth's edges in column `s` (after `sourceT` for the same column). */
  get openingTop(): number {
    return this.target[2] as number;
  }

  get openingBottom(): number {
    return this.target[3] as number;
  }

  get upperInnerSource(): number {
    return this.source[2] as number;
  }

  get lowerInnerSource(): number {
    return this.source[3] as number;
  }

  /** Where the gap is along the mouth: 0 in the middle, 1 at its ends. */
  openingPosition(s: number): number {
    return Math.abs(s - this.middle) / (this.halfInner * this.shape.openingSpan);
  }

  /** The source `s` of output `s`, for an output point this far (0..1) into the lips' band. */
  sourceS(s: number, bandWeight: number): number {
    const { shape, width } = this;
    if (shape.widthScale === 1 || bandWeight <= 0) return s;
    const half = width / 2;
    const reach = half + WIDTH_REACH * width;
    const offset = Math.abs(s - this.middle);
    let reshaped = offset;
    const newHalf = half * shape.widthScale;
    if (offset <= newHalf) reshaped = offset / shape.widthScale;
    else if (offset < reach) reshaped = half + ((offset - newHalf) / (reach - newHalf)) * (reach - half);
    return this.middle + Math.sign(s - this.middle) * (offset + (reshaped - offset) * bandWeight);
  }

  get middleS(): number {
    return this.middle;
  }
}

/**
 * The colours of the inside of a mouth, from the lips: shadowed red-brown, darkest at the back, and
 * teeth a warm off-white about as bright as the lips allow (a dim photo has dim teeth).
 */
function mouthColours(lip: Rgb) {
  const teeth = Math.min(240, Math.max(100, luminance(lip) * 1.7));
  return {
    edge: [lip[0] * 0.42, lip[1] * 0.25, lip[2] * 0.25] as Rgb,
    back: [lip[0] * 0.15 + 5, lip[1] * 0.07 + 2, lip[2] * 0.07 + 2] as Rgb,
    tongue: [lip[0] * 0.62, lip[1] * 0.34, lip[2] * 0.34] as Rgb,
    // Teeth take a quarter of the lips' hue: pure grey-white reads as blue next to warm skin.
    teeth: [teeth * 0.75 + lip[0] * 0.25, teeth * 0.7 + lip[1] * 0.25, teeth * 0.6 + lip[2] * 0.25] as Rgb,
  };
}

/**
 * A mouth sprite of `box`: the photo warped into `shape`, the opening drawn in (teeth under the upper
 * lip, shadow behind), transparent where nothing changes. The warp fades out inside `area`.
 */
export function renderMouthSprite(
  photo: RgbaImage,
  geometry: MouthGeometry,
  area: FeatureArea,
  shape: MouthShape,
  box: PixelBox,
): Uint8Array {
  const columns = new MouthColumns(geometry, shape);
  const colours = mouthColours(geometry.lipColour);
  const { frame, width } = geometry;
  const bandTop = lipBandTop(geometry);
  const bandBottom =
    geometry.lowerOuter.at(columns.middleS) + (shape.opening + shape.upperLipRaise) * width + 0.1 * width;
  const bandFadeTop = Math.max(geometry.noseBase, bandTop - 0.3 * width);
  return renderSprite(photo, box, (x, y, pixel) => {
    const local = toLocal(frame, { x, y });
    const weight = areaWeight(area, local);
    if (weight <= 0) return;
    const bandWeight =
      smoothstep(bandFadeTop, bandTop - 0.05 * width, local.t) *
      (1 - smoothstep(bandBottom, bandBottom + 0.3 * width, local.t));
    const sourceS = columns.sourceS(local.s, bandWeight);
    const sourceT = columns.sourceT(sourceS, local.t);
    if (Number.isNaN(sourceT)) {
      paintOpening(pixel, columns, colours, shape, width, sourceS, local.t);
      // Near the lips the opening's edge is anti-aliased against the lip it meets.
      const edge = pixel.fill < 1 ? nearestLip(columns, local.t) : columns.upperInnerSource;
      const source = toImage(frame, sourceS, edge);
      pixel.sourceX = source.x;
      pixel.sourceY = source.y;
      return;
    }
    const source = toImage(
      frame,
      local.s + (sourceS - local.s) * weight,
      local.t + (sourceT - local.t) * weight,
    );
    pixel.sourceX = source.x;
    pixel.sourceY = source.y;
  });
}

function nearestLip(columns: MouthColumns, t: number): number {
  return t - columns.openingTop < columns.openingBottom - t
    ? columns.upperInnerSource
    : columns.lowerInnerSource;
}

function paintOpening(
  pixel: PixelPlan,
  columns: MouthColumns,
  colours: ReturnType<typeof mouthColours>,
  shape: MouthShape,
  width: number,
  s: number,
  t: number,
): void {
  const top = columns.openingTop;
  const bottom = columns.openingBottom;
  const gap = bottom - top;
  const along = Math.min(1, columns.openingPosition(s));
  const fromTop = t - top;
  const fromBottom = bottom - t;
  const taper = Math.sqrt(Math.max(0, 1 - along * along));
  const middleGap = shape.opening * width;
  const upperTeeth = Math.min(gap, shape.upperTeeth * middleGap * taper);
  const lowerTeeth = Math.min(gap - upperTeeth, shape.lowerTeeth * middleGap * taper);
  // Darkest at the back: the middle of the opening, away from the lips.
  const depth =
    Math.sin(Math.PI * Math.min(1, Math.max(0, fromTop / Math.max(1, gap)))) * (1 - along * along);
  const deep = Math.min(1, depth * 1.3);
  const tongue = gap > 0.15 * width ? smoothstep(0.55, 0.95, fromTop / gap) * (1 - along) * 0.6 : 0;
  // Teeth edges are anti-aliased over a pixel; teeth are shadowed under the lip and towards the corners.
  const upperCover = Math.min(1, Math.max(0, upperTeeth - fromTop + 0.5));
  const lowerCover = Math.min(1, Math.max(0, lowerTeeth - fromBottom + 0.5));
  const teethCover = Math.max(upperCover, lowerCover) * shape.teethVisibility;
  const underLip = fromTop < upperTeeth ? smoothstep(0, Math.max(1, 0.35 * upperTeeth), fromTop) : 1;
  const teethLight = (1 - 0.45 * along * along) * (0.78 + 0.22 * underLip);
  const colour = [0, 1, 2].map((c) => {
    const inside = (colours.edge[c] as number) * (1 - deep) + (colours.back[c] as number) * deep;
    const withTongue = inside * (1 - tongue) + (colours.tongue[c] as number) * tongue;
    return withTongue * (1 - teethCover) + (colours.teeth[c] as number) * teethLight * teethCover;
  });
  pixel.colour[0] = colour[0] as number;
  pixel.colour[1] = colour[1] as number;
  pixel.colour[2] = colour[2] as number;
  pixel.fill = Math.min(1, Math.max(0, Math.min(fromTop, fromBottom) + 0.5));
}

// ---------------------------------------------------------------------------------------------------
// The eyes

/** One photographed eye in its own axes (`across` corner to corner, `down` towards the mouth). */
export interface EyeGeometry {
  frame: FeatureFrame;
  width: number;
  start: number;
  end: number;
  upper: ColumnContour;
  lower: ColumnContour;
  /** Lid skin above the eye that the closing lid is stretched from (pixels, up from the upper lid). */
  lidSkin: number;
  /** The lid's skin colour (sampled just above the eye) and its lashes' (the darkest along its edge). */
  skinColour: Rgb;
  lashColour: Rgb;
}

export function eyeGeometry(eye: EyeLids, towardsMouth: Point, photo: RgbaImage): EyeGeometry {
  const outer = eye.upper[0] as Point;
  const inner = eye.upper.at(-1) as Point;
  const frame = featureFrame(outer, inner, towardsMouth);
  const upper = ColumnContour.of(frame, eye.upper);
  const lower = ColumnContour.of(frame, eye.lower);
  const brow = ColumnContour.of(frame, eye.browLower);
  const width = Math.hypot(inner.x - outer.x, inner.y - outer.y);
  const start = Math.min(upper.first, lower.first);
  const end = Math.max(upper.last, lower.last);
  const middle = (start + end) / 2;
  const browGap = upper.at(middle) - brow.at(middle);
  const lidSkin = Math.min(0.7 * width, Math.max(0.3 * width, 0.8 * browGap));
  const columns = [0.3, 0.4, 0.5, 0.6, 0.7].map((share) => start + (end - start) * share);
  const skinColour = meanColour(
    photo,
    columns.flatMap((s) =>
      [0.35, 0.5, 0.65].map((share) => toImage(frame, s, upper.at(s) - lidSkin * share)),
    ),
  );
  const sample = new Float64Array(4);
  let lashColour: Rgb = skinColour;
  for (const s of columns) {
    for (const offset of [-1, 0, 1]) {
      const point = toImage(frame, s, upper.at(s) + offset);
      sampleBilinear(photo, point.x, point.y, sample);
      const colour: Rgb = [sample[0] as number, sample[1] as number, sample[2] as number];
      if (luminance(colour) < luminance(lashColour)) lashColour = colour;
    }
  }
  return { frame, width, start, end, upper, lower, lidSkin, skinColour, lashColour };
}

/** The closing lid reaches this many times as far from the eye's middle as the detected corners. */
const CORNER_REACH = 1.12;

/** How far below the lower lid a blink's map reaches, × eye width. */
const BELOW_EYE = 0.25;

export function eyeArea(geometry: EyeGeometry): FeatureArea {
  const middle = (geometry.start + geometry.end) / 2;
  const top = geometry.upper.at(middle) - geometry.lidSkin - 0.1 * geometry.width;
  const bottom = geometry.lower.at(middle) + BELOW_EYE * geometry.width;
  const growth = 1.25;
  return {
    frame: geometry.frame,
    centre: { s: middle, t: (top + bottom) / 2 },
    halfAcross: ((geometry.end - geometry.start) / 2 + 0.1 * geometry.width) * growth,
    halfDown: ((bottom - top) / 2) * growth,
  };
}

/**
 * Both eyes closed: each upper lid comes down to just above the lower lid. The lid skin above the eye
 * is stretched over it and, towards the closing line, turns into the skin's own colour (stretched
 * lashes and eyeliner would smear); a thin lash line in the lashes' colour marks the closed lid.
 * Transparent between and around the eyes.
 */
export function renderBlinkSprite(
  photo: RgbaImage,
  eyes: readonly { geometry: EyeGeometry; area: FeatureArea }[],
  box: PixelBox,
): Uint8Array {
  const source = new Float64Array(4);
  const target = new Float64Array(4);
  return renderSprite(photo, box, (x, y, pixel) => {
    for (const { geometry, area } of eyes) {
      const local = toLocal(geometry.frame, { x, y });
      const weight = areaWeight(area, local);
      if (weight <= 0) continue;
      // The lids close a little past the detected corners, where the mesh tends to stop short.
      const middleS = (geometry.start + geometry.end) / 2;
      const contourS = middleS + (local.s - middleS) / CORNER_REACH;
      const upper = geometry.upper.at(contourS);
      const lower = Math.max(upper, geometry.lower.at(contourS));
      const opening = lower - upper;
      // Lid edges are read a little away from the detected contours, so no white of the eye is
      // stretched into the closed lid.
      const inset = Math.min(opening * 0.3, 0.04 * geometry.width);
      const closing = upper + 0.8 * opening;
      source[0] = upper - geometry.lidSkin;
      source[1] = upper - inset;
      source[2] = lower + inset;
      source[3] = lower + BELOW_EYE * geometry.width;
      target[0] = source[0] as number;
      target[1] = closing;
      target[2] = closing;
      target[3] = source[3] as number;
      const sourceT = knotMap(local.t, target, source);
      const point = toImage(geometry.frame, local.s, local.t + (sourceT - local.t) * weight);
      pixel.sourceX = point.x;
      pixel.sourceY = point.y;
      if (opening < 0.5) return;
      const along = Math.min(
        1,
        Math.abs(contourS - middleS) / Math.max(1, (geometry.end - geometry.start) / 2),
      );
      const lidDrawn = Math.sqrt(Math.max(0, 1 - along * along));
      const lidTop = closing - (closing - upper) * 1.6;
      const skin = smoothstep(lidTop, (lidTop + closing) / 2, local.t) * (local.t <= closing ? 1 : 0) * 0.9;
      const thickness = Math.max(0.6, 0.028 * geometry.width) * lidDrawn;
      const lash = (1 - smoothstep(thickness * 0.5, thickness * 0.5 + 1, Math.abs(local.t - closing))) * 0.75;
      const skinShare = skin * weight * (1 - lash);
      const lashShare = lash * weight * lidDrawn;
      pixel.fill = Math.min(1, skinShare + lashShare);
      if (pixel.fill <= 0) return;
      for (let c = 0; c < 3; c++) {
        pixel.colour[c] =
          ((geometry.skinColour[c] as number) * skinShare + (geometry.lashColour[c] as number) * lashShare) /
          pixel.fill;
      }
      return;
    }
  });
}
