/**
 * A person mask from the model's resolution to the picture's, and the colours of its edge: plain loops
 * over typed arrays that spend their time only on the band around the person's outline.
 *
 * Why not sharp: a 720p video frame went through three libvips pipelines (scale the mask up and blur
 * it; blur the RGBA frame for the edge colours; scale the background's cover up), 40–60 ms of a frame
 * for pictures that are 0 or 255 nearly everywhere. A Gaussian of a constant is that constant, so only
 * the pixels within the blur's reach of a change are blurred here; everything else is copied.
 */
import { personCover } from './background-plate.js';

/**
 * How far a Gaussian's kernel reaches, in sigmas: to where a weight falls to a fifth of the centre's,
 * as in libvips' blur (sharp's `minAmpl` 0.2), which drew these edges before. A longer tail (3 sigmas)
 * left a band of 250–254 on the person's inside, slightly see-through.
 */
const KERNEL_REACH_SIGMAS = Math.sqrt(2 * Math.log(5));

/** Below this sigma (pixels) a blur would not be visible: it is skipped. */
export const SMALLEST_BLUR_SIGMA = 0.3;

/** A normalised Gaussian kernel of `2 × radius + 1` weights. */
export function gaussianKernel(sigma: number): { weights: Float32Array; radius: number } {
  const radius = Math.max(1, Math.floor(KERNEL_REACH_SIGMAS * sigma));
  const weights = new Float32Array(2 * radius + 1);
  let sum = 0;
  for (let offset = -radius; offset <= radius; offset++) {
    const weight = Math.exp(-(offset * offset) / (2 * sigma * sigma));
    weights[offset + radius] = weight;
    sum += weight;
  }
  for (let index = 0; index < weights.length; index++) weights[index] = (weights[index] as number) / sum;
  return { weights, radius };
}

/**
 * Where each output pixel of a centre-aligned bilinear resize reads from the `from`-wide source: the
 * two source pixels and the weight of the second.
 */
function bilinearTaps(
  from: number,
  to: number,
): { first: Int32Array; second: Int32Array; weight: Float32Array } {
  const first = new Int32Array(to);
  const second = new Int32Array(to);
  const weight = new Float32Array(to);
  const scale = from / to;
  for (let index = 0; index < to; index++) {
    const position = Math.min(from - 1, Math.max(0, (index + 0.5) * scale - 0.5));
    const lower = Math.floor(position);
    first[index] = lower;
    second[index] = Math.min(from - 1, lower + 1);
    weight[index] = position - lower;
  }
  return { first, second, weight };
}

/**
 * A one-byte-per-pixel picture scaled to `width` × `height`, bilinear (pixel centres aligned, edges
 * clamped). A mask is flat nearly everywhere: where the four source pixels an output pixel reads are
 * equal, whole runs of output are filled with their value, and only the rest is interpolated.
 */
export function scaleUpBilinear(
  low: Uint8Array,
  lowWidth: number,
  lowHeight: number,
  width: number,
  height: number,
): Uint8Array {
  if (low.length !== lowWidth * lowHeight) {
    throw new RangeError(
      `A ${lowWidth}x${lowHeight} picture has ${lowWidth * lowHeight} bytes, not ${low.length}`,
    );
  }
  const across = bilinearTaps(lowWidth, width);
  const down = bilinearTaps(lowHeight, height);
  const scaled = new Uint8Array(width * height);
  for (let y = 0; y < height; y++) {
    const upper = (down.first[y] as number) * lowWidth;
    const lower = (down.second[y] as number) * lowWidth;
    const fy = down.weight[y] as number;
    const row = y * width;
    let x = 0;
    while (x < width) {
      const left = across.first[x] as number;
      const right = across.second[x] as number;
      const value = low[upper + left] as number;
      if (low[upper + right] === value && low[lower + left] === value && low[lower + right] === value) {
        // Flat cells: every output pixel reading four source pixels all equal to `value` is `value`;
        // the run goes on as long as the source rows do, then is filled at once.
        let end = x + 1;
        while (
          end < width &&
          low[upper + (across.second[end] as number)] === value &&
          low[lower + (across.second[end] as number)] === value
        ) {
          end++;
        }
        scaled.fill(value, row + x, row + end);
        x = end;
        continue;
      }
      const fx = across.weight[x] as number;
      const top = value + fx * ((low[upper + right] as number) - value);
      const bottomLeft = low[lower + left] as number;
      const bottom = bottomLeft + fx * ((low[lower + right] as number) - bottomLeft);
      scaled[row + x] = Math.round(top + fy * (bottom - top));
      x++;
    }
  }
  return scaled;
}

