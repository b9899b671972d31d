/**
 * The background layer of a background removal: each frame with the person taken out, the hole filled
 * with what the camera saw there in earlier frames.
 *
 * A running per-pixel background model (the "plate") remembers, for every pixel, the colour it had the
 * last times it was clearly background; it learns only where the person's cover (the mask, widened:
 * `personCover`) is 0, so the person and their halo never leak into it. A frame's background layer is
 * the frame itself where the cover is 0, the plate where the person stands, blended by the cover's
 * soft edge. The model is causal (it only knows the frames before): a pixel the person covers from
 * the first frame on, or until later, has never been seen; those pixels are inpainted from the visible
 * background around them (push-pull: alpha-weighted averages down an image pyramid, interpolated back
 * up), a smooth blur of the surroundings, not a reconstruction.
 */

/** What the plate learns from each new look at a pixel: 1 keeps only the latest colour. */
export const PLATE_LEARNING_RATE = 0.5;

export interface BackgroundPlate {
  readonly width: number;
  readonly height: number;
  /** RGB per pixel, valid where `seen` is 1. */
  readonly colours: Float32Array;
  readonly seen: Uint8Array;
}

export function createBackgroundPlate(width: number, height: number): BackgroundPlate {
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) {
    throw new RangeError(`A background plate of ${width}x${height} has no pixels`);
  }
  return {
    width,
    height,
    colours: new Float32Array(width * height * 3),
    seen: new Uint8Array(width * height),
  };
}

/**
 * The person's cover at the model's resolution: 255 wherever the person probability reaches
 * `threshold` (lower than the mask's own edge, so the faint halo counts too), widened by `radius`
 * pixels (a square max filter), else 0.
 */
export function personCover(
  probabilities: ArrayLike<number>,
  width: number,
  height: number,
  threshold: number,
  radius: number,
): Uint8Array {
  const rows = new Uint8Array(width * height);
  // Horizontal pass: the max over [x - radius, x + radius] of each row; then the same vertically.
  for (let y = 0; y < height; y++) {
    let lastPerson = -Infinity;
    const row = y * width;
    // Two sweeps per row: left to right marks what a person pixel on the left reaches, then right to left.
    for (let x = 0; x < width; x++) {
      if ((probabilities[row + x] as number) >= threshold) lastPerson = x;
      if (x - lastPerson <= radius) rows[row + x] = 255;
    }
    lastPerson = Infinity;
    for (let x = width - 1; x >= 0; x--) {
      if ((probabilities[row + x] as number) >= threshold) lastPerson = x;
      if (lastPerson - x <= radius) rows[row + x] = 255;
    }
  }
  const cover = new Uint8Array(width * height);
  for (let x = 0; x < width; x++) {
    let lastPerson = -Infinity;
    for (let y = 0; y < height; y++) {
      if (rows[y * width + x] === 255) lastPerson = y;
      if (y - lastPerson <= radius) cover[y * width + x] = 255;
    }
    lastPerson = Infinity;
    for (let y = height - 1; y >= 0; y--) {
      if (rows[y * width + x] === 255) lastPerson = y;
      if (lastPerson - y <= radius) cover[y * width + x] = 255;
    }
  }
  return cover;
}

export interface BackgroundLayerFrame {
  /** RGB, the frame's size. */
  rgb: Buffer;
  /** Pixels the person (widened) covered in this frame. */
  coveredPixels: number;
  /** Of those, the pixels no earlier frame showed: inpainted. */
  inpaintedPixels: number;
}

/**
 * Learns from `rgb` where `cover` (full size, 0 = clearly background) is 0, and returns the frame's
 * background layer.
 */
export function backgroundLayerFrame(
  plate: BackgroundPlate,
  rgb: Uint8Array,
  cover: Uint8Array,
  learningRate = PLATE_LEARNING_RATE,
): BackgroundLayerFrame {
  const { width, height, colours, seen } = plate;
  const pixels = width * height;
  if (rgb.length !== pixels * 3 || cover.length !== pixels) {
    throw new RangeError(`A ${width}x${height} plate takes frames of ${pixels} pixels`);
  }
  const out = Buffer.allocUnsafe(pixels * 3);
  let holes = 0;
  let covers = 0;
  for (let pixel = 0, at = 0; pixel < pixels; pixel++, at += 3) {
    const covered = cover[pixel] as number;
    if (covered === 0) {
      if (seen[pixel] === 1) {
        for (let channel = 0; channel < 3; channel++) {
          const previous = colours[at + channel] as number;
          colours[at + channel] = previous + learningRate * ((rgb[at + channel] as number) - previous);
        }
      } else {
        colours[at] = rgb[at] as number;
        colours[at + 1] = rgb[at + 1] as number;
        colours[at + 2] = rgb[at + 2] as number;
        seen[pixel] = 1;
      }
      out[at] = rgb[at] as number;
      out[at + 1] = rgb[at + 1] as number;
      out[at + 2] = rgb[at + 2] as number;
    } else {
      covers++;
      if (seen[pixel] === 0) holes++;
    }
  }
  const fill = holes > 0 ? inpaintUnseen(plate) : undefined;
  for (let pixel = 0, at = 0; pixel < pixels; pixel++, at += 3) {
    const covered = cover[pixel] as number;
    if (covered === 0) continue;
    const source = seen[pixel] === 1 ? colours : (fill as Float32Array);
    const weight = covered / 255;
    for (let channel = 0; channel < 3; channel++) {
      const frame = rgb[at + channel] as number;
      out[at + channel] = Math.round(frame + weight * ((source[at + channel] as number) - frame));
    }
  }
  return { rgb: out, coveredPixels: covers, inpaintedPixels: holes };
}

