/**
 * Step Functions task functions: the state's input, checked with zod, in; the step's result out.
 *
 * How a failure crosses Step Functions: a state keeps only an error's name and message (as `Error`
 * and the `errorMessage` of `Cause`), so a `JobFailure` (any engine error included) leaves a step as
 * an error named `JobFailure` whose message starts with its `failure_code`; the workflow's Catch hands
 * both to the failure step, which reads them back with `failureOf`. Any other error is a fault of the
 * service (a crash, a deadline, an AWS error that outlived its retries) and is worded by the job's
 * definition, never shown raw. Errors are logged here without the input, which may carry customer data.
 */
import { z } from 'zod';
import { JobFailure, type JobFailureDetails } from '../core/errors.js';
import { logger } from '../core/observability.js';
import { type Admission, admitJob } from './job-admission.js';
import type { AnyJobDefinition, JobDefinition, JobRefSchema, JobStepContract } from './job-definition.js';
import { failJob } from './job-lifecycle.js';

export type TaskHandler<Result> = (event: unknown) => Promise<Result>;

/** The name a `JobFailure` carries through Step Functions (`Error` of a caught state). */
export const JOB_FAILURE_ERROR = 'JobFailure';

/** The error a step throws for a `JobFailure`: the failure code travels at the start of the message. */
class JobFailureOnTheWire extends Error {
  override readonly name = JOB_FAILURE_ERROR;
}

export function taskHandler<Schema extends z.ZodType, Result>(
  step: string,
  schema: Schema,
  run: (input: z.output<Schema>) => Promise<Result>,
): TaskHandler<Result> {
  return async (event) => {
    const input = schema.parse(event);
    try {
      return await run(input);
    } catch (error) {
      logger.warn('Workflow step failed', {
        step,
        errorName: (error as Error).name,
        errorMessage: (error as Error).message,
      });
      if (error instanceof JobFailure) {
        throw new JobFailureOnTheWire(`${error.failureCode}: ${error.message}`, { cause: error });
      }
      throw error;
    }
  };
}

/** What a Catch puts at its `ResultPath`: the state's `Error` and `Cause`. */
export const caughtErrorSchema = z.object({ Error: z.string().optional(), Cause: z.string().optional() });
export type CaughtError = z.infer<typeof caughtErrorSchema>;

const FAILURE_MESSAGE = /^([a-z][a-z0-9_]*): ([\s\S]+)$/;

/** The job's failure from the error caught at step `step`. */
export function failureOf(
  caught: CaughtError | undefined,
  step: string,
  wording: AnyJobDefinition['wording'],
): JobFailureDetails {
  // The state's own deadline, or the function's (Lambda reports its timeout as `Sandbox.Timedout`).
  if (caught?.Error === 'States.Timeout' || caught?.Error === 'Sandbox.Timedout')
    return wording.timeout(step);
  if (caught?.Error === JOB_FAILURE_ERROR && caught.Cause) {
    let errorMessage: unknown;
    try {
      errorMessage = (JSON.parse(caught.Cause) as { errorMessage?: unknown }).errorMessage;
    } catch {
      errorMessage = undefined;
    }
    const match = typeof errorMessage === 'string' ? FAILURE_MESSAGE.exec(errorMessage) : null;
    if (match) return { code: match[1] as string, message: match[2] as string };
  }
  return wording.fault(step, caught?.Error ?? 'unknown error');
}

/**
 * The task function handler of one step of a job, exported under the step's name by its steps module:
 * `export const Prepare = /* @__PURE__ *\/ jobStep(videoRenderJob, 'Prepare', prepare)`. One call per
 * step, marked pure, so that what one step's function can reach is that step's code only (esbuild drops
 * the others; the deploy preflight checks each function's role against the AWS calls its code can
 * reach: lib/access/bundle-calls.ts). The input is parsed with the step's schema and the output checked
 * against its declared one, so a step cannot hand the next one what the workflow does not describe.
 */
export function jobStep<
  RefSchema extends JobRefSchema,
  Rec,
  Steps extends Record<string, JobStepContract>,
  Step extends keyof Steps & string,
>(
  job: JobDefinition<RefSchema, Rec, Steps>,
  step: Step,
  implementation: (input: z.output<Steps[Step]['input']>) => Promise<z.input<Steps[Step]['output']>>,
): TaskHandler<z.output<Steps[Step]['output']>> {
  const contract = job.steps[step];
  if (!contract) throw new Error(`Job ${job.name} has no step ${step}`);
  return taskHandler(
    step,
    contract.input,
    async (input) =>
      contract.output.parse(await implementation(input as z.output<Steps[Step]['input']>)) as z.output<
        Steps[Step]['output']
      >,
  );
}

/** The name of the failure step of every job workflow (`${TaskFunction_<taskPrefix>RecordFailure}`). */
export const RECORD_FAILURE_STEP = 'RecordFailure';

/** Input of the failure step: which job, its ref fields, the step that failed and what it threw. */
export const recordFailureInputSchema = z.looseObject({
  job: z.string(),
  step: z.string(),
  failure: caughtErrorSchema,
});

/**
 * The failure step of every job workflow (the Catch path): the job fails with the reason its step
 * gave (or the job's wording of a timeout or fault), and its terminal bookkeeping runs.
 */
export function recordFailureHandler(jobs: readonly AnyJobDefinition[]): TaskHandler<null> {
  const byName = new Map(jobs.map((job) => [job.name, job]));
  return taskHandler(RECORD_FAILURE_STEP, recordFailureInputSchema, async (input) => {
    const job = byName.get(input.job);
    if (!job) throw new Error(`No job is defined by the name ${input.job}`);
    await failJob(job, job.ref.parse(input), failureOf(input.failure, input.step, job.wording));
    return null;
  });
}

/**
 * The name of the first step of every concurrency-limited job workflow
 * (`${TaskFunction_<taskPrefix>Admit}`): whether the job may run now (jobs/job-admission.ts).
 */
export const ADMIT_STEP = 'Admit';

/** Input of the Admit step: which job, and its ref fields. */
export const admitInputSchema = z.looseObject({ job: z.string() });

/** The Admit step of every concurrency-limited job workflow. */
export function admitHandler(jobs: readonly AnyJobDefinition[]): TaskHandler<Admission> {
  const byName = new Map(jobs.map((job) => [job.name, job]));
  return taskHandler(ADMIT_STEP, admitInputSchema, async (input) => {
    const job = byName.get(input.job);
    if (!job) throw new Error(`No job is defined by the name ${input.job}`);
    return admitJob(job, job.ref.parse(input));
  });
}
