import { z } from 'zod';
import { mediaInputSchema } from '../../assets/media-inputs.js';
import { userText } from '../../core/validation.js';
import { END_REASONS, STREAM_STATUS, STREAM_TYPES } from '../../realtime/stream-model.js';
import { dataEnvelope, unixSeconds } from '../pipeline/response-envelopes.js';

export const streamIdPath = z.strictObject({ stream_id: z.string().min(1) });

const HEX_COLOR = /^#[0-9a-fA-F]{6}$/;

export const createStreamBody = z.strictObject({
  type: z.enum(STREAM_TYPES, { error: `must be one of: ${STREAM_TYPES.join(', ')}` }).meta({
    description:
      '`tts`: speaks `text` given here, then ends. `text_stream`: speaks text sent later with POST /v3/avatar-realtime/{stream_id}/text, sentence by sentence as it arrives. `audio`: shows the look speaking `audio` (its lips follow the loudness), then ends.',
  }),
  avatar_id: z.string().min(1, { error: 'must not be empty' }).meta({
    description: 'The look that speaks (GET /v3/avatars/looks).',
  }),
  voice_id: z
    .string()
    .min(1, { error: 'must not be empty' })
    .optional()
    .meta({ description: "The voice of `tts` and `text_stream` streams; default: the look's own voice." }),
  text: userText(
    z
      .string()
      .min(1, { error: 'must not be empty' })
      .max(20_000, { error: 'must be at most 20000 characters' }),
  )
    .optional()
    .meta({ description: '`tts` only: what the avatar says.' }),
  audio: mediaInputSchema.optional().meta({ description: '`audio` only: the recording the avatar speaks.' }),
  speed: z.number().min(0.5).max(2).optional().meta({ description: 'Speaking rate multiplier, 0.5 to 2.' }),
  pitch: z.number().min(-50).max(50).optional().meta({ description: 'Pitch offset, -50 to 50.' }),
  backdrop_color: z
    .string()
    .regex(HEX_COLOR, { error: 'must be a colour as #rrggbb' })
    .optional()
    .meta({ description: 'The colour behind the presenter, `#rrggbb`.' }),
});

export const streamTextBody = z.strictObject({
  delta: userText(z.string().max(20_000, { error: 'must be at most 20000 characters' })).meta({
    description:
      'More text, appended to what came before; each complete sentence is spoken as soon as it is in.',
  }),
  final: z.boolean().optional().meta({
    description: 'No more text follows: the rest is spoken and the stream ends. Text after it: 410.',
  }),
});

export const streamResponse = z.object({
  stream_id: z.string(),
  type: z.enum(STREAM_TYPES),
  status: z.enum(Object.values(STREAM_STATUS)),
  avatar_id: z.string(),
  voice_id: z.string().nullable(),
  hls_url: z.string().meta({
    description:
      'The live HLS playlist (a presigned URL; every segment in it is presigned too). It grows while the stream is live and ends with #EXT-X-ENDLIST.',
  }),
  duration: z.number().meta({ description: 'Seconds of stream published so far.' }),
  error_message: z.string().nullable(),
  end_reason: z.enum(Object.values(END_REASONS)).nullable(),
  created_at: unixSeconds,
  ended_at: unixSeconds.nullable(),
});

export const streamBody = dataEnvelope(streamResponse);
