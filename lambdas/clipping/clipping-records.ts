/**
 * AI clipping jobs: one record per `POST /v3/ai-clipping`, one run of the `ai-clipping` job
 * (ai-clipping-job.ts). A record holds what the request asked for, where its source is, the clips
 * the Plan step chose (each `pending` until the Render step made it), and how the job ended.
 *
 * Statuses are the reference's: job `pending` (accepted), `running`, `completed`, `failed` (the
 * reference's `cancelled` is never reached: a job is deleted, not cancelled); clip `pending`,
 * `completed`, `failed`.
 */
import { BILLING_STATE, type JobBilling, refundReservation } from '../billing/credits.js';
import { NotFoundError } from '../core/errors.js';
import { ID_PATTERN, nowSeconds } from '../core/ids.js';
import {
  deleteExistingItem,
  getItem,
  queryPage,
  type StoredItem,
  updateExistingItem,
} from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import type { CaptionPresetName } from '../engines/composition/caption-presets.js';
import { deleteMediaObject, deleteMediaPrefix } from '../media/media-store.js';
import type { JobSource } from '../videos/source-transcript.js';
import type { ClipFeatures, DurationType } from './clip-planner.js';

export const CLIPPING_STATUS = {
  pending: 'pending',
  running: 'running',
  completed: 'completed',
  failed: 'failed',
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

export type ClippingItem = AiClippingRecord & { pk: string; sk: string };

export const clippingKey = (workspaceId: string, clippingId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.aiClipping, clippingId);

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

export function clippingItem(record: Omit<AiClippingRecord, keyof JobBilling>): StoredItem {
  return { ...clippingKey(record.workspace_id, record.clipping_id), ...record };
}

function toRecord(item: ClippingItem): AiClippingRecord {
  const { pk: _pk, sk: _sk, ...record } = item;
  return record;
}

export async function getClipping(
  workspaceId: string,
  clippingId: string,
  consistent = false,
): Promise<AiClippingRecord | undefined> {
  if (!ID_PATTERN.test(clippingId)) return undefined;
  const item = await getItem<ClippingItem>(clippingKey(workspaceId, clippingId), consistent);
  return item ? toRecord(item) : undefined;
}

export async function requireClipping(workspaceId: string, clippingId: string): Promise<AiClippingRecord> {
  const record = await getClipping(workspaceId, clippingId);
  if (!record) throw clippingNotFound(clippingId);
  return record;
}

/** Newest first. */
export async function listClippings(
  workspaceId: string,
  page: { limit: number; token?: string | undefined },
) {
  const result = await queryPage<ClippingItem>({
    partition: keys.workspacePartition(workspaceId),
    sortKeyPrefix: `${RESOURCE_TYPES.aiClipping}#`,
    limit: page.limit,
    token: page.token,
    binding: `${workspaceId}:AiClippingList`,
  });
  return { items: result.items.map(toRecord), nextToken: result.nextToken };
}

/** Sets fields of a job still running (not ended, not deleted); the record after, else undefined. */
export async function updateRunningClipping(
  record: ClippingIds,
  fields: Partial<AiClippingRecord>,
): Promise<AiClippingRecord | undefined> {
  for (const status of [CLIPPING_STATUS.running, CLIPPING_STATUS.pending]) {
    const item = await updateExistingItem<ClippingItem>(
      clippingKey(record.workspace_id, record.clipping_id),
      fields,
      [],
      { status },
    );
    if (item) return toRecord(item);
  }
  return undefined;
}

export async function failClipping(
  record: AiClippingRecord,
  failure: { code: string; message: string },
): Promise<AiClippingRecord | undefined> {
  return updateRunningClipping(record, {
    status: CLIPPING_STATUS.failed,
    failure_code: failure.code,
    failure_message: failure.message,
    completed_at: nowSeconds(),
  });
}

/** Attempts when the job is being admitted (its reservation written) while it is deleted. */
const DELETE_ATTEMPTS = 3;

/**
 * Removes the job, its clips and the source the request stored (assets and videos it used stay). A job
 * deleted before it ended gets its credits back; its workflow finds no record at its next step and
 * removes what it had written.
 */
export async function deleteClipping(workspaceId: string, clippingId: string): Promise<void> {
  const key = clippingKey(workspaceId, clippingId);
  for (let attempt = 1; attempt <= DELETE_ATTEMPTS; attempt++) {
    const record = await getClipping(workspaceId, clippingId, true);
    if (!record) throw clippingNotFound(clippingId);
    if (record.billing_state === BILLING_STATE.reserved) await refundReservation(key, workspaceId, record);
    if (!(await deleteExistingItem(key, { billing_state: BILLING_STATE.reserved }))) continue;
    if (record.source.owned) await deleteMediaObject(record.source.key);
    await deleteMediaPrefix(clippingMediaKeys.prefix(record));
    return;
  }
  throw new Error(`AI clipping job ${clippingId} kept being admitted while it was deleted`);
}
