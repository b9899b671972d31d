/** Encryption setup, Catch path: records `failed` with the per-step report. */
import { recordSetupFailure, failedSetupStateSchema } from '../../encryption/setup-steps.js';
import { taskHandler } from '../task-handler.js';

export const handler = taskHandler('RecordFailure', failedSetupStateSchema, recordSetupFailure);
