/** The state the audio voice training workflow passes to its steps. */
import { z } from 'zod';

export const trainingRef = {
  workspace_id: z.string().min(1),
  voice_id: z.string().min(1),
  training_id: z.string().min(1),
};
