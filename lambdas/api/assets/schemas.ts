import { z } from 'zod';
import { ASSET_STATUS } from '../../assets/assets.js';
import { config } from '../../core/config.js';
import { limitParam, tokenParam, userText } from '../../core/validation.js';
import {
  ACCEPTED_MEDIA_TYPES,
  type AcceptedMimeType,
  MEDIA_KINDS,
  normaliseMimeType,
} from '../../media/media-types.js';
import { dataEnvelope, listEnvelope, unixSeconds } from '../pipeline/response-envelopes.js';

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

/** What the service accepts, by MIME type (media/media-types.ts). */
const mimeType = z.enum(Object.keys(ACCEPTED_MEDIA_TYPES) as [AcceptedMimeType, ...AcceptedMimeType[]]);

/** An asset as `GET /v3/assets` and `GET /v3/assets/{asset_id}` answer it (`assetView` of assets/assets.ts). */
export const assetResponse = z.object({
  id: z.string(),
  name: z.string().meta({ description: 'The file name it was uploaded with.' }),
  type: z.enum(Object.values(MEDIA_KINDS)).meta({
    description: 'What the file is, read from its bytes; until a direct upload completes, what was declared.',
  }),
  mime_type: mimeType,
  size_bytes: z.number().int().positive(),
  status: z.enum(Object.values(ASSET_STATUS)).meta({
    description: '`pending_upload` until a direct upload is completed, then `ready` or `failed`.',
  }),
  owner: z.string().meta({ description: 'The username of the member who uploaded it.' }),
  space_id: z.string().meta({ description: 'The workspace id.' }),
  folder_id: z.string().nullable().meta({ description: 'Null for an asset at the root.' }),
  uploaded_at: unixSeconds.meta({
    description: 'When the upload completed; until then, when the asset was recorded.',
  }),
  url: z.string().nullable().meta({ description: 'A presigned download URL while `ready`; null otherwise.' }),
  failure_message: z.string().optional().meta({ description: 'Why the upload failed; only when `failed`.' }),
});
export const assetBody = dataEnvelope(assetResponse);
export const assetListBody = listEnvelope(assetResponse);

/** `DELETE /v3/assets/{asset_id}`. */
export const assetDeletedBody = dataEnvelope(z.object({ id: z.string() }));

/** A finished upload (`uploadResult` of assets/assets.ts): `POST /v3/assets` and `…/{asset_id}/complete`. */
export const uploadResultBody = dataEnvelope(
  z.object({
    asset_id: z.string(),
    url: z.string().meta({ description: 'A presigned download URL.' }),
    mime_type: mimeType,
    size_bytes: z.number().int().positive(),
    status: z.literal(ASSET_STATUS.ready),
  }),
);

/** Where and how to PUT the bytes of a direct upload (`presignDirectUpload` of assets/direct-uploads.ts). */
export const directUploadResponse = z.object({
  asset_id: z.string(),
  upload_url: z.string().meta({ description: 'A presigned URL to PUT the file to.' }),
  upload_headers: z
    .record(z.string(), z.string())
    .meta({ description: 'Headers the PUT must carry exactly as given (the signature covers them).' }),
  expires_in_seconds: z.number().int().positive(),
  max_bytes: z
    .number()
    .int()
    .positive()
    .meta({ description: 'The declared `size_bytes`: exactly this many bytes.' }),
  status: z.literal(ASSET_STATUS.pendingUpload),
});
export const directUploadBody = dataEnvelope(directUploadResponse);

/** A result of `GET /v3/assets/search` (`AssetSearchResult` of assets/asset-search.ts). */
export const assetSearchResult = z.object({
  id: z.string().meta({ description: 'The icon, stock image or asset id.' }),
  type: z.enum(['image', 'icon']),
  url: z
    .string()
    .meta({ description: "Pre-signed download URL of the image, or of the icon's 512×512 PNG; expires." }),
  width: z.number().int().positive().nullable().meta({ description: 'Pixels, when known.' }),
  height: z.number().int().positive().nullable().meta({ description: 'Pixels, when known.' }),
  is_transparent: z
    .boolean()
    .nullable()
    .meta({ description: 'Whether the image has transparency (an alpha channel, for your own assets).' }),
  orientation: z.enum(['landscape', 'portrait', 'square']).nullable(),
  name: z.string(),
  score: z.number().min(0).max(1).meta({ description: 'Relevance to `query`, 0 to 1; higher is closer.' }),
  tags: z.array(z.string()).meta({ description: "The catalog's tags; empty for your own assets." }),
  svg_url: z
    .string()
    .nullable()
    .meta({ description: "Public icons: pre-signed download URL of the icon's SVG; null otherwise." }),
});
export const assetSearchBody = listEnvelope(assetSearchResult);
