/** Video translations as the API answers them: the reference's fields, output links freshly presigned. */
import { presignMediaDownload } from '../media/media-store.js';
import type { VideoTranslationRecord } from './translation-records.js';

export interface TranslationOutputUrls {
  video_url: string | null;
  audio_url: string | null;
  srt_caption_url: string | null;
  vtt_caption_url: string | null;
}

const presigned = (key: string | null | undefined) =>
  key ? presignMediaDownload(key) : Promise.resolve(null);

export async function presignedOutputs(record: VideoTranslationRecord): Promise<TranslationOutputUrls> {
  const outputs = record.outputs;
  const [video_url, audio_url, srt_caption_url, vtt_caption_url] = await Promise.all([
    presigned(outputs?.video_key),
    presigned(outputs?.audio_key),
    presigned(outputs?.srt_key),
    presigned(outputs?.vtt_key),
  ]);
  return { video_url, audio_url, srt_caption_url, vtt_caption_url };
}

export async function translationView(record: VideoTranslationRecord) {
  return {
    id: record.video_translation_id,
    title: record.title,
    status: record.status,
    input_language: record.input_language,
    output_language: record.output_language,
    translate_audio_only: record.options.translate_audio_only,
    callback_id: record.callback_id,
    folder_id: record.folder_id,
    batch_id: record.batch_id,
    progress: record.progress,
    duration: record.duration,
    ...(await presignedOutputs(record)),
    failure_code: record.failure_code,
    failure_message: record.failure_message,
    /** Which engines did the work (speech recognition, translation, speech, lips). */
    engines: record.engines,
    transcript_source: record.transcript_source,
    created_at: record.created_at,
    completed_at: record.completed_at,
  };
}
