/**
 * THE list of Step Functions task functions and of the workflows that are not job workflows: the
 * CDK stack creates one Lambda function per entry (with exactly the access it names) and maps
 * `${TaskFunction_<Name>}` in the ASL files to it; the local stack resolves the same placeholders to
 * the same handler modules in process. Adding a task = one entry + one handler module.
 */

/** What a task function may touch; the CDK stack turns each into IAM statements (`lib/stack/workflow-task-functions.ts`). */
export const TASK_ACCESS = {
  /** `kms:DescribeKey` on customer keys of the stack's region. */
  describeCustomerKeys: 'describeCustomerKeys',
  /** GenerateDataKey / Encrypt / Decrypt on customer keys, only with the setup check's encryption context. */
  checkCustomerKeys: 'checkCustomerKeys',
  /** Write, read and delete the setup's check objects under workspace media prefixes, with customer keys through S3. */
  mediaPrefixCheck: 'mediaPrefixCheck',
  /** Read and update workspace items (the encryption state). */
  workspaceItems: 'workspaceItems',
} as const;
export type TaskAccess = (typeof TASK_ACCESS)[keyof typeof TASK_ACCESS];

export interface TaskFunctionDefinition {
  /** Entry module under `lambdas/`, without extension; it exports `handler`. */
  module: string;
  description: string;
  access: readonly TaskAccess[];
}

/** By the `<Name>` of `${TaskFunction_<Name>}` (letters and digits). */
export const TASK_FUNCTIONS = {
  EncryptionDescribeKey: {
    module: 'workflows/encryption-setup/describe-key',
    description: 'Workspace encryption setup: describe the customer key',
    access: [TASK_ACCESS.describeCustomerKeys],
  },
  EncryptionCheckKeyAccess: {
    module: 'workflows/encryption-setup/check-key-access',
    description: 'Workspace encryption setup: data key and encrypt/decrypt round trips with the customer key',
    access: [TASK_ACCESS.checkCustomerKeys],
  },
  EncryptionApplyToMediaPrefix: {
    module: 'workflows/encryption-setup/apply-to-media-prefix',
    description:
      "Workspace encryption setup: check S3 writes with the key under the workspace's prefix, activate",
    access: [TASK_ACCESS.mediaPrefixCheck, TASK_ACCESS.workspaceItems],
  },
  EncryptionRecordFailure: {
    module: 'workflows/encryption-setup/record-failure',
    description: 'Workspace encryption setup: record the failed setup and its per-step report',
    access: [TASK_ACCESS.workspaceItems],
  },
} as const satisfies Readonly<Record<string, TaskFunctionDefinition>>;
export type TaskFunctionName = keyof typeof TASK_FUNCTIONS;

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
