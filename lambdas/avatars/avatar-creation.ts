/**
 * Creating a workspace's avatars: `POST /v3/avatars` (a photo avatar, a prompt avatar or a digital
 * twin) and `POST /v3/avatars/looks` (a look pack or a look template of a look you own). Each look is
 * one run of the avatar look job (avatar-training-job.ts), as every job (docs/architecture.md, "Jobs"):
 * checks first (plan, group, reference look, the media), then the group (when new) and the look with
 * its credits reserved, then the workflow. The ids are answered at once; the GETs track them.
 */
import { getWorkspace, type Workspace } from '../accounts/workspaces.js';
import { type MediaInput, type ResolvedMedia, resolveMediaInput } from '../assets/media-inputs.js';
import { assertCanPay, createJobWithReservation } from '../billing/credits.js';
import { AVATAR_GROUP_LIMITS, AVATAR_LOOK_CREDITS, MAX_LOOKS_PER_GROUP } from '../billing/plans.js';
import { findStockAvatarGroup, findStockLook } from '../catalog/stock-avatars.js';
import {
  ForbiddenError,
  InvalidParameterError,
  NotFoundError,
  PaymentRequiredError,
} from '../core/errors.js';
import { newId, nowSeconds } from '../core/ids.js';
import { putNewItem } from '../core/repository.js';
import { startJob } from '../jobs/job-lifecycle.js';
import { deleteMediaObject } from '../media/media-store.js';
import { createVoiceClone } from '../voices/voice-clones.js';
import { deleteVoice } from '../voices/voices.js';
import {
  type AvatarGroupRecord,
  type AvatarLookRecord,
  CONSENT_STATUS,
  countGroups,
  deleteGroupItem,
  getGroupRecord,
  getLookRecord,
  groupItem,
  LOOK_ORIGINS,
  LOOK_STATUS,
  type LookOrigin,
  type LookVariation,
  lookItem,
  looksOfGroup,
  updateGroupRecord,
} from './avatar-records.js';
import { avatarTrainingJob } from './avatar-training-job.js';
import { type LookTemplateId, lookPackVariations, templateVariation } from './look-packs.js';

const MiB = 1024 * 1024;
/** Largest photo or reference picture, and largest digital twin footage. */
export const MAX_AVATAR_PHOTO_BYTES = 20 * MiB;
export const MAX_TWIN_FOOTAGE_BYTES = 500 * MiB;
/** Most reference pictures of a prompt avatar (spec, "Limits"). */
export const MAX_REFERENCE_IMAGES = 3;
export const MAX_AVATAR_PROMPT_LENGTH = 200;

export type CreateAvatarRequest =
  | { type: 'photo'; name: string; file: MediaInput; avatar_group_id?: string | undefined }
  | {
      type: 'digital_twin';
      name: string;
      file: MediaInput;
      avatar_group_id?: string | undefined;
      /** Also clone the voice of the footage (`POST /v3/voices/clone`): the group's default voice. */
      create_voice_clone?: boolean | undefined;
    }
  | {
      type: 'prompt';
      name: string;
      prompt: string;
      reference_images?: MediaInput[] | undefined;
      avatar_group_id?: string | undefined;
      avatar_id?: string | undefined;
    };

export interface CreatedAvatar {
  group: AvatarGroupRecord;
  looks: AvatarLookRecord[];
}

async function workspaceOf(workspaceId: string): Promise<Workspace> {
  const workspace = await getWorkspace(workspaceId, true);
  if (!workspace) throw new Error(`Workspace ${workspaceId} vanished`);
  return workspace;
}

