/**
 * What a brand kit does to a video, from creation to composition:
 *
 * - at creation (`POST /v3/videos`, batches, templates) the kit is resolved (the named one, else the
 *   workspace's default: `brandKitForVideo` of brand/brand-kits.ts, which checks the brand lock) and copied into the
 *   render spec: its colours, its first font (a bundled family, or a copy of its file), a copy of its
 *   primary logo. Editing or deleting the kit later changes nothing for videos already made;
 * - scenes whose background the request did not choose (`implicit`) take the kit's primary colour;
 *   backgrounds the request chose stay as they are;
 * - at Compose, burned captions are set in the kit's font, on an opaque box of the kit's accent colour
 *   (the second colour, else the primary) with white or near-black text, whichever contrasts more with
 *   the box (WCAG contrast ratio): readable over any picture, in the brand's colour;
 * - the primary logo is laid in the top-right corner (top-left when the video's watermark is there),
 *   scaled to fit 25% of the frame's width and 12% of its height.
 *
 * This module is the creation side; brand-kit-composition.ts the Compose side.
 */
import type { BrandKitRecord } from '../brand/brand-kits.js';
import { newId } from '../core/ids.js';
import { mediaKeys } from '../media/media-keys.js';
import { copyMediaObject } from '../media/media-store.js';
import type { RenderBrandKit, RenderSpec } from './render-spec.js';

/** Copies what a video needs from `kit` to inputs of the video's own and describes them. */
export async function brandKitSnapshot(workspaceId: string, kit: BrandKitRecord): Promise<RenderBrandKit> {
  const copy = async (key: string, contentType: string) => {
    const to = mediaKeys.input(workspaceId, newId());
    await copyMediaObject(workspaceId, key, to, contentType);
    return to;
  };
  const font = kit.fonts[0];
  const logo = kit.logos[0];
  return {
    brand_kit_id: kit.brand_kit_id,
    colors: kit.colors,
    caption_font: font
      ? {
          family: font.family,
          key: font.key ? await copy(font.key, font.format === 'otf' ? 'font/otf' : 'font/ttf') : null,
        }
      : null,
    logo_key: logo ? await copy(logo.key, logo.mime_type) : null,
  };
}

/** The spec made with `kit`: its implicit backgrounds in the kit's primary colour, the kit recorded. */
export function withBrandKit(spec: RenderSpec, kit: RenderBrandKit): RenderSpec {
  const primary = kit.colors[0];
  return {
    ...spec,
    scenes: spec.scenes.map((scene) =>
      primary && scene.background.type === 'color' && scene.background.implicit
        ? { ...scene, background: { ...scene.background, color: primary } }
        : scene,
    ),
    brand_kit: kit,
  };
}

/**
 * A prepared spec made with the kit a request asks for (see `brandKitForVideo`); the kit's files are
 * copied to the video's inputs. Without a kit the spec stays as it is (a template's own kit included).
 */
export async function brandedSpec(
  workspaceId: string,
  spec: RenderSpec,
  kit: BrandKitRecord | undefined,
): Promise<RenderSpec> {
  return kit ? withBrandKit(spec, await brandKitSnapshot(workspaceId, kit)) : spec;
}

/** The keys of a spec's kit files (inputs of the video, or of a template). */
export function brandKitKeys(spec: Pick<RenderSpec, 'brand_kit'>): string[] {
  const kit = spec.brand_kit;
  return [kit?.caption_font?.key, kit?.logo_key].filter((key): key is string => typeof key === 'string');
}

/** The kit of a spec with its files moved by `move` (a template's copies, a video's own). */
export async function movedBrandKit(
  kit: RenderBrandKit | null | undefined,
  move: (key: string, name: string) => Promise<string>,
): Promise<RenderBrandKit | null> {
  if (!kit) return null;
  return {
    ...kit,
    caption_font: kit.caption_font
      ? {
          ...kit.caption_font,
          key: kit.caption_font.key ? await move(kit.caption_font.key, 'brand-font') : null,
        }
      : null,
    logo_key: kit.logo_key ? await move(kit.logo_key, 'brand-logo') : null,
  };
}
