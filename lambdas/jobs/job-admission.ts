/**
 * How many jobs of one type a workspace runs at once (docs/architecture.md, "Job concurrency"). Every
 * concurrency-limited workflow starts with the framework's Admit step: a job past its workspace's cap
 * for its type waits in its queue, its status still `pending`, and is admitted in the order the jobs
 * were created as slots free. Never refused, never lost: the waiting is the job's own workflow looping
 * Admit → Wait, so no process has to remember to wake it.
 *
 * Per workspace and job type, in the table:
 * - `JOB_SLOTS#<job>`: `running`, the slots held;
 * - `JOB_QUEUE#<job>#<execution name>`: a job waiting (execution names start with the job's
 *   time-ordered id, so key order is creation order);
 * - `JOB_SLOT#<job>#<execution name>`: the slot a job holds (with its ref), so taking and giving it
 *   back each happen once however often a step runs. A run that never reaches the framework's ending
 *   (its execution timed out or was stopped) would hold its slot for good: so a full count makes the
 *   waiting head look at the holders, and the slots of jobs gone or ended go back.
 * Taking a slot is one transaction over the three (the head of the queue only, the count under the cap),
 * so concurrent Admits of any number of instances never exceed the cap.
 *
 * Enterprise burst: a workspace with burst slots (billing/plans.ts, `jobBurstSlots`) runs up to that
 * many more of each type once the cap is full, each charged `BURST_RATE_MULTIPLIER` times its rate.
 * `JOB_SLOTS#<job>` counts them apart (`burst_running`) and the holder says which kind it holds, so a
 * job gives back the kind it took. The head of the queue takes a burst slot in the same one
 * transaction, with its reservation topped up to the burst rate (billing/credits.ts, `burstTopUp`): a
 * workspace that cannot pay the top-up is refused it, and the job waits for a regular slot (never
 * refused, still first in line).
 */
import type { z } from 'zod';
import { getWorkspace, type Workspace } from '../accounts/workspaces.js';
import { BILLING_STATE, burstTopUp } from '../billing/credits.js';
import { jobBurstSlots, jobConcurrencyCap } from '../billing/plans.js';
import { config } from '../core/config.js';
import {
  deleteExistingItem,
  getItem,
  putNewItem,
  queryItems,
  type StoredItem,
  type TransactionItem,
  transactWrite,
} from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import {
  JOB_OUTCOME,
  type JobDefinition,
  type JobRefSchema,
  type JobStepContract,
} from './job-definition.js';

type AnyJob<RefSchema extends JobRefSchema, Rec> = JobDefinition<
  RefSchema,
  Rec,
  Record<string, JobStepContract>
>;

/** What the Admit step answers: run now, or wait this long and ask again. */
export interface Admission {
  admitted: boolean;
  wait_seconds: number;
}

const slotsKey = (workspaceId: string, jobName: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.jobSlots, jobName);
const queuePrefix = (jobName: string) => `${RESOURCE_TYPES.jobQueue}#${jobName}#`;
const queueKey = (workspaceId: string, jobName: string, execution: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.jobQueue, `${jobName}#${execution}`);
const holderKey = (workspaceId: string, jobName: string, execution: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.jobSlot, `${jobName}#${execution}`);

/**
 * The Admit step: whether the job may run now. A job that is gone or has ended is let through (its
 * first step finishes or cleans up), leaving the queue; one that holds its slot already (a retried
 * step) is admitted again; otherwise it queues, and takes a slot when it is the oldest waiting and one
 * is free. A queue head whose job is gone or ended (its workflow stopped) is removed so it blocks no one.
 */
