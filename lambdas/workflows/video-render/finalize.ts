/** Video render, step 4: completed, credits settled, `avatar_video.success` published. */
import { z } from 'zod';
import { finalize } from '../../videos/render-steps.js';
import { taskHandler } from '../task-handler.js';
import { composeResult, speechResult, videoRef } from './step-inputs.js';

export const handler = taskHandler(
  'Finalize',
  z.object({ ...videoRef, speech: speechResult, composed: composeResult }),
  (input) => finalize(input, input.speech, input.composed),
);
