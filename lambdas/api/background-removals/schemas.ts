import { z } from 'zod';
import { mediaInputSchema } from '../../assets/media-inputs.js';
import {
  BACKGROUND_REMOVAL_LAYERS,
  BACKGROUND_REMOVAL_STATUS,
} from '../../background-removals/background-removal-records.js';
import { limitParam, tokenParam, userText } from '../../core/validation.js';
import { dataEnvelope, listEnvelope, unixSeconds } from '../pipeline/response-envelopes.js';

export const backgroundRemovalIdPath = z.strictObject({ job_id: z.string().min(1) });

export const listBackgroundRemovalsQuery = z.strictObject({ limit: limitParam(100, 10), token: tokenParam });

export const createBackgroundRemovalBody = z.strictObject({
  video: mediaInputSchema.meta({
    description:
      'The video to separate (MP4, MOV, WebM...; at most 180 s): a URL, an asset, or inline base64. Pictures are not taken.',
  }),
  layers: z
    .array(
      z.enum(BACKGROUND_REMOVAL_LAYERS, { error: `must be one of: ${BACKGROUND_REMOVAL_LAYERS.join(', ')}` }),
      {
        error: 'must be an array of layer names',
      },
    )
    .min(1, { error: 'must name at least one layer' })
    .max(BACKGROUND_REMOVAL_LAYERS.length, {
      error: `must name at most ${BACKGROUND_REMOVAL_LAYERS.length} layers`,
    })
    .optional()
    .meta({
      description:
        '`foreground` (the person on transparency: WebM, VP9 with alpha), `mask` (the matte, white on black: MP4), `background` (the scene without the person: MP4). Defaults to all three.',
    }),
  title: userText(z.string().max(255, { error: 'must be at most 255 characters' }))
    .nullable()
    .optional(),
  request_id: z
    .string()
    .min(1, { error: 'must not be empty' })
    .max(255, { error: 'must be at most 255 characters' })
    .nullable()
    .optional()
    .meta({
      description:
        'Your dedup key: another request of the workspace with the same `request_id` answers the original removal (same id, status and charge), whatever its body.',
    }),
});

/** A background removal as every read answers it (`backgroundRemovalView`). */
export const backgroundRemovalResponse = z.object({
  id: z.string().meta({ description: 'Poll GET /v3/background-removals/{id} with it.' }),
  title: z.string().nullable(),
  status: z.enum(Object.values(BACKGROUND_REMOVAL_STATUS)),
  requested_layers: z.array(z.enum(BACKGROUND_REMOVAL_LAYERS)),
  layers: z
    .partialRecord(z.enum(BACKGROUND_REMOVAL_LAYERS), z.string())
    .meta({ description: 'Each layer made, to a presigned download URL; empty until completed.' }),
  progress: z.number().int().min(0).max(100),
  duration: z.number().nullable().meta({ description: 'Seconds of video processed; null until completed.' }),
  error: z
    .string()
    .nullable()
    .meta({ description: 'Why it failed (= failure_message); null unless failed.' }),
  failure_code: z.string().nullable(),
  failure_message: z.string().nullable(),
  request_id: z.string().nullable(),
  created_at: unixSeconds,
  completed_at: unixSeconds.nullable(),
});

export const backgroundRemovalBody = dataEnvelope(backgroundRemovalResponse);
export const backgroundRemovalListBody = listEnvelope(backgroundRemovalResponse);
export const backgroundRemovalDeletedBody = dataEnvelope(
  z.object({ id: z.string(), deleted: z.literal(true) }),
);
