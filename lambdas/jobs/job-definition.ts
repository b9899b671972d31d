/**
 * A job type, defined once (docs/architecture.md, "Jobs"): its record and how it ends, its workflow
 * and the contracts of its steps, its failure wording, its outcome events, how it is charged, whether
 * it counts toward a batch and what it gives back when it ends. The framework (`job-lifecycle.ts`)
 * owns everything that is the same for every job: starting the workflow idempotently, the failure
 * step, terminal bookkeeping (credits, events, batch counters), and finishing a job that a crash or a
 * restart interrupted. A job type supplies its domain steps (`jobStep`) and nothing else.
 *
 * A definition is light: it is read by the API functions that create jobs, the failure step, the CDK
 * stack and the local stack, so it must not import engines. The steps live in their own module
 * (`stepsModule`), which only the step functions bundle.
 */
import type { z } from 'zod';
import { type JobBilling, reservationOf } from '../billing/credits.js';
import type { JobFailureDetails } from '../core/errors.js';
import type { ItemKey } from '../core/repository.js';
import type { EventType } from '../events/event-types.js';
import type { TaskDeployment } from './task-deployment.js';

/** Where a job stands, whatever its own statuses are called. */
export const JOB_OUTCOME = { running: 'running', succeeded: 'succeeded', failed: 'failed' } as const;
export type JobOutcome = (typeof JOB_OUTCOME)[keyof typeof JOB_OUTCOME];

/** The fields that identify one run of a job: the execution's input, and part of every step's input. */
export type JobRefSchema = z.ZodObject<{ workspace_id: z.ZodString }>;

/**
 * A step of the workflow: the Task state whose Resource is `${TaskFunction_<taskPrefix><step>}`.
 * A test checks each state's `Parameters` and `ResultPath` against these schemas.
 */
export interface JobStepContract<Input extends z.ZodType = z.ZodType, Output extends z.ZodType = z.ZodType> {
  description: string;
  /** The state's `Parameters`, checked when the step starts. */
  input: Input;
  /** What the step returns to its `ResultPath`; `z.null()` where the state discards it (`ResultPath: null`). */
  output: Output;
  deployment: TaskDeployment;
}

export interface JobRecordAccess<Ref, Rec> {
  /** The record this run works on, read consistently; undefined once deleted (or superseded by a rerun). */
  get(ref: Ref): Promise<Rec | undefined>;
  outcome(record: Rec): JobOutcome;
  /** Records the failure unless the job ended meanwhile (a conditional write): the failed record, else undefined. */
  fail(record: Rec, failure: JobFailureDetails): Promise<Rec | undefined>;
}

/** What the user reads when a job failed for no reason of theirs. */
export interface JobFailureWording {
  /** A step stopped by its deadline. */
  timeout(step: string): JobFailureDetails;
  /** A step failed by a fault of the service (`error`: the error's name): a crash, or an AWS error that outlived its retries. */
  fault(step: string, error: string): JobFailureDetails;
  /** The workflow could not be started. */
  notStarted: JobFailureDetails;
}

/**
 * The wording of a paid job's failures that are no fault of the user (every one returns its credits):
 * `The <step> step took longer than allowed …; its credits were returned. <faster>`, and so on.
 */
export function refundedJobWording(wording: {
  codes: { timeout: string; internalError: string };
  /** The job as a sentence's subject: `The lipsync`. */
  job: string;
  /** What to do again: `Create the lipsync again`. */
  again: string;
  /** What to do again when it never started, if shorter: `Create it again`. @default again */
  startAgain?: string;
  /** What to report: `its id`, `the video_translation_id`. */
  report: string;
  /** How it would take less time: `A shorter video translates faster.` */
  faster: string;
}): JobFailureWording {
  return {
    timeout: (step) => ({
      code: wording.codes.timeout,
      message: `The ${step} step took longer than allowed and was stopped; its credits were returned. ${wording.faster}`,
    }),
    fault: (step) => ({
      code: wording.codes.internalError,
      message: `The ${step} step failed unexpectedly; its credits were returned. ${wording.again}; if it keeps failing, report ${wording.report}.`,
    }),
    notStarted: {
      code: wording.codes.internalError,
      message: `${wording.job} could not be started; its credits were returned. ${wording.startAgain ?? wording.again}.`,
    },
  };
}

export interface JobOutcomeEvent<Rec> {
  /**
   * The event type; a job whose records are of kinds with event types of their own (avatar looks: photo,
   * prompt, digital twin) picks the record's (`byRecord`) out of those it names (`all`).
   */
  type: EventType | { byRecord(record: Rec): EventType; all: readonly EventType[] };
  data(record: Rec): Promise<Record<string, unknown>> | Record<string, unknown>;
}

/** The type of the outcome event of `record`. */
export function outcomeEventType<Rec>(event: JobOutcomeEvent<Rec>, record: Rec): EventType {
  return typeof event.type === 'string' ? event.type : event.type.byRecord(record);
}

