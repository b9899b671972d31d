/**
 * Video translations: one record per output language of a `POST /v3/video-translations` (or of a
 * batch item), each one run of the `video-translation` job (video-translation-job.ts). A record holds
 * what the request asked for, where its source media is, what the steps made, and how it ended.
 *
 * Statuses are the reference's: `pending` (accepted, not started), `running`, `completed`, `failed`.
 */
import { createHash } from 'node:crypto';
import { type BatchFamily, batchStatuses } from '../batches/batch-members.js';
import { BATCH_KINDS } from '../batches/batches.js';
import { type BulkStatusEntry, mediaJobEntry } from '../batches/bulk-status.js';
import type { JobBilling } from '../billing/credits.js';
import { NotFoundError } from '../core/errors.js';
import { nowSeconds } from '../core/ids.js';
import { RESOURCE_TYPES } from '../core/table-schema.js';
import { discardJobMedia, jobRecords, listJobRecords } from '../jobs/job-records.js';
import type { JobSource } from '../videos/source-transcript.js';

export const TRANSLATION_STATUS = {
  pending: 'pending',
  running: 'running',
  completed: 'completed',
  failed: 'failed',
} as const;
export type TranslationStatus = (typeof TRANSLATION_STATUS)[keyof typeof TRANSLATION_STATUS];

export const TRANSLATION_MODES = ['speed', 'precision'] as const;
export const FPS_MODES = ['vfr', 'cfr', 'passthrough'] as const;
export const SRT_ROLES = ['input', 'output'] as const;

/** Where the words to translate come from, recorded by the Prepare step. */
export const TRANSCRIPT_SOURCES = {
  /** `srt` with `srt_role: input`: the source's own subtitles. */
  inputSubtitles: 'input_subtitles',
  /** `srt` with `srt_role: output`: the translation itself, given; nothing is recognized or translated. */
  outputSubtitles: 'output_subtitles',
  /** A video this service made: its stored words. */
  storedScript: 'stored_script',
  /** Heard by the speech recognition engine. */
  recognition: 'recognition',
} as const;
export type TranscriptSource = (typeof TRANSCRIPT_SOURCES)[keyof typeof TRANSCRIPT_SOURCES];

/** What a translation is made from and how, as the request said (validated, media stored). */
export interface TranslationOptions {
  mode: (typeof TRANSLATION_MODES)[number];
  translate_audio_only: boolean;
  speaker_num: number | null;
  start_ms: number | null;
  end_ms: number | null;
  enable_caption: boolean;
  keep_the_same_format: boolean;
  enable_dynamic_duration: boolean;
  disable_music_track: boolean;
  enable_speech_enhancement: boolean;
  enable_watermark: boolean;
  fps_mode: (typeof FPS_MODES)[number] | null;
  srt_role: (typeof SRT_ROLES)[number] | null;
  /** Stock voices to speak with instead of a voice derived from the speaker (`stock_voice_config`). */
  stock_voice_ids: string[] | null;
}

/** The source video (or audio) of a translation. */
export type TranslationSource = JobSource;

/** A brand glossary as it was when the request was admitted (brand/brand-glossaries.ts). */
export interface TranslationGlossary {
  brand_glossary_id: string;
  terms: { term: string; pronunciation: string }[];
  do_not_translate_terms: { term: string }[];
  forced_translations: { term: string; translation: string }[];
}

export interface TranslationOutputs {
  video_key: string | null;
  audio_key: string;
  srt_key: string;
  vtt_key: string;
}

/** A proofread's files, once its words are translated: what the caller reviews and edits. */
export interface ProofreadOutputs {
  /** The translated subtitles (editable with PUT …/srt). */
  srt_key: string;
  /** The source's own words, as subtitles. */
  original_srt_key: string;
}

export interface VideoTranslationRecord extends JobBilling {
  video_translation_id: string;
  /**
   * A proofread session (`POST /v3/video-translations/proofreads`): the job stops once the words are
   * translated, for review; `POST …/proofreads/{id}/generate` makes the translation from them.
   * Absent on records made before proofreads.
   */
  proofread?: boolean;
  /** A translation generated from a proofread: its words are the proofread's, as edited. */
  prepared_from?: string | null;
  proofread_outputs?: ProofreadOutputs | null;
  workspace_id: string;
  status: TranslationStatus;
  title: string;
  /** The language name the caller gave (`Spanish (Spain)`) and its BCP-47 tag. */
  output_language: string;
  output_language_tag: string;
  /** The source language's name: as given, else as found by the Prepare step; null until then. */
  input_language: string | null;
  input_language_tag: string | null;
  options: TranslationOptions;
  source: TranslationSource;
  /** `srt` media (key) and custom dubbing `audio` (key), when given. */
  srt_key: string | null;
  audio_key: string | null;
  glossary: TranslationGlossary | null;
  folder_id: string | null;
  callback_url: string | null;
  callback_id: string | null;
  batch_id: string | null;
  item_index: number | null;
  progress: number;
  /** Set by the Prepare step: where its words came from, and the engines that worked on them. */
  transcript_source: TranscriptSource | null;
  engines: Record<string, string>;
  outputs: TranslationOutputs | null;
  /** Seconds of the output. */
  duration: number | null;
  /**
   * What the translation costs once Prepare has measured the source (minutes translated, at most what
   * was reserved); the reservation is charged until then.
   */
  credits_due?: number;
  failure_code: string | null;
  failure_message: string | null;
  created_at: number;
  completed_at: number | null;
}

export type TranslationItem = VideoTranslationRecord & { pk: string; sk: string };

