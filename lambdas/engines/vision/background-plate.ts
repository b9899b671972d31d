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
 * background layer. The frame is copied as a whole; only the covered pixels are then replaced.
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
  out.set(rgb);
  let holes = 0;
  let covers = 0;
  for (let pixel = 0, at = 0; pixel < pixels; pixel++, at += 3) {
    if (cover[pixel] !== 0) {
      covers++;
      if (seen[pixel] === 0) holes++;
    } else if (seen[pixel] === 1) {
      const red = colours[at] as number;
      const green = colours[at + 1] as number;
      const blue = colours[at + 2] as number;
      colours[at] = red + learningRate * ((rgb[at] as number) - red);
      colours[at + 1] = green + learningRate * ((rgb[at + 1] as number) - green);
      colours[at + 2] = blue + learningRate * ((rgb[at + 2] as number) - blue);
    } else {
      colours[at] = rgb[at] as number;
      colours[at + 1] = rgb[at + 1] as number;
      colours[at + 2] = rgb[at + 2] as number;
      seen[pixel] = 1;
    }
  }
  if (covers === 0) return { rgb: out, coveredPixels: 0, inpaintedPixels: 0 };
  // The holes' fills come in pixel order, as this loop meets them.
  const fill = holes > 0 ? inpaintUnseen(plate, cover) : undefined;
  let hole = 0;
  for (let pixel = 0, at = 0; pixel < pixels; pixel++, at += 3) {
    const covered = cover[pixel] as number;
    if (covered === 0) continue;
    let source = colours;
    let from = at;
    if (seen[pixel] === 0) {
      source = fill as Float32Array;
      from = 3 * hole++;
    }
    if (covered === 255) {
      // Fully covered (most of the person): the plate's colour as it is.
      out[at] = Math.round(source[from] as number);
      out[at + 1] = Math.round(source[from + 1] as number);
      out[at + 2] = Math.round(source[from + 2] as number);
      continue;
    }
    const weight = covered / 255;
    for (let channel = 0; channel < 3; channel++) {
      const frame = rgb[at + channel] as number;
      out[at + channel] = Math.round(frame + weight * ((source[from + channel] as number) - frame));
    }
  }
  return { rgb: out, coveredPixels: covers, inpaintedPixels: holes };
}

/**
 * The inpainting works on blocks of this many pixels a side: the fill is a smooth blur anyway, and the
 * pyramid of a 720p frame at full resolution costs ten times as much.
 */
const FILL_BLOCK = 4;

/**
 * Colours for the plate's unseen pixels where `wanted` is not 0, RGB one after another in pixel order,
 * filled from the seen pixels around them (push-pull): the plate is averaged over blocks (seen pixels
 * only); each coarser level averages its four children by how known they are; coming back up, a block
 * keeps its own colour as far as it is known and takes its parent's (sampled bilinearly) for the rest;
 * an unseen pixel takes its blocks' colours, bilinearly. A plate with nothing seen yet is grey.
 */
export function inpaintUnseen(plate: BackgroundPlate, wanted: Uint8Array): Float32Array {
  const { width, height, colours, seen } = plate;
  const blockWidth = Math.ceil(width / FILL_BLOCK);
  const blockHeight = Math.ceil(height / FILL_BLOCK);
  const sums = new Float32Array(blockWidth * blockHeight * 3);
  const counts = new Float32Array(blockWidth * blockHeight);
  let unseenWanted = 0;
  for (let y = 0; y < height; y++) {
    const blockRow = Math.floor(y / FILL_BLOCK) * blockWidth;
    for (let blockX = 0; blockX < blockWidth; blockX++) {
      // Summed in locals over the block's part of this row, then added to the block once.
      let count = 0;
      let red = 0;
      let green = 0;
      let blue = 0;
      const end = Math.min(width, (blockX + 1) * FILL_BLOCK) + y * width;
      for (let pixel = blockX * FILL_BLOCK + y * width; pixel < end; pixel++) {
        if (seen[pixel] !== 1) {
          if (wanted[pixel] !== 0) unseenWanted++;
          continue;
        }
        count++;
        red += colours[pixel * 3] as number;
        green += colours[pixel * 3 + 1] as number;
        blue += colours[pixel * 3 + 2] as number;
      }
      if (count === 0) continue;
      const block = blockRow + blockX;
      counts[block] = (counts[block] as number) + count;
      sums[block * 3] = (sums[block * 3] as number) + red;
      sums[block * 3 + 1] = (sums[block * 3 + 1] as number) + green;
      sums[block * 3 + 2] = (sums[block * 3 + 2] as number) + blue;
    }
  }
  const known = new Float32Array(blockWidth * blockHeight);
  for (let block = 0; block < counts.length; block++) {
    const count = counts[block] as number;
    if (count === 0) continue;
    for (let channel = 0; channel < 3; channel++)
      sums[block * 3 + channel] = (sums[block * 3 + channel] as number) / count;
    // A block is as known as its share of seen pixels (at least one makes it half known).
    known[block] = Math.min(1, Math.max(0.5, count / (FILL_BLOCK * FILL_BLOCK)));
  }
  const blocks = pushPull(sums, known, blockWidth, blockHeight);
  const filled = new Float32Array(unseenWanted * 3);
  // Which blocks each column reads, and how much of the second (the same for every row).
  const left = new Int32Array(width);
  const right = new Int32Array(width);
  const rightWeight = new Float32Array(width);
  for (let x = 0; x < width; x++) {
    const bx = Math.min(blockWidth - 1, Math.max(0, (x + 0.5) / FILL_BLOCK - 0.5));
    left[x] = Math.floor(bx) * 3;
    right[x] = Math.min(blockWidth - 1, Math.floor(bx) + 1) * 3;
    rightWeight[x] = bx - Math.floor(bx);
  }
  let at = 0;
  for (let y = 0; y < height; y++) {
    const by = Math.min(blockHeight - 1, Math.max(0, (y + 0.5) / FILL_BLOCK - 0.5));
    const upper = Math.floor(by) * blockWidth * 3;
    const lower = Math.min(blockHeight - 1, Math.floor(by) + 1) * blockWidth * 3;
    const fy = by - Math.floor(by);
    for (let x = 0, pixel = y * width; x < width; x++, pixel++) {
      if (seen[pixel] === 1 || wanted[pixel] === 0) continue;
      const fx = rightWeight[x] as number;
      const a = upper + (left[x] as number);
      const b = upper + (right[x] as number);
      const c = lower + (left[x] as number);
      const d = lower + (right[x] as number);
      const wa = (1 - fy) * (1 - fx);
      const wb = (1 - fy) * fx;
      const wc = fy * (1 - fx);
      const wd = fy * fx;
      for (let channel = 0; channel < 3; channel++) {
        filled[at++] =
          wa * (blocks[a + channel] as number) +
          wb * (blocks[b + channel] as number) +
          wc * (blocks[c + channel] as number) +
          wd * (blocks[d + channel] as number);
      }
    }
  }
  return filled;
}