/**
 * The plate with its unseen pixels filled from the seen ones around them (push-pull): each coarser
 * level averages its four children by how known they are; coming back up, a pixel keeps its own colour
 * as far as it is known and takes its parent's for the rest. A plate with nothing seen yet is grey.
 */
export function inpaintUnseen(plate: BackgroundPlate): Float32Array {
  const levels: { colours: Float32Array; known: Float32Array; width: number; height: number }[] = [];
  const base = new Float32Array(plate.width * plate.height);
  for (let pixel = 0; pixel < base.length; pixel++) base[pixel] = plate.seen[pixel] as number;
  levels.push({
    colours: Float32Array.from(plate.colours),
    known: base,
    width: plate.width,
    height: plate.height,
  });
  // Push: down to a level of one pixel (or one that is all known).
  for (;;) {
    const fine = levels[levels.length - 1] as (typeof levels)[number];
    if (fine.width === 1 && fine.height === 1) break;
    const width = Math.ceil(fine.width / 2);
    const height = Math.ceil(fine.height / 2);
    const colours = new Float32Array(width * height * 3);
    const known = new Float32Array(width * height);
    let allKnown = true;
    for (let y = 0; y < height; y++) {
      for (let x = 0; x < width; x++) {
        let weight = 0;
        let red = 0;
        let green = 0;
        let blue = 0;
        for (let dy = 0; dy < 2; dy++) {
          const fy = 2 * y + dy;
          if (fy >= fine.height) continue;
          for (let dx = 0; dx < 2; dx++) {
            const fx = 2 * x + dx;
            if (fx >= fine.width) continue;
            const child = fy * fine.width + fx;
            const childWeight = fine.known[child] as number;
            if (childWeight === 0) continue;
            weight += childWeight;
            red += childWeight * (fine.colours[child * 3] as number);
            green += childWeight * (fine.colours[child * 3 + 1] as number);
            blue += childWeight * (fine.colours[child * 3 + 2] as number);
          }
        }
        const at = y * width + x;
        if (weight > 0) {
          colours[at * 3] = red / weight;
          colours[at * 3 + 1] = green / weight;
          colours[at * 3 + 2] = blue / weight;
        }
        known[at] = Math.min(1, weight);
        if (known[at] !== 1) allKnown = false;
      }
    }
    levels.push({ colours, known, width, height });
    if (allKnown) break;
  }
  // Pull: from the coarsest level up, unknown parts take the (already filled) parent's colour.
  const top = levels[levels.length - 1] as (typeof levels)[number];
  for (let pixel = 0; pixel < top.known.length; pixel++) {
    const weight = top.known[pixel] as number;
    for (let channel = 0; channel < 3; channel++) {
      const at = pixel * 3 + channel;
      top.colours[at] = weight * (top.colours[at] as number) + (1 - weight) * 128;
    }
  }
  for (let level = levels.length - 2; level >= 0; level--) {
    const fine = levels[level] as (typeof levels)[number];
    const coarse = levels[level + 1] as (typeof levels)[number];
    for (let y = 0; y < fine.height; y++) {
      for (let x = 0; x < fine.width; x++) {
        const at = y * fine.width + x;
        const weight = fine.known[at] as number;
        if (weight === 1) continue;
        // The parent level sampled bilinearly at this pixel's centre (nearest would leave blocks).
        const cy = Math.min(coarse.height - 1, Math.max(0, y / 2 - 0.25));
        const cx = Math.min(coarse.width - 1, Math.max(0, x / 2 - 0.25));
        const y0 = Math.floor(cy);
        const x0 = Math.floor(cx);
        const y1 = Math.min(coarse.height - 1, y0 + 1);
        const x1 = Math.min(coarse.width - 1, x0 + 1);
        const fy = cy - y0;
        const fx = cx - x0;
        for (let channel = 0; channel < 3; channel++) {
          const sample = (row: number, column: number) =>
            coarse.colours[(row * coarse.width + column) * 3 + channel] as number;
          const parent =
            (1 - fy) * ((1 - fx) * sample(y0, x0) + fx * sample(y0, x1)) +
            fy * ((1 - fx) * sample(y1, x0) + fx * sample(y1, x1));
          fine.colours[at * 3 + channel] =
            weight * (fine.colours[at * 3 + channel] as number) + (1 - weight) * parent;
        }
      }
    }
  }
  return (levels[0] as (typeof levels)[number]).colours;
}