export const translationMediaKeys = {
  prefix: (record: TranslationIds) =>
    `workspaces/${record.workspace_id}/video-translations/${record.video_translation_id}/`,
  work: (record: TranslationIds, name: string) =>
    `workspaces/${record.workspace_id}/video-translations/${record.video_translation_id}/work/${name}`,
  output: (record: TranslationIds, name: string) =>
    `workspaces/${record.workspace_id}/video-translations/${record.video_translation_id}/${name}`,
};

type TranslationIds = Pick<VideoTranslationRecord, 'workspace_id' | 'video_translation_id'>;

export const translationNotFound = (translationId: string) =>
  new NotFoundError(`Video translation ${translationId} not found.`, 'not_found', 'video_translation_id');

/** The fields of a record that nothing has run for yet (each new translation or proofread starts so). */
export function notStarted() {
  return {
    status: TRANSLATION_STATUS.pending,
    progress: 0,
    transcript_source: null,
    engines: {},
    outputs: null,
    proofread_outputs: null,
    duration: null,
    failure_code: null,
    failure_message: null,
    created_at: nowSeconds(),
    completed_at: null,
  } satisfies Partial<VideoTranslationRecord>;
}

/** The id of a batch's item: the same for every delivery of its message, so admitting it twice is seen. */
export function batchItemTranslationId(batchId: string, itemIndex: number): string {
  return createHash('sha256').update(`${batchId}:${itemIndex}`).digest('hex').slice(0, 32);
}

/** The records of video translations and proofread sessions (a proofread is a translation stopped for review). */
export const translationRecords = jobRecords<VideoTranslationRecord, 'video_translation_id'>({
  resourceType: RESOURCE_TYPES.videoTranslation,
  idField: 'video_translation_id',
  listName: 'VideoTranslateList',
  notFound: translationNotFound,
  statuses: TRANSLATION_STATUS,
  // Proofread sessions are not listed as translations.
  listed: (record) => record.proofread !== true,
  // The media the request stored (assets and videos it used stay), and everything the job wrote.
  discard: (record) =>
    discardJobMedia(
      record.workspace_id,
      [record.source.owned ? record.source.key : null, record.srt_key, record.audio_key],
      translationMediaKeys.prefix(record),
    ),
});

export const {
  key: translationKey,
  item: translationItem,
  toRecord: toTranslationRecord,
  get: getTranslation,
  updateRunning: updateRunningTranslation,
  fail: failTranslation,
  isEnded,
} = translationRecords;

/** Newest first. */
export const listTranslations = (
  workspaceId: string,
  page: { limit: number; token?: string | undefined },
  listName?: string,
) => listJobRecords(translationRecords, workspaceId, page, listName);

/** A video translation (not a proofread session) of the workspace. */
export async function requireTranslation(
  workspaceId: string,
  translationId: string,
): Promise<VideoTranslationRecord> {
  const record = await getTranslation(workspaceId, translationId);
  if (!record || record.proofread) throw translationNotFound(translationId);
  return record;
}

export const proofreadNotFound = (proofreadId: string) =>
  new NotFoundError(`Proofread ${proofreadId} not found.`, 'not_found', 'proofread_id');

/** A proofread session of the workspace. */
export async function requireProofread(
  workspaceId: string,
  proofreadId: string,
): Promise<VideoTranslationRecord> {
  const record = await getTranslation(workspaceId, proofreadId);
  if (!record?.proofread) throw proofreadNotFound(proofreadId);
  return record;
}

export const renameTranslation = (workspaceId: string, translationId: string, title: string) =>
  translationRecords.rename(workspaceId, translationId, title, {
    accepts: (record) => !record.proofread,
    notFound: translationNotFound,
  });

/** Ends a running proofread as completed, its subtitles ready for review. */
export async function completeProofread(
  record: VideoTranslationRecord,
  outputs: ProofreadOutputs,
): Promise<VideoTranslationRecord | undefined> {
  return translationRecords.complete(record, { proofread_outputs: outputs });
}

/** Ends a running record as completed with its outputs and engines (a conditional write: not if it ended meanwhile). */
export async function completeTranslation(
  record: VideoTranslationRecord,
  outputs: TranslationOutputs,
  duration: number,
  engines: Record<string, string>,
): Promise<VideoTranslationRecord | undefined> {
  return translationRecords.complete(record, { outputs, duration, engines });
}

/**
 * Deletes a translation (not a proofread session), its outputs and the media the request stored. One
 * deleted before it ended gets its credits back and counts as failed in its batch; its workflow finds
 * no record at its next step and removes what it had written.
 */
export const deleteTranslation = (workspaceId: string, translationId: string) =>
  translationRecords.remove(workspaceId, translationId, { accepts: (record) => !record.proofread });

/** Translations as batch members (`POST /v3/video-translations/batches`), for batch views and statuses. */
export const TRANSLATION_BATCH_FAMILY: BatchFamily<VideoTranslationRecord, TranslationItem> = {
  kind: BATCH_KINDS.videoTranslations,
  listName: 'VideoTranslateBatchItems',
  get: (workspaceId, id) => getTranslation(workspaceId, id),
  toRecord: toTranslationRecord,
  entry: (record) => mediaJobEntry(record.video_translation_id, record),
  uncounted: 'members',
};

/** `GET /v3/video-translations/statuses`: one entry per id, then the items of each batch. */
export function translationStatuses(
  workspaceId: string,
  ids: readonly string[],
  batchIds: readonly string[],
): Promise<BulkStatusEntry[]> {
  return batchStatuses(TRANSLATION_BATCH_FAMILY, workspaceId, ids, batchIds);
}
