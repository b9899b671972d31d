/** What a look is drawn from: its styles and colours (portrait-art.ts and mouth-art.ts draw it). */

export const HAIR_STYLES = [
  'long',
  'bob',
  'bun',
  'short',
  'side_part',
  'afro',
  'curly_short',
  'buzz',
] as const;
export type HairStyle = (typeof HAIR_STYLES)[number];

export const OUTFIT_STYLES = [
  'blazer',
  'suit',
  'sweater',
  'turtleneck',
  'hoodie',
  'tshirt',
  'blouse',
  'shirt',
  'labcoat',
] as const;
export type OutfitStyle = (typeof OUTFIT_STYLES)[number];

/** How a look is drawn. Colours are `#rrggbb`. */
export interface LookAppearance {
  skin: string;
  /** Iris colour. */
  eyes: string;
  hair: { style: HairStyle; color: string };
  outfit: {
    style: OutfitStyle;
    /** The main garment (jacket, sweater, coat...). */
    color: string;
    /** Second colour: the shirt or blouse under a jacket, a tie, drawstrings, a pen. */
    accent: string;
    /** Shirt under a suit's tie. @default '#f5f7fa' */
    shirt?: string;
  };
  glasses?: string;
  earrings?: string;
  beard?: 'stubble' | 'full';
  /** Lines of age on the face (forehead, eyes, mouth); a smooth face when absent. */
  age?: 'middle' | 'older';
  /** Lipstick colour; natural lips when absent. */
  lips?: string;
  /** The preview's background: a diagonal gradient with soft light spots of `accent`. */
  backdrop: { from: string; to: string; accent: string };
}

/**
 * What a presenter is drawn from: an appearance on a canvas. A stock look (`StockLook` of
 * stock-avatars.ts) is one; a look drawn from a prompt (`appearanceFromPrompt`) or a variation of
 * one (`drawnLookVariations`) is another, with no id and no catalog key.
 */
export interface DrawnLook {
  appearance: LookAppearance;
  gender: 'male' | 'female';
  /** Size of the portrait PNG, in pixels. */
  imageWidth: number;
  imageHeight: number;
  /** How the figure is framed on the canvas (`placement` of portrait-art.ts). */
  preferredOrientation: 'portrait' | 'landscape' | 'square';
}
