import { z } from 'zod';
import { mediaInputSchema } from '../../assets/media-inputs.js';
import { MAX_AVATAR_PROMPT_LENGTH, MAX_REFERENCE_IMAGES } from '../../avatars/avatar-creation.js';
import { AVATAR_OWNERSHIPS, AVATAR_STATUSES, AVATAR_TYPES } from '../../avatars/avatar-views.js';
import { LOOK_TEMPLATE_IDS } from '../../avatars/look-packs.js';
import { limitParam, tokenParam, userText } from '../../core/validation.js';
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
// Requests

const avatarName = userText(
  z
    .string()
    .min(1, { error: 'must be 1 to 200 characters' })
    .max(200, { error: 'must be 1 to 200 characters' })
    .refine((name) => name.trim().length > 0, { error: 'must not be blank' }),
);
const ownId = (description: string) =>
  z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(128, { error: 'must be at most 128 characters' })
    .meta({ description });

/** `POST /v3/avatars`: discriminated by `type`. */
export const createAvatarBody = z.discriminatedUnion(
  'type',
  [
    z.strictObject({
      type: z.literal('photo'),
      name: avatarName,
      file: mediaInputSchema.meta({
        description: 'A photo of one person facing the camera: {type: url|asset_id|base64}, png or jpeg',
      }),
      avatar_group_id: ownId('Your group to add the look to; a new group when omitted').optional(),
    }),
    z.strictObject({
      type: z.literal('digital_twin'),
      name: avatarName,
      file: mediaInputSchema.meta({
        description:
          'A video of the person looking at the camera, at least 4 s with a calm stretch: {type: url|asset_id|base64}, mp4 or webm',
      }),
      avatar_group_id: ownId(
        'Your digital twin group to add the look to; a new group when omitted',
      ).optional(),
      create_voice_clone: z.boolean().default(false).meta({
        description:
          "Also clone the footage's voice (as POST /v3/voices/clone, taking a clone slot): the group's default voice once complete",
      }),
    }),
    z.strictObject({
      type: z.literal('prompt'),
      name: avatarName,
      prompt: userText(
        z
          .string()
          .min(1, { error: `must be 1 to ${MAX_AVATAR_PROMPT_LENGTH} characters` })
          .max(MAX_AVATAR_PROMPT_LENGTH, { error: `must be 1 to ${MAX_AVATAR_PROMPT_LENGTH} characters` })
          .refine((prompt) => prompt.trim().length > 0, { error: 'must not be blank' }),
      ).meta({ description: 'Who to show: gender, age, hair, clothing, colours, setting' }),
      reference_images: z
        .array(mediaInputSchema)
        .max(MAX_REFERENCE_IMAGES, { error: `must hold at most ${MAX_REFERENCE_IMAGES} images` })
        .optional()
        .meta({ description: 'Up to 3 pictures whose colours the avatar takes (clothing, setting)' }),
      avatar_group_id: ownId('Your group the avatar is saved to; a new group when omitted').optional(),
      avatar_id: ownId(
        'One of your completed looks used as the visual reference; must be in avatar_group_id when both are sent',
      ).optional(),
    }),
  ],
  {
    error: (issue) =>
      issue.code === 'invalid_union' ? 'must be one of: photo, digital_twin, prompt' : undefined,
  },
);

/** `POST /v3/avatars/looks`. */
export const createLooksBody = z.discriminatedUnion(
  'type',
  [
    z.strictObject({
      type: z.literal('look_pack'),
      reference_look_id: ownId('A completed photo or prompt look of yours'),
      aspect_ratio: z.literal('9:16').optional().meta({ description: 'Frame every look for vertical video' }),
    }),
    z.strictObject({
      type: z.literal('template'),
      reference_look_id: ownId('A completed photo or prompt look of yours'),
      template_id: z
        .enum(LOOK_TEMPLATE_IDS as [string, ...string[]])
        .meta({ description: 'The look template' }),
      aspect_ratio: z.literal('9:16').optional().meta({ description: 'Frame the look for vertical video' }),
    }),
  ],
  { error: (issue) => (issue.code === 'invalid_union' ? 'must be one of: look_pack, template' : undefined) },
);

export const updateLookBody = z.strictObject({ name: avatarName });

export const updateGroupBody = z
  .strictObject({
    name: avatarName.optional(),
    default_voice_id: ownId('A voice of GET /v3/voices the group speaks with when a video names none')
      .nullable()
      .optional(),
  })
  .refine((body) => body.name !== undefined || body.default_voice_id !== undefined, {
    error: 'name or default_voice_id is required',
  });

export const consentBody = z.strictObject({
  consent_video: mediaInputSchema.optional().meta({
    description:
      'A video of the person saying they consent; without it, the answer carries a page to record one',
  }),
  consent_text: userText(z.string().max(2000, { error: 'must be at most 2000 characters' })).optional(),
  reroute_url: z
    .url({ protocol: /^https?$/, error: 'must be an http(s) URL' })
    .max(2048)
    .optional()
    .meta({
      description: 'Where the consent page sends the person once the video is submitted',
    }),
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

export const createdAvatarBody = dataEnvelope(
  z.object({
    avatar_id: z.string().meta({ description: 'The look; track with GET /v3/avatars/looks/{look_id}.' }),
    avatar_group_id: z.string().meta({ description: 'Track with GET /v3/avatars/{group_id}.' }),
    avatar_group: avatarGroupResponse,
    avatar_item: avatarLookResponse,
  }),
);

export const createdLooksBody = dataEnvelope(
  z.object({
    group_id: z.string(),
    look_ids: z
      .array(z.string())
      .meta({ description: 'One per look, each pending until completed or failed.' }),
    looks: z.array(avatarLookResponse),
  }),
);

export const deletedBody = dataEnvelope(z.object({ id: z.string() }));

export const consentResponseBody = dataEnvelope(
  z.object({
    avatar_group: avatarGroupResponse,
    url: z.string().optional().meta({
      description: 'The consent page, when no consent video was sent: open it to record or upload one.',
    }),
  }),
);
