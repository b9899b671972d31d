/** Video render, step 2: each scene's script becomes speech (WAV) with word timings. */
import { z } from 'zod';
import { synthesizeSpeech } from '../../videos/render-steps.js';
import { taskHandler } from '../task-handler.js';
import { preparedScenes, videoRef } from './step-inputs.js';

export const handler = taskHandler(
  'SynthesizeSpeech',
  z.object({ ...videoRef, prepared: preparedScenes }),
  (input) => synthesizeSpeech(input, input.prepared),
);
