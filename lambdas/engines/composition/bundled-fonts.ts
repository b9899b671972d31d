/**
 * The caption fonts every deployment has: the DejaVu families of `dejavu-fonts-ttf` (a permissive
 * licence, installed in the media image), by the family name their `name` table gives. A brand kit
 * names one of these, or brings its own font file.
 */
import { createRequire } from 'node:module';
import { CompositionError } from './composition-engine.js';

/** Family name → file in `dejavu-fonts-ttf/ttf/` (the regular face of each family). */
export const BUNDLED_FONT_FILES = {
  'DejaVu Sans': 'DejaVuSans.ttf',
  'DejaVu Sans Condensed': 'DejaVuSansCondensed.ttf',
  'DejaVu Sans Mono': 'DejaVuSansMono.ttf',
  'DejaVu Serif': 'DejaVuSerif.ttf',
  'DejaVu Serif Condensed': 'DejaVuSerifCondensed.ttf',
} as const;
export type BundledFontFamily = keyof typeof BUNDLED_FONT_FILES;
export const BUNDLED_FONT_FAMILIES = Object.keys(BUNDLED_FONT_FILES) as BundledFontFamily[];

export function isBundledFontFamily(family: string): family is BundledFontFamily {
  return Object.hasOwn(BUNDLED_FONT_FILES, family);
}

const require = createRequire(import.meta.url);

/** The file of a bundled family, where this process can read it. */
export function bundledFontFile(family: BundledFontFamily): string {
  try {
    return require.resolve(`dejavu-fonts-ttf/ttf/${BUNDLED_FONT_FILES[family]}`);
  } catch (error) {
    throw new CompositionError(
      'engine_unavailable',
      `the bundled font ${family} is not installed (dejavu-fonts-ttf)`,
      { cause: error },
    );
  }
}
