import { z } from 'zod';
import { config } from '../../core/config.js';
import { limitParam, tokenParam, userText } from '../../core/validation.js';
import { ACCEPTED_MEDIA_TYPES, normaliseMimeType } from '../../media/media-types.js';

export const assetIdPath = z.strictObject({ asset_id: z.string().min(1) });

const sha256 = z
  .string()
  .regex(/^[0-9a-fA-F]{64}$/, { error: 'must be a SHA-256 digest: 64 hexadecimal characters' });

/** One file of a direct upload. */
export const directUploadFile = z.strictObject({
  filename: userText(
    z
      .string()
      .min(1)
      .max(255)
      .refine((name) => !/[\\/]/.test(name), { error: 'must be a file name without a path' }),
  ),
  content_type: z.string().transform((value, context) => {
    const mimeType = normaliseMimeType(value);
    if (!mimeType) {
      context.addIssue({
        code: 'custom',
        message: `is not a supported type; use one of ${Object.keys(ACCEPTED_MEDIA_TYPES).join(', ')}`,
      });
      return z.NEVER;
    }
    return mimeType;
  }),
  size_bytes: z
    .number()
    .int()
    .positive({ error: 'must be at least 1' })
    .refine((size) => size <= config().maxDirectUploadBytes, {
      error: () => `must be at most ${config().maxDirectUploadBytes}`,
    }),
  checksum_sha256: sha256.optional(),
});

export const completeAssetBody = z.strictObject({ checksum_sha256: sha256.optional() });

export const listAssetsQuery = z.strictObject({
  // The reference requires `username` "while in beta" and will make it an optional filter: it is one
  // here already, so that clients that send it and clients that do not both work.
  username: z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(256, { error: 'must be at most 256 characters' })
    .optional()
    .meta({ description: "Only assets of this workspace member: the assets' `owner` value" }),
  folder_id: z
    .string()
    .max(128, { error: 'must be at most 128 characters' })
    .optional()
    .meta({ description: 'Only assets in this folder; empty for those at the root' }),
  limit: limitParam(100, 20),
  token: tokenParam,
});
