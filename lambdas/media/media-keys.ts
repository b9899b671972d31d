/** Object keys of the media bucket: one prefix per workspace, so a key names its owner. */

/** Prefix of direct uploads not yet completed; the bucket's lifecycle deletes them after two days. */
export const PENDING_UPLOADS_PREFIX = 'uploads/pending/';

export const mediaKeys = {
  asset: (workspaceId: string, assetId: string) => `workspaces/${workspaceId}/assets/${assetId}`,
  pendingUpload: (workspaceId: string, assetId: string) =>
    `${PENDING_UPLOADS_PREFIX}${workspaceId}/${assetId}`,
} as const;
