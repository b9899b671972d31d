/** Model videos as the API answers them: the reference's fields, the video freshly presigned. */
import { presignMediaDownload } from '../media/media-store.js';
import type { ModelVideoRecord } from './model-video-records.js';

export async function modelVideoView(record: ModelVideoRecord) {
  const completed = record.status === 'completed';
  return {
    video_id: record.video_id,
    status: record.status,
    model: record.model,
    mode: record.mode,
    created_at: record.created_at,
    completed_at: record.completed_at,
    aspect_ratio: record.aspect_ratio,
    resolution: record.resolution,
    duration: completed ? record.duration : null,
    width: record.width,
    height: record.height,
    seed: completed ? record.seed : null,
    video_url: completed && record.video_key ? await presignMediaDownload(record.video_key) : null,
    // The engines report no inference time of their own (Nova Reel's asynchronous invocation does not).
    timings: null,
    callback_id: record.callback_id,
    // Absent unless failed: the reference reads it as one of its codes, never null.
    ...(record.failure_code ? { failure_code: record.failure_code } : {}),
    failure_message: record.failure_message,
  };
}
