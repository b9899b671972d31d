/**
 * Lipsyncs as the API answers them, output links freshly presigned: the Lipsync resource of
 * `/v3/lipsyncs` (the reference's fields and what this service adds), and the older Overdub resource of
 * `/v3/overdubs` over the same records (the spec's fields only).
 */
import { presignMediaDownload } from '../media/media-store.js';
import { LIPSYNC_STATUS, type LipsyncRecord } from './lipsync-records.js';

export const presigned = (key: string | null | undefined) =>
  key ? presignMediaDownload(key) : Promise.resolve(null);

/** Captions exist when the audio's words were known or heard (`engines.captions` names who heard them). */
export const hasCaptions = (record: LipsyncRecord) => record.engines.captions !== undefined;

export async function lipsyncView(record: LipsyncRecord) {
  const completed = record.status === LIPSYNC_STATUS.completed;
  const outputs = completed ? record.outputs : null;
  const captioned = hasCaptions(record);
  const [video_url, audio_url, caption_url, vtt_caption_url] = await Promise.all([
    presigned(outputs?.video_key),
    presigned(outputs?.audio_key),
    presigned(captioned ? outputs?.srt_key : null),
    presigned(captioned ? outputs?.vtt_key : null),
  ]);
  return {
    id: record.lipsync_id,
    title: record.title,
    status: record.status,
    mode: record.options.mode,
    duration: record.duration,
    video_url,
    audio_url,
    caption_url,
    vtt_caption_url,
    callback_id: record.callback_id,
    folder_id: record.folder_id,
    batch_id: record.batch_id,
    progress: record.progress,
    audio_cut_seconds: record.audio_cut_seconds,
    engines: record.engines,
    failure_code: record.failure_code,
    failure_message: record.failure_message,
    created_at: record.created_at,
    completed_at: record.completed_at,
  };
}

export async function overdubView(record: LipsyncRecord) {
  return {
    id: record.lipsync_id,
    status: record.status,
    title: record.title,
    duration: record.duration,
    video_url: record.status === LIPSYNC_STATUS.completed ? await presigned(record.outputs?.video_key) : null,
    callback_id: record.callback_id,
    created_at: record.created_at,
    failure_message: record.failure_message,
  };
}
