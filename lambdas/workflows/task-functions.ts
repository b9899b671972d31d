/**
 * THE list of Step Functions task functions and of the workflows that are not job workflows: the
 * CDK stack creates one Lambda function per entry (with exactly the access it names) and maps
 * `${TaskFunction_<Name>}` in the ASL files to it; the local stack resolves the same placeholders to
 * the same handlers in process. Job steps come from the job definitions (`jobs.ts`); the encryption
 * setup, an administration workflow, lists its own.
 */
import { stateMachineArnVariable } from '../core/config.js';
import { GRANTS } from '../core/grants.js';
import type { AnyJobDefinition } from '../jobs/job-definition.js';
import { ADMIT_STEP, RECORD_FAILURE_STEP } from '../jobs/job-steps.js';
import { JOB_BOOKKEEPING_ACCESS, type TaskDeployment } from '../jobs/task-deployment.js';
import { JOBS } from './jobs.js';

export interface TaskFunctionDefinition extends TaskDeployment {
  /** Entry module under `lambdas/`, without extension. */
  module: string;
  /** The module's export that handles the task. @default 'handler' */
  exportName?: string;
  description: string;
}

const ENCRYPTION_TASKS: Readonly<Record<string, TaskFunctionDefinition>> = {
  EncryptionDescribeKey: {
    module: 'workflows/encryption-setup/describe-key',
    description: 'Workspace encryption setup: describe the customer key',
    access: [GRANTS.describeCustomerKeys],
  },
  EncryptionCheckKeyAccess: {
    module: 'workflows/encryption-setup/check-key-access',
    description: 'Workspace encryption setup: data key and encrypt/decrypt round trips with the customer key',
    access: [GRANTS.checkCustomerKeys],
  },
  EncryptionApplyToMediaPrefix: {
    module: 'workflows/encryption-setup/apply-to-media-prefix',
    description:
      "Workspace encryption setup: check S3 writes with the key under the workspace's prefix, activate",
    access: [GRANTS.mediaPrefixCheck, GRANTS.workspaceItems],
  },
  EncryptionRecordFailure: {
    module: 'workflows/encryption-setup/record-failure',
    description: 'Workspace encryption setup: record the failed setup and its per-step report',
    access: [GRANTS.workspaceItems],
  },
};

/** The module of every job's failure step. */
export const RECORD_JOB_FAILURE_MODULE = 'workflows/record-job-failure';

/** The module of every concurrency-limited job's Admit step. */
export const ADMIT_JOB_MODULE = 'workflows/admit-job';

/** A job's task functions: its Admit step (concurrency-limited jobs), one per step, and its failure step. */
export function jobTaskFunctions(job: AnyJobDefinition): Record<string, TaskFunctionDefinition> {
  const steps = Object.entries(job.steps).map(([step, contract]) => [
    `${job.taskPrefix}${step}`,
    { module: job.stepsModule, exportName: step, description: contract.description, ...contract.deployment },
  ]);
  const bookkeepingAccess = [...new Set([...JOB_BOOKKEEPING_ACCESS, ...job.failureAccess])];
  const admit = job.concurrencyLimited
    ? [
        [
          `${job.taskPrefix}${ADMIT_STEP}`,
          {
            module: ADMIT_JOB_MODULE,
            description: `${job.name}: wait for a slot of the workspace's concurrency cap for the type, in turn`,
            // Its bundle holds every job definition, as the failure step's does: the same access.
            access: bookkeepingAccess,
          },
        ],
      ]
    : [];
  return Object.fromEntries([
    ...admit,
    ...steps,
    [
      `${job.taskPrefix}${RECORD_FAILURE_STEP}`,
      {
        module: RECORD_JOB_FAILURE_MODULE,
        description: `${job.name}: record the failure with its reason, then the terminal bookkeeping (credits back, release, fail event, batch count)`,
        access: bookkeepingAccess,
      },
    ],
  ]);
}

/** By the `<Name>` of `${TaskFunction_<Name>}` (letters and digits). */
export const TASK_FUNCTIONS: Readonly<Record<string, TaskFunctionDefinition>> = {
  ...ENCRYPTION_TASKS,
  ...Object.assign({}, ...JOBS.map(jobTaskFunctions)),
};
export type TaskFunctionName = string;

/**
 * Job workflows, started by API functions (and the batch worker); the ARN reaches them through this
 * environment variable (read as `config().stateMachineArns`).
 */
export const JOB_WORKFLOWS: Readonly<Record<string, { environmentVariable: string }>> = Object.fromEntries(
  JOBS.map((job) => [job.name, { environmentVariable: stateMachineArnVariable(job.name) }]),
);

/** The encryption setup workflow (`state-machines/workspace-encryption-setup.asl.json`). */
export const ENCRYPTION_SETUP_WORKFLOW = 'workspace-encryption-setup';

/**
 * Workflows started by administration (the admin CLI), not by API functions: they get no
 * `states:StartExecution` grant on the API's roles, and their ARN reaches the CLI through this
 * environment variable (`lambdas/core/config.ts`), set from the stack's outputs or the local stack.
 */
export const ADMIN_WORKFLOWS: Readonly<Record<string, { environmentVariable: string; output: string }>> = {
  [ENCRYPTION_SETUP_WORKFLOW]: {
    environmentVariable: 'ENCRYPTION_SETUP_STATE_MACHINE_ARN',
    output: 'EncryptionSetupStateMachineArn',
  },
};
