/**
 * The named caption styles of AI clipping (`output_settings.caption_style`, the hosted API's enum), each
 * a look the composition engine burns with libass (`CaptionStyle`, captions.ts `toAss`): colours,
 * outline, shadow, box, weight, slant, capitals, size and where the lines sit, plus how many words a
 * cue shows. Short-form video reads on a phone: most styles are larger than the default and some sit
 * higher than the bottom margin, where a platform's own buttons and text would cover them.
 */
import { type BundledFontFamily, bundledFontFile } from './bundled-fonts.js';
import type { CaptionStyle } from './composition-engine.js';

export const CAPTION_PRESET_NAMES = [
  'subtle_gray',
  'shadow_mint',
  'subtle_cyan',
  'stamp_red',
  'retro_gold',
  'block_dark',
  'racing',
  'modern_dark',
  'modern_boxed',
  'chunky',
  'clean',
  'shadow_lime',
  'tag_yellow',
  'pop_purple',
  'spotlight',
  'outline_classic',
  'exotic',
  'golden',
  'simple',
  'pop_single',
  'energy',
  'bold',
  'elegant',
  'neon_pink',
] as const;
export type CaptionPresetName = (typeof CAPTION_PRESET_NAMES)[number];

/** The hosted API's default. */
export const DEFAULT_CAPTION_PRESET: CaptionPresetName = 'outline_classic';

export interface CaptionPreset {
  style: Omit<CaptionStyle, 'font'>;
  /** A bundled font other than the engine's DejaVu Sans. */
  fontFamily?: BundledFontFamily;
  /** One word on screen at a time (word-by-word captions). @default false */
  singleWord?: boolean;
}

export const CAPTION_PRESETS: Readonly<Record<CaptionPresetName, CaptionPreset>> = {
  subtle_gray: {
    style: {
      textColor: '#d9d9d9',
      outlineColor: '#303030',
      outlineWidth: 0.04,
      shadowDepth: 0,
      sizeScale: 0.9,
    },
  },
  shadow_mint: {
    style: { textColor: '#9cffd0', outlineWidth: 0.02, shadowDepth: 0.1, bold: true, sizeScale: 1.15 },
  },
  subtle_cyan: {
    style: {
      textColor: '#7fe7ff',
      outlineColor: '#003846',
      outlineWidth: 0.04,
      shadowDepth: 0,
      sizeScale: 0.95,
    },
  },
  stamp_red: {
    style: { textColor: '#ffffff', boxColor: '#d62828', bold: true, uppercase: true, sizeScale: 1.1 },
  },
  retro_gold: {
    style: {
      textColor: '#ffc857',
      outlineColor: '#5a3200',
      outlineWidth: 0.1,
      bold: true,
      italic: true,
      sizeScale: 1.2,
      position: 'lower_third',
    },
    fontFamily: 'DejaVu Serif',
  },
  block_dark: { style: { textColor: '#ffffff', boxColor: '#111111', sizeScale: 1.1 } },
  racing: {
    style: {
      textColor: '#ffe600',
      outlineWidth: 0.12,
      bold: true,
      italic: true,
      uppercase: true,
      sizeScale: 1.3,
      position: 'lower_third',
    },
  },
  modern_dark: {
    style: { textColor: '#f2f2f2', boxColor: '#2b2b2b', sizeScale: 1.05, position: 'lower_third' },
  },
  modern_boxed: {
    style: { textColor: '#111111', boxColor: '#ffffff', bold: true, sizeScale: 1.1, position: 'lower_third' },
  },
  chunky: {
    style: {
      textColor: '#ffffff',
      outlineWidth: 0.16,
      bold: true,
      uppercase: true,
      sizeScale: 1.45,
      position: 'middle',
    },
    fontFamily: 'DejaVu Sans Condensed',
  },
  clean: { style: { textColor: '#ffffff', outlineWidth: 0, shadowDepth: 0.06, sizeScale: 1.05 } },
  shadow_lime: {
    style: {
      textColor: '#b8ff3c',
      outlineWidth: 0.02,
      shadowDepth: 0.1,
      bold: true,
      sizeScale: 1.2,
      position: 'lower_third',
    },
  },
  tag_yellow: {
    style: {
      textColor: '#111111',
      boxColor: '#ffd60a',
      bold: true,
      uppercase: true,
      sizeScale: 1.15,
      position: 'lower_third',
    },
  },
  pop_purple: {
    style: { textColor: '#ffffff', boxColor: '#7b2cbf', bold: true, sizeScale: 1.2, position: 'middle' },
  },
  spotlight: {
    style: { textColor: '#fff275', outlineWidth: 0.14, bold: true, sizeScale: 1.35, position: 'middle' },
  },
  outline_classic: { style: { textColor: '#ffffff', outlineWidth: 0.1, shadowDepth: 0.04, sizeScale: 1.1 } },
  exotic: {
    style: {
      textColor: '#ff4fd8',
      outlineColor: '#00a6a6',
      outlineWidth: 0.1,
      italic: true,
      sizeScale: 1.25,
      position: 'lower_third',
    },
    fontFamily: 'DejaVu Serif',
  },
  golden: {
    style: { textColor: '#ffd700', outlineColor: '#1a1200', outlineWidth: 0.1, bold: true, sizeScale: 1.2 },
  },
  simple: { style: { textColor: '#ffffff', outlineWidth: 0.04, shadowDepth: 0, sizeScale: 0.9 } },
  pop_single: {
    style: {
      textColor: '#ffffff',
      outlineWidth: 0.14,
      bold: true,
      uppercase: true,
      sizeScale: 1.8,
      position: 'middle',
    },
    singleWord: true,
  },
  energy: {
    style: {
      textColor: '#ff7a00',
      outlineColor: '#ffffff',
      outlineWidth: 0.08,
      bold: true,
      italic: true,
      uppercase: true,
      sizeScale: 1.3,
      position: 'lower_third',
    },
  },
  bold: { style: { textColor: '#ffffff', outlineWidth: 0.12, bold: true, sizeScale: 1.3 } },
  elegant: {
    style: {
      textColor: '#fff8e7',
      outlineColor: '#3a3a3a',
      outlineWidth: 0.03,
      shadowDepth: 0.03,
      italic: true,
      sizeScale: 1,
    },
    fontFamily: 'DejaVu Serif',
  },
  neon_pink: {
    style: {
      textColor: '#ff2e88',
      outlineColor: '#ffc2dc',
      outlineWidth: 0.06,
      shadowDepth: 0.08,
      bold: true,
      sizeScale: 1.2,
      position: 'lower_third',
    },
  },
};

/** The composition engine's caption style of a preset, its font resolved to the bundled file. */
export function captionStyleOf(name: CaptionPresetName): CaptionStyle {
  const preset = CAPTION_PRESETS[name];
  return {
    ...preset.style,
    ...(preset.fontFamily
      ? { font: { path: bundledFontFile(preset.fontFamily), family: preset.fontFamily } }
      : {}),
  };
}
