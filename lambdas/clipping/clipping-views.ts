/** AI clipping jobs as the API and the webhooks answer them: the reference's fields, links freshly presigned. */
import { presignMediaDownload } from '../media/media-store.js';
import { type AiClippingRecord, CLIP_STATUS, CLIPPING_STATUS, type ClipRecord } from './clipping-records.js';

const presigned = (key: string | null) => (key ? presignMediaDownload(key) : Promise.resolve(null));

async function clipView(clip: ClipRecord, record: AiClippingRecord) {
  const completed = clip.status === CLIP_STATUS.completed;
  return {
    id: clip.id,
    status: clip.status,
    title: clip.title,
    duration_seconds: completed ? clip.duration_seconds : null,
    virality_score: completed ? clip.virality_score : null,
    thumbnail_url: completed ? await presigned(clip.thumbnail_key) : null,
    video_url: completed ? await presigned(clip.video_key) : null,
    // Known from the request before the clip is made (the reference's clients read a string).
    aspect_ratio: clip.aspect_ratio ?? record.output_settings.aspect_ratio,
    failure_message: null,
    /** Where in the source the clip is cut from, and what its score is made of. */
    duration_type: clip.duration_type,
    start_seconds: clip.start_ms / 1000,
    end_seconds: clip.end_ms / 1000,
    score_features: clip.features,
  };
}

/**
 * One job. `coarse` (the list): progress is 0 until the job completed, then 100, as the reference's list
 * reports it; the single read reports the live value.
 */
export async function clippingView(record: AiClippingRecord, options: { coarse?: boolean } = {}) {
  return {
    id: record.clipping_id,
    title: record.title,
    status: record.status,
    input_language: record.input_language,
    output_settings: record.output_settings,
    callback_id: record.callback_id,
    progress: options.coarse ? (record.status === CLIPPING_STATUS.completed ? 100 : 0) : record.progress,
    source_duration: record.source_duration,
    clips: await Promise.all(record.clips.map((clip) => clipView(clip, record))),
    failure_code: record.failure_code,
    failure_message: record.failure_message,
    transcript_source: record.transcript_source,
    engines: record.engines,
    created_at: record.created_at,
    completed_at: record.completed_at,
  };
}
