/**
 * The bulk status vocabulary the spec shares across job families (`GET /v3/videos/statuses`,
 * `/v3/assets/statuses`, lipsyncs, translations): one entry per job, batches expanded to their
 * members, and `not_found` for ids that name nothing of the caller's.
 */
import { InvalidParameterError } from '../core/errors.js';

export const BULK_STATUS = {
  queued: 'queued',
  processing: 'processing',
  completed: 'completed',
  failed: 'failed',
  notFound: 'not_found',
} as const;
export type BulkStatus = (typeof BULK_STATUS)[keyof typeof BULK_STATUS];

/** A bulk status entry: `video_id` carries the entry's own id, for assets and lipsyncs alike (spec). */
export interface BulkStatusEntry {
  video_id: string | null;
  status: BulkStatus;
  batch_id: string | null;
  item_index: number | null;
  error: { code: string; message: string } | null;
}

/** A job whose record says `pending`, `running`, `completed` or `failed` (translations, lipsyncs). */
export interface MediaJobMember {
  status: 'pending' | 'running' | 'completed' | 'failed';
  batch_id: string | null;
  item_index: number | null;
  failure_code: string | null;
  failure_message: string | null;
}

const BULK_STATUS_OF_MEDIA_JOB: Readonly<Record<MediaJobMember['status'], BulkStatus>> = {
  pending: BULK_STATUS.queued,
  running: BULK_STATUS.processing,
  completed: BULK_STATUS.completed,
  failed: BULK_STATUS.failed,
};

/** The bulk status entry of such a job, `id` its own id. */
export function mediaJobEntry(id: string, job: MediaJobMember): BulkStatusEntry {
  return {
    video_id: id,
    status: BULK_STATUS_OF_MEDIA_JOB[job.status],
    batch_id: job.batch_id,
    item_index: job.item_index,
    error:
      job.status === 'failed'
        ? { code: job.failure_code ?? 'internal_error', message: job.failure_message ?? '' }
        : null,
  };
}

/** At most this many ids (job ids plus batch ids) per statuses request. */
export const MAX_STATUS_IDS = 100;

/** The spec's limit on one statuses request; `param` is the list that was given. */
export function checkStatusIdCount(
  ids: readonly string[],
  batchIds: readonly string[],
  idsParam: string,
): void {
  if (ids.length + batchIds.length > MAX_STATUS_IDS) {
    // The spec's own wording.
    throw new InvalidParameterError('At most 100 ids per request.', ids.length > 0 ? idsParam : 'batch_ids');
  }
}

const notFoundEntry = (id: string | null, batchId: string | null): BulkStatusEntry => ({
  video_id: id,
  status: BULK_STATUS.notFound,
  batch_id: batchId,
  item_index: null,
  error: null,
});

/** How one job family answers a statuses request. */
export interface BulkStatusSource<Job> {
  /** The job of the caller's workspace with this id, if any. */
  get(id: string): Promise<Job | undefined>;
  /** Every member of the caller's batch of this family, or undefined when there is none. */
  members(batchId: string): Promise<Job[] | undefined>;
  entry(job: Job): BulkStatusEntry;
}

/** One entry per id (in order), then every member of each batch; `not_found` for what does not exist. */
export async function bulkStatuses<Job>(
  source: BulkStatusSource<Job>,
  ids: readonly string[],
  batchIds: readonly string[],
): Promise<BulkStatusEntry[]> {
  const [jobs, batches] = await Promise.all([
    Promise.all(ids.map((id) => source.get(id))),
    Promise.all(batchIds.map((batchId) => source.members(batchId))),
  ]);
  return [
    ...jobs.map((job, index) => (job ? source.entry(job) : notFoundEntry(ids[index] ?? null, null))),
    ...batches.flatMap((members, index) =>
      members ? members.map(source.entry) : [notFoundEntry(null, batchIds[index] ?? null)],
    ),
  ];
}
