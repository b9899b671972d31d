/**
 * Everything a drawn presenter needs, rendered in one call: for a look that is not in the stock
 * catalog (a look drawn from a prompt, a variation of one), which the caller stores wherever its
 * looks are kept. Loads sharp (through render-portrait.ts and render-sprites.ts): like them, never
 * imported by an API function.
 */
import { type SpriteSheetLayout, spriteSheetLayout } from './catalog-media.js';
import type { DrawnLook } from './look-appearance.js';
import { renderLookPreview, renderPortrait } from './render-portrait.js';
import { renderSpriteSheet } from './render-sprites.js';

export interface DrawnPresenter {
  /** RGBA PNG of `imageWidth` × `imageHeight`, transparent around the figure: what a video overlays. */
  portrait: Uint8Array;
  /** Opaque PNG of the figure in front of its backdrop, at `PREVIEW_SCALE` of the size. */
  preview: Uint8Array;
  /** RGBA PNG of `sheet.width` × `sheet.height`: the mouth and blink sprites stacked in `SPRITES` order. */
  spriteSheet: Uint8Array;
  /** Where each sprite is on the sheet (`sheetTop`) and where it goes on the portrait (`box`). */
  sheet: SpriteSheetLayout;
}

/** The portrait, preview and sprite sheet of a drawn look (the same bytes a stock look of it would get). */
export async function renderDrawnPresenter(look: DrawnLook): Promise<DrawnPresenter> {
  const [portrait, preview, spriteSheet] = await Promise.all([
    renderPortrait(look),
    renderLookPreview(look),
    renderSpriteSheet(look),
  ]);
  return { portrait, preview, spriteSheet, sheet: spriteSheetLayout(look) };
}
