/** The Admit step of every concurrency-limited job workflow (`${TaskFunction_<Job>Admit}`): see jobs/job-steps.ts. */
import { admitHandler } from '../jobs/job-steps.js';
import { JOBS } from './jobs.js';

export const handler = admitHandler(JOBS);
