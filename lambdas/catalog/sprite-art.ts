/**
 * The sprites of a talking presenter: the parts of a look's portrait that change while it speaks,
 * each a small transparent picture and the place where it goes on the portrait. A mouth sprite per
 * viseme (`mouth-art.ts`) and a blink (both eyes closed). Pure functions, no sharp
 * (`render-sprites.ts` rasterizes them).
 *
 * A sprite is the portrait itself, drawn with another mouth (or closed eyes), rendered only inside a
 * pixel box and within it only inside the feature's area (an ellipse in figure space, transparent
 * outside it). Because it is the same drawing (face colour, shading, beard, glasses and hair
 * included) at the same pixels, pasting a sprite at its box on the portrait changes nothing but the
 * feature, and every mouth sprite covers the portrait's own mouth entirely.
 */

import type { LookAppearance } from './look-appearance.js';
import { EYE_AREAS, type FigureEllipse, MOUTH_AREA, VISEMES, type Viseme } from './mouth-art.js';
import { type PixelBox, type PortraitCanvas, placement, portraitSvg } from './portrait-art.js';

export const SPRITES = [...VISEMES, 'blink'] as const;
export type SpriteName = (typeof SPRITES)[number];

/** The ellipses (figure space) a sprite shows: the mouth area, or both eyes for the blink. */
export function spriteAreas(sprite: SpriteName): readonly FigureEllipse[] {
  return sprite === 'blink' ? EYE_AREAS : [MOUTH_AREA];
}

/**
 * Where a sprite goes on the portrait rendered at `outputScale` of the canvas (1: the portrait PNG;
 * `PREVIEW_SCALE`: the preview): whole pixels, the sprite's PNG is exactly `width` × `height`. A
 * compositor that scales the portrait scales this box by the same factor.
 */
export function spriteBox(canvas: PortraitCanvas, sprite: SpriteName, outputScale = 1): PixelBox {
  const place = placement(canvas);
  const areas = spriteAreas(sprite);
  const toPixels = (figure: number, origin: number) => (origin + figure * place.scale) * outputScale;
  // One pixel of margin around the ellipses' bounds, for their anti-aliased edges.
  const left = Math.floor(toPixels(Math.min(...areas.map((a) => a.cx - a.rx)), place.x)) - 1;
  const top = Math.floor(toPixels(Math.min(...areas.map((a) => a.cy - a.ry)), place.y)) - 1;
  const right = Math.ceil(toPixels(Math.max(...areas.map((a) => a.cx + a.rx)), place.x)) + 1;
  const bottom = Math.ceil(toPixels(Math.max(...areas.map((a) => a.cy + a.ry)), place.y)) + 1;
  const x = Math.max(0, left);
  const y = Math.max(0, top);
  return {
    x,
    y,
    width: Math.min(Math.round(canvas.width * outputScale), right) - x,
    height: Math.min(Math.round(canvas.height * outputScale), bottom) - y,
  };
}

/** The SVG of one sprite of a look, `spriteBox` pixels large (transparent portrait, no backdrop). */
export function spriteSvg(
  appearance: LookAppearance,
  gender: 'male' | 'female',
  canvas: PortraitCanvas,
  sprite: SpriteName,
  outputScale = 1,
): string {
  const area = spriteAreas(sprite)
    .map((area) => `<ellipse cx="${area.cx}" cy="${area.cy}" rx="${area.rx}" ry="${area.ry}"/>`)
    .join('');
  const face = sprite === 'blink' ? { eyes: 'closed' as const } : { mouth: sprite as Viseme };
  return portraitSvg(appearance, gender, canvas, {
    outputScale,
    face,
    view: { box: spriteBox(canvas, sprite, outputScale), area },
  });
}
