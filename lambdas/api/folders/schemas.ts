import { z } from 'zod';
import { limitParam, tokenParam, userText } from '../../core/validation.js';
import { CREATABLE_FOLDER_TYPES, FOLDER_TYPES } from '../../folders/folders.js';
import { dataEnvelope, listEnvelope, unixSeconds } from '../pipeline/response-envelopes.js';

export const folderIdPath = z.strictObject({ folder_id: z.string().min(1) });

/** A folder's name (also the `/v1` create's). Characters, not UTF-16 units: an emoji counts once. */
export const folderName = userText(
  z
    .string()
    .trim()
    .refine((name) => name.length > 0 && [...name].length <= 256, { error: 'must be 1 to 256 characters' }),
).meta({ description: '1 to 256 characters' });

export const createFolderBody = z.strictObject({
  name: folderName,
  parent_id: z.string().min(1).optional(),
  type: z
    .enum(CREATABLE_FOLDER_TYPES, {
      error: (issue) =>
        issue.input === 'asset'
          ? 'asset folders are created in the app and cannot be created over the API'
          : undefined,
    })
    .optional(),
});

export const listFoldersQuery = z.strictObject({
  limit: limitParam(100, 20),
  token: tokenParam,
  parent_id: z.string().min(1).optional(),
  type: z.enum(FOLDER_TYPES).optional(),
});

/** A folder as every folder route answers it (`Folder` of folders/folders.ts). */
export const folderResponse = z.object({
  folder_id: z.string(),
  name: z.string(),
  parent_id: z.string().nullable().meta({ description: 'Null for a folder at the workspace root.' }),
  // `asset` folders are made in the hosted API's web app only: this service never holds one, and the
  // reference's folder reads do not list the type.
  type: z.enum(CREATABLE_FOLDER_TYPES),
  is_trash: z.boolean(),
  creator_username: z.string(),
  created_at: unixSeconds,
  updated_at: unixSeconds,
});
export const folderBody = dataEnvelope(folderResponse);
export const folderListBody = listEnvelope(folderResponse);
