/** Filler-word removals as the API answers them: the reference's fields, output links freshly presigned. */
import { presignMediaDownload } from '../media/media-store.js';
import type { FillerRemovalRecord } from './filler-removal-records.js';

const presigned = (key: string | null | undefined) =>
  key ? presignMediaDownload(key) : Promise.resolve(null);

export async function fillerRemovalView(record: FillerRemovalRecord) {
  const [video_url, thumbnail_url] = await Promise.all([
    presigned(record.outputs?.video_key),
    presigned(record.outputs?.thumbnail_key),
  ]);
  return {
    id: record.filler_word_removal_id,
    title: record.title,
    status: record.status,
    progress: record.progress,
    callback_id: record.callback_id,
    num_cuts: record.result?.num_cuts ?? null,
    original_duration: record.result?.original_duration ?? null,
    output_duration: record.result?.output_duration ?? null,
    reduction_pct: record.result?.reduction_pct ?? null,
    video_url,
    thumbnail_url,
    failure_code: record.failure_code,
    failure_message: record.failure_message,
    engines: record.engines,
    created_at: record.created_at,
    completed_at: record.completed_at,
  };
}
