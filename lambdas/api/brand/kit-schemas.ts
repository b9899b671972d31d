/** Request and response schemas of the brand-kit routes (kit-rows.ts). */
import { z } from 'zod';
import { mediaInputSchema } from '../../assets/media-inputs.js';
import { BRAND_KIT_LIMITS } from '../../brand/brand-kits.js';
import { limitParam, tokenParam, userText } from '../../core/validation.js';
import { BUNDLED_FONT_FAMILIES } from '../../engines/composition/bundled-fonts.js';
import { dataEnvelope, listEnvelope, unixSeconds } from '../pipeline/response-envelopes.js';

export const brandKitIdPath = z.strictObject({ brand_kit_id: z.string().min(1).max(128) });

export const listBrandKitsQuery = z.strictObject({ limit: limitParam(100, 20), token: tokenParam });

const name = userText(
  z
    .string()
    .trim()
    .refine((text) => text.length > 0 && [...text].length <= 256, { error: 'must be 1 to 256 characters' }),
).meta({ description: '1 to 256 characters' });

const colors = z
  .array(z.string().regex(/^#[0-9a-fA-F]{6}$/, { error: "must be a 6-digit hex colour such as '#1a2b3c'" }))
  .max(BRAND_KIT_LIMITS.colors, { error: `must hold at most ${BRAND_KIT_LIMITS.colors} colours` })
  .meta({
    description:
      '`#rrggbb` colours, stored in lower case. The first is the primary colour (the background of scenes that choose none), the second the accent (the box of burned captions).',
  });

/** `{asset_id}` alone is an asset input: the short form of `{type: "asset_id", asset_id}`. */
const assetShortForm = z
  .strictObject({ asset_id: z.string().min(1, { error: 'must not be empty' }).max(64) })
  .transform((input) => ({ type: 'asset_id' as const, asset_id: input.asset_id }));

const fileInput = z.union([assetShortForm, mediaInputSchema], {
  error: () => 'must be {"asset_id": "..."} or a media input ({"type": "url" | "asset_id" | "base64", ...})',
});

const font = z.union(
  [z.strictObject({ family: z.string().min(1, { error: 'must not be empty' }).max(256) }), fileInput],
  {
    error: () =>
      `must be {"family": "<one of ${BUNDLED_FONT_FAMILIES.join(', ')}>"}, {"asset_id": "..."} of a .ttf or .otf upload, or a media input of one`,
  },
);

const fonts = z
  .array(font)
  .max(BRAND_KIT_LIMITS.fonts, { error: `must hold at most ${BRAND_KIT_LIMITS.fonts} fonts` })
  .meta({
    description: `Caption fonts, the first used: a bundled family (${BUNDLED_FONT_FAMILIES.join(', ')}) or a TrueType/OpenType file (an asset, URL or inline), checked and read for its family name.`,
  });

const logos = z
  .array(fileInput)
  .max(BRAND_KIT_LIMITS.logos, { error: `must hold at most ${BRAND_KIT_LIMITS.logos} logos` })
  .meta({
    description: 'Logo images (png, jpeg, webp); the first is the primary logo, shown in a corner of videos.',
  });

const isDefault = z.boolean().meta({
  description:
    "The workspace's default kit: videos that name no kit are made with it. Setting it unsets the previous default.",
});

export const createBrandKitBody = z.strictObject({
  name,
  colors: colors.optional(),
  fonts: fonts.optional(),
  logos: logos.optional(),
  is_default: isDefault.optional(),
});

export const updateBrandKitBody = z
  .strictObject({
    name: name.optional(),
    colors: colors.optional(),
    fonts: fonts.optional(),
    logos: logos.optional(),
    is_default: isDefault.optional(),
  })
  .refine((body) => Object.values(body).some((value) => value !== undefined), {
    error: 'give at least one field to change',
  });

/** A kit as every brand-kit route answers it (`brandKitView` of brand/brand-kits.ts). */
export const brandKitResponse = z.object({
  brand_kit_id: z.string(),
  name: z.string(),
  colors: z.array(z.string()).meta({ description: '`#rrggbb`, lower case; primary first, then the accent.' }),
  logo_url: z
    .string()
    .nullable()
    .meta({ description: 'A presigned download URL of the primary logo; null without logos.' }),
  logos: z.array(
    z.object({
      url: z.string().meta({ description: 'A presigned download URL.' }),
      mime_type: z.string(),
    }),
  ),
  fonts: z.array(
    z.object({
      family: z.string().meta({ description: 'The family name, as captions refer to it.' }),
      source: z.enum(['bundled', 'uploaded']),
      format: z.enum(['ttf', 'otf']).nullable().meta({ description: 'Null for a bundled family.' }),
      url: z
        .string()
        .nullable()
        .meta({ description: 'A presigned download URL of an uploaded font; null for a bundled family.' }),
    }),
  ),
  is_default: z.boolean(),
  created_at: unixSeconds,
  updated_at: unixSeconds,
});
export const brandKitBody = dataEnvelope(brandKitResponse);
export const brandKitListBody = listEnvelope(brandKitResponse);
export const brandKitDeletedBody = dataEnvelope(z.object({ brand_kit_id: z.string() }));
