/**
 * Avatars a workspace owns (docs/architecture.md, "Avatars"): groups (characters) and their looks.
 *
 * - A group is an item `WS#<workspace>` / `AVATAR_GROUP#<group_id>`, also indexed (gsi1) by creation
 *   time so the list shows the newest first.
 * - A look is an item `WS#<workspace>` / `AVATAR_LOOK#<look_id>`, indexed (gsi1) under its group, so a
 *   group's looks are one query. A look is a job (avatar-training-job.ts): created `processing` with
 *   its credits reserved, it ends `completed` with what makes it talk (`presenter`) or `failed` with a
 *   reason.
 *
 * A group's `status` and `looks_count` are not stored: they are read from its looks, so they can never
 * disagree with them.
 */
import type { JobBilling } from '../billing/credits.js';
import type { DrawnLook } from '../catalog/look-appearance.js';
import {
  deleteExistingItem,
  getItem,
  queryAll,
  queryPage,
  type StoredItem,
  updateExistingItem,
} from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import type { Viseme } from '../engines/speech/visemes.js';

/** How a look came to be. */
export const LOOK_ORIGINS = {
  photo: 'photo',
  prompt: 'prompt',
  digitalTwin: 'digital_twin',
  lookPack: 'look_pack',
} as const;
export type LookOrigin = (typeof LOOK_ORIGINS)[keyof typeof LOOK_ORIGINS];

export const LOOK_STATUS = { processing: 'processing', completed: 'completed', failed: 'failed' } as const;
export type LookStatus = (typeof LOOK_STATUS)[keyof typeof LOOK_STATUS];

/**
 * Consent of a digital twin's group: `not_submitted` until a consent video arrives, `pending` while it
 * is reviewed, then `approved` or `rejected` (with a reason). Groups of photo and prompt avatars need
 * none and have no consent.
 */
export const CONSENT_STATUS = {
  notSubmitted: 'not_submitted',
  pending: 'pending',
  approved: 'approved',
  rejected: 'rejected',
} as const;
export type ConsentStatus = (typeof CONSENT_STATUS)[keyof typeof CONSENT_STATUS];

