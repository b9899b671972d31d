/** Audio voice training, Catch path: FAILED with its `failure_reason`, recordings removed. */
import { z } from 'zod';
import { recordTrainingFailure } from '../../model-audio/training-outcomes.js';
import { failureOf } from '../job-failure.js';
import { taskHandler } from '../task-handler.js';
import { trainingRef } from './step-inputs.js';

export const handler = taskHandler(
  'RecordFailure',
  z.object({
    ...trainingRef,
    step: z.string(),
    failure: z.object({ Error: z.string().optional(), Cause: z.string().optional() }),
  }),
  (input) => recordTrainingFailure(input, failureOf(input.failure, input.step), input.step),
);