/**
 * `mask` blurred in place by a Gaussian of `sigma` pixels (edges clamped), separably, rounded to bytes.
 * Only pixels with a change of value within the kernel's reach are computed, each pass on the previous
 * pass's result: the cost follows the outline's length, not the picture's area.
 */
export function blurMaskEdges(mask: Uint8Array, width: number, height: number, sigma: number): Uint8Array {
  if (mask.length !== width * height) {
    throw new RangeError(`A ${width}x${height} mask has ${width * height} bytes, not ${mask.length}`);
  }
  if (sigma < SMALLEST_BLUR_SIGMA) return mask;
  const { weights, radius } = gaussianKernel(sigma);
  // Across: in each row, the pixels within `radius` of a change (a value unlike its left neighbour).
  const source = Uint8Array.from(mask);
  // With rows of whole 32-bit words, flat stretches are skipped four pixels at a time.
  const words = width % 4 === 0 ? wholeWords(source) : undefined;
  for (let y = 0; y < height; y++) {
    const row = y * width;
    let blurredTo = 0;
    for (let change = 1; change < width; change++) {
      if (words && change % 4 === 0) {
        const flat = Math.imul(source[row + change - 1] as number, 0x01010101) >>> 0;
        let word = (row + change) / 4;
        const rowEnd = (row + width) / 4;
        while (word < rowEnd && words[word] === flat) word++;
        change = word * 4 - row;
        if (change >= width) break;
      }
      if (source[row + change] === source[row + change - 1]) continue;
      // The windows holding both sides of this change: centres change - radius … change + radius - 1.
      const end = Math.min(width, change + radius);
      for (let x = Math.max(blurredTo, change - radius); x < end; x++) {
        let sum = 0;
        for (let offset = -radius; offset <= radius; offset++) {
          const from = x + offset < 0 ? 0 : x + offset >= width ? width - 1 : x + offset;
          sum += (weights[offset + radius] as number) * (source[row + from] as number);
        }
        mask[row + x] = Math.round(sum);
      }
      blurredTo = Math.max(blurredTo, end);
    }
  }
  // Down: the same per column, found row by row (changes against the row above) to stay cache-friendly.
  source.set(mask);
  const blurredTo = new Int32Array(width);
  for (let change = 1; change < height; change++) {
    const row = change * width;
    for (let x = 0; x < width; x++) {
      if (words && x % 4 === 0) {
        // Four pixels as the row above: no change among them.
        if (words[(row + x) / 4] === words[(row - width + x) / 4]) {
          x += 3;
          continue;
        }
      }
      if (source[row + x] === source[row - width + x]) continue;
      const end = Math.min(height, change + radius);
      for (let y = Math.max(blurredTo[x] as number, change - radius); y < end; y++) {
        let sum = 0;
        for (let offset = -radius; offset <= radius; offset++) {
          const from = y + offset < 0 ? 0 : y + offset >= height ? height - 1 : y + offset;
          sum += (weights[offset + radius] as number) * (source[from * width + x] as number);
        }
        mask[y * width + x] = Math.round(sum);
      }
      blurredTo[x] = end;
    }
  }
  return mask;
}

/**
 * The choke, in place: values up to `edgeChoke` become 0, the rest are stretched back to 0–255, so the
 * feathered edge moves inside the person (0 and 255 stay as they are).
 */
export function chokeMask(mask: Uint8Array, edgeChoke: number): Uint8Array {
  if (edgeChoke === 0) return mask;
  const levels = new Uint8Array(256);
  const stretch = 255 / (255 - edgeChoke);
  for (let value = edgeChoke + 1; value < 256; value++)
    levels[value] = Math.round((value - edgeChoke) * stretch);
  const words = wholeWords(mask);
  for (let word = 0; word < words.length; word++) {
    const four = words[word] as number;
    // Four pixels of background or of the person's inside: the choke keeps 0 and 255.
    if (four === 0 || four === FOUR_OPAQUE) continue;
    for (let index = word * 4; index < word * 4 + 4; index++)
      mask[index] = levels[mask[index] as number] as number;
  }
  for (let index = words.length * 4; index < mask.length; index++) {
    mask[index] = levels[mask[index] as number] as number;
  }
  return mask;
}

