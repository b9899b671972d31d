/**
 * Filler-word removals: one record per `POST /v3/filler-word-removals`, each one run of the
 * `filler-word-removal` job (filler-removal-job.ts). A record holds what the request asked for, where
 * its source is, what the job cut and made, and how it ended.
 *
 * Statuses are the reference's: `pending` (accepted, not started), `running`, `completed`, `failed`.
 */
import type { JobBilling } from '../billing/credits.js';
import { NotFoundError } from '../core/errors.js';
import { nowSeconds } from '../core/ids.js';
import { RESOURCE_TYPES } from '../core/table-schema.js';
import { jobRecords } from '../jobs/job-records.js';
import type { JobSource } from '../videos/source-transcript.js';

export const FILLER_REMOVAL_STATUS = {
  pending: 'pending',
  running: 'running',
  completed: 'completed',
  failed: 'failed',
} as const;
export type FillerRemovalStatus = (typeof FILLER_REMOVAL_STATUS)[keyof typeof FILLER_REMOVAL_STATUS];

/** How the job cuts, as the request said (defaults filled in). */
export interface FillerRemovalOptions {
  /** Silences longer than this are shortened (to `SILENCE_KEPT_MS`). */
  silence_threshold_ms: number;
  /** The request's own filler words, replacing the language's list; null for the language's. */
  filler_words: string[] | null;
  /** The language of the speech (BCP-47), when given; else as the recognition engine hears it. */
  language: string | null;
}

/** The source video (or audio) of a filler-word removal. */
export type FillerRemovalSource = JobSource;

export interface FillerRemovalOutputs {
  video_key: string;
  thumbnail_key: string | null;
}

/** What the job cut, once completed. */
export interface FillerRemovalResult {
  num_cuts: number;
  /** Seconds. */
  original_duration: number;
  output_duration: number;
  /** Percentage of the source's length removed, one decimal. */
  reduction_pct: number;
}

export interface FillerRemovalRecord extends JobBilling {
  filler_word_removal_id: string;
  workspace_id: string;
  status: FillerRemovalStatus;
  title: string;
  options: FillerRemovalOptions;
  source: FillerRemovalSource;
  callback_url: string | null;
  callback_id: string | null;
  progress: number;
  /** The engines that did each part (recognition, silence detection, cutting), and what was not done. */
  engines: Record<string, string>;
  outputs: FillerRemovalOutputs | null;
  result: FillerRemovalResult | null;
  /** What the job costs once the source is measured (its minutes, at most what was reserved; 0 when nothing changed). */
  credits_due?: number;
  failure_code: string | null;
  failure_message: string | null;
  created_at: number;
  completed_at: number | null;
}

type FillerRemovalIds = Pick<FillerRemovalRecord, 'workspace_id' | 'filler_word_removal_id'>;

export const fillerRemovalMediaKeys = {
  prefix: (record: FillerRemovalIds) =>
    `workspaces/${record.workspace_id}/filler-word-removals/${record.filler_word_removal_id}/`,
  work: (record: FillerRemovalIds, name: string) =>
    `workspaces/${record.workspace_id}/filler-word-removals/${record.filler_word_removal_id}/work/${name}`,
  output: (record: FillerRemovalIds, name: string) =>
    `workspaces/${record.workspace_id}/filler-word-removals/${record.filler_word_removal_id}/${name}`,
};

export const fillerRemovalNotFound = (removalId: string) =>
  new NotFoundError(`Filler word removal ${removalId} not found.`, 'not_found', 'filler_word_removal_id');

/** The fields of a record that nothing has run for yet. */
export function notStarted() {
  return {
    status: FILLER_REMOVAL_STATUS.pending,
    progress: 0,
    engines: {},
    outputs: null,
    result: null,
    failure_code: null,
    failure_message: null,
    created_at: nowSeconds(),
    completed_at: null,
  } satisfies Partial<FillerRemovalRecord>;
}

/** The records of filler-word removals (the reference has no delete for them). */
export const fillerRemovalRecords = jobRecords<FillerRemovalRecord, 'filler_word_removal_id'>({
  resourceType: RESOURCE_TYPES.fillerWordRemoval,
  idField: 'filler_word_removal_id',
  listName: 'FillerWordRemovalList',
  notFound: fillerRemovalNotFound,
  statuses: FILLER_REMOVAL_STATUS,
});

export const {
  key: fillerRemovalKey,
  item: fillerRemovalItem,
  get: getFillerRemoval,
  require: requireFillerRemoval,
  updateRunning: updateRunningFillerRemoval,
  fail: failFillerRemoval,
} = fillerRemovalRecords;

/** Ends a running record as completed (a conditional write: not if it ended meanwhile). */
export function completeFillerRemoval(
  record: FillerRemovalRecord,
  completion: {
    outputs: FillerRemovalOutputs;
    result: FillerRemovalResult;
    engines: Record<string, string>;
    creditsDue: number;
  },
): Promise<FillerRemovalRecord | undefined> {
  return fillerRemovalRecords.complete(record, {
    outputs: completion.outputs,
    result: completion.result,
    engines: completion.engines,
    credits_due: completion.creditsDue,
  });
}