export interface PixelBoxRecord {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** A look's mouth and blink sprites stacked in one PNG: each at `sheet_top`, `box` on the picture. */
export interface SpriteSheetRecord {
  key: string;
  sprites: { sprite: Viseme | 'blink'; box: PixelBoxRecord; sheet_top: number }[];
}

/**
 * What makes a completed look talk:
 * - `portrait`: a picture (a photo upright, or a drawn figure in front of its backdrop) with its
 *   sprites; `cut_out_key` is the person alone (transparent around them), shown over a video's own
 *   image or video background.
 * - `footage`: a digital twin's loopable footage with sprites from its first frame.
 */
export type LookPresenter =
  | {
      kind: 'portrait';
      image_key: string;
      sprite_sheet: SpriteSheetRecord;
      cut_out_key: string | null;
      /** The face on the picture (photo looks: from the landmarks), for framings of look packs. */
      face_box?: PixelBoxRecord | null;
    }
  | {
      kind: 'footage';
      footage_key: string;
      /** The loop's first frame, full size: what its sprites were made on. */
      first_frame_key: string;
      sprite_sheet: SpriteSheetRecord;
      /** Where the head is on each frame of the loop, relative to its first: the sprites follow it. */
      track: { fps: number; offsets: { x: number; y: number }[] };
    };

/** What a look-pack look varies of its reference look (look-packs.ts). */
export interface LookVariation {
  /** Said in the look's name: `close-up`, `studio backdrop`, `navy blazer`. */
  label: string;
  framing?: 'close_up' | 'portrait_9_16' | null;
  /** Backdrop colours behind the cut-out person (photo looks), or the drawn look's appearance. */
  backdrop?: { from: string; to: string } | null;
  /** A drawn look's whole appearance, size and framing (variations of drawn looks). */
  drawn?: DrawnLook | null;
}

export interface AvatarLookRecord extends Partial<JobBilling> {
  workspace_id: string;
  look_id: string;
  group_id: string;
  name: string;
  avatar_type: 'photo_avatar' | 'digital_twin';
  origin: LookOrigin;
  status: LookStatus;
  /** Unix seconds. */
  created_at: number;
  gender: 'male' | 'female' | null;
  /** The picture, footage or reference the look is made from; deleted once it ends unless it is an asset. */
  source_key: string | null;
  source_owned: boolean;
  /** Prompt looks: what was asked for, and the pictures given as references. */
  prompt: string | null;
  reference_keys: string[];
  /** Look-pack looks: the look varied, and how. */
  reference_look_id: string | null;
  variation: LookVariation | null;
  presenter: LookPresenter | null;
  /** Drawn looks: how they are drawn (what their look packs vary). */
  drawn: DrawnLook | null;
  preview_key: string | null;
  preview_video_key: string | null;
  image_width: number | null;
  image_height: number | null;
  /** How the look was made (`photo_landmarks`, `drawn_from_prompt`, `nova_canvas`, `twin_footage`...). */
  engine: string | null;
  failure_code: string | null;
  failure_message: string | null;
}

export interface AvatarGroupRecord {
  workspace_id: string;
  group_id: string;
  name: string;
  /** Unix seconds. */
  created_at: number;
  avatar_type: 'photo_avatar' | 'digital_twin';
  gender: 'male' | 'female' | null;
  default_voice_id: string | null;
  /** Digital twins only (null for groups that need no consent). Flat, so writes can be conditional on them. */
  consent_status: ConsentStatus | null;
  /** Why a consent was rejected. */
  consent_reason: string | null;
  /** The consent page's token (the `url` of a consent request without a video). */
  consent_token: string | null;
  /** One per submitted video: names the review's execution; a newer submission supersedes a review. */
  consent_review_id: string | null;
  consent_video_key: string | null;
  /** The trained look of the twin the consent video's face is compared with (chosen when it was submitted). */
  consent_reference_look_id?: string | null;
  consent_submitted_at: number | null;
  consent_reviewed_at: number | null;
}

type GroupItem = AvatarGroupRecord & { pk: string; sk: string; gsi1pk: string; gsi1sk: string };
type LookItem = AvatarLookRecord & { pk: string; sk: string; gsi1pk: string; gsi1sk: string };

export const avatarGroupKey = (workspaceId: string, groupId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.avatarGroup, groupId);
export const avatarLookKey = (workspaceId: string, lookId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.avatarLook, lookId);

const groupsPartition = (workspaceId: string) => `${keys.workspacePartition(workspaceId)}#AVATAR_GROUPS`;
const looksOfGroupPartition = (workspaceId: string, groupId: string) =>
  `${keys.workspacePartition(workspaceId)}#AVATAR_GROUP#${groupId}`;

/** Creation time first, so the index lists the newest first. */
const newestFirstSortKey = (id: string) => `${String(Date.now()).padStart(15, '0')}#${id}`;

export function groupItem(record: AvatarGroupRecord): StoredItem {
  return {
    ...avatarGroupKey(record.workspace_id, record.group_id),
    gsi1pk: groupsPartition(record.workspace_id),
    gsi1sk: newestFirstSortKey(record.group_id),
    ...record,
  };
}

/**
 * A look item. Its gsi1 entry files it under its group (`looksOfGroupPartition`: a group's looks are one
 * query); the workspace-wide list reads the table's own `AVATAR_LOOK#` prefix.
 */
export function lookItem(record: AvatarLookRecord): StoredItem {
  return {
    ...avatarLookKey(record.workspace_id, record.look_id),
    gsi1pk: looksOfGroupPartition(record.workspace_id, record.group_id),
    gsi1sk: newestFirstSortKey(record.look_id),
    ...record,
  };
}

function withoutKeys<T>(item: T & { pk: string; sk: string; gsi1pk?: string; gsi1sk?: string }): T {
  const { pk: _pk, sk: _sk, gsi1pk: _gsi1pk, gsi1sk: _gsi1sk, ...record } = item;
  return record as T;
}

/** Workspace avatar ids are 32 hexadecimal characters; anything else is not one (a stock id, a typo). */
const WORKSPACE_ID = /^[0-9a-f]{32}$/;

export async function getGroupRecord(
  workspaceId: string,
  groupId: string,
  consistent = false,
): Promise<AvatarGroupRecord | undefined> {
  if (!WORKSPACE_ID.test(groupId)) return undefined;
  const item = await getItem<GroupItem>(avatarGroupKey(workspaceId, groupId), consistent);
  return item ? withoutKeys<AvatarGroupRecord>(item) : undefined;
}

export async function getLookRecord(
  workspaceId: string,
  lookId: string,
  consistent = false,
): Promise<AvatarLookRecord | undefined> {
  if (!WORKSPACE_ID.test(lookId)) return undefined;
  const item = await getItem<LookItem>(avatarLookKey(workspaceId, lookId), consistent);
  return item ? withoutKeys<AvatarLookRecord>(item) : undefined;
}

/** Every look of a group, newest first (a group holds at most `MAX_LOOKS_PER_GROUP`). */
export async function looksOfGroup(workspaceId: string, groupId: string): Promise<AvatarLookRecord[]> {
  const looks: AvatarLookRecord[] = [];
  let token: string | undefined;
  do {
    const page = await queryPage<LookItem>({
      partition: looksOfGroupPartition(workspaceId, groupId),
      index: 'gsi1',
      limit: 100,
      token,
      binding: `${workspaceId}:AvatarGroupLooks:${groupId}`,
    });
    looks.push(...page.items.map((item) => withoutKeys<AvatarLookRecord>(item)));
    token = page.nextToken ?? undefined;
  } while (token);
  return looks;
}

/** A page of the workspace's groups, newest first. */
export async function pageOfGroups(
  workspaceId: string,
  limit: number,
  token: string | undefined,
): Promise<{ items: AvatarGroupRecord[]; nextToken: string | null }> {
  const page = await queryPage<GroupItem>({
    partition: groupsPartition(workspaceId),
    index: 'gsi1',
    limit,
    token,
    binding: `${workspaceId}:AvatarGroups`,
  });
  return { items: page.items.map((item) => withoutKeys<AvatarGroupRecord>(item)), nextToken: page.nextToken };
}

/** A page of the workspace's looks (newest first), keeping those `keep` accepts. */
export async function pageOfLooks(
  workspaceId: string,
  limit: number,
  token: string | undefined,
  binding: string,
  keep: (look: AvatarLookRecord) => boolean,
): Promise<{ items: AvatarLookRecord[]; nextToken: string | null }> {
  const page = await queryPage<LookItem>({
    partition: keys.workspacePartition(workspaceId),
    sortKeyPrefix: `${RESOURCE_TYPES.avatarLook}#`,
    limit,
    token,
    binding,
    keep: (item) => keep(item as unknown as AvatarLookRecord),
  });
  return { items: page.items.map((item) => withoutKeys<AvatarLookRecord>(item)), nextToken: page.nextToken };
}

/** How many groups the workspace has (for the plan's limit). */
export async function countGroups(workspaceId: string): Promise<number> {
  return (await queryAll(keys.workspacePartition(workspaceId), `${RESOURCE_TYPES.avatarGroup}#`, true))
    .length;
}

/** Ends a processing look as completed with what makes it talk; undefined when it is not processing. */
export async function completeLookRecord(
  look: AvatarLookRecord,
  fields: Pick<
    AvatarLookRecord,
    | 'presenter'
    | 'drawn'
    | 'preview_key'
    | 'preview_video_key'
    | 'image_width'
    | 'image_height'
    | 'engine'
    | 'gender'
  >,
): Promise<AvatarLookRecord | undefined> {
  const item = await updateExistingItem<LookItem>(
    avatarLookKey(look.workspace_id, look.look_id),
    { ...fields, status: LOOK_STATUS.completed },
    [],
    { status: LOOK_STATUS.processing },
  );
  return item ? withoutKeys<AvatarLookRecord>(item) : undefined;
}

/** Ends a processing look as failed with a reason; undefined when it is not processing. */
export async function failLookRecord(
  look: Pick<AvatarLookRecord, 'workspace_id' | 'look_id'>,
  failure: { code: string; message: string },
): Promise<AvatarLookRecord | undefined> {
  const item = await updateExistingItem<LookItem>(
    avatarLookKey(look.workspace_id, look.look_id),
    { status: LOOK_STATUS.failed, failure_code: failure.code, failure_message: failure.message },
    [],
    { status: LOOK_STATUS.processing },
  );
  return item ? withoutKeys<AvatarLookRecord>(item) : undefined;
}

/** Sets fields of a look (its name, its source once given back); undefined when it is gone. */
export async function updateLookRecord(
  workspaceId: string,
  lookId: string,
  fields: Partial<AvatarLookRecord>,
): Promise<AvatarLookRecord | undefined> {
  const item = await updateExistingItem<LookItem>(avatarLookKey(workspaceId, lookId), fields);
  return item ? withoutKeys<AvatarLookRecord>(item) : undefined;
}

/** Sets fields of a group, if its attributes have the values of `ifEquals`; undefined otherwise or when gone. */
export async function updateGroupRecord(
  workspaceId: string,
  groupId: string,
  fields: Partial<AvatarGroupRecord>,
  ifEquals: Partial<AvatarGroupRecord> = {},
): Promise<AvatarGroupRecord | undefined> {
  const item = await updateExistingItem<GroupItem>(
    avatarGroupKey(workspaceId, groupId),
    fields,
    [],
    ifEquals,
  );
  return item ? withoutKeys<AvatarGroupRecord>(item) : undefined;
}

export function deleteLookItem(workspaceId: string, lookId: string): Promise<boolean> {
  return deleteExistingItem(avatarLookKey(workspaceId, lookId));
}

export function deleteGroupItem(workspaceId: string, groupId: string): Promise<boolean> {
  return deleteExistingItem(avatarGroupKey(workspaceId, groupId));
}
