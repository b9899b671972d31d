/** Video render, Catch path: failed with a reason, credits refunded, `avatar_video.fail` published. */
import { z } from 'zod';
import { recordFailure } from '../../videos/render-steps.js';
import { failureOf } from '../job-failure.js';
import { taskHandler } from '../task-handler.js';
import { speechResult, videoRef } from './step-inputs.js';

export const handler = taskHandler(
  'RecordFailure',
  z.object({
    ...videoRef,
    step: z.string(),
    failure: z.object({ Error: z.string().optional(), Cause: z.string().optional() }),
    speech: speechResult,
  }),
  (input) => recordFailure(input, failureOf(input.failure, input.step), input.speech),
);