/** The workspace's group a request names, or the 403/404/400 that says why it cannot take a look. */
async function ownGroup(
  workspaceId: string,
  groupId: string,
  param: string,
  lookType: AvatarGroupRecord['avatar_type'],
  adding: number,
): Promise<AvatarGroupRecord> {
  if (findStockAvatarGroup(groupId)) {
    throw new ForbiddenError(
      `Avatar group ${groupId} is a public avatar of the service; looks can only be added to your own groups.`,
      'forbidden',
      { param },
    );
  }
  const group = await getGroupRecord(workspaceId, groupId, true);
  if (!group) throw new NotFoundError(`Avatar group ${groupId} not found.`, 'avatar_not_found', param);
  if (group.avatar_type !== lookType) {
    throw new InvalidParameterError(
      `Avatar group ${groupId} holds ${group.avatar_type === 'digital_twin' ? 'a digital twin' : 'photo avatars'}; a ${lookType === 'digital_twin' ? 'digital twin' : 'photo or prompt avatar'} needs a group of its own kind.`,
      param,
    );
  }
  const looks = await looksOfGroup(workspaceId, groupId);
  if (looks.length + adding > MAX_LOOKS_PER_GROUP) {
    throw new InvalidParameterError(
      `Avatar group ${groupId} has ${looks.length} looks; a group holds at most ${MAX_LOOKS_PER_GROUP}. Delete a look or use another group.`,
      param,
    );
  }
  return group;
}

/** A new group for the request, or the 402 of the plan's group limit. */
async function newGroup(
  workspace: Workspace,
  name: string,
  avatarType: AvatarGroupRecord['avatar_type'],
): Promise<AvatarGroupRecord> {
  const limits = AVATAR_GROUP_LIMITS[workspace.plan];
  if (avatarType === 'digital_twin' && !limits.digitalTwins) {
    throw new PaymentRequiredError(
      `Digital twins need a paid plan; the ${workspace.plan} plan makes photo and prompt avatars.`,
      'plan_upgrade_required',
    );
  }
  const groups = await countGroups(workspace.workspace_id);
  if (groups >= limits.groups) {
    throw new PaymentRequiredError(
      `The ${workspace.plan} plan holds ${limits.groups} avatar groups and all are in use; delete one (DELETE /v3/avatars/{group_id}) or move to a larger plan.`,
      'plan_upgrade_required',
    );
  }
  return {
    workspace_id: workspace.workspace_id,
    group_id: newId(),
    name,
    created_at: nowSeconds(),
    avatar_type: avatarType,
    gender: null,
    default_voice_id: null,
    consent_status: avatarType === 'digital_twin' ? CONSENT_STATUS.notSubmitted : null,
    consent_reason: null,
    consent_token: null,
    consent_review_id: null,
    consent_video_key: null,
    consent_reference_look_id: null,
    consent_submitted_at: null,
    consent_reviewed_at: null,
  };
}

function pendingLook(
  group: AvatarGroupRecord,
  fields: Pick<AvatarLookRecord, 'name' | 'origin'> & Partial<AvatarLookRecord>,
): AvatarLookRecord {
  return {
    workspace_id: group.workspace_id,
    look_id: newId(),
    group_id: group.group_id,
    avatar_type: group.avatar_type,
    status: LOOK_STATUS.processing,
    created_at: nowSeconds(),
    gender: group.gender,
    source_key: null,
    source_owned: false,
    prompt: null,
    reference_keys: [],
    reference_look_id: null,
    variation: null,
    presenter: null,
    drawn: null,
    preview_key: null,
    preview_video_key: null,
    image_width: null,
    image_height: null,
    engine: null,
    failure_code: null,
    failure_message: null,
    ...fields,
  };
}

/**
 * Writes the group (when new) and each look with its credits reserved, then starts each look's run.
 * A refusal of the reservation (402) undoes what this request wrote: the new group and the media it
 * stored; looks already reserved keep running.
 */
async function writeAndStart(
  workspace: Workspace,
  group: AvatarGroupRecord,
  groupIsNew: boolean,
  looks: AvatarLookRecord[],
  credits: number,
  ownedMedia: readonly string[],
): Promise<CreatedAvatar> {
  if (groupIsNew && !(await putNewItem(groupItem(group))))
    throw new Error(`Group id collision: ${group.group_id}`);
  const written: AvatarLookRecord[] = [];
  try {
    for (const look of looks) {
      const billing = await createJobWithReservation(workspace, lookItem(look), credits, {
        trialVideo: false,
        engines: ['mediaGeneration'],
      });
      written.push({ ...look, ...billing });
    }
  } catch (error) {
    if (written.length === 0) {
      if (groupIsNew) await deleteGroupItem(group.workspace_id, group.group_id);
      await Promise.all(ownedMedia.map((key) => deleteMediaObject(key)));
    }
    throw error;
  }
  for (const look of written) await startJob(avatarTrainingJob, avatarTrainingJob.refOf(look));
  return { group, looks: written };
}

