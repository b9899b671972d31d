/**
 * The icons of the catalog in the media store, published on first use: a search makes sure each icon
 * of the page it answers has its SVG (the package's file) and its PNG (rasterised, render-icon.ts) in
 * the bucket, then hands out presigned URLs like every other medium. Publishing all ~6,300 icons up
 * front would cost every fresh bucket thousands of uploads (the local stack starts with an empty one)
 * for icons hardly anyone asks for; a HEAD per icon of a page is cheap once they are there.
 */
import pLimit from 'p-limit';
import { headMediaObject, presignMediaDownload, putCatalogObject } from '../media/media-store.js';
import { type CatalogIcon, iconKeys, iconSvg } from './icon-catalog.js';

const PUBLISH_CONCURRENCY = 8;

/** The PNG and the SVG of an icon, at their presigned URLs. */
export interface IconMedia {
  pngUrl: string;
  svgUrl: string;
}

/** Makes sure the icon's PNG and SVG are in the media bucket. The PNG is written last: it marks both. */
async function publishIcon(icon: CatalogIcon): Promise<void> {
  const keys = iconKeys(icon);
  if (await headMediaObject(keys.png)) return;
  const svg = iconSvg(icon);
  // sharp is loaded only when something has to be rendered.
  const { renderIconPng } = await import('./render-icon.js');
  const png = await renderIconPng(svg);
  await putCatalogObject(keys.svg, svg, 'image/svg+xml');
  await putCatalogObject(keys.png, png, 'image/png');
}

/** Icons checked (and, when missing, rendered and uploaded) at once, across the searches of a function. */
const publishing = pLimit(PUBLISH_CONCURRENCY);

/** The icon's media, published first when they are not in the bucket yet. */
export async function iconMedia(icon: CatalogIcon): Promise<IconMedia> {
  await publishing(() => publishIcon(icon));
  const keys = iconKeys(icon);
  const [pngUrl, svgUrl] = await Promise.all([
    presignMediaDownload(keys.png, { contentType: 'image/png', fileName: `${icon.id}.png` }),
    presignMediaDownload(keys.svg, { contentType: 'image/svg+xml', fileName: `${icon.id}.svg` }),
  ]);
  return { pngUrl, svgUrl };
}
