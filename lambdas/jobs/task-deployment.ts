/**
 * How a Step Functions task function is deployed: what it may touch (grants of `core/grants.ts`, turned
 * into IAM statements by `lib/stack/grant-statements.ts`), how it is packaged, its memory and its
 * deadline. Job definitions give one per step; `lambdas/workflows/task-functions.ts` lists every task
 * function.
 */
import { GRANTS, type Grant } from '../core/grants.js';

/**
 * `zip` is the usual bundle; `media-image` is the container image with ffmpeg, fonts and the speech
 * engines (its node_modules do not fit Lambda's zip limit).
 */
export const TASK_PACKAGING = { zip: 'zip', mediaImage: 'media-image' } as const;
export type TaskPackaging = (typeof TASK_PACKAGING)[keyof typeof TASK_PACKAGING];

export interface TaskDeployment {
  /** What it may touch; its role gets exactly these grants. */
  access: readonly Grant[];
  /** @default 'zip' */
  packaging?: TaskPackaging;
  /** Lambda memory in MB. @default 256 */
  memorySize?: number;
  /** Lambda timeout; keep it at or below the state's TimeoutSeconds. @default 30 */
  timeoutSeconds?: number;
}

/** What every job's terminal bookkeeping needs: its items and credits, and its events. */
export const JOB_BOOKKEEPING_ACCESS = [GRANTS.jobItems, GRANTS.publishEvents] as const;
