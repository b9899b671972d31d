/** Models: the response schemas of this area's routes (the request schemas live in lambdas/model-audio/). */
import { z } from 'zod';
import { MODEL_VOICE_FAILURE_REASONS, MODEL_VOICE_STATUS } from '../../model-audio/model-voices.js';
import { MODEL_VOICE_MODES } from '../../model-audio/tts-text.js';
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
