/** Voice clone, Catch path: failed with a reason, clone slot given back, `voice_clone.fail` published. */
import { z } from 'zod';
import { recordCloneFailure } from '../../voices/clone-outcomes.js';
import { failureOf } from '../job-failure.js';
import { taskHandler } from '../task-handler.js';
import { cloneRef } from './step-inputs.js';

export const handler = taskHandler(
  'RecordFailure',
  z.object({
    ...cloneRef,
    step: z.string(),
    failure: z.object({ Error: z.string().optional(), Cause: z.string().optional() }),
  }),
  (input) => {
    const failure = failureOf(input.failure, input.step);
    // failureOf speaks of renders and videos; a clone's own words for the same two cases.
    if (failure.code === 'render_timeout') {
      return recordCloneFailure(input, {
        code: 'clone_timeout',
        message: `The ${input.step} step took longer than allowed and was stopped; the clone slot is free again.`,
      });
    }
    if (failure.code === 'internal_error') {
      return recordCloneFailure(input, {
        code: 'internal_error',
        message: `The ${input.step} step failed unexpectedly; the clone slot is free again. Clone the voice again; if it keeps failing, report the voice id.`,
      });
    }
    return recordCloneFailure(input, failure);
  },
);
