import { z } from 'zod';
import { mediaInputSchema } from '../../assets/media-inputs.js';
import { BULK_STATUS } from '../../batches/bulk-status.js';
import { idListParam, limitParam, outboundUrlParam, tokenParam, userText } from '../../core/validation.js';
import { LIPSYNC_FPS_MODES, LIPSYNC_MODES, LIPSYNC_STATUS } from '../../lipsyncs/lipsync-records.js';
import { batchViewBody, bulkStatusListBody } from '../batch-responses.js';
import { dataEnvelope, listEnvelope, unixSeconds } from '../pipeline/response-envelopes.js';

export const lipsyncIdPath = z.strictObject({ lipsync_id: z.string().min(1) });

export const listLipsyncsQuery = z.strictObject({ limit: limitParam(100, 10), token: tokenParam });

export const lipsyncStatusesQuery = z
  .strictObject({ lipsync_ids: idListParam, batch_ids: idListParam })
  .refine((query) => query.lipsync_ids.length + query.batch_ids.length > 0, {
    error: 'name at least one id in lipsync_ids or batch_ids',
    path: ['lipsync_ids'],
  });

const seconds = z.number({ error: 'must be a number of seconds' }).min(0, { error: 'must not be negative' });
const shortText = (max: number) => z.string().max(max, { error: `must be at most ${max} characters` });

/** One lipsync request: `POST /v3/lipsyncs`, `POST /v3/overdubs`, and each payload of a batch. */
export const createLipsyncBody = z.strictObject({
  video: mediaInputSchema.meta({
    description:
      'The video whose audio is replaced and whose lips are re-animated: a URL, an asset, or inline.',
  }),
  audio: mediaInputSchema.meta({
    description: 'The new audio (any audio file, or a video whose soundtrack is used).',
  }),
  title: userText(shortText(255)).optional(),
  mode: z.enum(LIPSYNC_MODES).optional().meta({
    description:
      '`speed` (default): mouth shapes from the audio’s loudness. `precision`: from its words, when speech recognition is configured or the words are known (else as speed, said in `engines`); twice the credits; fails with `no_face` when no face is found.',
  }),
  start_time: seconds
    .optional()
    .meta({ description: 'Only the part from here is re-animated and re-dubbed.' }),
  end_time: seconds
    .optional()
    .meta({ description: 'Only the part until here is re-animated and re-dubbed.' }),
  fps_mode: z.enum(LIPSYNC_FPS_MODES).optional(),
  enable_caption: z.boolean().optional().meta({
    description:
      'Captions of the audio’s words, burned in and as SRT (`caption_url`); 400 when nothing can hear the words.',
  }),
  keep_the_same_format: z.boolean().optional(),
  enable_dynamic_duration: z.boolean().optional().meta({
    description:
      'Default true: a longer audio plays whole, the picture looping until it ends (when the part re-dubbed runs to the video’s end); false: the audio is cut (`audio_cut_seconds`).',
  }),
  disable_music_track: z.boolean().optional(),
  enable_speech_enhancement: z.boolean().optional(),
  enable_watermark: z.boolean().optional(),
  folder_id: z.string().min(1).max(128).optional(),
  callback_url: outboundUrlParam.optional(),
  callback_id: shortText(255).optional(),
});

export const updateLipsyncBody = z.strictObject({ title: userText(shortText(255).min(1)) });

export const createdLipsyncBody = dataEnvelope(
  z.object({ lipsync_id: z.string().meta({ description: 'Poll GET /v3/lipsyncs/{lipsync_id}.' }) }),
);

const lipsyncResponse = z.object({
  id: z.string(),
  title: z.string(),
  status: z.enum(Object.values(LIPSYNC_STATUS)),
  mode: z.enum(LIPSYNC_MODES),
  duration: z.number().nullable().meta({ description: 'Seconds of the output video; null until completed.' }),
  video_url: z.string().nullable(),
  audio_url: z.string().nullable().meta({ description: 'The new soundtrack alone (MP3).' }),
  caption_url: z.string().nullable().meta({ description: 'SRT of the audio’s words, when they were known.' }),
  vtt_caption_url: z.string().nullable(),
  callback_id: z.string().nullable(),
  folder_id: z.string().nullable(),
  batch_id: z.string().nullable(),
  progress: z.number().int().min(0).max(100),
  audio_cut_seconds: z
    .number()
    .nullable()
    .meta({ description: 'Seconds of the audio left out (0 when none); null until known.' }),
  engines: z
    .record(z.string(), z.string())
    .meta({ description: 'What did each part, and what was found (lips, visemes, captions, audio).' }),
  failure_code: z.string().nullable(),
  failure_message: z.string().nullable(),
  created_at: unixSeconds,
  completed_at: unixSeconds.nullable(),
});

export const lipsyncBody = dataEnvelope(lipsyncResponse);
export const lipsyncListBody = listEnvelope(lipsyncResponse);
export const lipsyncDeletedBody = dataEnvelope(z.object({ id: z.string() }));
export const lipsyncStatusListBody = bulkStatusListBody(
  [BULK_STATUS.queued, BULK_STATUS.processing, BULK_STATUS.completed, BULK_STATUS.failed],
  'The lipsync id',
);

/**
 * `POST /v3/lipsyncs/batches`. Each payload is checked as `POST /v3/lipsyncs` checks its body; a bad
 * one is 400 with `param: "lipsyncs"` and the payload's index and field in the message.
 */
export const createLipsyncBatchBody = z.strictObject({
  lipsyncs: z
    .array(z.unknown(), { error: 'must be an array of lipsync requests' })
    .min(1, { error: 'must hold 1 to 100 lipsync requests' })
    .max(100, { error: 'must hold 1 to 100 lipsync requests' })
    .superRefine((payloads, context) => {
      payloads.forEach((payload, index) => {
        const parsed = createLipsyncBody.safeParse(payload);
        if (parsed.success) return;
        const issue = parsed.error.issues[0];
        const field = issue?.path.length ? `.${issue.path.join('.')}` : '';
        context.addIssue({
          code: 'custom',
          message: `lipsyncs[${index}]${field}: ${issue?.message ?? 'is invalid'}`,
        });
      });
    })
    .transform((payloads) => payloads.map((payload) => createLipsyncBody.parse(payload)))
    .meta({ description: 'Each shaped like the body of POST /v3/lipsyncs.' }),
  title: userText(shortText(255)).optional(),
  callback_url: outboundUrlParam.optional(),
});

export const lipsyncBatchCreatedBody = dataEnvelope(z.object({ batch_id: z.string() }));
export const lipsyncBatchBody = batchViewBody(
  [BULK_STATUS.queued, BULK_STATUS.processing, BULK_STATUS.completed, BULK_STATUS.failed],
  'The lipsync id',
);

// ---------------------------------------------------------------------------------------------
// Overdubs: the same records, the spec's Overdub shape.

export const overdubIdPath = z.strictObject({ overdub_id: z.string().min(1) });

export const createdOverdubBody = dataEnvelope(
  z.object({ overdub_id: z.string().meta({ description: 'Poll GET /v3/overdubs/{overdub_id}.' }) }),
);

const overdubResponse = z.object({
  id: z.string(),
  status: z.enum(Object.values(LIPSYNC_STATUS)),
  title: z.string(),
  duration: z.number().nullable(),
  video_url: z.string().nullable(),
  callback_id: z.string().nullable(),
  created_at: unixSeconds,
  failure_message: z.string().nullable(),
});
export const overdubBody = dataEnvelope(overdubResponse);
export const overdubListBody = listEnvelope(overdubResponse);
