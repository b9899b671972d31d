/** Audio voice training, step 1: measure the recordings, derive the voice, check it speaks, ACTIVE. */
import { z } from 'zod';
import { trainModelVoice } from '../../model-audio/voice-training.js';
import { taskHandler } from '../task-handler.js';
import { trainingRef } from './step-inputs.js';

export const handler = taskHandler('Train', z.object(trainingRef), trainModelVoice);
