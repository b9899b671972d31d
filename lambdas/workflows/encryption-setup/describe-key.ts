/** Encryption setup, step 1: describe the customer key (exists, enabled, symmetric, this region). */
import { describeKeyStep, setupStateSchema } from '../../encryption/setup-steps.js';
import { taskHandler } from '../task-handler.js';

export const handler = taskHandler('DescribeKey', setupStateSchema, describeKeyStep);
