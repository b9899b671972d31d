/**
 * An icon's SVG rasterised to a square PNG with sharp (librsvg): transparent background, the strokes
 * and fills in the SVG's `currentColor`, which librsvg draws black. Loaded only where icons are
 * published (publish-catalog-media.ts: the catalog publisher, the local stack's first use).
 */
import sharp from 'sharp';
import { ICON_PNG_SIZE } from './icon-catalog.js';

/** Tabler's SVGs are 24×24 user units: rendering at this density gives `ICON_PNG_SIZE` pixels exactly. */
const SVG_SIDE = 24;

export function renderIconPng(svg: Uint8Array): Promise<Buffer> {
  return sharp(svg, { density: (72 * ICON_PNG_SIZE) / SVG_SIDE })
    .resize(ICON_PNG_SIZE, ICON_PNG_SIZE, { fit: 'contain', background: { r: 0, g: 0, b: 0, alpha: 0 } })
    .png({ compressionLevel: 9 })
    .toBuffer();
}