export async function admitJob<RefSchema extends JobRefSchema, Rec>(
  job: AnyJob<RefSchema, Rec>,
  ref: z.infer<RefSchema>,
): Promise<Admission> {
  const workspaceId = ref.workspace_id;
  const execution = job.executionName(ref);
  const admitted = { admitted: true, wait_seconds: 0 };
  const waiting = { admitted: false, wait_seconds: config().jobAdmissionWaitSeconds };
  if (!(await isWaitingToRun(job, ref))) {
    await deleteExistingItem(queueKey(workspaceId, job.name, execution));
    return admitted;
  }
  if (await getItem(holderKey(workspaceId, job.name, execution), true)) return admitted;
  const workspace = await getWorkspace(workspaceId, true);
  if (!workspace) return admitted; // its first step finds the job gone with its workspace
  const entry = queueKey(workspaceId, job.name, execution);
  await putNewItem({ ...entry, job: job.name, execution, ref, queued_at: Date.now() });

  for (;;) {
    const [head] = await queryItems<StoredItem & { execution: string; ref: z.infer<RefSchema> }>({
      partition: keys.workspacePartition(workspaceId),
      sortKey: { prefix: queuePrefix(job.name) },
      consistent: true,
    });
    if (!head) return admitted; // taken by a concurrent run of this step, which holds the slot
    if (head.sk !== entry.sk) {
      if (await isWaitingToRun(job, head.ref)) return waiting;
      await deleteExistingItem({ pk: head.pk, sk: head.sk }); // stale: its job will never ask again
      continue;
    }
    const regular = await takeSlot(job, workspace, ref, SLOT_KIND.regular);
    if (regular !== SLOT_TAKEN.full) return admitted; // taken now, or by a concurrent run of this step
    // Every slot is taken: by running jobs, unless one's holder outlived its job (an execution that
    // timed out or was stopped before the framework's ending). Those slots go back; the head asks again.
    if (await reclaimStaleSlots(job, workspaceId)) continue;
    if (jobBurstSlots(workspace) === 0) return waiting;
    // Full or unaffordable burst slots: the job waits, still first in line, for either kind of slot.
    return (await takeSlot(job, workspace, ref, SLOT_KIND.burst)) === SLOT_TAKEN.full ? waiting : admitted;
  }
}

/** The two kinds of slot: within the cap, or a burst slot above it (charged at the burst rate). */
const SLOT_KIND = { regular: 'regular', burst: 'burst' } as const;
type SlotKind = (typeof SLOT_KIND)[keyof typeof SLOT_KIND];

/** What asking for a slot came to: taken (by this call or a concurrent Admit of the same job), or none to have. */
const SLOT_TAKEN = { yes: 'yes', full: 'full' } as const;

/** The counter of `JOB_SLOTS#<job>` that counts the slots of a kind. */
const COUNTER: Readonly<Record<SlotKind, string>> = { regular: 'running', burst: 'burst_running' };

/**
 * Takes a slot of `kind` for the job at the head of its queue, in one transaction: the kind's count
 * under its limit, the queue entry deleted, the holder written; for a burst slot, the job's reservation
 * topped up to the burst rate too. Refused as a whole: the count full (or the top-up unaffordable) is
 * `full`; the entry or the holder gone means a concurrent Admit of the same job took the slot.
 */
async function takeSlot<RefSchema extends JobRefSchema, Rec>(
  job: AnyJob<RefSchema, Rec>,
  workspace: Workspace,
  ref: z.infer<RefSchema>,
  kind: SlotKind,
): Promise<(typeof SLOT_TAKEN)[keyof typeof SLOT_TAKEN]> {
  const workspaceId = workspace.workspace_id;
  const execution = job.executionName(ref);
  const limit = kind === SLOT_KIND.burst ? jobBurstSlots(workspace) : jobConcurrencyCap(workspace, job.name);
  // The count's condition lets a first slot through when the count does not exist yet.
  if (limit <= 0) return SLOT_TAKEN.full;
  const topUp = kind === SLOT_KIND.burst ? await burstTopUpOf(job, workspace, ref) : [];
  const refused = await transactWrite([
    {
      Update: {
        TableName: config().tableName,
        Key: slotsKey(workspaceId, job.name),
        UpdateExpression: 'ADD #count :one',
        ConditionExpression: 'attribute_not_exists(#count) OR #count < :limit',
        ExpressionAttributeNames: { '#count': COUNTER[kind] },
        ExpressionAttributeValues: { ':one': 1, ':limit': limit },
      },
    },
    {
      Delete: {
        TableName: config().tableName,
        Key: queueKey(workspaceId, job.name, execution),
        ConditionExpression: 'attribute_exists(pk)',
      },
    },
    {
      Put: {
        TableName: config().tableName,
        Item: {
          ...holderKey(workspaceId, job.name, execution),
          job: job.name,
          ref,
          kind,
          taken_at: Date.now(),
        },
        ConditionExpression: 'attribute_not_exists(pk)',
      },
    },
    ...topUp,
  ]);
  // Past the holder, a refusal is the top-up's: the job ended meanwhile (its next Admit lets it
  // through) or the workspace cannot pay the burst rate.
  return refused === 1 || refused === 2 || refused === undefined ? SLOT_TAKEN.yes : SLOT_TAKEN.full;
}

