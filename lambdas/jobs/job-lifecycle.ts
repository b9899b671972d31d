/**
 * What every job shares (docs/architecture.md, "Jobs"): starting its workflow, resuming it after a
 * restart, recording its failure, and the bookkeeping that follows its terminal status. Every part is
 * idempotent, so a step retried by Step Functions, or a workflow restarted after a crash, finishes
 * what was interrupted and repeats nothing that was done: a reservation moves once (conditional
 * transactions), an event keeps its id, a batch counts an item once.
 */
import { ExecutionAlreadyExists, StartExecutionCommand } from '@aws-sdk/client-sfn';
import type { z } from 'zod';
import { recordBatchItemOutcome } from '../batches/batches.js';
import { BILLING_STATE, refundReservation, settleReservation } from '../billing/credits.js';
import { sfnClient } from '../core/aws-clients.js';
import { config } from '../core/config.js';
import type { JobFailureDetails } from '../core/errors.js';
import { logger } from '../core/observability.js';
import { publishEvent } from '../events/domain-events.js';
import { releaseJobSlot } from './job-admission.js';
import {
  JOB_OUTCOME,
  type JobDefinition,
  type JobEvents,
  type JobRefSchema,
  type JobStepContract,
  outcomeEventType,
} from './job-definition.js';

/**
 * Starts the job's workflow. The execution is named after the run, so starting it again (a retried
 * request or batch message) finds the first execution and does nothing. When it cannot start at all
 * the job is failed with the definition's `notStarted` wording (its credits refunded), since nothing
 * else would ever end it, and the error is thrown on.
 */
export async function startJob<RefSchema extends JobRefSchema, Rec>(
  job: JobDefinition<RefSchema, Rec, Record<string, JobStepContract>>,
  ref: z.infer<RefSchema>,
): Promise<void> {
  try {
    await sfnClient().send(
      new StartExecutionCommand({
        stateMachineArn: config().stateMachineArns[job.name] ?? '',
        name: job.executionName(ref),
        input: JSON.stringify(job.ref.parse(ref)),
      }),
    );
  } catch (error) {
    if (error instanceof ExecutionAlreadyExists) return;
    logger.error('Could not start a job workflow', { job: job.name, ref, error });
    await failJob(job, ref, job.wording.notStarted).catch((failure: unknown) =>
      logger.error('Could not record that a job did not start', { job: job.name, ref, error: failure }),
    );
    throw error;
  }
}

/**
 * The first step of every workflow starts here: the job's record while it is still running. A job
 * already ended (its workflow restarted after a crash, or redriven) has its ending finished instead,
 * and a job that is gone has what its run left removed; both answer undefined, and the step stops.
 */
export async function resumeJob<RefSchema extends JobRefSchema, Rec>(
  job: JobDefinition<RefSchema, Rec, Record<string, JobStepContract>>,
  ref: z.infer<RefSchema>,
): Promise<Rec | undefined> {
  const record = await job.record.get(ref);
  if (!record) {
    await jobGone(job, ref);
    return undefined;
  }
  if (job.record.outcome(record) !== JOB_OUTCOME.running) {
    await finishJob(job, record);
    return undefined;
  }
  return record;
}

/**
 * What follows a terminal status, wherever it was set: credits are settled (succeeded) or refunded
 * (failed), what the job held is given back, the outcome event is published with a stable id, and
 * the batch item is counted. A running job is left alone.
 */
export async function finishJob<RefSchema extends JobRefSchema, Rec>(
  job: JobDefinition<RefSchema, Rec, Record<string, JobStepContract>>,
  record: Rec,
): Promise<void> {
  const outcome = job.record.outcome(record);
  if (outcome === JOB_OUTCOME.running) return;
  const succeeded = outcome === JOB_OUTCOME.succeeded;
  // Credits first: a client told of the outcome (the event, its webhook) finds its balance already
  // right. The terminal status itself is written just before this runs, so a client polling the job
  // may see it a moment before the settlement or refund lands (test/integration/videos.test.ts waits).
  const reservation = job.billing?.reservation(record);
  if (job.billing && reservation?.billing_state === BILLING_STATE.reserved) {
    const ref = job.refOf(record);
    if (succeeded) {
      await settleReservation(
        job.billing.key(record),
        ref.workspace_id,
        reservation,
        job.billing.charge(record),
      );
    } else {
      await refundReservation(job.billing.key(record), ref.workspace_id, reservation);
    }
  }
  await job.release?.(record);
  // The workspace's next job of the type may start before this one's event is out.
  await releaseJobSlot(job, job.refOf(record));
  if (job.events) await publishOutcomeEvent(job, job.events, record, succeeded);
  const batchItem = job.batchItem?.(record);
  if (batchItem) {
    await recordBatchItemOutcome(
      job.refOf(record).workspace_id,
      batchItem.batchId,
      batchItem.itemId,
      succeeded ? 'succeeded' : 'failed',
    );
  }
}

/**
 * The end of a step that wrote its job's terminal status: `ended` is the record that write returned,
 * or undefined when it found the job no longer running. Then the job is either gone (deleted while
 * this run worked: what the run stored after the delete is removed) or already ended by another run
 * of the step (its ending is finished again, idempotently).
 */
export async function endJob<RefSchema extends JobRefSchema, Rec>(
  job: JobDefinition<RefSchema, Rec, Record<string, JobStepContract>>,
  ref: z.infer<RefSchema>,
  ended: Rec | undefined,
): Promise<void> {
  const record = ended ?? (await job.record.get(ref));
  if (!record) await jobGone(job, ref);
  else await finishJob(job, record);
}

/**
 * Ends a job as failed, unless it has ended already (then that ending is finished instead), and
 * does the terminal bookkeeping. A job that is gone has what its run left removed.
 */
export async function failJob<RefSchema extends JobRefSchema, Rec>(
  job: JobDefinition<RefSchema, Rec, Record<string, JobStepContract>>,
  ref: z.infer<RefSchema>,
  failure: JobFailureDetails,
): Promise<void> {
  const record = await job.record.get(ref);
  if (!record) {
    await jobGone(job, ref);
    return;
  }
  const ended =
    job.record.outcome(record) === JOB_OUTCOME.running
      ? ((await job.record.fail(record, failure)) ?? (await job.record.get(ref)))
      : record;
  if (!ended) await jobGone(job, ref);
  else await finishJob(job, ended);
}

/** A run whose record is gone (deleted while it ran or waited): what it left is removed, its slot given back. */
async function jobGone<RefSchema extends JobRefSchema, Rec>(
  job: JobDefinition<RefSchema, Rec, Record<string, JobStepContract>>,
  ref: z.infer<RefSchema>,
): Promise<void> {
  await job.cleanUpGone?.(ref);
  await releaseJobSlot(job, ref);
}

async function publishOutcomeEvent<RefSchema extends JobRefSchema, Rec>(
  job: JobDefinition<RefSchema, Rec, Record<string, JobStepContract>>,
  events: JobEvents<Rec>,
  record: Rec,
  succeeded: boolean,
): Promise<void> {
  const event = succeeded ? events.success : events.failure;
  const eventType = outcomeEventType(event, record);
  const callback = events.callback?.(record);
  await publishEvent({
    event_id: `${eventType}:${(events.runId ?? events.entityId)(record)}`,
    event_type: eventType,
    workspace_id: job.refOf(record).workspace_id,
    entity_id: events.entityId(record),
    ...(callback ? { callback } : {}),
    event_data: await event.data(record),
  });
}
