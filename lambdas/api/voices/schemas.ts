import { z } from 'zod';
import { mediaInputSchema } from '../../assets/media-inputs.js';
import { SPEECH_ENGINE_NAMES } from '../../core/config.js';
import { limitParam, tokenParam, userText } from '../../core/validation.js';
import { DEPRECATED_SPEECH_ENGINES, MAX_SPEECH_TEXT_LENGTH } from '../../voices/speech-options.js';
import { VOICE_GENDERS, VOICE_LIST_ENGINES } from '../../voices/voice-filter.js';
import { VOICE_TYPES } from '../../voices/voice-views.js';
import { MAX_VOICE_ID_LENGTH, VOICE_STATUS } from '../../voices/workspace-voices.js';
import { dataEnvelope, listEnvelope, unixSeconds } from '../pipeline/response-envelopes.js';

export const listVoicesQuery = z.strictObject({
  type: z
    .enum(VOICE_TYPES)
    .default('public')
    .meta({ description: '`public` (stock voices, the default) or `private` (your own)' }),
  language: z
    .string()
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(64, { error: 'must be at most 64 characters' })
    .optional()
    .meta({
      description: 'A BCP-47 tag (`en-US`), a primary language (`en`) or a language name (`English`)',
    }),
  gender: z.enum(VOICE_GENDERS).optional(),
  engine: z.enum(VOICE_LIST_ENGINES).optional().meta({
    description:
      "Only voices that this speech engine speaks: `espeak`, `polly`, or the hosted provider's `starfish`, `elevenlabs`, `fish` (this deployment's engine)",
  }),
  limit: limitParam(100, 20),
  token: tokenParam,
});

/** Null is "not given", as the reference marks these fields nullable. */
const nullable = <T extends z.ZodType>(schema: T) =>
  schema.nullish().transform((value) => value ?? undefined);

/** A BCP-47 language tag: `en`, `en-US`, `zh-Hans-CN`, `es-419`. */
export const bcp47Tag = z
  .string()
  .max(35, { error: 'must be at most 35 characters' })
  .regex(
    /^[A-Za-z]{2,3}(-[A-Za-z]{4})?(-([A-Za-z]{2}|[0-9]{3}))?(-([A-Za-z0-9]{5,8}|[0-9][A-Za-z0-9]{3}))*$/,
    {
      error: "must be a BCP-47 language tag such as 'en-US'",
    },
  );

export const voiceIdPath = z.strictObject({
  voice_id: z.string().min(1).max(MAX_VOICE_ID_LENGTH),
});

export const designVoiceBody = z.strictObject({
  prompt: z
    .string()
    .min(1, { error: 'must be 1 to 1000 characters' })
    .max(1000, { error: 'must be 1 to 1000 characters' })
    .refine((prompt) => prompt.trim().length > 0, { error: 'must describe the voice' })
    .meta({
      description: "The voice in words, e.g. 'warm, confident female narrator with a British accent'",
    }),
  gender: nullable(z.enum(VOICE_GENDERS)).meta({ description: 'Only voices of this gender' }),
  locale: nullable(bcp47Tag).meta({ description: "Only voices of this language, e.g. 'en-US' or 'pt'" }),
  seed: z
    .number()
    .int({ error: 'must be a whole number' })
    .min(0, { error: 'must be 0 or more' })
    .max(1_000_000, { error: 'must be at most 1000000' })
    .default(0)
    .meta({ description: 'Which batch of matches: 0 the top three, 1 the next three, ...' }),
});

export const cloneVoiceBody = z.strictObject({
  audio: mediaInputSchema.meta({
    description:
      'The recording: {type: url|asset_id|base64}; audio (mp3, wav, m4a) or video (mp4, mov, webm)',
  }),
  voice_name: userText(
    z
      .string()
      .min(1, { error: 'must be 1 to 200 characters' })
      .max(200, { error: 'must be 1 to 200 characters' })
      .refine((name) => name.trim().length > 0, { error: 'must not be blank' }),
  ),
  language: nullable(bcp47Tag).meta({
    description: "The speaker's language ('en', 'es-MX'); en-US when omitted (languages are not detected)",
  }),
  remove_background_noise: z.boolean().default(true),
});

