/**
 * The public icon catalog of `GET /v3/assets/search?type=icon`: Tabler Icons (`@tabler/icons`, MIT,
 * https://tabler.io/icons), every icon of the package in each style it ships (outline, and filled
 * for about a thousand of them): name, category and the package's own tags, as the package's
 * `icons.json` gives them, and the SVG file it ships. Nothing is added or invented here.
 *
 * The media store serves each icon as the package's SVG and as a PNG rasterised from it
 * (icon-media.ts); both live under `catalog/icons/tabler/<package version>/`, so an upgrade of the
 * package gives new objects rather than overwriting the ones already handed out.
 *
 * A search reads only the index (`IconIndex`: the version, names, styles, categories, tags): from
 * `ICON_INDEX_FILE` beside its bundle when deployed, from the package otherwise. The SVG files are
 * read by whoever publishes the icons' media (publish-catalog-media.ts).
 */
import { existsSync, readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join } from 'node:path';
import { fileURLToPath } from 'node:url';
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

/**
 * What the search reads of the package: its version and, per icon, the fields of `icons.json` it
 * ranks by. About 0.9 MB, where the package is 51 MB of SVGs and JSON.
 */
export interface IconIndex {
  version: string;
  icons: readonly { name: string; category: string; tags: readonly string[]; styles: readonly IconStyle[] }[];
}

/**
 * The file name of the index beside a deployed bundle (`BUNDLE_DATA_FILES` of
 * lib/stack/handler-bundles.ts writes it there, made by `iconIndexFromPackage` when the bundles are
 * built): a zip function carries no `node_modules`, and the media image's publisher then names the
 * same objects as the search.
 */
export const ICON_INDEX_FILE = 'tabler-icons-index.json';

/**
 * The installed package's directory. Its `exports` map sends every subpath to `icons/`, so its own
 * `icons.json` and `package.json` cannot be required by name: an icon is resolved, and the root is two
 * directories up from it.
 */
function tablerDirectory(): string {
  const anIcon = createRequire(import.meta.url).resolve('@tabler/icons/outline/circle.svg');
  return dirname(dirname(dirname(anIcon)));
}

/** The index read from the installed package: in development, in the media image, and when bundling. */
export function iconIndexFromPackage(): IconIndex {
  const directory = tablerDirectory();
  const { version } = JSON.parse(readFileSync(join(directory, 'package.json'), 'utf8')) as {
    version: string;
  };
  const entries = JSON.parse(readFileSync(join(directory, 'icons.json'), 'utf8')) as Record<
    string,
    TablerIconEntry
  >;
  return {
    version,
    icons: Object.values(entries).map((entry) => ({
      name: entry.name,
      category: entry.category ?? '',
      tags: (entry.tags ?? []).map(String),
      styles: (Object.values(ICON_STYLES) as IconStyle[]).filter(
        (style) => entry.styles?.[style] !== undefined,
      ),
    })),
  };
}

let cachedIndex: IconIndex | undefined;
/** The index beside this module's bundle when there is one (deployed), else the package's (development). */
function iconIndex(): IconIndex {
  if (!cachedIndex) {
    const bundled = fileURLToPath(new URL(`./${ICON_INDEX_FILE}`, import.meta.url));
    cachedIndex = existsSync(bundled)
      ? (JSON.parse(readFileSync(bundled, 'utf8')) as IconIndex)
      : iconIndexFromPackage();
  }
  return cachedIndex;
}

/** The version of `@tabler/icons` the catalog is read from. */
export const iconSetVersion = (): string => iconIndex().version;

let cachedIcons: readonly CatalogIcon[] | undefined;
/** Every icon of the set, outline first then filled for each name, in the package's order. */
export function catalogIcons(): readonly CatalogIcon[] {
  cachedIcons ??= iconIndex().icons.flatMap((entry) =>
    entry.styles.map((style) => ({
      id: style === ICON_STYLES.outline ? `tabler-${entry.name}` : `tabler-${entry.name}-filled`,
      name: entry.name,
      style,
      category: entry.category,
      tags: entry.tags,
    })),
  );
  return cachedIcons;
}

/**
 * The SVG file the package ships for the icon (24×24, `currentColor`, so black where no colour is
 * set). Only publishers read it (the catalog publisher in the media image, the local stack's first
 * use), never a search: zip bundles carry the index, not the package.
 */
export function iconSvg(icon: CatalogIcon): Buffer {
  return readFileSync(join(tablerDirectory(), 'icons', icon.style, `${icon.name}.svg`));
}

export function iconKeys(icon: CatalogIcon): IconKeys {
  const base = `${CATALOG_PREFIX}icons/tabler/${iconSetVersion()}/${icon.style}/${icon.name}`;
  return { svg: `${base}.svg`, png: `${base}-${ICON_PNG_SIZE}.png` };
}
