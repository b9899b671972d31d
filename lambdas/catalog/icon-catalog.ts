/**
 * The public icon catalog of `GET /v3/assets/search?type=icon`: Tabler Icons (`@tabler/icons`, MIT,
 * https://tabler.io/icons), every icon of the package in each style it ships (outline, and filled
 * for about a thousand of them): name, category and the package's own tags, as the package's
 * `icons.json` gives them, and the SVG file it ships. Nothing is added or invented here.
 *
 * The media store serves each icon as the package's SVG and as a PNG rasterised from it
 * (icon-media.ts); both live under `catalog/icons/tabler/<package version>/`, so an upgrade of the
 * package gives new objects rather than overwriting the ones already handed out.
 */
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { CATALOG_PREFIX } from './catalog-keys.js';

/**
 * The side of every icon PNG, in pixels: sharp enough for a full-HD overlay, a few KB each. It is in
 * the PNG's key, so a new size gives new objects.
 */
export const ICON_PNG_SIZE = 512;

export const ICON_STYLES = { outline: 'outline', filled: 'filled' } as const;
export type IconStyle = (typeof ICON_STYLES)[keyof typeof ICON_STYLES];

export interface CatalogIcon {
  /** Stable public id: `tabler-<name>` (outline) or `tabler-<name>-filled`. */
  id: string;
  /** The package's name of the icon, e.g. `rocket`. */
  name: string;
  style: IconStyle;
  /** The package's category, e.g. `Vehicles`; empty when it gives none. */
  category: string;
  /** The package's tags, e.g. `space`, `launch`. */
  tags: readonly string[];
}

/** Where the icon's SVG and PNG live in the media bucket. */
export interface IconKeys {
  svg: string;
  png: string;
}

/** What `icons.json` of `@tabler/icons` holds per icon (the fields read here). */
interface TablerIconEntry {
  name: string;
  category?: string;
  tags?: (string | number)[];
  styles?: Partial<Record<IconStyle, unknown>>;
}

interface TablerPackage {
  directory: string;
  version: string;
}

let tablerPackage: TablerPackage | undefined;
/**
 * The package's directory and version. Its `exports` map sends every subpath to `icons/`, so its own
 * `icons.json` and `package.json` cannot be required by name: an icon is resolved, and the root is two
 * directories up from it.
 */
function tabler(): TablerPackage {
  if (!tablerPackage) {
    const require = createRequire(import.meta.url);
    const anIcon = require.resolve('@tabler/icons/outline/circle.svg');
    const directory = dirname(dirname(dirname(anIcon)));
    const { version } = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as {
      version: string;
    };
    tablerPackage = { directory, version };
  }
  return tablerPackage;
}

/** The version of `@tabler/icons` the catalog is read from. */
export const iconSetVersion = (): string => tabler().version;

let cachedIcons: readonly CatalogIcon[] | undefined;
/** Every icon of the set, outline first then filled for each name, in the package's order. */
export function catalogIcons(): readonly CatalogIcon[] {
  if (!cachedIcons) {
    const entries = JSON.parse(readFileSync(join(tabler().directory, 'icons.json'), 'utf8')) as Record<
      string,
      TablerIconEntry
    >;
    cachedIcons = Object.values(entries).flatMap((entry) =>
      (Object.values(ICON_STYLES) as IconStyle[])
        .filter((style) => entry.styles?.[style] !== undefined)
        .map((style) => ({
          id: style === ICON_STYLES.outline ? `tabler-${entry.name}` : `tabler-${entry.name}-filled`,
          name: entry.name,
          style,
          category: entry.category ?? '',
          tags: (entry.tags ?? []).map(String),
        })),
    );
  }
  return cachedIcons;
}

/** The SVG file the package ships for the icon (24×24, `currentColor`, so black where no colour is set). */
export function iconSvg(icon: CatalogIcon): Buffer {
  return readFileSync(join(tabler().directory, 'icons', icon.style, `${icon.name}.svg`));
}

export function iconKeys(icon: CatalogIcon): IconKeys {
  const base = `${CATALOG_PREFIX}icons/tabler/${iconSetVersion()}/${icon.style}/${icon.name}`;
  return { svg: `${base}.svg`, png: `${base}-${ICON_PNG_SIZE}.png` };
}