export const speechBody = z.strictObject({
  text: z
    .string()
    .min(1, { error: `must be 1 to ${MAX_SPEECH_TEXT_LENGTH} characters` })
    .max(MAX_SPEECH_TEXT_LENGTH, { error: `must be 1 to ${MAX_SPEECH_TEXT_LENGTH} characters` }),
  input_type: z.enum(['text', 'ssml']).default('text'),
  voice_id: z.string().min(1, { error: 'must not be empty' }).max(MAX_VOICE_ID_LENGTH),
  speed: z
    .number()
    .min(0.5, { error: 'must be from 0.5 to 2' })
    .max(2, { error: 'must be from 0.5 to 2' })
    .default(1),
  language: nullable(bcp47Tag).meta({
    description: "The voice's language, e.g. 'en'; checked against the voice",
  }),
  locale: nullable(bcp47Tag).meta({
    description: "The voice's locale, e.g. 'en-US'; checked against the voice",
  }),
  engine: nullable(z.enum([...SPEECH_ENGINE_NAMES, 'default', ...DEPRECATED_SPEECH_ENGINES])).meta({
    description: "This deployment's speech engine (or `default`); `starfish` is accepted and deprecated",
  }),
  brand_glossary_id: nullable(z.string().min(1).max(128)).meta({
    description:
      "A brand glossary of the workspace: its `terms` say how the text's brand words are pronounced",
  }),
  settings: nullable(
    z.strictObject({
      model_id: nullable(z.string().min(1).max(128)).meta({
        description:
          'For this request only: the Polly engine type (standard, neural, long-form) on Polly deployments',
      }),
    }),
  ),
});

/** A voice as lists and designs answer it (`VoiceView` of voices/voice-views.ts). */
export const voiceResponse = z.object({
  voice_id: z.string(),
  name: z.string(),
  language: z.string().meta({ description: 'BCP-47 tag, e.g. `en-US`.' }),
  gender: z.string().meta({ description: '`male` or `female`; `unknown` for an own voice without one.' }),
  type: z.enum(VOICE_TYPES).meta({ description: '`public` for stock voices, `private` for your own.' }),
  support_pause: z.boolean().meta({ description: 'Whether the voice honours pauses written into a script.' }),
  support_locale: z
    .boolean()
    .meta({ description: 'Whether `voice_settings.locale` can change the voice’s accent.' }),
  preview_audio_url: z
    .string()
    .optional()
    .meta({ description: 'Presigned URL of a short WAV preview; absent while an own voice has none.' }),
});
export const voiceListBody = listEnvelope(voiceResponse);

/** `POST /v3/voices`: the designed voices (`DesignResult` of voices/designed-voices.ts). */
export const designedVoicesBody = dataEnvelope(
  z.object({
    voices: z.array(voiceResponse).meta({ description: 'Up to three designed voices, now your own.' }),
    seed: z.number().int().meta({ description: 'The seed used; change it for different voices.' }),
  }),
);

/** `GET /v3/voices/{voice_id}` (`VoiceDetailView` of voices/voice-views.ts). */
export const voiceDetailBody = dataEnvelope(
  z.object({
    voice_id: z.string(),
    name: z.string(),
    language: z.string().meta({ description: 'BCP-47 tag, e.g. `en-US`.' }),
    gender: z.string().optional().meta({ description: 'Absent for an own voice without one.' }),
    type: z.enum(VOICE_TYPES),
    support_pause: z.boolean(),
    support_locale: z.boolean(),
    support_interactive_avatar: z.boolean(),
    preview_audio_url: z
      .string()
      .optional()
      .meta({ description: 'Presigned URL of a short WAV preview; own voices have one once complete.' }),
    created_at: unixSeconds.optional().meta({ description: 'Own voices only.' }),
    status: z
      .enum(VOICE_STATUS)
      .optional()
      .meta({ description: 'Clones only: poll until `complete` or `failed`.' }),
    failure_message: z.string().optional().meta({ description: 'Only when `status` is `failed`.' }),
    failure_code: z.string().optional().meta({
      description:
        'Only when `status` is `failed`: why, as a code (`invalid_audio`, `engine_unavailable`, `clone_timeout`, `internal_error`).',
    }),
  }),
);

/** `POST /v3/voices/clone` (202). */
export const voiceCloneBody = dataEnvelope(
  z.object({
    voice_clone_id: z
      .string()
      .meta({ description: 'Poll `GET /v3/voices/{voice_clone_id}` until its `status` is `complete`.' }),
    status: z.enum(VOICE_STATUS),
  }),
);

/** `DELETE /v3/voices/{voice_id}`. */
export const voiceDeleteBody = dataEnvelope(
  z.object({ voice_id: z.string().meta({ description: 'The deleted voice.' }) }),
);

/** A word of spoken audio and when it is said (`WordTimestamp` of voices/speech-pipeline.ts). */
export const wordTimestampResponse = z.object({
  word: z.string(),
  start: z.number().meta({ description: 'Seconds from the start of the audio.' }),
  end: z.number().meta({ description: 'Seconds from the start of the audio.' }),
});

/** `POST /v3/voices/speech` (`SpeechResult` of voices/speech.ts). */
export const speechResponseBody = dataEnvelope(
  z.object({
    audio_url: z.string().meta({ description: 'Presigned URL of the WAV file.' }),
    duration: z.number().meta({ description: 'Seconds.' }),
    word_timestamps: z.array(wordTimestampResponse),
    request_id: z.string(),
    voice_id: z.string().meta({ description: 'The voice that spoke it.' }),
    engine: z.string().meta({ description: 'The speech engine that spoke it.' }),
    model_id: z
      .string()
      .nullable()
      .meta({ description: 'The engine model asked for; null for its default.' }),
  }),
);
