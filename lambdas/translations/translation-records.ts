/**
 * Video translations: one record per output language of a `POST /v3/video-translations` (or of a
 * batch item), each one run of the `video-translation` job (video-translation-job.ts). A record holds
 * what the request asked for, where its source media is, what the steps made, and how it ended.
 *
 * Statuses are the reference's: `pending` (accepted, not started), `running`, `completed`, `failed`.
 */
import { createHash } from 'node:crypto';
import { type BatchFamily, batchStatuses } from '../batches/batch-members.js';
import {
  BATCH_KINDS,
  batchItemSortKey,
  batchItemsPartition,
  recordBatchItemOutcome,
} from '../batches/batches.js';
import { type BulkStatusEntry, mediaJobEntry } from '../batches/bulk-status.js';
import { BILLING_STATE, type JobBilling, refundReservation } from '../billing/credits.js';
import { NotFoundError } from '../core/errors.js';
import { ID_PATTERN, nowSeconds } from '../core/ids.js';
import {
  deleteExistingItem,
  getItem,
  queryPage,
  type StoredItem,
  updateExistingItem,
} from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';
import { mediaKeys } from '../media/media-keys.js';
import { deleteMediaObject, listMediaKeys } from '../media/media-store.js';
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

export const translationKey = (workspaceId: string, translationId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.videoTranslation, translationId);

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

/** The table item of a record (before its reservation is written, without the billing fields). */
export function translationItem(record: Omit<VideoTranslationRecord, keyof JobBilling>): StoredItem {
  return {
    ...translationKey(record.workspace_id, record.video_translation_id),
    // A batch's items are indexed under it in item order (batches/batch-members.ts).
    ...(record.batch_id !== null && record.item_index !== null
      ? {
          gsi1pk: batchItemsPartition(record.workspace_id, record.batch_id),
          gsi1sk: batchItemSortKey(record.item_index),
        }
      : {}),
    ...record,
  };
}

/** The id of a batch's item: the same for every delivery of its message, so admitting it twice is seen. */
export function batchItemTranslationId(batchId: string, itemIndex: number): string {
  return createHash('sha256').update(`${batchId}:${itemIndex}`).digest('hex').slice(0, 32);
}

export function toTranslationRecord(item: TranslationItem): VideoTranslationRecord {
  const { pk: _pk, sk: _sk, ...record } = item;
  return record;
}

export async function getTranslation(
  workspaceId: string,
  translationId: string,
  consistent = false,
): Promise<VideoTranslationRecord | undefined> {
  if (!ID_PATTERN.test(translationId)) return undefined;
  const item = await getItem<TranslationItem>(translationKey(workspaceId, translationId), consistent);
  return item ? toTranslationRecord(item) : undefined;
}

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

/** Newest first. */
export async function listTranslations(
  workspaceId: string,
  page: { limit: number; token?: string | undefined },
) {
  const result = await queryPage<TranslationItem>({
    partition: keys.workspacePartition(workspaceId),
    sortKeyPrefix: `${RESOURCE_TYPES.videoTranslation}#`,
    limit: page.limit,
    token: page.token,
    binding: `${workspaceId}:VideoTranslateList`,
    // Proofread sessions are translations stopped for review; they are not listed as translations.
    keep: (item) => item.proofread !== true,
  });
  return { items: result.items.map(toTranslationRecord), nextToken: result.nextToken };
}

/** Sets fields of a record that is still running (not ended, not deleted); the record after, else undefined. */
export async function updateRunningTranslation(
  record: TranslationIds,
  fields: Partial<VideoTranslationRecord>,
): Promise<VideoTranslationRecord | undefined> {
  for (const status of [TRANSLATION_STATUS.running, TRANSLATION_STATUS.pending]) {
    const item = await updateExistingItem<TranslationItem>(
      translationKey(record.workspace_id, record.video_translation_id),
      fields,
      [],
      { status },
    );
    if (item) return toTranslationRecord(item);
  }
  return undefined;
}

export async function renameTranslation(
  workspaceId: string,
  translationId: string,
  title: string,
): Promise<VideoTranslationRecord> {
  await requireTranslation(workspaceId, translationId);
  const item = await updateExistingItem<TranslationItem>(translationKey(workspaceId, translationId), {
    title,
  });
  if (!item) throw translationNotFound(translationId);
  return toTranslationRecord(item);
}

/** Ends a running proofread as completed, its subtitles ready for review. */
export async function completeProofread(
  record: VideoTranslationRecord,
  outputs: ProofreadOutputs,
): Promise<VideoTranslationRecord | undefined> {
  return updateRunningTranslation(record, {
    status: TRANSLATION_STATUS.completed,
    proofread_outputs: outputs,
    progress: 100,
    completed_at: nowSeconds(),
  });
}

/** Ends a running record as completed with its outputs and engines (a conditional write: not if it ended meanwhile). */
export async function completeTranslation(
  record: VideoTranslationRecord,
  outputs: TranslationOutputs,
  duration: number,
  engines: Record<string, string>,
): Promise<VideoTranslationRecord | undefined> {
  return updateRunningTranslation(record, {
    status: TRANSLATION_STATUS.completed,
    outputs,
    duration,
    engines,
    progress: 100,
    completed_at: nowSeconds(),
  });
}

export async function failTranslation(
  record: VideoTranslationRecord,
  failure: { code: string; message: string },
): Promise<VideoTranslationRecord | undefined> {
  return updateRunningTranslation(record, {
    status: TRANSLATION_STATUS.failed,
    failure_code: failure.code,
    failure_message: failure.message,
    completed_at: nowSeconds(),
  });
}

/** Attempts when the record is being admitted (its reservation written) while it is deleted. */
const DELETE_ATTEMPTS = 3;

/**
 * Removes the record, its outputs and the source the request stored (assets and videos it used
 * stay). A translation deleted before it ended gets its credits back and counts as failed in its
 * batch; its workflow finds no record at its next step and removes what it had written.
 */
export async function deleteTranslation(workspaceId: string, translationId: string): Promise<void> {
  const key = translationKey(workspaceId, translationId);
  for (let attempt = 1; attempt <= DELETE_ATTEMPTS; attempt++) {
    const record = await getTranslation(workspaceId, translationId, true);
    if (!record || record.proofread) throw translationNotFound(translationId);
    if (record.billing_state === BILLING_STATE.reserved) await refundReservation(key, workspaceId, record);
    if (!(await deleteExistingItem(key, { billing_state: BILLING_STATE.reserved }))) continue;
    if (record.batch_id && !isEnded(record)) {
      await recordBatchItemOutcome(workspaceId, record.batch_id, translationId, 'failed');
    }
    const objects = [
      ...[record.source.owned ? record.source.key : null, record.srt_key, record.audio_key].filter(
        (objectKey): objectKey is string => objectKey?.startsWith(mediaKeys.input(workspaceId, '')) === true,
      ),
      ...(await listMediaKeys(translationMediaKeys.prefix(record))),
    ];
    await Promise.all(objects.map((objectKey) => deleteMediaObject(objectKey)));
    return;
  }
  throw new Error(`Video translation ${translationId} kept being admitted while it was deleted`);
}

export const isEnded = (record: Pick<VideoTranslationRecord, 'status'>) =>
  record.status === TRANSLATION_STATUS.completed || record.status === TRANSLATION_STATUS.failed;

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
