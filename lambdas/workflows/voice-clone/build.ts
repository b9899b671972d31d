/** Voice clone, step 1: measure the recording, derive the voice, speak its preview, complete. */
import { z } from 'zod';
import { buildVoiceClone } from '../../voices/clone-build.js';
import { taskHandler } from '../task-handler.js';
import { cloneRef } from './step-inputs.js';

export const handler = taskHandler('Build', z.object(cloneRef), buildVoiceClone);
