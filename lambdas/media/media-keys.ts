/** Object keys of the media bucket: one prefix per workspace, so a key names its owner. */

export const mediaKeys = {
  asset: (workspaceId: string, assetId: string) => `workspaces/${workspaceId}/assets/${assetId}`,
  /** Media a create received as a URL or inline base64 (not an asset), stored for its job. */
  input: (workspaceId: string, inputId: string) => `workspaces/${workspaceId}/inputs/${inputId}`,
} as const;

/**
 * The tag a direct upload carries until it is completed. A lifecycle rule deletes objects still
 * tagged after two days (abandoned uploads); completing removes the tag, so the bytes never move.
 */
export const PENDING_UPLOAD_TAG = { key: 'upload-state', value: 'pending' } as const;
