import { z } from 'zod';
import { AVATAR_OWNERSHIPS, AVATAR_TYPES } from '../../avatars/avatar-views.js';
import { limitParam, tokenParam } from '../../core/validation.js';

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
