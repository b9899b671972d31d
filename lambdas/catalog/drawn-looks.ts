/**
 * Drawn looks that are not stock looks: a look from a prompt (`drawnLookFromPrompt`), and a look
 * pack's variations of a drawn look (`drawnLookVariations`: other garment colours and styles, other
 * backdrops, the other framing). Pure: no I/O; `renderDrawnPresenter` (render-drawn.ts) draws them.
 */
import type { DrawnLook, LookAppearance, OutfitStyle } from './look-appearance.js';
import {
  appearanceFromPrompt,
  chooser,
  dressOutfit,
  GARMENT_PALETTE,
  NAMED_COLOURS,
  SETTINGS,
  spelled,
  USUAL_OUTFITS,
} from './prompt-appearance.js';
import { PORTRAIT_SIZES } from './stock-avatars.js';

/** A drawn look with a short name of what makes it itself ("navy blazer", "studio backdrop"). */
export type NamedDrawnLook = DrawnLook & { name: string };

/** The look a prompt describes, at the portrait size of its orientation (`appearanceFromPrompt`). */
export function drawnLookFromPrompt(prompt: string): DrawnLook & { recognised: string[] } {
  const { appearance, gender, orientation, recognised } = appearanceFromPrompt(prompt);
  const size = PORTRAIT_SIZES[orientation];
  return {
    appearance,
    gender,
    imageWidth: size.width,
    imageHeight: size.height,
    preferredOrientation: orientation,
    recognised,
  };
}

const STYLE_NAMES: Readonly<Record<OutfitStyle, string>> = {
  blazer: 'blazer',
  suit: 'suit',
  sweater: 'sweater',
  turtleneck: 'turtleneck',
  hoodie: 'hoodie',
  tshirt: 't-shirt',
  blouse: 'blouse',
  shirt: 'shirt',
  labcoat: 'lab coat',
};
const LABCOAT_PALETTE = ['white', 'cream', 'mint', 'skyblue', 'lavender'] as const;

function channels(hex: string): number[] {
  const value = Number.parseInt(hex.slice(1), 16);
  return [(value >> 16) & 255, (value >> 8) & 255, value & 255];
}

/** How far apart two colours are (RGB, 0..441). */
function distance(a: string, b: string): number {
  const [r, g, bl] = channels(a) as [number, number, number];
  const [r2, g2, b2] = channels(b) as [number, number, number];
  return Math.sqrt((r - r2) ** 2 + (g - g2) ** 2 + (bl - b2) ** 2);
}

/** The name of the named colour nearest to `hex`. */
export function colourName(hex: string): string {
  let best = 'grey';
  let nearest = Number.POSITIVE_INFINITY;
  for (const [name, value] of Object.entries(NAMED_COLOURS)) {
    const d = distance(hex, value);
    if (d < nearest) {
      nearest = d;
      best = name;
    }
  }
  return spelled(best);
}

/** Rotates `list` to start at a position chosen by `seed`: each look gets its own order. */
function rotated<T>(list: readonly T[], unit: number): T[] {
  const start = Math.floor(unit * list.length);
  return [...list.slice(start), ...list.slice(0, start)];
}

const sameBackdrop = (a: LookAppearance['backdrop'], b: LookAppearance['backdrop']) =>
  a.from === b.from && a.to === b.to && a.accent === b.accent;

/**
 * Up to `count` variations of a drawn look, the same for the same look: the garment in other colours,
 * other garments of the gender's usual styles, other backdrops, and the portrait (9:16) framing (the
 * landscape one for a look that is already portrait). Each keeps everything else of the look (face,
 * hair, accessories), and differs from the look and from the others.
 */
export function drawnLookVariations(look: DrawnLook, count: number): NamedDrawnLook[] {
  const wanted = Math.max(0, Math.floor(count));
  if (wanted === 0) return [];
  const base: DrawnLook = {
    appearance: look.appearance,
    gender: look.gender,
    imageWidth: look.imageWidth,
    imageHeight: look.imageHeight,
    preferredOrientation: look.preferredOrientation,
  };
  const seed = JSON.stringify(base);
  const { unit } = chooser(seed);
  const { outfit } = look.appearance;
  const with_ = (appearance: Partial<LookAppearance>, name: string): NamedDrawnLook => ({
    ...base,
    appearance: { ...look.appearance, ...appearance },
    name,
  });

  const colours = rotated(outfit.style === 'labcoat' ? LABCOAT_PALETTE : GARMENT_PALETTE, unit('colours'))
    // Another colour, not a shade of the same one (rust is no variation of red).
    .filter((name) => distance(NAMED_COLOURS[name] as string, outfit.color) > 90)
    .map((name) => {
      const color = NAMED_COLOURS[name] as string;
      const dressed = dressOutfit(outfit.style, color, {
        seed,
        inner:
          outfit.style === 'suit'
            ? outfit.shirt
            : outfit.style === 'blazer' || outfit.style === 'labcoat'
              ? outfit.accent
              : undefined,
        tie: outfit.style === 'suit' ? outfit.accent : undefined,
      });
      return with_({ outfit: dressed }, `${spelled(name)} ${STYLE_NAMES[outfit.style]}`);
    });
  const styles = rotated([...new Set(USUAL_OUTFITS[look.gender])], unit('styles'))
    .filter((style) => style !== outfit.style)
    .map((style) => {
      // A lab coat's white would make every other garment white: those take a colour of the palette.
      const color =
        outfit.style === 'labcoat'
          ? (NAMED_COLOURS[
              GARMENT_PALETTE[Math.floor(unit(style) * GARMENT_PALETTE.length)] as string
            ] as string)
          : outfit.color;
      return with_(
        { outfit: dressOutfit(style, color, { seed }) },
        `${colourName(color)} ${STYLE_NAMES[style]}`,
      );
    });
  const backdrops = rotated(Object.keys(SETTINGS), unit('backdrops'))
    .filter(
      (setting) =>
        !sameBackdrop(
          (SETTINGS[setting] as { backdrop: LookAppearance['backdrop'] }).backdrop,
          look.appearance.backdrop,
        ),
    )
    .map((setting) =>
      with_(
        { backdrop: { ...(SETTINGS[setting] as { backdrop: LookAppearance['backdrop'] }).backdrop } },
        `${setting} backdrop`,
      ),
    );
  const framing: NamedDrawnLook =
    look.preferredOrientation === 'portrait'
      ? {
          ...base,
          imageWidth: PORTRAIT_SIZES.landscape.width,
          imageHeight: PORTRAIT_SIZES.landscape.height,
          preferredOrientation: 'landscape',
          name: 'landscape 16:9',
        }
      : {
          ...base,
          imageWidth: PORTRAIT_SIZES.portrait.width,
          imageHeight: PORTRAIT_SIZES.portrait.height,
          preferredOrientation: 'portrait',
          name: 'portrait 9:16',
        };

  // Interleaved, so a small pack already shows each kind: colour, backdrop, framing, style, ...
  const queues = [colours, backdrops, [framing], styles];
  const result: NamedDrawnLook[] = [];
  const seen = new Set([JSON.stringify(base)]);
  while (result.length < wanted && queues.some((queue) => queue.length > 0)) {
    for (const queue of queues) {
      const next = queue.shift();
      if (!next || result.length >= wanted) continue;
      const { name: _, ...drawn } = next;
      const key = JSON.stringify(drawn);
      if (seen.has(key)) continue;
      seen.add(key);
      result.push(next);
    }
  }
  return result;
}
