/** Encryption setup, Catch path: records `failed` with the per-step report. */
import { failedSetupStateSchema, recordSetupFailure } from '../../encryption/setup-steps.js';
import { taskHandler } from '../../jobs/job-steps.js';

export const handler = taskHandler('RecordFailure', failedSetupStateSchema, recordSetupFailure);
