/**
 * The icons' media as a search hands them out: presigned URLs of each icon's PNG and SVG.
 *
 * Deployed, the catalog publisher has put every icon in the media bucket (publish-catalog-media.ts,
 * in the media image, which has the package's SVGs and sharp), so a search only presigns: its zip
 * bundle carries the icon index and neither the SVGs nor sharp. The local stack publishes at start
 * everything but the icons, and has the searches publish each icon of a page they answer on first
 * use (`publishIconsOnFirstUse`), keeping its start fast.
 */
import pLimit from 'p-limit';
import { presignMediaDownload } from '../media/media-store.js';
import { type CatalogIcon, iconKeys } from './icon-catalog.js';

/** Icons checked (and, when missing, drawn and uploaded) at once, across the searches of a process. */
const FIRST_USE_CONCURRENCY = 8;

/** The PNG and the SVG of an icon, at their presigned URLs. */
export interface IconMedia {
  pngUrl: string;
  svgUrl: string;
}

/** Makes sure an icon's media are in the media bucket (`publishIconMedia`). */
export type IconPublisher = (icon: CatalogIcon) => Promise<void>;

let publishOnFirstUse: IconPublisher | undefined;

/**
 * Has every search publish the icons it lists before presigning them (`undefined`: it only presigns,
 * as deployed). Set by the local stack, which does not publish the icons at start.
 */
export function publishIconsOnFirstUse(publisher: IconPublisher | undefined): void {
  if (!publisher) {
    publishOnFirstUse = undefined;
    return;
  }
  const limit = pLimit(FIRST_USE_CONCURRENCY);
  publishOnFirstUse = (icon) => limit(() => publisher(icon));
}

/** The icon's media, at presigned URLs. */
export async function iconMedia(icon: CatalogIcon): Promise<IconMedia> {
  await publishOnFirstUse?.(icon);
  const keys = iconKeys(icon);
  const [pngUrl, svgUrl] = await Promise.all([
    presignMediaDownload(keys.png, { contentType: 'image/png', fileName: `${icon.id}.png` }),
    presignMediaDownload(keys.svg, { contentType: 'image/svg+xml', fileName: `${icon.id}.svg` }),
  ]);
  return { pngUrl, svgUrl };
}
