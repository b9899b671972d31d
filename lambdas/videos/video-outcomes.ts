/**
 * What follows a video's terminal status, wherever it was set (the render's last step, its failure
 * path, a batch item refused at admission, a restarted workflow that finds the video already ended):
 * credits settled (completed) or refunded (failed), the terminal event published with a stable id,
 * the batch item counted. Every part is idempotent, so running it again after a crash finishes what
 * the crash interrupted and repeats nothing that was done (a repeated event has the same id).
 */
import { recordBatchItemOutcome } from '../batches/batches.js';
import { refundReservation, settleReservation } from '../billing/credits.js';
import { videoCredits } from '../billing/plans.js';
import { publishEvent } from '../events/domain-events.js';
import { presignMediaDownload } from '../media/media-store.js';
import { hasReservation, VIDEO_STATUS, type VideoRecord, videoKey } from './videos.js';

export const VIDEO_CONTENT_TYPES = { mp4: 'video/mp4', webm: 'video/webm' } as const;

export async function announceOutcome(video: VideoRecord): Promise<void> {
  const key = videoKey(video.workspace_id, video.video_id);
  const callback = video.callback_url ? { callback: { url: video.callback_url, id: video.callback_id } } : {};
  if (video.status === VIDEO_STATUS.completed && video.outputs) {
    if (hasReservation(video)) {
      await settleReservation(
        key,
        video.workspace_id,
        video,
        videoCredits(video.duration ?? 0, video.resolution),
      );
    }
    await publishEvent({
      event_id: `avatar_video.success:${video.video_id}`,
      event_type: 'avatar_video.success',
      workspace_id: video.workspace_id,
      entity_id: video.video_id,
      ...callback,
      event_data: {
        video_id: video.video_id,
        url: await presignMediaDownload(video.outputs.video_key, {
          contentType: VIDEO_CONTENT_TYPES[video.output_format],
        }),
        gif_download_url: await presignMediaDownload(video.outputs.gif_key, { contentType: 'image/gif' }),
        video_page_url: null,
        video_share_page_url: null,
        folder_id: video.folder_id,
        callback_id: video.callback_id,
      },
    });
  } else if (video.status === VIDEO_STATUS.failed) {
    // A batch item refused at admission never held a reservation.
    if (hasReservation(video)) await refundReservation(key, video.workspace_id, video);
    await publishEvent({
      event_id: `avatar_video.fail:${video.video_id}`,
      event_type: 'avatar_video.fail',
      workspace_id: video.workspace_id,
      entity_id: video.video_id,
      ...callback,
      event_data: {
        video_id: video.video_id,
        failure_code: video.failure_code,
        failure_message: video.failure_message,
        msg: video.failure_message,
        folder_id: video.folder_id,
        callback_id: video.callback_id,
      },
    });
  } else {
    return;
  }
  if (video.batch_id) {
    const outcome = video.status === VIDEO_STATUS.completed ? 'succeeded' : 'failed';
    await recordBatchItemOutcome(video.workspace_id, video.batch_id, video.video_id, outcome);
  }
}
