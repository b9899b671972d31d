/**
 * Avatars a workspace owns: photo avatars and digital twins made with `POST /v3/avatars`. Creating
 * them is not built yet, so a workspace owns none: these sources are empty and the look-ups find
 * nothing. `avatars.ts` already reads them ahead of the stock catalog (the `private` side of the
 * `ownership` filter), so building avatar creation means filling in these functions with table
 * queries (`queryPage` of `core/repository.ts`, newest first) and nothing else in the read routes.
 */
import { emptySource, type PageSource } from '../catalog/catalog-pages.js';
import type { AvatarGroupView, AvatarLookFilter, AvatarLookView } from './avatar-views.js';

/** The workspace's avatar groups, newest first. */
export function workspaceAvatarGroups(_workspaceId: string): PageSource<AvatarGroupView> {
  return emptySource();
}

/** The workspace's looks that pass `filter` (its `ownership` is handled by the caller). */
export function workspaceAvatarLooks(
  _workspaceId: string,
  _filter: AvatarLookFilter,
): PageSource<AvatarLookView> {
  return emptySource();
}

export async function getWorkspaceAvatarGroup(
  _workspaceId: string,
  _groupId: string,
): Promise<AvatarGroupView | undefined> {
  return undefined;
}

export async function getWorkspaceAvatarLook(
  _workspaceId: string,
  _lookId: string,
): Promise<AvatarLookView | undefined> {
  return undefined;
}
