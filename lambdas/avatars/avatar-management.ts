/**
 * Renaming and deleting a workspace's avatars (`PATCH`/`DELETE /v3/avatars/looks/{look_id}` and
 * `/v3/avatars/{group_id}`). Public (stock) avatars belong to the service: editing them is 403
 * `forbidden`. Deleting a look removes its media; a look deleted while it trains gets its credits back
 * and its run, finding no record, removes what it had written. Deleting the last look of a group
 * deletes the group (spec, "States and transitions").
 */
import { BILLING_STATE, refundReservation, reservationOf } from '../billing/credits.js';
import { findStockAvatarGroup, findStockLook } from '../catalog/stock-avatars.js';
import { config } from '../core/config.js';
import { ForbiddenError, InvalidParameterError, NotFoundError } from '../core/errors.js';
import { deleteExistingItem } from '../core/repository.js';
import { mediaKeys } from '../media/media-keys.js';
import { deleteMediaObject, deleteMediaPrefix } from '../media/media-store.js';
import { resolveVoice, VoiceResolutionError } from '../voices/voice-resolution.js';
import {
  type AvatarGroupRecord,
  type AvatarLookRecord,
  avatarLookKey,
  deleteGroupItem,
  getGroupRecord,
  getLookRecord,
  looksOfGroup,
  updateGroupRecord,
  updateLookRecord,
} from './avatar-records.js';

function refuseStockLook(lookId: string): void {
  if (findStockLook(lookId)) {
    throw new ForbiddenError(
      `Avatar ${lookId} is a public avatar of the service; only your own avatars can be changed or deleted.`,
      'forbidden',
      { param: 'look_id' },
    );
  }
}

function refuseStockGroup(groupId: string): void {
  if (findStockAvatarGroup(groupId)) {
    throw new ForbiddenError(
      `Avatar group ${groupId} is a public avatar of the service; only your own avatars can be changed or deleted.`,
      'forbidden',
      { param: 'group_id' },
    );
  }
}

export async function renameLook(
  workspaceId: string,
  lookId: string,
  name: string,
): Promise<AvatarLookRecord> {
  refuseStockLook(lookId);
  const look = await updateLookRecord(workspaceId, lookId, { name });
  if (!look) throw new NotFoundError(`Avatar look ${lookId} not found.`, 'not_found', 'look_id');
  return look;
}

/**
 * Sets a group's name or default voice (a voice of the workspace's or the stock catalog that speaks
 * on this deployment; null clears it).
 */
export async function updateGroup(
  workspaceId: string,
  groupId: string,
  changes: { name?: string | undefined; default_voice_id?: string | null | undefined },
): Promise<AvatarGroupRecord> {
  refuseStockGroup(groupId);
  const fields: Partial<AvatarGroupRecord> = {};
  if (changes.name !== undefined) fields.name = changes.name;
  if (changes.default_voice_id !== undefined) {
    if (changes.default_voice_id !== null) {
      try {
        await resolveVoice(workspaceId, changes.default_voice_id, config().speechEngine);
      } catch (error) {
        if (!(error instanceof VoiceResolutionError)) throw error;
        throw new InvalidParameterError(error.message, 'default_voice_id');
      }
    }
    fields.default_voice_id = changes.default_voice_id;
  }
  const group = await updateGroupRecord(workspaceId, groupId, fields);
  if (!group) throw new NotFoundError(`Avatar group ${groupId} not found.`, 'not_found', 'group_id');
  return group;
}

/** Removes one look: credits back if it was still training, its record, its media. */
async function removeLook(look: AvatarLookRecord): Promise<void> {
  const key = avatarLookKey(look.workspace_id, look.look_id);
  const reservation = reservationOf(look);
  if (reservation?.billing_state === BILLING_STATE.reserved) {
    await refundReservation(key, look.workspace_id, reservation);
  }
  // The record first: a crash leaves unreferenced objects at worst, never a look without media.
  await deleteExistingItem(key);
  const sources = look.source_owned ? [look.source_key, ...look.reference_keys] : [];
  await Promise.all([
    deleteMediaPrefix(mediaKeys.avatarLook(look.workspace_id, look.look_id)),
    ...sources
      .filter((source): source is string => source !== null)
      .map((source) => deleteMediaObject(source)),
  ]);
}

/** Removes a group's record and its consent videos. */
async function removeGroup(group: AvatarGroupRecord): Promise<void> {
  await deleteGroupItem(group.workspace_id, group.group_id);
  await deleteMediaPrefix(mediaKeys.avatarConsent(group.workspace_id, group.group_id, ''));
}

export async function deleteLook(workspaceId: string, lookId: string): Promise<void> {
  refuseStockLook(lookId);
  const look = await getLookRecord(workspaceId, lookId, true);
  if (!look) throw new NotFoundError(`Avatar look ${lookId} not found.`, 'not_found', 'look_id');
  await removeLook(look);
  if ((await looksOfGroup(workspaceId, look.group_id)).length === 0) {
    const group = await getGroupRecord(workspaceId, look.group_id, true);
    if (group) await removeGroup(group);
  }
}

export async function deleteGroup(workspaceId: string, groupId: string): Promise<void> {
  refuseStockGroup(groupId);
  const group = await getGroupRecord(workspaceId, groupId, true);
  if (!group) throw new NotFoundError(`Avatar group ${groupId} not found.`, 'not_found', 'group_id');
  for (const look of await looksOfGroup(workspaceId, groupId)) await removeLook(look);
  await removeGroup(group);
}
