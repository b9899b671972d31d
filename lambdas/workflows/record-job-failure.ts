/** The failure step of every job workflow (`${TaskFunction_<Job>RecordFailure}`): see jobs/job-steps.ts. */
import { recordFailureHandler } from '../jobs/job-steps.js';
import { JOBS } from './jobs.js';

export const handler = recordFailureHandler(JOBS);
