/** Encryption setup, step 1: describe the customer key (exists, enabled, symmetric, this region). */
import { describeKeyStep, setupStateSchema } from '../../encryption/setup-steps.js';
import { taskHandler } from '../../jobs/job-steps.js';

export const handler = taskHandler('DescribeKey', setupStateSchema, describeKeyStep);
