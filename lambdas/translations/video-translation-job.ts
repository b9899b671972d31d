/**
 * The video translation job (docs/architecture.md, "Jobs"): `state-machines/video-translation.asl.json`
 * runs Prepare then Dub (`translation-steps.ts`, in the media container on AWS), and the framework's
 * failure step from their Catch. One run per output language: created `pending` with its credits
 * reserved, `running` from Prepare, `completed` (charged for the source minutes it translated) or
 * `failed` (refunded) with the step's reason.
 *
 * - Prepare: the source is cut to `start_time`/`end_time`; its words are read (given subtitles, the
 *   stored words of a video this service made, or the speech recognition engine) and translated segment
 *   by segment with the glossary (skipped for `srt_role: output`). The segments go to a work file.
 * - Dub: a voice (derived from the speaker's recording, the chosen stock voices, or the given audio),
 *   each line spoken in its segment's time, the new soundtrack mixed, the lips re-animated on the
 *   faces, captions, the outputs stored.
 *
 * A proofread session is a run with the record's `proofread` flag: Dub stores its subtitles for review
 * instead (proofreads.ts). Events `video_translate.success` / `.fail`, for proofreads
 * `proofread_creation.success` / `.fail`.
 */
import { z } from 'zod';
import { GRANTS } from '../core/grants.js';
import { chargedOnRecord, defineJob, outcomeByStatus, refundedJobWording } from '../jobs/job-definition.js';
import { TASK_PACKAGING } from '../jobs/task-deployment.js';
import { deleteMediaObject, deleteMediaPrefix, presignMediaDownload } from '../media/media-store.js';
import {
  failTranslation,
  getTranslation,
  TRANSLATION_STATUS,
  translationKey,
  translationMediaKeys,
  type VideoTranslationRecord,
} from './translation-records.js';
import { presignedOutputs } from './translation-views.js';

export const TRANSLATION_FAILURE = {
  invalidMedia: 'invalid_media',
  invalidSubtitles: 'invalid_subtitles',
  /** No words to translate: a silent source, or subtitles without cues in the cut. */
  noSpeech: 'no_speech',
  engineUnavailable: 'engine_unavailable',
  timeout: 'translation_timeout',
  internalError: 'internal_error',
} as const;

export const translationRef = z.object({
  workspace_id: z.string().min(1),
  video_translation_id: z.string().min(1),
});
export type TranslationRef = z.infer<typeof translationRef>;

async function completedEventUrls(record: VideoTranslationRecord) {
  const urls = await presignedOutputs(record);
  return { url: urls.video_url ?? urls.audio_url, ...urls };
}

const eventData = async (record: VideoTranslationRecord) =>
  record.proofread ? proofreadEventData(record) : translationEventData(record);

/** A proofread's event: the session, and its subtitles when ready. */
const proofreadEventData = async (record: VideoTranslationRecord) => ({
  proofread_id: record.video_translation_id,
  title: record.title,
  input_language: record.input_language,
  output_language: record.output_language,
  status: record.status,
  callback_id: record.callback_id,
  ...(record.proofread_outputs
    ? { srt_url: await presignMediaDownload(record.proofread_outputs.srt_key) }
    : { failure_code: record.failure_code, failure_message: record.failure_message }),
});

const translationEventData = async (record: VideoTranslationRecord) => ({
  video_translation_id: record.video_translation_id,
  // The hosted API's webhook names the id `video_translate_id`; both are sent.
  video_translate_id: record.video_translation_id,
  title: record.title,
  input_language: record.input_language,
  output_language: record.output_language,
  callback_id: record.callback_id,
  folder_id: record.folder_id,
  ...(record.status === TRANSLATION_STATUS.completed
    ? await completedEventUrls(record)
    : {
        failure_code: record.failure_code,
        failure_message: record.failure_message,
        message: record.failure_message,
      }),
});

const TRANSLATION_MEDIA = [GRANTS.jobItems, GRANTS.jobMedia, GRANTS.publishEvents] as const;

export const videoTranslationJob = defineJob({
  name: 'video-translation',
  taskPrefix: 'Translation',
  ref: translationRef,
  executionName: (ref) => ref.video_translation_id,
  refOf: (record: VideoTranslationRecord) => ({
    workspace_id: record.workspace_id,
    video_translation_id: record.video_translation_id,
  }),
  stepsModule: 'translations/translation-steps',
  steps: {
    Prepare: {
      description:
        'Video translation: cut the source, read its words (subtitles, stored script or speech recognition), translate them segment by segment with the glossary',
      input: translationRef,
      output: z.null(),
      deployment: {
        access: [...TRANSLATION_MEDIA, GRANTS.recognizeSpeech, GRANTS.translateText],
        packaging: TASK_PACKAGING.mediaImage,
        memorySize: 3008,
        timeoutSeconds: 900,
      },
    },
    Dub: {
      description:
        'Video translation: speak each line in its time with a voice like the speaker, mix the new soundtrack, re-animate the lips, captions, store the outputs',
      input: translationRef,
      output: z.null(),
      deployment: {
        access: [...TRANSLATION_MEDIA, GRANTS.synthesizeSpeech],
        packaging: TASK_PACKAGING.mediaImage,
        memorySize: 3008,
        timeoutSeconds: 900,
      },
    },
  },
  record: {
    get: (ref) => getTranslation(ref.workspace_id, ref.video_translation_id, true),
    outcome: outcomeByStatus({ succeeded: TRANSLATION_STATUS.completed, failed: TRANSLATION_STATUS.failed }),
    fail: (record, failure) => failTranslation(record, failure),
  },
  wording: refundedJobWording({
    codes: TRANSLATION_FAILURE,
    job: 'The translation',
    again: 'Translate the video again',
    report: 'the video_translation_id',
    faster: 'A shorter video (or start_time/end_time) translates faster.',
  }),
  events: {
    entityId: (record) => record.video_translation_id,
    success: {
      type: {
        byRecord: (record) => (record.proofread ? 'proofread_creation.success' : 'video_translate.success'),
        all: ['video_translate.success', 'proofread_creation.success'],
      },
      data: eventData,
    },
    failure: {
      type: {
        byRecord: (record) => (record.proofread ? 'proofread_creation.fail' : 'video_translate.fail'),
        all: ['video_translate.fail', 'proofread_creation.fail'],
      },
      data: eventData,
    },
    callback: (record) =>
      record.callback_url ? { url: record.callback_url, id: record.callback_id } : undefined,
  },
  billing: chargedOnRecord<VideoTranslationRecord>((record) =>
    translationKey(record.workspace_id, record.video_translation_id),
  ),
  batchItem: (record) =>
    record.batch_id ? { batchId: record.batch_id, itemId: record.video_translation_id } : undefined,
  // The source the request stored and the steps' work files are not kept once the translation ended.
  release: async (record) => {
    // A proofread keeps its source and words: translations are generated from them later.
    if (record.proofread) return;
    await deleteMediaPrefix(translationMediaKeys.work(record, ''));
    if (record.source.owned) await deleteMediaObject(record.source.key);
  },
  cleanUpGone: (ref) =>
    deleteMediaPrefix(
      translationMediaKeys.prefix({
        workspace_id: ref.workspace_id,
        video_translation_id: ref.video_translation_id,
      }),
    ),
  failureAccess: [GRANTS.jobMedia],
  concurrencyLimited: true,
});
