/** Video render, step 1: the video starts processing; its avatars and voices are resolved. */
import { z } from 'zod';
import { prepare } from '../../videos/render-steps.js';
import { taskHandler } from '../task-handler.js';
import { videoRef } from './step-inputs.js';

export const handler = taskHandler('Prepare', z.object(videoRef), prepare);
