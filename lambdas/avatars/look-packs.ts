/**
 * What `POST /v3/avatars/looks` makes of a look (pure: decided when the request arrives, made by the
 * avatar look job).
 *
 * - A **photo** look varies by framing and backdrop: a close-up, and the person cut out (segmentation)
 *   in front of new backdrops. Each variation is a new picture, trained as a photo again, so its mouth
 *   and eyes are found on it.
 * - A **drawn** look (a prompt avatar without an image model) is drawn again in other outfits and
 *   settings (catalog/prompt-appearance.ts, `drawnLookVariations`).
 *
 * `aspect_ratio: '9:16'` frames every look for vertical video: a 9:16 crop around the face.
 * `type: 'template'` makes one look from a named look template (`LOOK_TEMPLATES`).
 */
import { drawnLookVariations } from '../catalog/drawn-looks.js';
import type { DrawnLook } from '../catalog/look-appearance.js';
import { PORTRAIT_SIZES } from '../catalog/stock-avatars.js';
import type { AvatarLookRecord, LookVariation } from './avatar-records.js';

/** Backdrops of look templates and look packs, `from` (edges) to `to` (behind the head). */
export const LOOK_TEMPLATES = {
  studio: { label: 'studio backdrop', backdrop: { from: '#1f2a3c', to: '#4f6a8f' } },
  office: { label: 'office backdrop', backdrop: { from: '#5b5046', to: '#c9b8a3' } },
  warm: { label: 'warm backdrop', backdrop: { from: '#7a3b1d', to: '#f0a463' } },
  fresh: { label: 'fresh backdrop', backdrop: { from: '#1d5a46', to: '#8fd1b2' } },
  close_up: { label: 'close-up', framing: 'close_up' },
} as const satisfies Record<string, Omit<LookVariation, 'drawn'>>;
export type LookTemplateId = keyof typeof LOOK_TEMPLATES;
export const LOOK_TEMPLATE_IDS = Object.keys(LOOK_TEMPLATES) as LookTemplateId[];

/** Looks of one look pack. */
export const LOOK_PACK_SIZE = 4;

/** A variation framed for vertical video: a photo cropped to 9:16 around the face, a drawn look drawn 9:16. */
function vertical(variation: LookVariation, aspectRatio: '9:16' | undefined): LookVariation {
  if (aspectRatio !== '9:16') return variation;
  const label = `${variation.label}, 9:16`;
  if (variation.drawn) return { ...variation, label, drawn: portraitFraming(variation.drawn) };
  return { ...variation, label, framing: 'portrait_9_16' };
}

const portraitFraming = (look: DrawnLook): DrawnLook => ({
  ...look,
  imageWidth: PORTRAIT_SIZES.portrait.width,
  imageHeight: PORTRAIT_SIZES.portrait.height,
  preferredOrientation: 'portrait',
});

/** The variations of a look pack of `reference` (a completed portrait look). */
export function lookPackVariations(
  reference: AvatarLookRecord,
  aspectRatio: '9:16' | undefined,
): LookVariation[] {
  if (reference.drawn) {
    return drawnLookVariations(reference.drawn, LOOK_PACK_SIZE).map(({ name, ...look }) =>
      vertical({ label: name, drawn: look }, aspectRatio),
    );
  }
  const pack: LookTemplateId[] =
    reference.presenter?.kind === 'portrait' && reference.presenter.cut_out_key
      ? ['close_up', 'studio', 'office', 'warm']
      : ['close_up'];
  return pack.map((id) => vertical({ ...LOOK_TEMPLATES[id] }, aspectRatio));
}

/** The one look of a look template. */
export function templateVariation(
  reference: AvatarLookRecord,
  templateId: LookTemplateId,
  aspectRatio: '9:16' | undefined,
): LookVariation {
  const template = LOOK_TEMPLATES[templateId];
  if (reference.drawn && 'backdrop' in template) {
    const { from, to } = template.backdrop;
    return vertical(
      {
        label: template.label,
        drawn: {
          ...reference.drawn,
          appearance: { ...reference.drawn.appearance, backdrop: { from, to, accent: to } },
        },
      },
      aspectRatio,
    );
  }
  return vertical({ ...template }, aspectRatio);
}
