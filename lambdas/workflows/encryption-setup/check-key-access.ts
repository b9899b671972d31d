/** Encryption setup, step 2: generate and decrypt a data key, encrypt and decrypt test data with the key. */
import { checkKeyAccessStep, setupStateSchema } from '../../encryption/setup-steps.js';
import { taskHandler } from '../../jobs/job-steps.js';

export const handler = taskHandler('CheckKeyAccess', setupStateSchema, checkKeyAccessStep);
