/** The bodies, queries and JSON responses of the template routes. */
import { z } from 'zod';
import { limitParam, outboundUrlParam, tokenParam, userText } from '../../core/validation.js';
import {
  BIND_KINDS,
  MAX_TEMPLATE_VARIABLES,
  VARIABLE_NAME_PATTERN,
} from '../../templates/template-variables.js';
import { ASPECT_RATIOS, MAX_SCRIPT_LENGTH } from '../../videos/video-requests.js';
import { dataEnvelope, listEnvelope, unixSeconds } from '../pipeline/response-envelopes.js';
import { videoResponse } from '../videos/schemas.js';

export const templateIdPath = z.strictObject({ template_id: z.string().min(1).max(128) });

/** A field removed on 2026-10-31 (spec, "Versioning" item 4): any value is a 400 naming its replacement. */
const removedField = (replacement: string) =>
  z
    .unknown()
    .refine(() => false, { error: `was removed on 2026-10-31: use ${replacement}` })
    .optional()
    .meta({ description: `Removed on 2026-10-31: use \`${replacement}\`.`, deprecated: true });

const name = userText(
  z
    .string()
    .trim()
    .refine((value) => value.length > 0 && [...value].length <= 256, {
      error: 'must be 1 to 256 characters',
    }),
).meta({ description: '1 to 256 characters' });

export const createTemplateBody = z.strictObject({
  video_id: z.string().min(1).max(128).meta({
    description:
      "A video of the workspace whose scenes are ready (as `GET /v3/videos/{video_id}/scenes` answers them); its scenes become the template's `composition`.",
  }),
  name: name.optional().meta({ description: "1 to 256 characters; the video's title when omitted." }),
  scenes: removedField('composition.scenes'),
});

export const updateTemplateBody = z.strictObject({
  name,
  scenes: removedField('composition.scenes'),
  composition: z
    .unknown()
    .refine(() => false, { error: 'cannot be changed: a template keeps the scenes of its video' })
    .optional(),
});

export const listTemplatesQuery = z.strictObject({ limit: limitParam(100, 10), token: tokenParam });

const templateVariable = z.strictObject({
  name: z.string().regex(VARIABLE_NAME_PATTERN, {
    error: 'must be a letter or _ then up to 63 letters, digits or _ (it is written {{name}} in scripts)',
  }),
  type: z
    .enum([...BIND_KINDS, 'avatar'])
    .transform((type) => (type === 'avatar' ? 'character' : type))
    .meta({ description: '`character` binds an avatar look (`avatar` is accepted as its other name).' }),
  element_id: z.string().min(1).max(128).optional().meta({
    description:
      'The part bound (an `id` of `composition.scenes[].parts`). Required for avatar, voice, image, video and audio variables; for text, limits `match` to that script.',
  }),
  match: z.string().min(1).max(MAX_SCRIPT_LENGTH).optional().meta({
    description:
      'Text variables only: the exact phrase (case included) of a script that becomes `{{name}}`, every occurrence.',
  }),
  required: z
    .boolean()
    .optional()
    .meta({ description: 'A generate request must give a value. @default false' }),
  default: z.string().min(1).max(MAX_SCRIPT_LENGTH).optional().meta({
    description:
      'Used when a generate request gives no value: text (default: the matched phrase), or an avatar look id (character) or voice id. Image, video and audio variables have none (the template keeps its own).',
  }),
  avatar_id: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .meta({ description: 'Character variables: the default avatar look.' }),
  voice_id: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .meta({ description: 'Voice variables: the default voice.' }),
  avatar_look_id: removedField('avatar_id'),
  character_id: removedField('avatar_id'),
  character_type: removedField('avatar_id'),
});

export const replaceVariablesBody = z.strictObject({
  expected_edit_version: z
    .union([
      z.string().regex(/^\d+$/, { error: 'must be an edit_version read from the template' }),
      z.number().int().min(1),
    ])
    .transform((value) => Number(value))
    .meta({
      description: 'The `edit_version` of the template as last read; 409 `stale_edit_version` otherwise.',
    }),
  variables: z
    .array(templateVariable)
    .max(MAX_TEMPLATE_VARIABLES, { error: `must hold at most ${MAX_TEMPLATE_VARIABLES} variables` })
    .meta({ description: 'The full list: variables not in it are removed.' }),
  scenes: removedField('composition.scenes'),
});

/** Null (and, where the reference says so, an empty string) mean "not given". */
const nullable = <T extends z.ZodType>(schema: T) =>
  schema.nullish().transform((value) => value ?? undefined);

