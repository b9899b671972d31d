/**
 * `POST /v3/video-translations/batches`: 1 to 100 translate requests at once. Each payload's languages
 * are items of the batch (at most 100 in all), numbered in payload order. The request is answered at
 * once with the batch id; the batch worker admits each payload as `POST /v3/video-translations` would
 * (its media fetched, its credits reserved, its jobs started), so a slow download never holds the
 * request. A payload the create refuses ends its items `failed` with that error, and the batch still
 * closes: `batch.completed` (and the batch's `callback_url`) once every item has ended.
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
import { InvalidParameterError, ServiceError } from '../core/errors.js';
import { nowSeconds } from '../core/ids.js';
import { putItem } from '../core/repository.js';
import { finishJob, startJob } from '../jobs/job-lifecycle.js';
import { NO_SOURCE } from '../videos/source-transcript.js';
import { createTranslations, type TranslationRequest } from './create-translation.js';
import {
  batchItemTranslationId,
  getTranslation,
  isEnded,
  notStarted,
  TRANSLATION_BATCH_FAMILY,
  TRANSLATION_STATUS,
  translationItem,
} from './translation-records.js';
import { videoTranslationJob } from './video-translation-job.js';

/** Items of one batch, languages expanded. */
export const MAX_BATCH_ITEMS = 100;

export interface TranslationBatchRequest {
  video_translations: TranslationRequest[];
  title?: string | undefined;
  callback_url?: string | undefined;
}

export async function createTranslationBatch(
  workspaceId: string,
  request: TranslationBatchRequest,
): Promise<BatchRecord> {
  let items = 0;
  request.video_translations.forEach((payload, index) => {
    items += payload.output_languages.length;
    if (items > MAX_BATCH_ITEMS) {
      throw new InvalidParameterError(
        `video_translations[${index}] brings the batch to ${items} items (one per output language); a batch holds at most ${MAX_BATCH_ITEMS}.`,
        'video_translations',
      );
    }
  });
  const batchId = newBatchId();
  const batch = await createBatch(workspaceId, batchId, {
    kind: BATCH_KINDS.videoTranslations,
    payloads: request.video_translations,
    totalItems: items,
    title: request.title,
    callbackUrl: request.callback_url,
  });
  let firstItem = 0;
  await enqueueBatchItems(
    request.video_translations.map((payload, payloadIndex) => {
      const message = {
        kind: 'translation.create' as const,
        workspace_id: workspaceId,
        batch_id: batchId,
        payload_index: payloadIndex,
        first_item_index: firstItem,
      };
      firstItem += payload.output_languages.length;
      return message;
    }),
  );
  return batch;
}

/**
 * The batch worker's step for one payload: its translations created and started. Safe to repeat: a
 * payload already admitted has its jobs started (or its ended items counted) again, nothing more.
 */
export async function admitBatchTranslation(message: {
  workspace_id: string;
  batch_id: string;
  payload_index: number;
  first_item_index: number;
}): Promise<void> {
  const payloads = await batchPayloads(message.workspace_id, message.batch_id);
  if (!payloads) return;
  const payload = payloads[message.payload_index] as TranslationRequest;
  const ids = payload.output_languages.map((_, index) =>
    batchItemTranslationId(message.batch_id, message.first_item_index + index),
  );
  const existing = await Promise.all(ids.map((id) => getTranslation(message.workspace_id, id, true)));
  if (existing.some((record) => record !== undefined)) {
    for (const record of existing) {
      if (!record) continue;
      if (isEnded(record)) await finishJob(videoTranslationJob, record);
      else if (record.billing_state !== undefined)
        await startJob(videoTranslationJob, videoTranslationJob.refOf(record));
    }
    return;
  }
  try {
    await createTranslations(
      {
        workspaceId: message.workspace_id,
        param: `video_translations[${message.payload_index}].`,
        batch: { batchId: message.batch_id, firstIndex: message.first_item_index },
      },
      payload,
    );
  } catch (error) {
    if (!(error instanceof ServiceError) || error.status >= 500) throw error; // transient: retried
    // Refused as POST /v3/video-translations would refuse it: its items fail with that error.
    const failure = {
      code: error.code,
      message: error.param ? `${error.message} (${error.param})` : error.message,
    };
    for (const [index, language] of payload.output_languages.entries()) {
      const id = ids[index] as string;
      await putItem(
        translationItem({
          video_translation_id: id,
          workspace_id: message.workspace_id,
          ...notStarted(),
          status: TRANSLATION_STATUS.failed,
          proofread: false,
          prepared_from: null,
          title: payload.title ?? `Translation into ${language}`,
          output_language: language,
          output_language_tag: language,
          input_language: payload.input_language ?? null,
          input_language_tag: null,
          options: {
            mode: payload.mode ?? 'speed',
            translate_audio_only: payload.translate_audio_only ?? false,
            speaker_num: payload.speaker_num ?? null,
            start_ms: null,
            end_ms: null,
            enable_caption: payload.enable_caption ?? false,
            keep_the_same_format: payload.keep_the_same_format ?? false,
            enable_dynamic_duration: payload.enable_dynamic_duration ?? true,
            disable_music_track: payload.disable_music_track ?? false,
            enable_speech_enhancement: payload.enable_speech_enhancement ?? false,
            enable_watermark: payload.enable_watermark ?? false,
            fps_mode: payload.fps_mode ?? null,
            srt_role: payload.srt_role ?? null,
            stock_voice_ids: null,
          },
          source: NO_SOURCE,
          srt_key: null,
          audio_key: null,
          glossary: null,
          folder_id: payload.folder_id ?? null,
          callback_url: null,
          callback_id: payload.callback_id ?? null,
          batch_id: message.batch_id,
          item_index: message.first_item_index + index,
          failure_code: failure.code,
          failure_message: failure.message,
          completed_at: nowSeconds(),
        }),
      );
      await recordBatchItemOutcome(message.workspace_id, message.batch_id, id, 'failed');
    }
  }
}

/** `GET /v3/video-translations/batches/{batch_id}`. */
export function translationBatchView(workspaceId: string, batchId: string, limit: number, token?: string) {
  return batchView(TRANSLATION_BATCH_FAMILY, workspaceId, batchId, limit, token);
}
