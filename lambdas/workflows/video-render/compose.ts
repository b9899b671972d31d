/** Video render, step 3: ffmpeg composes the scenes; outputs are stored under the video. */
import { z } from 'zod';
import { compose } from '../../videos/render-steps.js';
import { taskHandler } from '../task-handler.js';
import { preparedScenes, speechResult, videoRef } from './step-inputs.js';

export const handler = taskHandler(
  'Compose',
  z.object({ ...videoRef, prepared: preparedScenes, speech: speechResult }),
  (input) => compose(input, input.prepared, input.speech),
);
