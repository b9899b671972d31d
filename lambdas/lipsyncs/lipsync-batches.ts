/**
 * `POST /v3/lipsyncs/batches`: 1 to 100 lipsync requests at once, one item each, numbered in payload
 * order. The request is answered at once with the batch id; the batch worker admits each payload as
 * `POST /v3/lipsyncs` would (its media fetched, its credits reserved, its job started), so a slow
 * download never holds the request. A payload the create refuses ends its item `failed` with that
 * error, and the batch still closes: `batch.completed` (and the batch's `callback_url`) once every item
 * has ended. Follows translations/translation-batches.ts.
 */
import { batchView } from '../batches/batch-members.js';
import { enqueueBatchItems } from '../batches/batch-queue.js';
import {
  BATCH_KINDS,
  type BatchRecord,
  batchPayloads,
  createBatch,
  newBatchId,
  recordBatchItemOutcome,
} from '../batches/batches.js';
import { ServiceError } from '../core/errors.js';
import { nowSeconds } from '../core/ids.js';
import { putItem } from '../core/repository.js';
import { finishJob, startJob } from '../jobs/job-lifecycle.js';
import { NO_SOURCE } from '../videos/source-transcript.js';
import { createLipsync, type LipsyncRequest } from './create-lipsync.js';
import { lipsyncJob } from './lipsync-job.js';
import {
  batchItemLipsyncId,
  getLipsync,
  isEnded,
  LIPSYNC_BATCH_FAMILY,
  LIPSYNC_ORIGINS,
  LIPSYNC_STATUS,
  lipsyncItem,
  notStarted,
} from './lipsync-records.js';

export interface LipsyncBatchRequest {
  lipsyncs: LipsyncRequest[];
  title?: string | undefined;
  callback_url?: string | undefined;
}

export async function createLipsyncBatch(
  workspaceId: string,
  request: LipsyncBatchRequest,
): Promise<BatchRecord> {
  const batchId = newBatchId();
  const batch = await createBatch(workspaceId, batchId, {
    kind: BATCH_KINDS.lipsyncs,
    payloads: request.lipsyncs,
    totalItems: request.lipsyncs.length,
    title: request.title,
    callbackUrl: request.callback_url,
  });
  await enqueueBatchItems(
    request.lipsyncs.map((_, index) => ({
      kind: 'lipsync.create' as const,
      workspace_id: workspaceId,
      batch_id: batchId,
      item_index: index,
    })),
  );
  return batch;
}

/**
 * The batch worker's step for one payload: its lipsync created and started. Safe to repeat: an item
 * already admitted has its job started (or its end counted) again, nothing more.
 */
export async function admitBatchLipsync(message: {
  workspace_id: string;
  batch_id: string;
  item_index: number;
}): Promise<void> {
  const id = batchItemLipsyncId(message.batch_id, message.item_index);
  const existing = await getLipsync(message.workspace_id, id, true);
  if (existing) {
    if (isEnded(existing)) await finishJob(lipsyncJob, existing);
    else if (existing.billing_state !== undefined) await startJob(lipsyncJob, lipsyncJob.refOf(existing));
    return;
  }
  const payloads = await batchPayloads(message.workspace_id, message.batch_id);
  if (!payloads) return;
  const payload = payloads[message.item_index] as LipsyncRequest;
  try {
    await createLipsync(
      {
        workspaceId: message.workspace_id,
        origin: LIPSYNC_ORIGINS.lipsyncs,
        param: `lipsyncs[${message.item_index}].`,
        batch: { batchId: message.batch_id, itemIndex: message.item_index },
      },
      payload,
    );
  } catch (error) {
    if (!(error instanceof ServiceError) || error.status >= 500) throw error; // transient: retried
    // Refused as POST /v3/lipsyncs would refuse it: its item fails with that error.
    await putItem(
      lipsyncItem({
        lipsync_id: id,
        workspace_id: message.workspace_id,
        origin: LIPSYNC_ORIGINS.lipsyncs,
        ...notStarted(),
        status: LIPSYNC_STATUS.failed,
        title: payload.title ?? 'Lipsync',
        options: {
          mode: payload.mode ?? 'speed',
          start_ms: null,
          end_ms: null,
          fps_mode: payload.fps_mode ?? null,
          enable_caption: payload.enable_caption ?? false,
          keep_the_same_format: payload.keep_the_same_format ?? false,
          enable_dynamic_duration: payload.enable_dynamic_duration ?? true,
          disable_music_track: payload.disable_music_track ?? false,
          enable_speech_enhancement: payload.enable_speech_enhancement ?? false,
          enable_watermark: payload.enable_watermark ?? false,
        },
        video: NO_SOURCE,
        audio: NO_SOURCE,
        folder_id: payload.folder_id ?? null,
        callback_url: null,
        callback_id: payload.callback_id ?? null,
        batch_id: message.batch_id,
        item_index: message.item_index,
        failure_code: error.code,
        failure_message: error.param ? `${error.message} (${error.param})` : error.message,
        completed_at: nowSeconds(),
      }),
    );
    await recordBatchItemOutcome(message.workspace_id, message.batch_id, id, 'failed');
  }
}

/** `GET /v3/lipsyncs/batches/{batch_id}`. */
export function lipsyncBatchView(workspaceId: string, batchId: string, limit: number, token?: string) {
  return batchView(LIPSYNC_BATCH_FAMILY, workspaceId, batchId, limit, token);
}
