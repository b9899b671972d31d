import { z } from 'zod';
import { mediaInputSchema } from '../../assets/media-inputs.js';
import { BULK_STATUS } from '../../batches/bulk-status.js';
import { idListParam, limitParam, outboundUrlParam, tokenParam, userText } from '../../core/validation.js';
import {
  FPS_MODES,
  SRT_ROLES,
  TRANSLATION_MODES,
  TRANSLATION_STATUS,
} from '../../translations/translation-records.js';
import { batchViewBody, bulkStatusListBody } from '../batch-responses.js';
import { dataEnvelope, listEnvelope, unixSeconds } from '../pipeline/response-envelopes.js';

export const translationIdPath = z.strictObject({ video_translation_id: z.string().min(1) });

export const listTranslationsQuery = z.strictObject({ limit: limitParam(100, 10), token: tokenParam });

export const translationStatusesQuery = z.strictObject({
  video_translation_ids: idListParam,
  batch_ids: idListParam,
});

const seconds = z.number({ error: 'must be a number of seconds' }).min(0, { error: 'must not be negative' });
const shortText = (max: number) => z.string().max(max, { error: `must be at most ${max} characters` });

/** One translate request: `POST /v3/video-translations`, and each payload of a batch. */
export const createTranslationBody = z.strictObject({
  video: mediaInputSchema.meta({
    description: 'The video (or audio) to translate: a URL, an asset, or inline.',
  }),
  output_languages: z
    .array(z.string().min(1, { error: 'must not be empty' }).max(100), {
      error: 'must be an array of language names',
    })
    .min(1, { error: 'must name at least one language' })
    .max(100, { error: 'must name at most 100 languages' })
    .meta({
      description:
        'Names from GET /v3/video-translations/languages, e.g. `Spanish (Spain)`; one translation each.',
    }),
  title: userText(shortText(255)).optional(),
  input_language: z.string().min(1).max(100).optional().meta({
    description: 'The source language (a listed name, a language name or a BCP-47 tag); found when omitted.',
  }),
  mode: z.enum(TRANSLATION_MODES).optional(),
  srt: mediaInputSchema.optional().meta({ description: 'Subtitles (SRT or WebVTT); see `srt_role`.' }),
  srt_role: z.enum(SRT_ROLES).optional().meta({
    description:
      '`input` (default): the source’s own subtitles; `output`: the translation itself, spoken as given.',
  }),
  audio: mediaInputSchema
    .optional()
    .meta({ description: 'Dubbing audio of your own, used instead of synthesized speech.' }),
  translate_audio_only: z.boolean().optional(),
  speaker_num: z.number().int().min(1).max(10).optional(),
  start_time: seconds.optional(),
  end_time: seconds.optional(),
  enable_caption: z.boolean().optional(),
  keep_the_same_format: z.boolean().optional(),
  enable_dynamic_duration: z.boolean().optional(),
  disable_music_track: z.boolean().optional(),
  enable_speech_enhancement: z.boolean().optional(),
  enable_watermark: z.boolean().optional(),
  brand_glossary_id: z.string().min(1).max(128).optional(),
  brand_voice_id: z
    .string()
    .min(1)
    .max(128)
    .optional()
    .meta({ description: 'Legacy name of `brand_glossary_id`.' }),
  folder_id: z.string().min(1).max(128).optional(),
  fps_mode: z.enum(FPS_MODES).optional(),
  stock_voice_config: z
    .strictObject({
      use_stock_voice: z.boolean().optional(),
      preferred_stock_voice_ids: z.array(z.string().min(1).max(128)).max(20).optional(),
    })
    .optional(),
  callback_url: outboundUrlParam.optional(),
  callback_id: shortText(255).optional(),
});

export const updateTranslationBody = z.strictObject({ title: userText(shortText(255).min(1)) });

export const createdTranslationsBody = dataEnvelope(
  z.object({
    video_translation_ids: z.array(z.string()).meta({ description: 'One per output language, in order.' }),
  }),
);

/** A translation as every read answers it (`translationView` of translations/translation-views.ts). */
export const translationResponse = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(Object.values(TRANSLATION_STATUS)),
  input_language: z.string().nullable().meta({ description: 'As given, else as found; null until known.' }),
  output_language: z.string(),
  translate_audio_only: z.boolean(),
  callback_id: z.string().nullable(),
  folder_id: z.string().nullable(),
  batch_id: z.string().nullable(),
  progress: z.number().int().min(0).max(100),
  duration: z
    .number()
    .nullable()
    .meta({ description: 'Seconds of the translated video; null until completed.' }),
  video_url: z.string().nullable(),
  audio_url: z.string().nullable(),
  srt_caption_url: z.string().nullable(),
  vtt_caption_url: z.string().nullable(),
  failure_code: z.string().nullable(),
  failure_message: z.string().nullable(),
  engines: z.record(z.string(), z.string()).meta({ description: 'The engines that did each part.' }),
  transcript_source: z.string().nullable(),
  created_at: unixSeconds,
  completed_at: unixSeconds.nullable(),
});

