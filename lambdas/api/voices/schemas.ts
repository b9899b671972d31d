import { z } from 'zod';
import { SPEECH_ENGINE_NAMES } from '../../core/config.js';
import { limitParam, tokenParam } from '../../core/validation.js';
import { VOICE_GENDERS, VOICE_TYPES } from '../../voices/voice-views.js';

export const listVoicesQuery = z.strictObject({
  type: z
    .enum(VOICE_TYPES)
    .optional()
    .meta({ description: '`public` (stock voices) or `private` (your own); both when omitted' }),
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
  engine: z
    .enum(SPEECH_ENGINE_NAMES)
    .optional()
    .meta({ description: 'Only voices that this speech engine speaks' }),
  limit: limitParam(100, 20),
  token: tokenParam,
});
