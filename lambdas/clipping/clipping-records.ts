/**
 * AI clipping jobs: one record per `POST /v3/ai-clipping`, one run of the `ai-clipping` job
 * (ai-clipping-job.ts). A record holds what the request asked for, where its source is, the clips
 * the Plan step chose (each `pending` until the Render step made it), and how the job ended.
 *
 * Statuses are the reference's: job `pending` (accepted), `running`, `completed`, `failed` (the
 * reference's `cancelled` is never reached: a job is deleted, not cancelled), and `deleted`, which
 * nobody reads (a soft delete, as the reference's: its clips and source are removed, the record
 * stays); clip `pending`, `completed`, `failed`.
 */
import type { JobBilling } from '../billing/credits.js';
import { NotFoundError } from '../core/errors.js';
import { nowSeconds } from '../core/ids.js';
import { RESOURCE_TYPES } from '../core/table-schema.js';
import type { CaptionPresetName } from '../engines/composition/caption-presets.js';
import { discardJobMedia, jobRecords, listJobRecords } from '../jobs/job-records.js';
import type { JobSource } from '../videos/source-transcript.js';
import type { ClipFeatures, DurationType } from './clip-planner.js';

export const CLIPPING_STATUS = {
  pending: 'pending',
  running: 'running',
  completed: 'completed',
  failed: 'failed',
  /** Soft-deleted (`DELETE`): kept for the account's history, read and listed by nobody. */
  deleted: 'deleted',
} as const;
export type ClippingStatus = (typeof CLIPPING_STATUS)[keyof typeof CLIPPING_STATUS];
/** Every status the reference names, for the response schema. */
export const CLIPPING_STATUSES = ['pending', 'running', 'completed', 'failed', 'cancelled'] as const;

export const CLIP_STATUS = { pending: 'pending', completed: 'completed', failed: 'failed' } as const;
export type ClipStatus = (typeof CLIP_STATUS)[keyof typeof CLIP_STATUS];

export const ASPECT_RATIOS = ['landscape', 'portrait', 'square'] as const;
export type AspectRatio = (typeof ASPECT_RATIOS)[number];

export interface ClippingOutputSettings {
  aspect_ratio: AspectRatio;
  captions: boolean;
  caption_style: CaptionPresetName;
  duration_types: DurationType[];
  prompt: string | null;
}

/** The source video of an AI clipping job. */
export type ClippingSource = JobSource;

/** A clip: chosen by Plan (`pending`), made by Render (`completed`). */
export interface ClipRecord {
  id: string;
  status: ClipStatus;
  title: string | null;
  duration_type: DurationType;
  /** Where it is cut from the source. */
  start_ms: number;
  end_ms: number;
  /** The planner's score (0-100) and the features it is made of. */
  virality_score: number;
  features: ClipFeatures;
  /** Set when completed. */
  duration_seconds: number | null;
  aspect_ratio: AspectRatio | null;
  video_key: string | null;
  thumbnail_key: string | null;
}

export interface AiClippingRecord extends JobBilling {
  clipping_id: string;
  workspace_id: string;
  status: ClippingStatus;
  title: string | null;
  /** As given (a BCP-47 or ISO 639-1 code), else as found. */
  input_language: string | null;
  output_settings: ClippingOutputSettings;
  source: ClippingSource;
  callback_url: string | null;
  callback_id: string | null;
  progress: number;
  /** Seconds of the source; null until measured. */
  source_duration: number | null;
  clips: ClipRecord[];
  /** Where the words came from (`stored_script`, `recognition`), set by Plan. */
  transcript_source: string | null;
  /** The engines that did each part. */
  engines: Record<string, string>;
  /** What the job costs once Plan measured the source (at most what was reserved). */
  credits_due?: number;
  failure_code: string | null;
  failure_message: string | null;
  created_at: number;
  completed_at: number | null;
}

type ClippingIds = Pick<AiClippingRecord, 'workspace_id' | 'clipping_id'>;

export const clippingMediaKeys = {
  prefix: (record: ClippingIds) => `workspaces/${record.workspace_id}/ai-clipping/${record.clipping_id}/`,
  work: (record: ClippingIds, name: string) =>
    `workspaces/${record.workspace_id}/ai-clipping/${record.clipping_id}/work/${name}`,
  output: (record: ClippingIds, name: string) =>
    `workspaces/${record.workspace_id}/ai-clipping/${record.clipping_id}/${name}`,
};

export const clippingNotFound = (clippingId: string) =>
  new NotFoundError(`AI clipping job ${clippingId} not found.`, 'not_found', 'job_id');

/** The fields of a job nothing has run for yet. */
export function notStarted() {
  return {
    status: CLIPPING_STATUS.pending,
    progress: 0,
    source_duration: null,
    clips: [],
    transcript_source: null,
    engines: {},
    failure_code: null,
    failure_message: null,
    created_at: nowSeconds(),
    completed_at: null,
  } satisfies Partial<AiClippingRecord>;
}

/** The records of AI clipping jobs (soft-deleted: `deleted` jobs are neither read nor listed). */
export const clippingRecords = jobRecords<AiClippingRecord, 'clipping_id'>({
  resourceType: RESOURCE_TYPES.aiClipping,
  idField: 'clipping_id',
  listName: 'AiClippingList',
  notFound: clippingNotFound,
  statuses: { ...CLIPPING_STATUS },
  discard: (record) =>
    discardJobMedia(
      record.workspace_id,
      [record.source.owned ? record.source.key : null],
      clippingMediaKeys.prefix(record),
    ),
});

export const {
  key: clippingKey,
  item: clippingItem,
  get: getClipping,
  require: requireClipping,
  updateRunning: updateRunningClipping,
  fail: failClipping,
  remove: deleteClipping,
} = clippingRecords;

/** Newest first. */
export const listClippings = (
  workspaceId: string,
  page: { limit: number; token?: string | undefined },
  listName?: string,
) => listJobRecords(clippingRecords, workspaceId, page, listName);
