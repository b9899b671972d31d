/**
 * Rasterizes the looks' SVG (stock or drawn) with sharp (librsvg). Only catalog publishing imports this module:
 * API functions never load sharp.
 */
import sharp from 'sharp';
import { lookSvg } from './catalog-media.js';
import type { DrawnLook } from './look-appearance.js';

/**
 * A PNG of the SVG at its own size, transparency kept. Flat-shaded art fits a 256-colour palette
 * (quantized with dithering, alpha included) at under half the size of true colour, which is what
 * every start of the local stack uploads.
 */
export async function rasterizeSvg(svg: string): Promise<Uint8Array> {
  const png = await sharp(Buffer.from(svg))
    .png({ palette: true, quality: 95, effort: 7, compressionLevel: 9 })
    .toBuffer();
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
}

/** The presenter: an RGBA PNG of `imageWidth` × `imageHeight`, transparent around the figure. */
export function renderPortrait(look: DrawnLook): Promise<Uint8Array> {
  return rasterizeSvg(lookSvg(look, 'portrait'));
}

/** The preview: an opaque PNG of the figure in front of its backdrop, at `PREVIEW_SCALE` of the size. */
export function renderLookPreview(look: DrawnLook): Promise<Uint8Array> {
  return rasterizeSvg(lookSvg(look, 'look-preview'));
}

/**
 * The look as if photographed: its portrait over a striped, noisy backdrop, flattened to a JPEG. A
 * picture of a face whose every pixel the project owns, for what needs a photo of a person without a
 * third-party photo: tests and benchmarks of photo presenters, and the README's frames.
 */
export async function renderLookPhoto(look: DrawnLook): Promise<Buffer> {
  const { imageWidth: width, imageHeight: height } = look;
  const backdrop = Buffer.alloc(width * height * 3);
  for (let y = 0; y < height; y++)
    for (let x = 0; x < width; x++) {
      const stripe = Math.floor(x / 40) % 2 === 0 ? 40 : 0;
      const noise = ((x * 7919 + y * 104_729) % 31) - 15;
      const offset = (y * width + x) * 3;
      backdrop[offset] = 90 + stripe + noise;
      backdrop[offset + 1] = 110 + stripe + noise;
      backdrop[offset + 2] = 100 + noise;
    }
  return sharp(backdrop, { raw: { width, height, channels: 3 } })
    .composite([{ input: Buffer.from(await renderPortrait(look)) }])
    .jpeg({ quality: 90 })
    .toBuffer();
}