export const generateBody = z.strictObject({
  variables: z.record(z.string(), z.unknown()).meta({
    description:
      'Values by variable name: text → a string; character → `{"avatar_id"}` or the look id; voice → `{"voice_id"}` or the id; image, video, audio → a media input (`{"type": "url", "url"}`, `{"type": "asset_id", "asset_id"}`, `{"type": "base64", "media_type", "data"}`). Variables left out take their default (a text variable: its matched phrase), or keep what the template holds; required ones must be given.',
  }),
  title: nullable(userText(z.string().max(500, { error: 'must be at most 500 characters' }))).meta({
    description: "The template's name when omitted.",
  }),
  folder_id: nullable(z.string().max(128))
    .transform((value) => value || undefined)
    .meta({ description: 'Omit, null or empty: the workspace root.' }),
  callback_url: nullable(outboundUrlParam),
  callback_id: nullable(z.string().max(255, { error: 'must be at most 255 characters' })),
  caption: z
    .boolean()
    .optional()
    .meta({ description: 'Burn captions into the video. Default: as the template.' }),
  dimension: nullable(
    z.strictObject({
      width: z.number().int().min(128).max(4096).multipleOf(2, { error: 'must be even' }),
      height: z.number().int().min(128).max(4096).multipleOf(2, { error: 'must be even' }),
    }),
  ).meta({
    description:
      "Output size: it must have the template's aspect ratio; its short edge picks the resolution (up to 720, 1080, 2160), within the plan's. Default: the template's resolution.",
  }),
  fps: z
    .literal(25, { error: 'this service renders at 25 fps' })
    .optional()
    .meta({ description: 'Only 25.' }),
  include_gif: z.boolean().optional().meta({ description: 'Accepted; every video has a GIF preview.' }),
  scene_ids: nullable(
    z.array(z.string().min(1).max(64)).min(1, { error: 'must name at least one scene' }),
  ).meta({
    description: 'Scenes to render, in this order (repeats allowed); all in template order when omitted.',
  }),
  brand_glossary_id: nullable(z.string().min(1).max(128)),
  brand_voice_id: nullable(z.string().min(1).max(128)).meta({
    description: 'Legacy name of `brand_glossary_id`.',
    deprecated: true,
  }),
  brand_kit_id: nullable(z.string().min(1).max(128)).meta({
    description:
      "The brand kit to make the video with. Omitted: the workspace's default kit, else the kit the template's video was made with.",
  }),
  subtitles: nullable(
    z.strictObject({
      preset_name: z.string().min(1).max(64),
      alignment: z.number().int().nullish(),
      disable_highlight: z.boolean().nullish(),
      font_size: z.number().int().positive().nullish(),
      position: z.strictObject({ x: z.number().optional(), y: z.number().optional() }).nullish(),
    }),
  ).meta({
    description:
      'Implies burned captions; the style fields are accepted and not applied (one caption style).',
  }),
  enable_sharing: z.boolean().optional().meta({ description: 'Accepted; this service has no share pages.' }),
  keep_text_vertically_centered: z.boolean().optional().meta({ description: 'Accepted; no effect.' }),
  reorder_music: z.boolean().optional().meta({ description: 'Accepted; no effect.' }),
});

// ---------------------------------------------------------------------------------------------
// Responses

const templateSummary = {
  id: z.string(),
  name: z.string(),
  aspect_ratio: z.enum(ASPECT_RATIOS),
  created_at: unixSeconds,
  updated_at: unixSeconds,
  thumbnail_url: z
    .string()
    .nullable()
    .meta({ description: "Pre-signed URL of the source video's thumbnail; null when it had none." }),
};

const bindable = z.array(z.enum(BIND_KINDS));
const current = z.record(z.string(), z.unknown()).meta({
  description:
    "What the part holds now: an avatar's `avatar_id`, a script's `text` (placeholders shown) and `voice_id`.",
});

export const templateResponse = z.object({
  ...templateSummary,
  source_video_id: z.string(),
  revision: z.number().int().min(1).meta({ description: 'Counts every change (rename, variables).' }),
  edit_version: z
    .string()
    .meta({ description: 'Counts variable lists; give it as `expected_edit_version` when replacing them.' }),
  scene_ids: z.array(z.string()),
  elements: z.array(
    z.object({
      element_id: z.string(),
      element_type: z.enum(['avatar', 'image', 'tts', 'audio', 'background_image', 'background_video']),
      scene_id: z.string(),
      bindable_as: bindable,
      current,
      variable: z.string().nullable().meta({ description: 'The variable binding this part, if any.' }),
      text_variables: z.array(z.string()).meta({ description: "The text variables in this part's script." }),
    }),
  ),
  variables: z.record(
    z.string(),
    z.object({
      name: z.string(),
      type: z.enum(BIND_KINDS),
      element_id: z.string().nullable(),
      match: z.string().nullable(),
      required: z.boolean(),
      default: z.string().nullable(),
    }),
  ),
  composition: z.object({
    scenes: z.array(
      z.object({
        id: z.string(),
        script: z
          .string()
          .nullable()
          .meta({ description: 'The script, `{{name}}` where a text variable goes.' }),
        parts: z.array(z.object({ id: z.string(), type: z.string(), bindable_as: bindable, current })),
      }),
    ),
  }),
});

export const templateBody = dataEnvelope(templateResponse);
export const templateListBody = listEnvelope(z.object(templateSummary));
export const templateDeletedBody = dataEnvelope(z.object({ id: z.string(), deleted: z.literal(true) }));
export const templateVideoBody = dataEnvelope(videoResponse);
