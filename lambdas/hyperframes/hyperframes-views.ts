/** HyperFrames renders as the API answers them: the hosted API's fields, links freshly presigned. */
import { presignMediaDownload } from '../media/media-store.js';
import type { HyperframesRenderRecord } from './hyperframes-records.js';

export async function hyperframesRenderView(record: HyperframesRenderRecord) {
  return {
    render_id: record.render_id,
    status: record.status,
    format: record.format,
    title: record.title,
    callback_id: record.callback_id,
    video_url: record.outputs ? await presignMediaDownload(record.outputs.video_key) : null,
    thumbnail_url: record.outputs ? await presignMediaDownload(record.outputs.thumbnail_key) : null,
    duration: record.duration,
    fps: record.fps,
    quality: record.quality,
    resolution: record.resolution,
    aspect_ratio: record.aspect_ratio,
    composition: record.composition,
    progress: record.progress,
    frames_rendered: record.frames_rendered,
    total_frames: record.total_frames,
    created_at: record.created_at,
    completed_at: record.completed_at,
    failure_code: record.failure_code,
    failure_message: record.failure_message,
    // What a live client of the hosted API was seen reading: the same text.
    failure_reason: record.failure_message,
  };
}
