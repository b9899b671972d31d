/** Voice clone, step 1: measure the recording, derive the voice, speak its preview, complete. */
import { z } from 'zod';
import { buildVoiceClone } from '../../voices/voice-clones.js';
import { taskHandler } from '../task-handler.js';

export const cloneRef = { workspace_id: z.string().min(1), voice_id: z.string().min(1) };

export const handler = taskHandler('Build', z.object(cloneRef), buildVoiceClone);
