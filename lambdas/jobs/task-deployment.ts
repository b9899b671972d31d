/**
 * How a Step Functions task function is deployed: what it may touch (turned into IAM statements by
 * `lib/stack/workflow-task-functions.ts`), how it is packaged, its memory and its deadline. Job
 * definitions give one per step; `lambdas/workflows/task-functions.ts` lists every task function.
 */

/** What a task function may touch. */
export const TASK_ACCESS = {
  /** `kms:DescribeKey` on customer keys of the stack's region. */
  describeCustomerKeys: 'describeCustomerKeys',
  /** GenerateDataKey / Encrypt / Decrypt on customer keys, only with the setup check's encryption context. */
  checkCustomerKeys: 'checkCustomerKeys',
  /** Write, read and delete the setup's check objects under workspace media prefixes, with customer keys through S3. */
  mediaPrefixCheck: 'mediaPrefixCheck',
  /** Read and update workspace items (the encryption state). */
  workspaceItems: 'workspaceItems',
  /** Read and write job items and their workspace's balance (transactions), count batch items. */
  jobItems: 'jobItems',
  /** Read, write and delete objects under `workspaces/` and read `catalog/`, with workspace keys. */
  jobMedia: 'jobMedia',
  /** Publish domain events to the service's bus. */
  publishEvents: 'publishEvents',
  /** Amazon Polly, when the deployment's speech engine is `polly`. */
  synthesizeSpeech: 'synthesizeSpeech',
} as const;
export type TaskAccess = (typeof TASK_ACCESS)[keyof typeof TASK_ACCESS];

/**
 * `zip` is the usual bundle; `media-image` is the container image with ffmpeg, fonts and the speech
 * engines (its node_modules do not fit Lambda's zip limit).
 */
export const TASK_PACKAGING = { zip: 'zip', mediaImage: 'media-image' } as const;
export type TaskPackaging = (typeof TASK_PACKAGING)[keyof typeof TASK_PACKAGING];

export interface TaskDeployment {
  access: readonly TaskAccess[];
  /** @default 'zip' */
  packaging?: TaskPackaging;
  /** Lambda memory in MB. @default 256 */
  memorySize?: number;
  /** Lambda timeout; keep it at or below the state's TimeoutSeconds. @default 30 */
  timeoutSeconds?: number;
}

/** What every job's terminal bookkeeping needs: its items and credits, and its events. */
export const JOB_BOOKKEEPING_ACCESS = [TASK_ACCESS.jobItems, TASK_ACCESS.publishEvents] as const;
