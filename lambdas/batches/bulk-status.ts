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

export const notFoundEntry = (id: string | null, batchId: string | null): BulkStatusEntry => ({
  video_id: id,
  status: BULK_STATUS.notFound,
  batch_id: batchId,
  item_index: null,
  error: null,
});