const ownedKeys = (media: readonly ResolvedMedia[]) =>
  media.filter((item) => item.source !== 'asset').map((item) => item.objectKey);

/**
 * The reference look of a prompt avatar (`avatar_id`): yours, completed, in `avatar_group_id` when
 * both are sent. @throws 404 `avatar_not_found`, 400 `invalid_parameter`
 */
async function promptReference(
  workspaceId: string,
  lookId: string,
  groupId: string | undefined,
): Promise<AvatarLookRecord> {
  const look = await getLookRecord(workspaceId, lookId, true);
  if (!look) {
    if (findStockLook(lookId)) {
      throw new InvalidParameterError(
        `Avatar ${lookId} is a public avatar; a prompt avatar takes one of your own looks as its reference.`,
        'avatar_id',
      );
    }
    throw new NotFoundError(`Avatar ${lookId} not found.`, 'avatar_not_found', 'avatar_id');
  }
  if (groupId !== undefined && look.group_id !== groupId) {
    throw new InvalidParameterError(
      `Avatar ${lookId} belongs to group ${look.group_id}, not to avatar_group_id ${groupId}.`,
      'avatar_id',
    );
  }
  if (look.status !== LOOK_STATUS.completed || look.presenter?.kind !== 'portrait') {
    throw new InvalidParameterError(
      `Avatar ${lookId} has no usable image (${look.status === LOOK_STATUS.completed ? 'a digital twin is footage' : `it is ${look.status}`}); reference a completed photo or prompt look.`,
      'avatar_id',
    );
  }
  return look;
}

/**
 * `POST /v3/avatars`.
 * @throws ServiceError 400 (fields, media), 402 (credits, plan limits), 403 (public group), 404 (group, look)
 */
export async function createAvatar(
  workspaceId: string,
  request: CreateAvatarRequest,
): Promise<CreatedAvatar> {
  const workspace = await workspaceOf(workspaceId);
  const origin: LookOrigin = request.type;
  const credits = AVATAR_LOOK_CREDITS[origin];
  assertCanPay(workspace, credits, false);
  const avatarType = request.type === 'digital_twin' ? 'digital_twin' : 'photo_avatar';
  const reference =
    request.type === 'prompt' && request.avatar_id !== undefined
      ? await promptReference(workspaceId, request.avatar_id, request.avatar_group_id)
      : undefined;
  const groupIsNew = request.avatar_group_id === undefined;
  const group = groupIsNew
    ? await newGroup(workspace, request.name, avatarType)
    : await ownGroup(workspaceId, request.avatar_group_id as string, 'avatar_group_id', avatarType, 1);

  const media: ResolvedMedia[] = [];
  try {
    if (request.type === 'prompt') {
      for (const [index, image] of (request.reference_images ?? []).entries()) {
        media.push(
          await resolveMediaInput(workspaceId, image, {
            param: `reference_images[${index}]`,
            accept: ['image'],
            maxBytes: MAX_AVATAR_PHOTO_BYTES,
          }),
        );
      }
    } else {
      media.push(
        await resolveMediaInput(workspaceId, request.file, {
          param: 'file',
          accept: request.type === 'photo' ? ['image'] : ['video'],
          maxBytes: request.type === 'photo' ? MAX_AVATAR_PHOTO_BYTES : MAX_TWIN_FOOTAGE_BYTES,
        }),
      );
    }
  } catch (error) {
    await Promise.all(ownedKeys(media).map((key) => deleteMediaObject(key)));
    throw error;
  }
  const sourceOwned = media.every((item) => item.source !== 'asset');
  const look =
    request.type === 'prompt'
      ? pendingLook(group, {
          name: request.name,
          origin,
          prompt: request.prompt,
          reference_keys: media.map((item) => item.objectKey),
          source_owned: sourceOwned,
          reference_look_id: reference?.look_id ?? null,
          gender: reference?.gender ?? group.gender,
        })
      : pendingLook(group, {
          name: request.name,
          origin,
          source_key: (media[0] as ResolvedMedia).objectKey,
          source_owned: sourceOwned,
        });
  // The footage's voice, cloned by the clone workflow: the group speaks with it once it is complete. Its
  // own checks (clone slots, a recording) come before anything of the twin is written.
  const clone =
    request.type === 'digital_twin' && request.create_voice_clone
      ? await createVoiceClone(workspaceId, {
          audio: request.file,
          voice_name: request.name,
          remove_background_noise: true,
        }).catch(async (error: unknown) => {
          await Promise.all(ownedKeys(media).map((key) => deleteMediaObject(key)));
          throw error;
        })
      : undefined;
  const voiced = clone ? { ...group, default_voice_id: clone.voice_id } : group;
  let created: CreatedAvatar;
  try {
    created = await writeAndStart(workspace, voiced, groupIsNew, [look], credits, ownedKeys(media));
  } catch (error) {
    if (clone) await deleteVoice(workspaceId, clone.voice_id);
    throw error;
  }
  if (clone && !groupIsNew) {
    await updateGroupRecord(workspaceId, group.group_id, { default_voice_id: clone.voice_id });
  }
  return created;
}

