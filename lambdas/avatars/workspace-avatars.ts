/**
 * Avatars a workspace owns, as the API shows them: groups and looks made with `POST /v3/avatars` and
 * `POST /v3/avatars/looks` (avatar-records.ts). `avatars.ts` reads them ahead of the stock catalog (the
 * `private` side of the `ownership` filter).
 *
 * A group's `status` comes from its looks: `processing` while any trains, `failed` when all failed,
 * `pending_consent` for a digital twin whose consent is not approved, else `completed`. A digital
 * twin's looks say `pending_consent` too until then: a video may not use them yet.
 */
import type { PageSource } from '../catalog/catalog-pages.js';
import { STOCK_LOOK_ENGINES } from '../catalog/stock-avatars.js';
import { presignMediaDownload } from '../media/media-store.js';
import {
  type AvatarGroupRecord,
  type AvatarLookRecord,
  CONSENT_STATUS,
  getGroupRecord,
  getLookRecord,
  LOOK_STATUS,
  looksOfGroup,
  pageOfGroups,
  pageOfLooks,
} from './avatar-records.js';
import type { AvatarGroupView, AvatarLookFilter, AvatarLookView, AvatarStatus } from './avatar-views.js';

/** Whether a video may use the group's looks: consent approved, or none needed. */
export function consentAllowsVideos(group: Pick<AvatarGroupRecord, 'consent_status'>): boolean {
  return group.consent_status === null || group.consent_status === CONSENT_STATUS.approved;
}

function lookStatus(look: AvatarLookRecord, group: AvatarGroupRecord | undefined): AvatarStatus {
  if (look.status !== LOOK_STATUS.completed) return look.status;
  return group && !consentAllowsVideos(group) ? 'pending_consent' : 'completed';
}

const jpegUrl = (key: string) => presignMediaDownload(key, { contentType: 'image/jpeg' });

function orientationOf(look: AvatarLookRecord): AvatarLookView['preferred_orientation'] {
  if (!look.image_width || !look.image_height) return undefined;
  if (look.image_width > look.image_height) return 'landscape';
  return look.image_width < look.image_height ? 'portrait' : 'square';
}

export async function privateLookView(
  look: AvatarLookRecord,
  group: AvatarGroupRecord | undefined,
): Promise<AvatarLookView> {
  const orientation = orientationOf(look);
  return {
    id: look.look_id,
    name: look.name,
    avatar_type: look.avatar_type,
    group_id: look.group_id,
    ...(look.gender ? { gender: look.gender } : {}),
    ...(group?.default_voice_id ? { default_voice_id: group.default_voice_id } : {}),
    ...(look.image_width && look.image_height
      ? { image_width: look.image_width, image_height: look.image_height }
      : {}),
    ...(orientation ? { preferred_orientation: orientation } : {}),
    ...(look.preview_key ? { preview_image_url: await jpegUrl(look.preview_key) } : {}),
    ...(look.preview_video_key
      ? {
          preview_video_url: await presignMediaDownload(look.preview_video_key, { contentType: 'video/mp4' }),
        }
      : {}),
    status: lookStatus(look, group),
    supported_api_engines: [...STOCK_LOOK_ENGINES],
    tags: [look.origin, ...(look.variation ? [look.variation.label] : [])],
    ...(look.status === LOOK_STATUS.failed
      ? { error: { code: look.failure_code ?? 'internal_error', message: look.failure_message ?? '' } }
      : {}),
  };
}

export async function privateGroupView(
  group: AvatarGroupRecord,
  looks: readonly AvatarLookRecord[],
): Promise<AvatarGroupView> {
  // Looks are newest first; the group's face is its first look that trained.
  const cover = [...looks].reverse().find((look) => look.status === LOOK_STATUS.completed);
  const failed = looks.find((look) => look.status === LOOK_STATUS.failed);
  let status: AvatarStatus;
  if (looks.some((look) => look.status === LOOK_STATUS.processing)) status = 'processing';
  else if (cover) status = consentAllowsVideos(group) ? 'completed' : 'pending_consent';
  else status = 'failed';
  return {
    id: group.group_id,
    name: group.name,
    created_at: group.created_at,
    looks_count: looks.length,
    ...(cover?.preview_key ? { preview_image_url: await jpegUrl(cover.preview_key) } : {}),
    ...(cover?.preview_video_key
      ? {
          preview_video_url: await presignMediaDownload(cover.preview_video_key, {
            contentType: 'video/mp4',
          }),
        }
      : {}),
    ...(group.gender ? { gender: group.gender } : {}),
    ...(group.default_voice_id ? { default_voice_id: group.default_voice_id } : {}),
    ...(group.consent_status ? { consent_status: group.consent_status } : {}),
    status,
    ...(status === 'failed' && failed
      ? { error: { code: failed.failure_code ?? 'internal_error', message: failed.failure_message ?? '' } }
      : {}),
  };
}

/** The workspace's avatar groups, newest first. */
export function workspaceAvatarGroups(workspaceId: string): PageSource<AvatarGroupView> {
  return {
    async page(limit, token) {
      const page = await pageOfGroups(workspaceId, limit, token);
      const items = await Promise.all(
        page.items.map(async (group) =>
          privateGroupView(group, await looksOfGroup(workspaceId, group.group_id)),
        ),
      );
      return { items, nextToken: page.nextToken };
    },
  };
}

/** The workspace's looks that pass `filter` (its `ownership` is handled by the caller), newest first. */
export function workspaceAvatarLooks(
  workspaceId: string,
  filter: AvatarLookFilter,
): PageSource<AvatarLookView> {
  return {
    async page(limit, token) {
      const page = await pageOfLooks(
        workspaceId,
        limit,
        token,
        `${workspaceId}:WorkspaceLooks:${JSON.stringify([filter.groupId, filter.avatarType])}`,
        (look) =>
          (filter.groupId === undefined || look.group_id === filter.groupId) &&
          (filter.avatarType === undefined || look.avatar_type === filter.avatarType),
      );
      const groups = new Map<string, Promise<AvatarGroupRecord | undefined>>();
      const groupOf = (groupId: string) => {
        let found = groups.get(groupId);
        if (!found) {
          found = getGroupRecord(workspaceId, groupId);
          groups.set(groupId, found);
        }
        return found;
      };
      const items = await Promise.all(
        page.items.map(async (look) => privateLookView(look, await groupOf(look.group_id))),
      );
      return { items, nextToken: page.nextToken };
    },
  };
}

export async function getWorkspaceAvatarGroup(
  workspaceId: string,
  groupId: string,
): Promise<AvatarGroupView | undefined> {
  const group = await getGroupRecord(workspaceId, groupId);
  return group ? privateGroupView(group, await looksOfGroup(workspaceId, groupId)) : undefined;
}

export async function getWorkspaceAvatarLook(
  workspaceId: string,
  lookId: string,
): Promise<AvatarLookView | undefined> {
  const look = await getLookRecord(workspaceId, lookId);
  if (!look) return undefined;
  return privateLookView(look, await getGroupRecord(workspaceId, look.group_id));
}
