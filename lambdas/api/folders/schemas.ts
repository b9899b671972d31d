import { z } from 'zod';
import { limitParam, tokenParam, userText } from '../../core/validation.js';
import { CREATABLE_FOLDER_TYPES, FOLDER_TYPES } from '../../folders/folders.js';

export const folderIdPath = z.strictObject({ folder_id: z.string().min(1) });

export const createFolderBody = z.strictObject({
  // Characters, not UTF-16 units: an emoji counts once.
  name: userText(
    z
      .string()
      .trim()
      .refine((name) => name.length > 0 && [...name].length <= 256, { error: 'must be 1 to 256 characters' }),
  ).meta({ description: '1 to 256 characters' }),
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
