/**
 * Video batches: up to 100 videos accepted by one request. Accepting writes a placeholder video per
 * item (so every item has its `video_id` from the start), the batch with the request's payloads, and
 * one queue message per item. The batch worker admits each item exactly as
 * `POST /v3/videos` would create it (media, plan, credits, render); an item the create refuses
 * (bad media, not enough credits) ends `failed` with that error's code and message, so the batch
 * always closes and fires its callback once.
 */
import { type BatchFamily, batchStatuses, batchView } from '../batches/batch-members.js';
import { enqueueBatchItems } from '../batches/batch-queue.js';
import {
  BATCH_KINDS,
  type BatchRecord,
  batchPayloads,
  createBatch,
  getBatch,
  newBatchId,
} from '../batches/batches.js';
import { BULK_STATUS, type BulkStatus, type BulkStatusEntry } from '../batches/bulk-status.js';
import { JobAlreadyBilledError } from '../billing/credits.js';
import { ServiceError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { logger } from '../core/observability.js';
import { putItem } from '../core/repository.js';
import { requireUsableFolder } from '../folders/folders.js';
import { failJob, finishJob, startJob } from '../jobs/job-lifecycle.js';
import { createVideo } from './create-video.js';
import { videoRenderJob } from './video-render-job.js';
import { type CreateVideoBatchRequest, createVideoBody } from './video-requests.js';
import {
  getVideo,
  isTerminal,
  pendingVideo,
  toVideoRecord,
  VIDEO_FAILURE,
  VIDEO_STATUS,
  type VideoItem,
  type VideoRecord,
  videoItem,
} from './videos.js';

export async function createVideoBatch(workspaceId: string, request: CreateVideoBatchRequest) {
  if (request.folder_id !== undefined)
    await requireUsableFolder(workspaceId, request.folder_id, 'folder_id', 'video');
  const batchId = newBatchId();
  const items = request.videos.map((video, itemIndex) => ({
    item_index: itemIndex,
    video_id: newId(),
    title: video.title ?? null,
  }));
  try {
    await acceptItems(workspaceId, batchId, request, items);
  } catch (error) {
    // Nothing may wait forever for a batch that was not accepted: end what was written, failed.
    await abandonItems(workspaceId, items).catch((cleanup: unknown) =>
      logger.error('Could not end the items of a batch that failed to be accepted', { batchId, cleanup }),
    );
    throw error;
  }
  return { batch: (await getBatch(workspaceId, batchId)) as BatchRecord, items };
}

interface AcceptedItem {
  item_index: number;
  video_id: string;
  title: string | null;
}

/** Placeholders, then the batch (written last: it waits only for items that exist), then the messages. */
async function acceptItems(
  workspaceId: string,
  batchId: string,
  request: CreateVideoBatchRequest,
  items: readonly AcceptedItem[],
): Promise<void> {
  for (const item of items) {
    const video = request.videos[item.item_index] as CreateVideoBatchRequest['videos'][number];
    await putItem(
      videoItem(
        pendingVideo({
          video_id: item.video_id,
          workspace_id: workspaceId,
          type: video.type,
          title: item.title ?? request.title ?? null,
          folder_id: request.folder_id ?? null,
          callback_url: video.callback_url ?? null,
          callback_id: video.callback_id ?? null,
          output_format: 'output_format' in video ? video.output_format : 'mp4',
          resolution: video.resolution ?? '720p',
          aspect_ratio: video.aspect_ratio,
          // Filled in when the batch worker creates it.
          render: {
            scenes: [],
            burn_captions: false,
            captions_requested: false,
            watermark: null,
            cinematic: null,
            brand_glossary_id: null,
          },
          batch_id: batchId,
          item_index: item.item_index,
        }),
      ),
    );
  }
  await createBatch(workspaceId, batchId, {
    kind: BATCH_KINDS.videos,
    payloads: request.videos,
    totalItems: items.length,
    title: request.title,
    callbackUrl: request.callback_url,
  });
  await enqueueBatchItems(
    items.map((item) => ({
      kind: 'video.create' as const,
      workspace_id: workspaceId,
      batch_id: batchId,
      item_index: item.item_index,
      video_id: item.video_id,
    })),
  );
}

/**
 * Ends, failed, every placeholder of a batch that could not be accepted (and counts it, so a batch
 * that was written still closes). Items already admitted by a message that did go out are left alone.
 */
async function abandonItems(workspaceId: string, items: readonly AcceptedItem[]): Promise<void> {
  for (const item of items) {
    const placeholder = await getVideo(workspaceId, item.video_id, true);
    if (!placeholder || placeholder.billing_state !== undefined) continue;
    await failJob(videoRenderJob, videoRenderJob.refOf(placeholder), {
      code: VIDEO_FAILURE.internalError,
      message: 'The batch could not be accepted; nothing was charged. Create the batch again.',
    });
  }
}

/**
 * The batch worker's step for one item: create the video in its placeholder. Safe to repeat: an
 * item already admitted or terminal is only (re)counted when terminal.
 */
export async function admitBatchVideo(message: {
  workspace_id: string;
  batch_id: string;
  item_index: number;
  video_id: string;
}): Promise<void> {
  const placeholder = await getVideo(message.workspace_id, message.video_id, true);
  if (!placeholder) return; // deleted before it was admitted
  if (isTerminal(placeholder)) {
    await finishJob(videoRenderJob, placeholder);
    return;
  }
  if (placeholder.billing_state !== undefined) {
    // Admitted by an earlier delivery of this message, which may have stopped before starting the
    // render: start it (a render already running is left as it is).
    await startJob(videoRenderJob, videoRenderJob.refOf(placeholder));
    return;
  }
  const payloads = await batchPayloads(message.workspace_id, message.batch_id);
  if (!payloads) return;
  const request = createVideoBody.parse(payloads[message.item_index]);
  try {
    await createVideo(
      {
        workspaceId: message.workspace_id,
        batch: { batchId: message.batch_id, itemIndex: message.item_index, videoId: message.video_id },
      },
      // The batch's folder and title, unless the item names its own title.
      {
        ...request,
        title: request.title ?? placeholder.title ?? undefined,
        folder_id: placeholder.folder_id ?? undefined,
      },
    );
  } catch (error) {
    if (error instanceof JobAlreadyBilledError) return;
    if (!(error instanceof ServiceError) || error.status >= 500) throw error; // transient: retried
    // Refused as POST /v3/videos would refuse it: the item fails with that error, and says so.
    await failJob(videoRenderJob, videoRenderJob.refOf(placeholder), {
      code: error.code,
      message: error.param ? `${error.message} (${error.param})` : error.message,
    });
  }
}

export function bulkStatusOf(video: VideoRecord): BulkStatus {
  switch (video.status) {
    case VIDEO_STATUS.pending:
      return BULK_STATUS.queued;
    case VIDEO_STATUS.processing:
      return BULK_STATUS.processing;
    case VIDEO_STATUS.completed:
      return BULK_STATUS.completed;
    case VIDEO_STATUS.failed:
      return BULK_STATUS.failed;
  }
}

export function bulkEntry(video: VideoRecord): BulkStatusEntry {
  return {
    video_id: video.video_id,
    status: bulkStatusOf(video),
    batch_id: video.batch_id,
    item_index: video.item_index,
    error:
      video.status === VIDEO_STATUS.failed
        ? { code: video.failure_code ?? 'failed', message: video.failure_message ?? '' }
        : null,
  };
}

const VIDEO_BATCHES: BatchFamily<VideoRecord, VideoItem> = {
  kind: BATCH_KINDS.videos,
  listName: 'VideoBatchItems',
  get: (workspaceId, videoId) => getVideo(workspaceId, videoId),
  toRecord: toVideoRecord,
  entry: bulkEntry,
  // Admitted items render for minutes: the members say which are still queued and which running.
  uncounted: 'members',
};

export function videoBatchView(workspaceId: string, batchId: string, limit: number, token?: string) {
  return batchView(VIDEO_BATCHES, workspaceId, batchId, limit, token);
}

export function videoStatuses(workspaceId: string, videoIds: readonly string[], batchIds: readonly string[]) {
  return batchStatuses(VIDEO_BATCHES, workspaceId, videoIds, batchIds);
}