/** Four mask bytes of 255, read as one 32-bit word. */
export const FOUR_OPAQUE = 0xffffffff;

/**
 * The mask's bytes as 32-bit words, four pixels at a time, as many whole words as it holds (none when
 * it does not start on a word boundary): a mask is 0 or 255 nearly everywhere, and a loop can step
 * over such stretches four pixels at once. The bytes past the last whole word are the caller's.
 */
export function wholeWords(mask: Uint8Array): Uint32Array {
  return mask.byteOffset % 4 === 0
    ? new Uint32Array(mask.buffer, mask.byteOffset, Math.floor(mask.length / 4))
    : new Uint32Array(0);
}

/**
 * An RGB picture and its mask interleaved into RGBA, the colours of the mask's partial pixels (the
 * outline, where the old background still shows through) replaced by the opacity-weighted Gaussian
 * average (`sigma` pixels) of the fully opaque person pixels around them; partial pixels with no opaque
 * pixel near enough (their average's weight below 8/255) keep their own colour.
 *
 * The average is a smooth field, so it is taken on blocks of about `sigma` pixels a side (sums of the
 * opaque pixels' colours and counts, blurred by about one block) and read back bilinearly at the
 * outline's pixels only; the whole picture is only read once, to sum the blocks and to interleave.
 */
