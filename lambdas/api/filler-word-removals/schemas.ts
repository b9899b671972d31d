import { z } from 'zod';
import { mediaInputSchema } from '../../assets/media-inputs.js';
import { outboundUrlParam, userText } from '../../core/validation.js';
import { FILLER_REMOVAL_STATUS } from '../../filler-removals/filler-removal-records.js';
import { dataEnvelope, unixSeconds } from '../pipeline/response-envelopes.js';

export const fillerRemovalIdPath = z.strictObject({ filler_word_removal_id: z.string().min(1) });

const shortText = (max: number) => z.string().max(max, { error: `must be at most ${max} characters` });

/** `POST /v3/filler-word-removals`: the reference's fields, and how to cut (this service's, optional). */
export const createFillerRemovalBody = z.strictObject({
  video: mediaInputSchema.meta({
    description:
      'The video (or audio) to clean: a URL, an asset, or inline. A video this service made (its `video_url`) is read where it is, with its stored words.',
  }),
  title: userText(shortText(255))
    .nullable()
    .optional()
    .meta({ description: 'Display title; `Filler Removal` when omitted.' }),
  callback_url: outboundUrlParam.nullable().optional(),
  callback_id: shortText(255).nullable().optional(),
  silence_threshold_ms: z
    .number({ error: 'must be a number of milliseconds' })
    .int({ error: 'must be a whole number of milliseconds' })
    .min(300, { error: 'must be at least 300 ms' })
    .max(10_000, { error: 'must be at most 10000 ms' })
    .optional()
    .meta({
      description:
        'Silences longer than this are shortened to 300 ms. Default 1000. This service’s extension.',
    }),
  filler_words: z
    .array(userText(z.string().trim().min(1, { error: 'must not be empty' }).max(50)), {
      error: 'must be an array of words',
    })
    .max(100, { error: 'must hold at most 100 words' })
    .optional()
    .meta({
      description:
        'The words to cut, replacing the language’s list (`um`, `uh`, `er`, `ah`, `hmm`, … for English). This service’s extension.',
    }),
  language: z
    .string()
    .regex(/^[A-Za-z]{2,3}(-[A-Za-z0-9]{2,8})*$/, {
      error: 'must be a BCP-47 language tag, e.g. en or en-US',
    })
    .optional()
    .meta({
      description:
        'The language spoken (picks the filler list, and helps recognition); heard when omitted. This service’s extension.',
    }),
});

/** A filler-word removal as GET answers it (`fillerRemovalView`). */
export const fillerRemovalResponse = z.object({
  id: z.string(),
  title: z.string().nullable(),
  status: z.enum(Object.values(FILLER_REMOVAL_STATUS)),
  progress: z.number().int().min(0).max(100),
  callback_id: z.string().nullable(),
  num_cuts: z.number().int().nullable().meta({
    description: 'Filler segments removed (silence-only trims are not counted); set once completed.',
  }),
  original_duration: z
    .number()
    .nullable()
    .meta({ description: 'Seconds of the source; set once completed.' }),
  output_duration: z
    .number()
    .nullable()
    .meta({ description: 'Seconds of the cleaned video; set once completed.' }),
  reduction_pct: z
    .number()
    .nullable()
    .meta({ description: 'Percentage of the source removed; set once completed.' }),
  video_url: z
    .string()
    .nullable()
    .meta({ description: 'The cleaned MP4 (presigned; re-fetch for a fresh link).' }),
  thumbnail_url: z.string().nullable(),
  failure_code: z.string().nullable(),
  failure_message: z.string().nullable(),
  engines: z.record(z.string(), z.string()).meta({
    description: 'The engines that did each part, and what could not be done (recognition `none: …`).',
  }),
  created_at: unixSeconds,
  completed_at: unixSeconds.nullable(),
});

export const fillerRemovalBody = dataEnvelope(fillerRemovalResponse);
