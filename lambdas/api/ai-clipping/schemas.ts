import { z } from 'zod';
import { mediaInputSchema } from '../../assets/media-inputs.js';
import { DURATION_TYPES } from '../../clipping/clip-planner.js';
import { ASPECT_RATIOS, CLIP_STATUS, CLIPPING_STATUSES } from '../../clipping/clipping-records.js';
import { limitParam, outboundUrlParam, tokenParam, userText } from '../../core/validation.js';
import { CAPTION_PRESET_NAMES, DEFAULT_CAPTION_PRESET } from '../../engines/composition/caption-presets.js';
import { dataEnvelope, listEnvelope, unixSeconds } from '../pipeline/response-envelopes.js';

export const clippingIdPath = z.strictObject({ job_id: z.string().min(1) });

/** The reference's default page is 10 (each job embeds its clips). */
export const listClippingsQuery = z.strictObject({ limit: limitParam(100, 10), token: tokenParam });

const LANGUAGE_CODE = /^[A-Za-z]{2,3}(?:-[A-Za-z0-9]{2,8})*$/;

export const createClippingBody = z.strictObject({
  video: mediaInputSchema.meta({
    description:
      'The video to clip: a URL (a video this service made is read directly, its words known), an asset, or inline.',
  }),
  title: userText(z.string().max(255, { error: 'must be at most 255 characters' }))
    .nullable()
    .optional()
    .meta({ description: "Defaults to the source video's title when it was made here." }),
  input_language: z
    .string()
    .regex(LANGUAGE_CODE, { error: "must be a language code such as 'en' or 'pt-BR'" })
    .nullable()
    .optional()
    .meta({ description: 'ISO 639-1 (or BCP-47) code of the speech; detected when omitted.' }),
  output_settings: z
    .strictObject({
      aspect_ratio: z.enum(ASPECT_RATIOS).optional().meta({ description: 'Default `portrait` (9:16).' }),
      captions: z.boolean().optional().meta({ description: 'Burn captions into the clips (default true).' }),
      caption_style: z
        .string()
        .max(100)
        .nullable()
        .optional()
        .meta({
          description: `One of ${CAPTION_PRESET_NAMES.join(', ')}. Null or an unrecognized value falls back to \`${DEFAULT_CAPTION_PRESET}\`.`,
        }),
      duration_types: z
        .array(z.enum(DURATION_TYPES), { error: 'must be an array of 30, 60, 180 or long' })
        .min(1, { error: 'must name at least one duration' })
        .max(DURATION_TYPES.length)
        .optional()
        .meta({
          description:
            'Clip lengths to make: `30` (5-30 s), `60` (30-60 s), `180` (60-180 s), `long` (180-600 s); up to 3 clips each. Default `["30", "60"]`.',
        }),
      prompt: userText(z.string().max(500, { error: 'must be at most 500 characters' }))
        .nullable()
        .optional()
        .meta({
          description: 'Editorial guidance: its keywords weigh in the score, and the judge reads it.',
        }),
    })
    .optional(),
  callback_url: outboundUrlParam.nullable().optional(),
  callback_id: z.string().max(255, { error: 'must be at most 255 characters' }).nullable().optional(),
});

const clipResponse = z.object({
  id: z.string(),
  status: z.enum(Object.values(CLIP_STATUS)),
  title: z.string().nullable(),
  duration_seconds: z.number().nullable(),
  virality_score: z.number().int().min(0).max(100).nullable(),
  thumbnail_url: z.string().nullable(),
  video_url: z.string().nullable(),
  aspect_ratio: z.enum(ASPECT_RATIOS),
  failure_message: z.string().nullable(),
  duration_type: z.enum(DURATION_TYPES),
  start_seconds: z.number().meta({ description: 'Where the clip starts in the source.' }),
  end_seconds: z.number(),
  score_features: z
    .record(z.string(), z.number())
    .meta({ description: 'The features (0-1) the virality score is weighed from (README, "AI clipping").' }),
});

/** A job as every read and webhook answers it (`clippingView` of clipping/clipping-views.ts). */
export const clippingResponse = z.object({
  id: z.string(),
  title: z.string().nullable(),
  status: z.enum(CLIPPING_STATUSES),
  input_language: z.string().nullable(),
  output_settings: z.object({
    aspect_ratio: z.enum(ASPECT_RATIOS),
    captions: z.boolean(),
    caption_style: z.enum(CAPTION_PRESET_NAMES),
    duration_types: z.array(z.enum(DURATION_TYPES)),
    prompt: z.string().nullable(),
  }),
  callback_id: z.string().nullable(),
  progress: z.number().int().min(0).max(100),
  source_duration: z.number().nullable(),
  clips: z.array(clipResponse),
  failure_code: z.string().nullable(),
  failure_message: z.string().nullable(),
  transcript_source: z.string().nullable(),
  engines: z.record(z.string(), z.string()),
  created_at: unixSeconds,
  completed_at: unixSeconds.nullable(),
});

export const clippingBody = dataEnvelope(clippingResponse);
export const clippingListBody = listEnvelope(clippingResponse);
export const clippingDeletedBody = dataEnvelope(z.object({ id: z.string() }));
