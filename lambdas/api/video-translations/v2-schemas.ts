/**
 * The hosted API's legacy `/v2` video-translate routes (docs/reference-notes/v2-video-translate.md):
 * the fields older clients send and read. Every answer is `{error: null, data}`.
 */
import { z } from 'zod';
import { MAX_MEDIA_URL_LENGTH } from '../../assets/media-inputs.js';
import { dataWithNullErrorEnvelope } from '../pipeline/response-envelopes.js';
import { createTranslationBody } from './schemas.js';

/** `/v2` modes: `fast` and `quality` are the hosted names of `/v3`'s `speed` and `precision`. */
export const V2_MODES = ['fast', 'quality', 'speed', 'precision'] as const;

/** `/v2` statuses: `/v3`'s, with `success` for `completed`. */
export const V2_STATUSES = ['pending', 'running', 'success', 'failed'] as const;

export const V2_CAPTION_TYPES = ['vtt', 'srt'] as const;

const mediaUrl = (description: string) =>
  z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(MAX_MEDIA_URL_LENGTH, { error: `must be at most ${MAX_MEDIA_URL_LENGTH} characters` })
    .optional()
    .meta({ description });

/** Sent by the vendor's own clients with no documented meaning: accepted, and without effect here. */
const noEffect = z.boolean().optional().meta({ description: 'Accepted for older clients; has no effect.' });

/** `POST /v2/video_translate`: mapped onto `POST /v3/video-translations` (v2-rows.ts). */
export const v2CreateBody = createTranslationBody
  .pick({
    title: true,
    input_language: true,
    srt_role: true,
    translate_audio_only: true,
    speaker_num: true,
    start_time: true,
    end_time: true,
    enable_caption: true,
    keep_the_same_format: true,
    disable_music_track: true,
    enable_speech_enhancement: true,
    enable_watermark: true,
    brand_glossary_id: true,
    brand_voice_id: true,
    folder_id: true,
    fps_mode: true,
    stock_voice_config: true,
    callback_url: true,
    callback_id: true,
  })
  .extend({
    video_url: mediaUrl(
      'The video to translate (a public URL, or a `video_url` of this service); required unless `audio_url` is given.',
    ),
    audio_url: mediaUrl(
      'With `video_url`: dubbing audio of your own, spoken instead of synthesized speech. Alone: the audio to translate.',
    ),
    srt_url: mediaUrl('Subtitles (SRT or WebVTT); see `srt_role`.'),
    output_language: z
      .string()
      .min(1, { error: 'must not be empty' })
      .max(100, { error: 'must be at most 100 characters' })
      .optional()
      .meta({
        description:
          'A name from GET /v2/video_translate/target_languages. Exactly one of this and `output_languages`.',
      }),
    output_languages: createTranslationBody.shape.output_languages.optional().meta({
      description: 'Several names, one translation each. Exactly one of this and `output_language`.',
    }),
    mode: z.enum(V2_MODES).optional().meta({
      description: '`fast` (default; `/v3` `speed`) or `quality` (`/v3` `precision`, twice the credits).',
    }),
    enable_dynamic_duration: z
      .union([z.boolean(), z.enum(['true', 'false']).transform((value) => value === 'true')], {
        error: 'must be a boolean',
      })
      .optional()
      .meta({ description: 'A boolean, or the strings `"true"`/`"false"` some clients send.' }),
    use_disguised_voice: noEffect,
    check_credits_sync: noEffect,
    validate_only: noEffect,
    create_collection: noEffect,
  });

export const v2CreatedBody = dataWithNullErrorEnvelope(
  z.object({
    video_translate_id: z
      .string()
      .nullable()
      .meta({ description: 'The translation, when `output_language` was sent; null otherwise.' }),
    video_translate_ids: z
      .array(z.string())
      .nullable()
      .meta({ description: 'One per language, in order, when `output_languages` was sent; null otherwise.' }),
  }),
);

export const v2TranslateIdPath = z.strictObject({ video_translate_id: z.string().min(1) });

export const v2TranslationBody = dataWithNullErrorEnvelope(
  z.object({
    video_translate_id: z.string(),
    title: z.string(),
    status: z.enum(V2_STATUSES),
    url: z
      .string()
      .nullable()
      .meta({ description: 'The translated video once `success`, freshly signed; else null.' }),
    message: z.string().nullable().meta({ description: 'Why it failed, when `failed`; else null.' }),
    output_language: z.string(),
    callback_id: z.string().nullable(),
    duration: z
      .number()
      .nullable()
      .meta({ description: 'Seconds of the translated video; null until `success`.' }),
  }),
);

export const v2LanguagesBody = dataWithNullErrorEnvelope(
  z.object({
    languages: z.array(z.string()).meta({ description: 'Names `output_language` takes, sorted.' }),
  }),
);

export const v2CaptionQuery = z.strictObject({
  video_translate_id: z.string().min(1, { error: 'must not be empty' }),
  caption_type: z.enum(V2_CAPTION_TYPES).default('vtt'),
});

export const v2CaptionBody = dataWithNullErrorEnvelope(
  z.object({ caption_url: z.string().meta({ description: 'The caption file, freshly signed.' }) }),
);
