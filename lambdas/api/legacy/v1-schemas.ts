/**
 * The hosted API's `/v1` user-info and folder-creation shapes (docs/reference-notes/v1-user-and-folders.md):
 * what its clients send and read. Answers use the `/v1` envelope `{code: 100, data, msg, message}`.
 */
import { z } from 'zod';
import { folderName } from '../folders/schemas.js';
import { unixSeconds, v1Envelope } from '../pipeline/response-envelopes.js';

/** `project_type` values of the hosted `/v1` create; only some are folder types here (see the notes). */
export const V1_PROJECT_TYPES = [
  'video_translate',
  'instant_avatar',
  'video',
  'asset',
  'brand_kit',
  'mixed',
] as const;

export const v1UserBody = v1Envelope(
  z.object({
    username: z.string(),
    email: z.string(),
    first_name: z.string(),
    last_name: z.string(),
  }),
);

export const v1CreateFolderBody = z.strictObject({
  name: folderName,
  project_type: z.enum(V1_PROJECT_TYPES).optional().meta({
    description:
      "`mixed`, `video` or `video_translate`; omitted: `mixed`, or the parent folder's type. `instant_avatar`, `asset` and `brand_kit` folders are not created over the API here.",
  }),
  parent_id: z.string().min(1).optional(),
});

export const v1FolderBody = v1Envelope(
  z.object({
    id: z.string(),
    folder_id: z.string().meta({ description: 'The same id, under the name some clients read.' }),
    name: z.string(),
    parent_id: z.string().nullable(),
    project_type: z.enum(['mixed', 'video', 'video_translate']),
    is_trash: z.boolean(),
    creator_username: z.string(),
    created_ts: unixSeconds,
    updated_ts: unixSeconds,
  }),
);