export function rgbaWithEdgeColours(
  rgb: Uint8Array,
  mask: Uint8Array,
  width: number,
  height: number,
  sigma: number,
): Buffer {
  const pixels = width * height;
  if (rgb.length !== pixels * 3 || mask.length !== pixels) {
    throw new RangeError(
      `A ${width}x${height} picture takes ${pixels * 3} RGB bytes and ${pixels} mask bytes`,
    );
  }
  const block = Math.max(1, Math.ceil(sigma));
  const blocksWide = Math.ceil(width / block);
  const blocksHigh = Math.ceil(height / block);
  const blockOfColumn = new Int32Array(width);
  for (let x = 0; x < width; x++) blockOfColumn[x] = Math.floor(x / block);
  // The outline: its pixels in order, and the blocks they are in.
  let outline = new Int32Array(1024);
  let outlinePixels = 0;
  const outlineBlocks = new Uint8Array(blocksWide * blocksHigh);
  // Whole 32-bit pixels (little-endian: red in the low byte) on a buffer of its own, so aligned.
  const rgba = Buffer.from(new ArrayBuffer(pixels * 4));
  const words = new Uint32Array(rgba.buffer, 0, pixels);
  for (let y = 0, pixel = 0, from = 0; y < height; y++) {
    const blockRow = Math.floor(y / block) * blocksWide;
    for (let x = 0; x < width; x++, pixel++, from += 3) {
      const alpha = mask[pixel] as number;
      words[pixel] =
        ((rgb[from] as number) |
          ((rgb[from + 1] as number) << 8) |
          ((rgb[from + 2] as number) << 16) |
          (alpha << 24)) >>>
        0;
      if (alpha === 0 || alpha === 255) continue;
      if (outlinePixels === outline.length) {
        const longer = new Int32Array(outline.length * 2);
        longer.set(outline);
        outline = longer;
      }
      outline[outlinePixels++] = pixel;
      outlineBlocks[blockRow + (blockOfColumn[x] as number)] = 1;
    }
  }
  if (sigma < SMALLEST_BLUR_SIGMA || outlinePixels === 0) return rgba;

  const blockSigma = sigma / block;
  // The blocks the outline's averages read: within the blur's reach, and one more for the bilinear read.
  const read = personCover(outlineBlocks, blocksWide, blocksHigh, 1, gaussianKernel(blockSigma).radius + 1);
  // Four planes per block: red, green, blue summed over its opaque pixels, and how many there are.
  const sums = new Float32Array(blocksWide * blocksHigh * 4);
  for (let blockY = 0; blockY < blocksHigh; blockY++) {
    for (let blockX = 0; blockX < blocksWide; blockX++) {
      const at = (blockY * blocksWide + blockX) * 4;
      if (read[at / 4] === 0) continue;
      let red = 0;
      let green = 0;
      let blue = 0;
      let opaque = 0;
      for (let y = blockY * block; y < Math.min(height, (blockY + 1) * block); y++) {
        for (
          let x = blockX * block, pixel = y * width + x;
          x < Math.min(width, (blockX + 1) * block);
          x++, pixel++
        ) {
          if (mask[pixel] !== 255) continue;
          red += rgb[pixel * 3] as number;
          green += rgb[pixel * 3 + 1] as number;
          blue += rgb[pixel * 3 + 2] as number;
          opaque++;
        }
      }
      sums[at] = red;
      sums[at + 1] = green;
      sums[at + 2] = blue;
      sums[at + 3] = opaque;
    }
  }
  const averaged = blurBlockPlanes(sums, blocksWide, blocksHigh, blockSigma);
  // Only where opaque person pixels are close enough to say what colour the outline is.
  const enough = (8 / 255) * block * block;
  for (let index = 0; index < outlinePixels; index++) {
    const pixel = outline[index] as number;
    const y = Math.floor(pixel / width);
    const x = pixel - y * width;
    const by = Math.min(blocksHigh - 1, Math.max(0, (y + 0.5) / block - 0.5));
    const y0 = Math.floor(by);
    const y1 = Math.min(blocksHigh - 1, y0 + 1);
    const fy = by - y0;
    const bx = Math.min(blocksWide - 1, Math.max(0, (x + 0.5) / block - 0.5));
    const x0 = Math.floor(bx);
    const x1 = Math.min(blocksWide - 1, x0 + 1);
    const fx = bx - x0;
    // The four blocks' weights in the bilinear sample.
    const wa = (1 - fy) * (1 - fx);
    const wb = (1 - fy) * fx;
    const wc = fy * (1 - fx);
    const wd = fy * fx;
    const a = (y0 * blocksWide + x0) * 4;
    const b = (y0 * blocksWide + x1) * 4;
    const c = (y1 * blocksWide + x0) * 4;
    const d = (y1 * blocksWide + x1) * 4;
    const weight =
      wa * (averaged[a + 3] as number) +
      wb * (averaged[b + 3] as number) +
      wc * (averaged[c + 3] as number) +
      wd * (averaged[d + 3] as number);
    if (weight < enough) continue;
    const to = pixel * 4;
    for (let channel = 0; channel < 3; channel++) {
      const sum =
        wa * (averaged[a + channel] as number) +
        wb * (averaged[b + channel] as number) +
        wc * (averaged[c + channel] as number) +
        wd * (averaged[d + channel] as number);
      rgba[to + channel] = Math.min(255, Math.round(sum / weight));
    }
  }
  return rgba;
}

/** Four interleaved float planes blurred by a Gaussian of `sigma` blocks, separably, edges clamped. */
function blurBlockPlanes(planes: Float32Array, width: number, height: number, sigma: number): Float32Array {
  const { weights, radius } = gaussianKernel(sigma);
  const across = new Float32Array(planes.length);
  for (let y = 0; y < height; y++) {
    for (let x = 0; x < width; x++) {
      const to = (y * width + x) * 4;
      for (let offset = -radius; offset <= radius; offset++) {
        const weight = weights[offset + radius] as number;
        const from = (y * width + Math.min(width - 1, Math.max(0, x + offset))) * 4;
        for (let plane = 0; plane < 4; plane++)
          across[to + plane] = (across[to + plane] as number) + weight * (planes[from + plane] as number);
      }
    }
  }
  const blurred = new Float32Array(planes.length);
  for (let y = 0; y < height; y++) {
    for (let offset = -radius; offset <= radius; offset++) {
      const weight = weights[offset + radius] as number;
      const fromRow = Math.min(height - 1, Math.max(0, y + offset)) * width * 4;
      const toRow = y * width * 4;
      for (let index = 0; index < width * 4; index++) {
        blurred[toRow + index] =
          (blurred[toRow + index] as number) + weight * (across[fromRow + index] as number);
      }
    }
  }
  return blurred;
}
