/**
 * What a video needs of an avatar look, stock or the workspace's own: the picture or footage that
 * speaks, its sprites, and the voice it speaks with when the video names none. Video creation asks it
 * first (a look that does not exist, is not trained yet or lacks consent is refused with a 4xx), and
 * the render asks again when it starts (the look may have been deleted in between).
 */

import { lookSpriteSheet } from '../catalog/catalog-media.js';
import { findStockLook } from '../catalog/stock-avatars.js';
import { availableStockVoices } from '../catalog/stock-voices.js';
import { ConflictError, ForbiddenError, InvalidParameterError, NotFoundError } from '../core/errors.js';
import {
  type AvatarLookRecord,
  getGroupRecord,
  getLookRecord,
  LOOK_STATUS,
  type SpriteSheetRecord,
} from './avatar-records.js';
import { consentAllowsVideos } from './workspace-avatars.js';

export interface LookPresenterMedia {
  /** The picture (stock: transparent PNG; photo and drawn looks: opaque JPEG; a twin: its first frame). */
  portraitKey: string;
  /** A digital twin's loop (MP4), shown instead of the picture. */
  footageKey: string | null;
  /** Footage only: the head's offset on each frame of the loop, which the sprites follow. */
  track: { fps: number; offsets: { x: number; y: number }[] } | null;
  spriteSheet: SpriteSheetRecord;
  /** The person cut out of the picture, shown over a video's own image or video background. */
  cutOutKey: string | null;
  /** Own portrait looks: the face on the picture, around which a video of another shape frames it. */
  faceBox: { x: number; y: number; width: number; height: number } | null;
  defaultVoiceId: string | null;
}

/** Why a look cannot be in a video now, in the words a 4xx or a failed render gives. */
export const LOOK_REFUSALS = {
  notFound: 'not_found',
  notReady: 'not_ready',
  failed: 'failed',
  consentMissing: 'consent_missing',
} as const;
export type LookRefusal = (typeof LOOK_REFUSALS)[keyof typeof LOOK_REFUSALS];

export type LookResolution =
  | { usable: true; media: LookPresenterMedia }
  | { usable: false; refusal: LookRefusal; message: string };

/** A stock voice for a look whose group names none: the gender's first voice on this deployment. */
function fallbackVoice(look: Pick<AvatarLookRecord, 'gender'>): string | null {
  const voices = availableStockVoices();
  const match = voices.find(
    (voice) => voice.language === 'en-US' && voice.gender === (look.gender ?? 'female'),
  );
  return (match ?? voices[0])?.voiceId ?? null;
}

export async function resolveLookPresenter(workspaceId: string, lookId: string): Promise<LookResolution> {
  const stock = findStockLook(lookId);
  if (stock) {
    const sheet = lookSpriteSheet(stock);
    return {
      usable: true,
      media: {
        portraitKey: stock.portraitKey,
        footageKey: null,
        track: null,
        spriteSheet: {
          key: sheet.key,
          sprites: sheet.sprites.map(({ sprite, box, sheetTop }) => ({ sprite, box, sheet_top: sheetTop })),
        },
        cutOutKey: null,
        faceBox: null,
        defaultVoiceId: stock.defaultVoiceId,
      },
    };
  }
  const look = await getLookRecord(workspaceId, lookId, true);
  if (!look) {
    return {
      usable: false,
      refusal: LOOK_REFUSALS.notFound,
      message: `Avatar ${lookId} does not exist or was deleted; pick a look from GET /v3/avatars/looks.`,
    };
  }
  if (look.status === LOOK_STATUS.processing) {
    return {
      usable: false,
      refusal: LOOK_REFUSALS.notReady,
      message: `Avatar ${lookId} is still being made; wait until GET /v3/avatars/looks/${lookId} says completed.`,
    };
  }
  if (look.status === LOOK_STATUS.failed || !look.presenter) {
    return {
      usable: false,
      refusal: LOOK_REFUSALS.failed,
      message: `Avatar ${lookId} failed (${look.failure_message ?? 'no presenter'}); it cannot be used in videos.`,
    };
  }
  const group = await getGroupRecord(workspaceId, look.group_id, true);
  if (!group || !consentAllowsVideos(group)) {
    return {
      usable: false,
      refusal: LOOK_REFUSALS.consentMissing,
      message: `Avatar ${lookId} is a digital twin whose consent is ${group?.consent_status ?? 'missing'}; submit the person's consent (POST /v3/avatars/${look.group_id}/consent) and wait for approved.`,
    };
  }
  const presenter = look.presenter;
  return {
    usable: true,
    media: {
      portraitKey: presenter.kind === 'portrait' ? presenter.image_key : presenter.first_frame_key,
      footageKey: presenter.kind === 'footage' ? presenter.footage_key : null,
      track: presenter.kind === 'footage' ? presenter.track : null,
      spriteSheet: presenter.sprite_sheet,
      cutOutKey: presenter.kind === 'portrait' ? presenter.cut_out_key : null,
      faceBox: presenter.kind === 'portrait' ? (presenter.face_box ?? null) : null,
      defaultVoiceId: group.default_voice_id ?? fallbackVoice(look),
    },
  };
}

/**
 * Refuses a look that cannot be in a video now: still training (409 `resource_not_ready`), failed
 * (400), a digital twin without approved consent (403), and one nobody has (404 `avatar_not_found`)
 * unless `unknown` leaves that to the render: `POST /v3/videos` accepts any id and the render fails the
 * video with `avatar_not_found`, as for a look deleted after the video was created.
 */
export async function requireUsableLook(
  workspaceId: string,
  lookId: string,
  param: string,
  options: { unknown: 'refused' | 'left_to_the_render' } = { unknown: 'refused' },
): Promise<void> {
  const look = await resolveLookPresenter(workspaceId, lookId);
  if (look.usable) return;
  switch (look.refusal) {
    case LOOK_REFUSALS.notReady:
      throw new ConflictError(look.message, 'resource_not_ready', { param });
    case LOOK_REFUSALS.failed:
      throw new InvalidParameterError(look.message, param);
    case LOOK_REFUSALS.consentMissing:
      throw new ForbiddenError(look.message, 'forbidden', { param });
    case LOOK_REFUSALS.notFound:
      if (options.unknown === 'refused') throw new NotFoundError(look.message, 'avatar_not_found', param);
  }
}
