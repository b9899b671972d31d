import { z } from 'zod';
import { AVATAR_OWNERSHIPS, AVATAR_STATUSES, AVATAR_TYPES } from '../../avatars/avatar-views.js';
import { limitParam, tokenParam } from '../../core/validation.js';
import { dataEnvelope, listEnvelope, unixSeconds } from '../pipeline/response-envelopes.js';

/** The spec's ownership filter, whose name it does not show: `ownership`, as in the reference's descriptions. */
const ownership = z
  .enum(AVATAR_OWNERSHIPS)
  .optional()
  .meta({ description: '`public` (stock avatars) or `private` (your own); both when omitted' });

export const groupIdPath = z.strictObject({ group_id: z.string().min(1) });
export const lookIdPath = z.strictObject({ look_id: z.string().min(1) });

export const listAvatarGroupsQuery = z.strictObject({
  ownership,
  limit: limitParam(50, 20),
  token: tokenParam,
});

export const listAvatarLooksQuery = z.strictObject({
  group_id: z.string().min(1).max(128, { error: 'must be at most 128 characters' }).optional(),
  avatar_type: z.enum(AVATAR_TYPES).optional(),
  ownership,
  limit: limitParam(50, 20),
  token: tokenParam,
});

// ---------------------------------------------------------------------------------------------
// Responses

const avatarError = z
  .object({ code: z.string(), message: z.string() })
  .meta({ description: "Why training failed; only when `status` is 'failed'." });

/** An avatar group as its get and list answer it (`AvatarGroupView` of avatars/avatar-views.ts). */
export const avatarGroupResponse = z.object({
  id: z.string(),
  name: z.string(),
  created_at: unixSeconds,
  looks_count: z.number().int().nonnegative().meta({ description: 'How many looks the group has.' }),
  preview_image_url: z
    .string()
    .optional()
    .meta({ description: 'Pre-signed URL of the cover look; expires.' }),
  preview_video_url: z.string().optional(),
  gender: z.string().optional(),
  default_voice_id: z.string().optional(),
  consent_status: z.string().optional().meta({ description: 'Absent when no consent is required.' }),
  status: z.enum(AVATAR_STATUSES),
  error: avatarError.optional(),
});
export const avatarGroupBody = dataEnvelope(avatarGroupResponse);
export const avatarGroupListBody = listEnvelope(avatarGroupResponse);

/** A look as its get and list answer it (`AvatarLookView` of avatars/avatar-views.ts). */
export const avatarLookResponse = z.object({
  id: z.string().meta({ description: 'The `avatar_id` of POST /v3/videos.' }),
  name: z.string(),
  avatar_type: z.enum(AVATAR_TYPES),
  group_id: z.string(),
  gender: z.string().optional(),
  default_voice_id: z.string().optional(),
  image_width: z.number().int().positive().optional().meta({ description: 'Native width in pixels.' }),
  image_height: z.number().int().positive().optional().meta({ description: 'Native height in pixels.' }),
  preferred_orientation: z.enum(['portrait', 'landscape', 'square']).optional(),
  preview_image_url: z.string().optional().meta({ description: 'Pre-signed URL; expires.' }),
  preview_video_url: z.string().optional(),
  status: z.enum(AVATAR_STATUSES),
  supported_api_engines: z
    .array(z.string())
    .meta({ description: 'The `engine` values of POST /v3/videos this look can be rendered with.' }),
  tags: z.array(z.string()),
  error: avatarError.optional(),
});
export const avatarLookBody = dataEnvelope(avatarLookResponse);
export const avatarLookListBody = listEnvelope(avatarLookResponse);