interface PyramidLevel {
  colours: Float32Array;
  known: Float32Array;
  width: number;
  height: number;
}

/** Push-pull over an RGB picture whose pixels are `known` from 0 to 1: every pixel filled. */
function pushPull(colours: Float32Array, known: Float32Array, width: number, height: number): Float32Array {
  const levels: PyramidLevel[] = [{ colours, known, width, height }];
  // Push: down to a level of one pixel, or one that is all known.
  for (let fine = levels[0] as PyramidLevel; fine.width > 1 || fine.height > 1; ) {
    const coarseWidth = Math.ceil(fine.width / 2);
    const coarseHeight = Math.ceil(fine.height / 2);
    const coarse: PyramidLevel = {
      colours: new Float32Array(coarseWidth * coarseHeight * 3),
      known: new Float32Array(coarseWidth * coarseHeight),
      width: coarseWidth,
      height: coarseHeight,
    };
    let allKnown = true;
    for (let y = 0; y < coarseHeight; y++) {
      for (let x = 0; x < coarseWidth; x++) {
        let weight = 0;
        let red = 0;
        let green = 0;
        let blue = 0;
        for (let fy = 2 * y; fy < Math.min(fine.height, 2 * y + 2); fy++) {
          for (let fx = 2 * x; fx < Math.min(fine.width, 2 * x + 2); fx++) {
            const child = fy * fine.width + fx;
            const childWeight = fine.known[child] as number;
            if (childWeight === 0) continue;
            weight += childWeight;
            red += childWeight * (fine.colours[child * 3] as number);
            green += childWeight * (fine.colours[child * 3 + 1] as number);
            blue += childWeight * (fine.colours[child * 3 + 2] as number);
          }
        }
        const at = y * coarseWidth + x;
        if (weight > 0) {
          coarse.colours[at * 3] = red / weight;
          coarse.colours[at * 3 + 1] = green / weight;
          coarse.colours[at * 3 + 2] = blue / weight;
        }
        coarse.known[at] = Math.min(1, weight);
        if (weight < 1) allKnown = false;
      }
    }
    levels.push(coarse);
    fine = coarse;
    if (allKnown) break;
  }
  // Pull: from the coarsest level up, what a level does not know comes from the (filled) level above.
  const top = levels[levels.length - 1] as PyramidLevel;
  for (let pixel = 0; pixel < top.known.length; pixel++) {
    const weight = top.known[pixel] as number;
    for (let channel = 0; channel < 3; channel++) {
      const at = pixel * 3 + channel;
      top.colours[at] = weight * (top.colours[at] as number) + (1 - weight) * 128;
    }
  }
  for (let level = levels.length - 2; level >= 0; level--) {
    const fine = levels[level] as PyramidLevel;
    const coarse = levels[level + 1] as PyramidLevel;
    for (let y = 0; y < fine.height; y++) {
      // The coarser level sampled bilinearly at this pixel's centre (nearest would leave blocks).
      const cy = Math.min(coarse.height - 1, Math.max(0, y / 2 - 0.25));
      const y0 = Math.floor(cy);
      const y1 = Math.min(coarse.height - 1, y0 + 1);
      const fy = cy - y0;
      for (let x = 0; x < fine.width; x++) {
        const at = y * fine.width + x;
        const weight = fine.known[at] as number;
        if (weight === 1) continue;
        const cx = Math.min(coarse.width - 1, Math.max(0, x / 2 - 0.25));
        const x0 = Math.floor(cx);
        const x1 = Math.min(coarse.width - 1, x0 + 1);
        const fx = cx - x0;
        const a = (y0 * coarse.width + x0) * 3;
        const b = (y0 * coarse.width + x1) * 3;
        const c = (y1 * coarse.width + x0) * 3;
        const d = (y1 * coarse.width + x1) * 3;
        for (let channel = 0; channel < 3; channel++) {
          const parent =
            (1 - fy) *
              ((1 - fx) * (coarse.colours[a + channel] as number) +
                fx * (coarse.colours[b + channel] as number)) +
            fy *
              ((1 - fx) * (coarse.colours[c + channel] as number) +
                fx * (coarse.colours[d + channel] as number));
          fine.colours[at * 3 + channel] =
            weight * (fine.colours[at * 3 + channel] as number) + (1 - weight) * parent;
        }
      }
    }
  }
  return (levels[0] as PyramidLevel).colours;
}
