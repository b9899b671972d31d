/**
 * Rasterizes a look's sprites (`sprite-art.ts`) with sharp: a transparent PNG per sprite and
 * its box on the portrait. Like `render-portrait.ts`, only catalog tooling imports this module.
 */

import sharp from 'sharp';
import { lookCanvas, spriteSheetLayout } from './catalog-media.js';
import type { DrawnLook } from './look-appearance.js';
import type { PixelBox } from './portrait-art.js';
import { type SpriteName, spriteBox, spriteSvg } from './sprite-art.js';
import { PREVIEW_SCALE } from './stock-avatars.js';

export interface RenderedSprite {
  sprite: SpriteName;
  /** RGBA PNG of `box.width` × `box.height` pixels, transparent outside the feature's area. */
  png: Uint8Array;
  /** Where the PNG goes on the portrait PNG (`imageWidth` × `imageHeight`). */
  box: PixelBox;
  /** Where the same area lies on the preview (`PREVIEW_SCALE` of the size). */
  previewBox: PixelBox;
}

/**
 * True colour, not the portrait's 256-colour palette: a palette maps the half-transparent pixels of
 * the area's anti-aliased edge to whatever colour is near, which drew a visible ring around the
 * sprite on the portrait. Sprites are small; true colour costs little.
 */
async function rasterizeSprite(svg: string): Promise<Uint8Array> {
  const png = await sharp(Buffer.from(svg)).png({ compressionLevel: 9 }).toBuffer();
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
}

/** One sprite of a look, at the portrait's size. */
export async function renderSprite(look: DrawnLook, sprite: SpriteName): Promise<RenderedSprite> {
  const canvas = lookCanvas(look);
  return {
    sprite,
    png: await rasterizeSprite(spriteSvg(look.appearance, look.gender, canvas, sprite)),
    box: spriteBox(canvas, sprite),
    previewBox: spriteBox(canvas, sprite, PREVIEW_SCALE),
  };
}

/** The look's sprite sheet (catalog-media.ts, `spriteSheetLayout`): every sprite at its row, transparent around them. */
export async function renderSpriteSheet(look: DrawnLook): Promise<Uint8Array> {
  const sheet = spriteSheetLayout(look);
  const rendered = await Promise.all(sheet.sprites.map(({ sprite }) => renderSprite(look, sprite)));
  const png = await sharp({
    create: {
      width: sheet.width,
      height: sheet.height,
      channels: 4,
      background: { r: 0, g: 0, b: 0, alpha: 0 },
    },
  })
    .composite(
      sheet.sprites.map(({ sheetTop }, index) => ({
        input: Buffer.from((rendered[index] as RenderedSprite).png),
        left: 0,
        top: sheetTop,
      })),
    )
    .png({ compressionLevel: 9 })
    .toBuffer();
  return new Uint8Array(png.buffer, png.byteOffset, png.byteLength);
}
