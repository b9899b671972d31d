import { z } from 'zod';
import { SOUND_TYPES } from '../../catalog/sound-catalog.js';
import { listEnvelope } from '../pipeline/response-envelopes.js';

/** A track as the sounds search answers it (`SoundView` of audio/sounds.ts). */
export const soundResponse = z.object({
  id: z.string(),
  name: z.string(),
  description: z.string().meta({ description: 'What the track was indexed under (the search matches it).' }),
  type: z.enum(SOUND_TYPES),
  audio_url: z.string().meta({ description: 'Pre-signed download URL of the MP3 file; expires.' }),
  duration: z.number().nonnegative().meta({ description: 'Seconds.' }),
  score: z.number().min(0).max(1).meta({ description: 'Relevance to `query`, 0 to 1; higher is closer.' }),
  peak_offset: z
    .number()
    .nonnegative()
    .nullable()
    .meta({ description: 'Sound effects: seconds to the loudest moment; null for music.' }),
  placement: z
    .enum(['hit', 'riser', 'bed'])
    .nullable()
    .meta({ description: 'Sound effects: how to place it; null for music.' }),
  tags: z.array(z.string()),
  bpm: z
    .number()
    .positive()
    .optional()
    .meta({ description: 'Music: tempo in beats per minute, when steady.' }),
});
export const soundListBody = listEnvelope(soundResponse);