export const translationBody = dataEnvelope(translationResponse);
export const translationListBody = listEnvelope(translationResponse);
export const translationDeletedBody = dataEnvelope(z.object({ id: z.string() }));
export const translationLanguagesBody = dataEnvelope(
  z.object({ languages: z.array(z.string()).meta({ description: 'Output language names, sorted.' }) }),
);
export const translationStatusListBody = bulkStatusListBody(
  [BULK_STATUS.queued, BULK_STATUS.processing, BULK_STATUS.completed, BULK_STATUS.failed],
  'The video translation id',
);

export const proofreadIdPath = z.strictObject({ proofread_id: z.string().min(1) });

/** `POST /v3/video-translations/proofreads`: the translate request's fields that shape the words. */
export const createProofreadBody = z.strictObject({
  video: createTranslationBody.shape.video,
  output_languages: createTranslationBody.shape.output_languages,
  title: userText(shortText(255).min(1, { error: 'must not be empty' })),
  input_language: createTranslationBody.shape.input_language,
  mode: createTranslationBody.shape.mode,
  srt: createTranslationBody.shape.srt,
  srt_role: createTranslationBody.shape.srt_role,
  speaker_num: createTranslationBody.shape.speaker_num,
  disable_music_track: z.boolean().optional(),
  enable_speech_enhancement: z.boolean().optional(),
  enable_video_stretching: z.boolean().optional().meta({
    description:
      'Slow the picture where a line needs more time (`enable_dynamic_duration` of a translation).',
  }),
  keep_the_same_format: z.boolean().optional(),
  brand_glossary_id: createTranslationBody.shape.brand_glossary_id,
  brand_voice_id: createTranslationBody.shape.brand_voice_id,
  folder_id: createTranslationBody.shape.folder_id,
});

export const replaceProofreadSrtBody = z.strictObject({
  srt: mediaInputSchema.meta({
    description: 'The reviewed subtitles (SRT or WebVTT): their cues become the lines.',
  }),
});

export const generateProofreadBody = z.strictObject({
  captions: z.boolean().optional(),
  translate_audio_only: z.boolean().optional(),
  callback_url: outboundUrlParam.optional(),
  callback_id: shortText(255).optional(),
});

const proofreadResponse = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(['processing', 'completed', 'failed']),
  input_language: z.string().nullable(),
  output_language: z.string(),
  submitted_for_review: z.boolean(),
  failure_message: z.string().nullable(),
  created_at: unixSeconds,
});
export const proofreadBody = dataEnvelope(proofreadResponse);
export const createdProofreadsBody = dataEnvelope(
  z.object({ proofread_ids: z.array(z.string()), status: z.enum(['processing', 'completed', 'failed']) }),
);
export const proofreadSrtBody = dataEnvelope(
  z.object({
    srt_url: z.string().meta({ description: 'The translated subtitles, as reviewed so far (presigned).' }),
    original_srt_url: z.string().meta({ description: 'The source’s words as subtitles (presigned).' }),
  }),
);
export const generatedTranslationBody = dataEnvelope(
  z.object({ video_translation_id: z.string(), status: z.enum(['processing', 'completed', 'failed']) }),
);

/**
 * `POST /v3/video-translations/batches`. Each payload is checked as `POST /v3/video-translations`
 * checks its body; a bad one is 400 with `param: "video_translations"` (the spec's) and the payload's
 * index and field in the message.
 */
export const createTranslationBatchBody = z.strictObject({
  video_translations: z
    .array(z.unknown(), { error: 'must be an array of translate requests' })
    .min(1, { error: 'must hold 1 to 100 translate requests' })
    .max(100, { error: 'must hold 1 to 100 translate requests' })
    .superRefine((payloads, context) => {
      payloads.forEach((payload, index) => {
        const parsed = createTranslationBody.safeParse(payload);
        if (parsed.success) return;
        const issue = parsed.error.issues[0];
        const field = issue?.path.length ? `.${issue.path.join('.')}` : '';
        context.addIssue({
          code: 'custom',
          message: `video_translations[${index}]${field}: ${issue?.message ?? 'is invalid'}`,
        });
      });
    })
    .transform((payloads) => payloads.map((payload) => createTranslationBody.parse(payload)))
    .meta({ description: 'Each shaped like the body of POST /v3/video-translations.' }),
  title: userText(shortText(255)).optional(),
  callback_url: outboundUrlParam.optional(),
});

export const translationBatchCreatedBody = dataEnvelope(z.object({ batch_id: z.string() }));
export const translationBatchBody = batchViewBody(
  [BULK_STATUS.queued, BULK_STATUS.processing, BULK_STATUS.completed, BULK_STATUS.failed],
  'The video translation id',
);
