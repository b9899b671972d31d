/**
 * Rasterizes the stock looks' SVG with sharp (librsvg). Only catalog publishing imports this module:
 * API functions never load sharp.
 */
import sharp from 'sharp';
import { lookSvg } from './catalog-media.js';
import type { StockLook } from './stock-avatars.js';

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
export function renderPortrait(look: StockLook): Promise<Uint8Array> {
  return rasterizeSvg(lookSvg(look, 'portrait'));
}

/** The preview: an opaque PNG of the figure in front of its backdrop, at `PREVIEW_SCALE` of the size. */
export function renderLookPreview(look: StockLook): Promise<Uint8Array> {
  return rasterizeSvg(lookSvg(look, 'look-preview'));
}
