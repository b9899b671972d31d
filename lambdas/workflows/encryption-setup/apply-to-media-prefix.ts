/** Encryption setup, step 3: S3 writes under the workspace's media prefix with the key; the key becomes active. */
import { applyToMediaPrefixStep, setupStateSchema } from '../../encryption/setup-steps.js';
import { taskHandler } from '../../jobs/job-steps.js';

export const handler = taskHandler('ApplyToMediaPrefix', setupStateSchema, applyToMediaPrefixStep);
