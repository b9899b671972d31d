/** Object keys of the media bucket: every key names its owning workspace. */

/**
 * Direct uploads land here, not on the asset's key: completing copies the verified bytes to the
 * asset, so an upload URL that is still valid can never replace them. The bucket's lifecycle deletes
 * whatever is left here after two days (abandoned and already completed uploads alike).
 */
export const PENDING_UPLOADS_PREFIX = 'uploads/pending/';

export const mediaKeys = {
  asset: (workspaceId: string, assetId: string) => `workspaces/${workspaceId}/assets/${assetId}`,
  /** Media a create received as a URL or inline base64 (not an asset), stored for its job. */
  input: (workspaceId: string, inputId: string) => `workspaces/${workspaceId}/inputs/${inputId}`,
  /** Everything a look of the workspace's avatars is made of (picture, sprites, footage, preview). */
  avatarLook: (workspaceId: string, lookId: string) => `workspaces/${workspaceId}/avatars/${lookId}/`,
  /** A consent video of an avatar group. */
  avatarConsent: (workspaceId: string, groupId: string, reviewId: string) =>
    `workspaces/${workspaceId}/avatar-consent/${groupId}/${reviewId}`,
  /** The files of a brand kit (logos, caption fonts): copies, so deleting an asset leaves the kit whole. */
  brandKit: (workspaceId: string, brandKitId: string) =>
    `workspaces/${workspaceId}/brand-kits/${brandKitId}/`,
  pendingUpload: (workspaceId: string, assetId: string) =>
    `${PENDING_UPLOADS_PREFIX}${workspaceId}/${assetId}`,
} as const;

/** The workspace a key belongs to. */
export function ownerOfKey(key: string): string {
  const owner = key.startsWith(PENDING_UPLOADS_PREFIX)
    ? key.slice(PENDING_UPLOADS_PREFIX.length).split('/')[0]
    : key.startsWith('workspaces/')
      ? key.split('/')[1]
      : undefined;
  if (!owner) throw new Error(`Media key ${key} names no workspace`);
  return owner;
}
