/**
 * The API shapes of avatar groups and looks (the reference schemas of `GET /v3/avatars` and
 * `GET /v3/avatars/looks`), and how stock catalog entries become them.
 */
import type { StockAvatarGroup, StockLook } from '../catalog/stock-avatars.js';
import { STOCK_CATALOG_CREATED_AT } from '../catalog/stock-avatars.js';
import { presignMediaDownload } from '../media/media-store.js';

export const AVATAR_TYPES = ['studio_avatar', 'digital_twin', 'photo_avatar'] as const;
export type AvatarType = (typeof AVATAR_TYPES)[number];

export const AVATAR_OWNERSHIPS = ['public', 'private'] as const;
export type AvatarOwnership = (typeof AVATAR_OWNERSHIPS)[number];

export const AVATAR_STATUSES = ['processing', 'pending_consent', 'failed', 'completed'] as const;
export type AvatarStatus = (typeof AVATAR_STATUSES)[number];

/** An avatar group (character). Optional fields are left out when they have no value. */
export interface AvatarGroupView {
  id: string;
  name: string;
  created_at: number;
  looks_count: number;
  preview_image_url?: string;
  preview_video_url?: string;
  gender?: string;
  default_voice_id?: string;
  consent_status?: string;
  status: AvatarStatus;
  error?: { code: string; message: string };
}

/** An avatar look: its `id` is the `avatar_id` of video creation. */
export interface AvatarLookView {
  id: string;
  name: string;
  avatar_type: AvatarType;
  group_id: string;
  gender?: string;
  default_voice_id?: string;
  image_width?: number;
  image_height?: number;
  preferred_orientation?: 'portrait' | 'landscape' | 'square';
  preview_image_url?: string;
  preview_video_url?: string;
  status: AvatarStatus;
  supported_api_engines: string[];
  tags: string[];
  error?: { code: string; message: string };
}

export interface AvatarLookFilter {
  groupId?: string | undefined;
  avatarType?: AvatarType | undefined;
}

const previewUrl = (key: string) => presignMediaDownload(key, { contentType: 'image/png' });

export async function stockGroupView(group: StockAvatarGroup): Promise<AvatarGroupView> {
  const cover = group.looks.find((look) => look.id === group.coverLookId) ?? group.looks[0];
  return {
    id: group.id,
    name: group.name,
    created_at: STOCK_CATALOG_CREATED_AT,
    looks_count: group.looks.length,
    ...(cover ? { preview_image_url: await previewUrl(cover.previewKey) } : {}),
    gender: group.gender,
    default_voice_id: group.defaultVoiceId,
    status: 'completed',
  };
}

export async function stockLookView(look: StockLook): Promise<AvatarLookView> {
  return {
    id: look.id,
    name: look.name,
    // Stock looks are studio avatars: presets of the service, not deletable, the same for everyone.
    avatar_type: 'studio_avatar',
    group_id: look.groupId,
    gender: look.gender,
    default_voice_id: look.defaultVoiceId,
    image_width: look.imageWidth,
    image_height: look.imageHeight,
    preferred_orientation: look.preferredOrientation,
    preview_image_url: await previewUrl(look.previewKey),
    status: 'completed',
    supported_api_engines: [...look.supportedApiEngines],
    tags: [...look.tags],
  };
}