export type CreateLooksRequest =
  | { type: 'look_pack'; reference_look_id: string; aspect_ratio?: '9:16' | undefined }
  | { type: 'template'; reference_look_id: string; template_id: string; aspect_ratio?: '9:16' | undefined };

/** The reference look of `POST /v3/avatars/looks`: a completed photo or prompt look you own. */
async function lookToVary(workspaceId: string, lookId: string): Promise<AvatarLookRecord> {
  if (findStockLook(lookId)) {
    throw new ForbiddenError(
      `Avatar ${lookId} is a public avatar; looks are generated from your own looks.`,
      'forbidden',
      { param: 'reference_look_id' },
    );
  }
  const look = await getLookRecord(workspaceId, lookId, true);
  if (!look)
    throw new NotFoundError(`Avatar look ${lookId} not found.`, 'avatar_not_found', 'reference_look_id');
  if (look.status !== LOOK_STATUS.completed) {
    throw new InvalidParameterError(
      `Avatar look ${lookId} is ${look.status}; looks are generated from a completed look.`,
      'reference_look_id',
    );
  }
  if (look.presenter?.kind !== 'portrait') {
    throw new InvalidParameterError(
      `Avatar look ${lookId} is a digital twin; look packs vary photo and prompt avatars.`,
      'reference_look_id',
    );
  }
  return look;
}

/**
 * `POST /v3/avatars/looks`: one look per variation, in the reference look's group.
 * @throws ServiceError 400, 402, 403 (a public look), 404 (the reference look)
 */
export async function createLooks(workspaceId: string, request: CreateLooksRequest): Promise<CreatedAvatar> {
  const workspace = await workspaceOf(workspaceId);
  const reference = await lookToVary(workspaceId, request.reference_look_id);
  const variations: LookVariation[] =
    request.type === 'look_pack'
      ? lookPackVariations(reference, request.aspect_ratio)
      : [templateVariation(reference, request.template_id as LookTemplateId, request.aspect_ratio)];
  const credits = AVATAR_LOOK_CREDITS[LOOK_ORIGINS.lookPack];
  assertCanPay(workspace, credits * variations.length, false);
  const group = await ownGroup(
    workspaceId,
    reference.group_id,
    'reference_look_id',
    'photo_avatar',
    variations.length,
  );
  const looks = variations.map((variation) =>
    pendingLook(group, {
      name: `${reference.name} (${variation.label})`,
      origin: LOOK_ORIGINS.lookPack,
      reference_look_id: reference.look_id,
      variation,
      gender: reference.gender,
    }),
  );
  return writeAndStart(workspace, group, false, looks, credits, []);
}