/** The top-up to the burst rate of a job still holding its reservation; none for a job without one. */
async function burstTopUpOf<RefSchema extends JobRefSchema, Rec>(
  job: AnyJob<RefSchema, Rec>,
  workspace: Workspace,
  ref: z.infer<RefSchema>,
): Promise<TransactionItem[]> {
  const record = job.billing ? await job.record.get(ref) : undefined;
  if (!job.billing || record === undefined) return [];
  const reservation = job.billing.reservation(record);
  if (reservation?.billing_state !== BILLING_STATE.reserved) return [];
  return burstTopUp(workspace, job.billing.key(record), reservation);
}

/** Gives back the slots of the type whose job is gone or ended; whether there was any. */
async function reclaimStaleSlots<RefSchema extends JobRefSchema, Rec>(
  job: AnyJob<RefSchema, Rec>,
  workspaceId: string,
): Promise<boolean> {
  const holders = await queryItems<StoredItem & { ref: z.infer<RefSchema> }>({
    partition: keys.workspacePartition(workspaceId),
    sortKey: { prefix: `${RESOURCE_TYPES.jobSlot}#${job.name}#` },
    consistent: true,
  });
  let reclaimed = false;
  for (const holder of holders) {
    if (await isWaitingToRun(job, holder.ref)) continue;
    await releaseJobSlot(job, holder.ref);
    reclaimed = true;
  }
  return reclaimed;
}

/** Gives back the slot the job holds, once; a job that never held one (or gave it back) changes nothing. */
export async function releaseJobSlot<RefSchema extends JobRefSchema, Rec>(
  job: AnyJob<RefSchema, Rec>,
  ref: z.infer<RefSchema>,
): Promise<void> {
  if (!job.concurrencyLimited) return;
  const workspaceId = ref.workspace_id;
  const holder = holderKey(workspaceId, job.name, job.executionName(ref));
  // Which kind it holds never changes while the holder exists (written once, with the slot).
  const held = await getItem<StoredItem & { kind?: SlotKind }>(holder, true);
  if (!held) return;
  await transactWrite([
    { Delete: { TableName: config().tableName, Key: holder, ConditionExpression: 'attribute_exists(pk)' } },
    {
      Update: {
        TableName: config().tableName,
        Key: slotsKey(workspaceId, job.name),
        UpdateExpression: 'ADD #count :minusOne',
        ExpressionAttributeNames: { '#count': COUNTER[held.kind ?? SLOT_KIND.regular] },
        ExpressionAttributeValues: { ':minusOne': -1 },
      },
    },
  ]);
}

/** Whether the job still exists and has not ended: it may yet run. */
async function isWaitingToRun<RefSchema extends JobRefSchema, Rec>(
  job: AnyJob<RefSchema, Rec>,
  ref: z.infer<RefSchema>,
): Promise<boolean> {
  const record = await job.record.get(ref);
  return record !== undefined && job.record.outcome(record) === JOB_OUTCOME.running;
}