/** Every type an outcome event may have. */
export function outcomeEventTypes<Rec>(event: JobOutcomeEvent<Rec>): readonly EventType[] {
  return typeof event.type === 'string' ? [event.type] : event.type.all;
}

export interface JobEvents<Rec> {
  /** The resource the events are about (`entity_id`). */
  entityId(record: Rec): string;
  /**
   * The event id's tail, `<type>:<run id>`: stable, so an ending finished again publishes the same event.
   * @default entityId (one run per resource)
   */
  runId?(record: Rec): string;
  success: JobOutcomeEvent<Rec>;
  failure: JobOutcomeEvent<Rec>;
  /** The one-off callback the creating request asked for. */
  callback?(record: Rec): { url: string; id: string | null } | undefined;
}

/** A job paid with credits: reserved when it is created, settled when it succeeds, refunded when it fails. */
export interface JobCharging<Rec> {
  /** The item holding the reservation (the job's own). */
  key(record: Rec): ItemKey;
  /** The reservation, or undefined for a job that never held one (a batch item refused at admission). */
  reservation(record: Rec): JobBilling | undefined;
  /** What a completed job costs; never more than was reserved. */
  charge(record: Rec): number;
}

/** The billing fields of a record that holds its own reservation (`billing/credits.ts`). */
export type ReservingRecord = Partial<JobBilling> & {
  /** What the job came to once it measured its work; the reservation when unset. */
  credits_due?: number;
};

/**
 * The charging of a job whose record holds its reservation: none for a record that never held one (a
 * batch item refused at admission); charged what it came to (`credits_due`), never more than reserved.
 */
export function chargedOnRecord<Rec extends ReservingRecord>(
  key: (record: Rec) => ItemKey,
): JobCharging<Rec> {
  return {
    key,
    reservation: reservationOf,
    charge: (record) =>
      Math.min(record.credits_reserved ?? 0, record.credits_due ?? record.credits_reserved ?? 0),
  };
}

export interface JobDefinition<
  RefSchema extends JobRefSchema = JobRefSchema,
  Rec = unknown,
  Steps extends Record<string, JobStepContract> = Record<string, JobStepContract>,
> {
  /** The workflow: `state-machines/<name>.asl.json`, deployed as the state machine `<name>`. */
  name: string;
  /** Its task functions are `<taskPrefix><Step>`, and `<taskPrefix>RecordFailure` for the failure path. */
  taskPrefix: string;
  ref: RefSchema;
  /** Names the execution, so that starting the same run again finds the first (and does nothing). */
  executionName(ref: z.infer<RefSchema>): string;
  refOf(record: Rec): z.infer<RefSchema>;
  /** The module under `lambdas/` (no extension) exporting one handler per step, named as the step. */
  stepsModule: string;
  steps: Steps;
  record: JobRecordAccess<z.infer<RefSchema>, Rec>;
  wording: JobFailureWording;
  /** The outcome events; a job without any (a consent review: the avatar group's status says it) has none. */
  events?: JobEvents<Rec>;
  billing?: JobCharging<Rec>;
  /** The batch a job is an item of, counted when it ends. */
  batchItem?(record: Rec): { batchId: string; itemId: string } | undefined;
  /** Gives back what an ended job holds (recordings, a source file, work files). Runs again after a crash: idempotent. */
  release?(record: Rec): Promise<void>;
  /** A run whose record is gone (deleted while it ran, or superseded): removes what the run left behind. */
  cleanUpGone?(ref: z.infer<RefSchema>): Promise<void>;
  /** Access of the failure step beyond `JOB_BOOKKEEPING_ACCESS` (media for `release`). */
  failureAccess: TaskDeployment['access'];
  /**
   * Whether jobs of the type wait for a slot of the workspace's concurrency cap: the workflow starts
   * with the framework's Admit step (jobs/job-admission.ts). Not for a job that waits on people (a
   * consent review), which would hold a slot for days.
   */
  concurrencyLimited: boolean;
}

/** `record.outcome` of a record whose `status` says it: these two statuses end it, any other is running. */
export function outcomeByStatus<Rec extends { status: string }>(terminal: {
  succeeded: Rec['status'];
  failed: Rec['status'];
}): (record: Rec) => JobOutcome {
  return (record) =>
    record.status === terminal.succeeded
      ? JOB_OUTCOME.succeeded
      : record.status === terminal.failed
        ? JOB_OUTCOME.failed
        : JOB_OUTCOME.running;
}

/** Declares a job type; the identity function that gives the definition its types. */
export function defineJob<RefSchema extends JobRefSchema, Rec, Steps extends Record<string, JobStepContract>>(
  definition: JobDefinition<RefSchema, Rec, Steps>,
): JobDefinition<RefSchema, Rec, Steps> {
  return definition;
}

/** Any job definition, for the lists that hold them all. */
// biome-ignore lint/suspicious/noExplicitAny: a registry of jobs of different record types
export type AnyJobDefinition = JobDefinition<JobRefSchema, any, Record<string, JobStepContract>>;
