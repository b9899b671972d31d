/**
 * Models: the response schemas of this area's routes (the request schemas live in lambdas/model-audio/,
 * lambdas/model-videos/ and lambdas/model-images/).
 */
import { z } from 'zod';
import { MODEL_VOICE_FAILURE_REASONS, MODEL_VOICE_STATUS } from '../../model-audio/model-voices.js';
import { MODEL_VOICE_MODES } from '../../model-audio/tts-text.js';
import { MODEL_IMAGE_MODES, MODEL_IMAGE_STATUS } from '../../model-images/model-image-records.js';
import { MODEL_VIDEO_MODES, MODEL_VIDEO_STATUS } from '../../model-videos/model-video-records.js';
import { dataEnvelope, listEnvelope, unixSeconds } from '../pipeline/response-envelopes.js';
import { wordTimestampResponse } from '../voices/schemas.js';

/** An audio voice as every voice route answers it (`ModelVoiceView` of model-audio/model-voices.ts). */
export const modelVoiceResponse = z.object({
  voice_id: z.string(),
  mode: z
    .enum(MODEL_VOICE_MODES)
    .meta({ description: '`instant` for an instant voice clone, `professional` for a professional one.' }),
  name: z.string(),
  language: z.string().optional().meta({
    description:
      'Primary language code (`en`); absent until known (an instant clone made without one gets the detected language once its recording passes every check).',
  }),
  status: z
    .enum(MODEL_VOICE_STATUS)
    .meta({ description: '`PENDING` while it is made or trained, then `ACTIVE` or `FAILED`.' }),
  created_at: unixSeconds,
  failure_reason: z
    .enum(MODEL_VOICE_FAILURE_REASONS)
    .optional()
    .meta({ description: 'Only when `status` is `FAILED`.' }),
  failure_message: z.string().optional().meta({ description: 'Only when `status` is `FAILED`.' }),
});
export const modelVoiceBody = dataEnvelope(modelVoiceResponse);
export const modelVoiceListBody = listEnvelope(modelVoiceResponse);

/** `DELETE /v3/models/audio/voices/{voice_id}`. */
export const modelVoiceDeleteBody = dataEnvelope(z.object({ status: z.literal('ok') }));

/** `POST /v3/models/audio/tts` (`SpeechFile` of model-audio/speech-responses.ts). */
export const ttsFileBody = dataEnvelope(
  z.object({
    audio_url: z.string().meta({ description: 'Presigned URL of the 44.1 kHz mono WAV file.' }),
    duration: z.number().meta({ description: 'Seconds.' }),
    word_timestamps: z.array(wordTimestampResponse),
  }),
);

export const modelVideoPath = z.strictObject({ video_id: z.string().min(1) });

/** `POST /v3/models/videos`: 202 with the video to poll. */
export const modelVideoCreatedBody = dataEnvelope(
  z.object({
    video_id: z.string().meta({ description: 'Poll GET /v3/models/videos/{video_id} with it.' }),
    status: z.enum(Object.values(MODEL_VIDEO_STATUS)),
  }),
);

/** A model video as every read answers it (`modelVideoView` of model-videos/model-video-views.ts). */
export const modelVideoBody = dataEnvelope(
  z.object({
    video_id: z.string(),
    status: z.enum(Object.values(MODEL_VIDEO_STATUS)).meta({
      description:
        '`pending`, `processing`, then `completed` or `failed` (`cancelled` is named by the contract; nothing cancels one yet).',
    }),
    model: z.string().meta({ description: 'The model asked for (`service-video-1`).' }),
    mode: z.enum(MODEL_VIDEO_MODES),
    created_at: unixSeconds,
    completed_at: unixSeconds.nullable(),
    aspect_ratio: z.string().nullable().meta({
      description:
        'The ratio filmed; `adaptive` until the job has read the picture it follows, then the ratio it chose.',
    }),
    resolution: z.string(),
    duration: z.number().int().nullable().meta({ description: 'Seconds; when completed.' }),
    width: z.number().int().nullable().meta({ description: 'Pixels; when completed.' }),
    height: z.number().int().nullable().meta({ description: 'Pixels; when completed.' }),
    seed: z.number().int().nullable().meta({ description: 'The seed filmed with; when completed.' }),
    video_url: z.string().nullable().meta({
      description: 'Presigned download URL of the MP4 when completed; read the video again for a fresh one.',
    }),
    timings: z
      .object({ inference: z.number() })
      .nullable()
      .meta({ description: 'Null: the engines report no inference time.' }),
    callback_id: z.string().nullable(),
    failure_code: z.string().optional().meta({
      description:
        'Only when failed: `engine_unavailable` (no engine of this deployment can make it; the message names the setting), `invalid_input`, `media_generation_failed`, `generation_timeout`, `internal_error`.',
    }),
    failure_message: z.string().nullable(),
  }),
);

export const modelImagePath = z.strictObject({ generation_id: z.string().min(1) });

/** `POST /v3/models/images`: 202 with the generation to poll. */
export const modelImageCreatedBody = dataEnvelope(
  z.object({
    generation_id: z.string().meta({ description: 'Poll GET /v3/models/images/{generation_id} with it.' }),
    status: z.enum(Object.values(MODEL_IMAGE_STATUS)),
  }),
);

/** An image generation as every read answers it (`modelImageView` of model-images/model-image-views.ts). */
export const modelImageBody = dataEnvelope(
  z.object({
    generation_id: z.string(),
    status: z.enum(Object.values(MODEL_IMAGE_STATUS)).meta({
      description:
        '`pending` until every image is made, then `completed` or `failed` (`cancelled` is named by the contract; nothing cancels one yet).',
    }),
    model: z.string().meta({ description: 'The model asked for (`service-image-1`).' }),
    mode: z.enum(MODEL_IMAGE_MODES),
    num_images: z.number().int(),
    aspect_ratio: z
      .string()
      .nullable()
      .meta({ description: "The ratio asked for; null: the reference image's." }),
    created_at: unixSeconds,
    completed_at: unixSeconds.nullable(),
    images: z
      .array(
        z.object({
          image_id: z.string(),
          image_url: z
            .string()
            .meta({ description: 'Presigned PNG; read the generation again for a fresh one.' }),
          width: z.number().int(),
          height: z.number().int(),
          seed: z.number().int(),
        }),
      )
      .meta({
        description: 'Exactly `num_images` images, in order, once completed; empty before and when failed.',
      }),
    failure_code: z.string().optional().meta({
      description:
        'Only when failed: `engine_unavailable` (no image engine; the message names the setting), `invalid_input`, `media_generation_failed`, `generation_timeout`, `internal_error`.',
    }),
    failure_message: z.string().nullable(),
  }),
);
