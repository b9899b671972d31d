/**
 * A video agent style's preview video as the styles list hands it out: a presigned URL.
 *
 * Deployed, the catalog publisher has put every preview in the media bucket (publish-catalog-media.ts,
 * in the media image, which has sharp, the fonts and ffmpeg), so the list only presigns. The local
 * stack does not render them at start (a second each): it has the list publish the previews of the
 * styles it answers on first use (`publishStylePreviewsOnFirstUse`), as its icon searches do.
 */
import pLimit from 'p-limit';
import { presignMediaDownload } from '../media/media-store.js';
import { type AgentStyle, stylePreviewKey } from '../video-agents/agent-styles.js';

/**
 * Previews rendered at once, across the lists of a process: each render is CPU-bound (sharp, the
 * music's synthesis, x264), so more than a couple only queue for the cores.
 */
export const STYLE_PREVIEW_FIRST_USE_CONCURRENCY = 2;

/** Makes sure a style's preview is in the media bucket (`publishStylePreview`). */
export type StylePreviewPublisher = (style: AgentStyle) => Promise<void>;

let publishOnFirstUse: StylePreviewPublisher | undefined;

/**
 * Has the styles list publish the previews it answers before presigning them (`undefined`: it only
 * presigns, as deployed). Set by the local stack, which does not publish them at start.
 */
export function publishStylePreviewsOnFirstUse(
  publisher: StylePreviewPublisher | undefined,
  concurrency = STYLE_PREVIEW_FIRST_USE_CONCURRENCY,
): void {
  if (!publisher) {
    publishOnFirstUse = undefined;
    return;
  }
  const limit = pLimit(concurrency);
  publishOnFirstUse = (style) => limit(() => publisher(style));
}

/** The presigned URL of a style's preview video. */
export async function stylePreviewUrl(style: AgentStyle): Promise<string> {
  await publishOnFirstUse?.(style);
  return presignMediaDownload(stylePreviewKey(style.style_id), {
    contentType: 'video/mp4',
    fileName: `${style.style_id}.mp4`,
  });
}
