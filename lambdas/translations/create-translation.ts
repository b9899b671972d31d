/**
 * `POST /v3/video-translations` (and each payload of a batch): the request checked against what this
 * deployment can do, its media stored, one record per output language with its credits reserved, and
 * one `video-translation` run started per record.
 *
 * A source that is a video of this workspace (its `video_url` as the API gave it) is read from the
 * media bucket directly, and its words are known (the render keeps them): no download, no recognition.
 */
import { getWorkspace, type Workspace } from '../accounts/workspaces.js';
import { type MediaInput, type ResolvedMedia, resolveMediaInput } from '../assets/media-inputs.js';
import { assertCanPay, createJobWithReservation } from '../billing/credits.js';
import { translationCredits } from '../billing/plans.js';
import { glossaryForGeneration } from '../brand/brand-glossaries.js';
import { findStockVoice } from '../catalog/stock-voices.js';
import { ForbiddenError, InvalidParameterError, NotFoundError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { isSubtitleFormatError, parseSubtitles } from '../engines/composition/subtitle-files.js';
import { requireUsableFolder } from '../folders/folders.js';
import { startJob } from '../jobs/job-lifecycle.js';
import { deleteMediaObject, readMediaObject } from '../media/media-store.js';
import { admitJobSource } from '../videos/source-transcript.js';
import { findSourceLanguage, findTargetLanguage, type NamedLanguage } from './translation-languages.js';
import {
  batchItemTranslationId,
  type FPS_MODES,
  notStarted,
  type SRT_ROLES,
  type TRANSLATION_MODES,
  type TranslationGlossary,
  translationItem,
  type VideoTranslationRecord,
} from './translation-records.js';
import { videoTranslationJob } from './video-translation-job.js';

export interface TranslationRequest {
  video: MediaInput;
  output_languages: string[];
  title?: string | undefined;
  input_language?: string | undefined;
  mode?: (typeof TRANSLATION_MODES)[number] | undefined;
  srt?: MediaInput | undefined;
  srt_role?: (typeof SRT_ROLES)[number] | undefined;
  audio?: MediaInput | undefined;
  translate_audio_only?: boolean | undefined;
  speaker_num?: number | undefined;
  start_time?: number | undefined;
  end_time?: number | undefined;
  enable_caption?: boolean | undefined;
  keep_the_same_format?: boolean | undefined;
  enable_dynamic_duration?: boolean | undefined;
  disable_music_track?: boolean | undefined;
  enable_speech_enhancement?: boolean | undefined;
  enable_watermark?: boolean | undefined;
  brand_glossary_id?: string | undefined;
  /** Legacy name of `brand_glossary_id`. */
  brand_voice_id?: string | undefined;
  folder_id?: string | undefined;
  fps_mode?: (typeof FPS_MODES)[number] | undefined;
  stock_voice_config?:
    | { use_stock_voice?: boolean | undefined; preferred_stock_voice_ids?: string[] | undefined }
    | undefined;
  callback_url?: string | undefined;
  callback_id?: string | undefined;
}

export interface TranslationContext {
  workspaceId: string;
  /** A proofread session: the job stops once the words are translated (nothing is charged for it). */
  proofread?: boolean;
  /** Prefix of every `param` (`video_translations[3].` in a batch). */
  param?: string;
  batch?: { batchId: string; firstIndex: number };
}

function targetsOf(request: TranslationRequest, param: string): NamedLanguage[] {
  const seen = new Set<string>();
  return request.output_languages.map((name, index) => {
    const language = findTargetLanguage(name);
    if (!language) {
      throw new InvalidParameterError(
        `${name} is not a language this deployment translates into; GET /v3/video-translations/languages lists them.`,
        `${param}output_languages[${index}]`,
      );
    }
    if (seen.has(language.name)) {
      throw new InvalidParameterError(`${name} is asked for twice.`, `${param}output_languages[${index}]`);
    }
    seen.add(language.name);
    return language;
  });
}

/**
 * `stock_voice_config`: an Enterprise feature an administrator enables per workspace
 * (`admin workspace update <id> --translation-stock-voices on`).
 */
function stockVoicesOf(workspace: Workspace, request: TranslationRequest, param: string): string[] | null {
  const config = request.stock_voice_config;
  if (!config?.use_stock_voice) return null;
  if (!workspace.translation_stock_voices) {
    throw new ForbiddenError(
      'Stock voices for translations (stock_voice_config) are an Enterprise feature an administrator enables for the workspace; without it the speakers’ own voices are used.',
      'forbidden',
      { param: `${param}stock_voice_config.use_stock_voice` },
    );
  }
  return (config.preferred_stock_voice_ids ?? []).map((voiceId, index) => {
    if (!findStockVoice(voiceId)) {
      throw new NotFoundError(
        `Stock voice ${voiceId} does not exist; GET /v3/voices?type=public lists them.`,
        'voice_not_found',
        `${param}stock_voice_config.preferred_stock_voice_ids[${index}]`,
      );
    }
    return voiceId;
  });
}

async function glossaryOf(
  workspaceId: string,
  request: TranslationRequest,
  param: string,
): Promise<TranslationGlossary | null> {
  const [field, id] =
    request.brand_glossary_id !== undefined
      ? ['brand_glossary_id', request.brand_glossary_id]
      : ['brand_voice_id', request.brand_voice_id];
  if (id === undefined) return null;
  const snapshot = await glossaryForGeneration(workspaceId, id, `${param}${field}`);
  return {
    brand_glossary_id: id,
    terms: snapshot.terms,
    do_not_translate_terms: snapshot.do_not_translate_terms,
    forced_translations: snapshot.forced_translations,
  };
}

/** Stores the subtitles and checks them now, so a bad file is a 400 naming its line, not a failed job. */
async function subtitlesOf(workspaceId: string, request: TranslationRequest, param: string) {
  if (!request.srt) {
    if (request.srt_role !== undefined)
      throw new InvalidParameterError('srt_role needs srt.', `${param}srt_role`);
    return null;
  }
  const media = await resolveMediaInput(workspaceId, request.srt, {
    param: `${param}srt`,
    accept: ['subtitle'],
  });
  try {
    parseSubtitles(await readMediaObject(media.objectKey));
  } catch (error) {
    if (media.source !== 'asset') await deleteMediaObject(media.objectKey);
    if (isSubtitleFormatError(error)) throw new InvalidParameterError(error.message, `${param}srt`);
    throw error;
  }
  return media;
}

/** Creates the translations of one request (one per output language) and starts them. */
export async function createTranslations(
  context: TranslationContext,
  request: TranslationRequest,
): Promise<VideoTranslationRecord[]> {
  const param = context.param ?? '';
  const workspace = await getWorkspace(context.workspaceId);
  if (!workspace) throw new Error(`Workspace ${context.workspaceId} not found`);
  const targets = targetsOf(request, param);
  const input = request.input_language !== undefined ? findSourceLanguage(request.input_language) : undefined;
  if (request.input_language !== undefined && !input) {
    throw new InvalidParameterError(
      `${request.input_language} is not a language name or BCP-47 tag this deployment knows.`,
      `${param}input_language`,
    );
  }
  const startMs = request.start_time !== undefined ? Math.round(request.start_time * 1000) : null;
  const endMs = request.end_time !== undefined ? Math.round(request.end_time * 1000) : null;
  if (startMs !== null && endMs !== null && endMs <= startMs) {
    throw new InvalidParameterError('end_time must be after start_time.', `${param}end_time`);
  }
  const stockVoices = stockVoicesOf(workspace, request, param);
  const glossary = await glossaryOf(context.workspaceId, request, param);
  if (request.folder_id !== undefined)
    await requireUsableFolder(context.workspaceId, request.folder_id, `${param}folder_id`, 'video_translate');

  const stored: ResolvedMedia[] = [];
  try {
    const admitted = await admitJobSource(context.workspaceId, request.video, {
      param: `${param}video`,
      accept: ['video', 'audio'],
    });
    if (admitted.stored) stored.push(admitted.stored);
    const { source } = admitted;
    let { estimateSeconds } = admitted;
    if (startMs !== null || endMs !== null) {
      const cutSeconds = ((endMs ?? estimateSeconds * 1000) - (startMs ?? 0)) / 1000;
      estimateSeconds = Math.max(1, Math.min(estimateSeconds, cutSeconds));
    }
    const srt = await subtitlesOf(context.workspaceId, request, param);
    if (srt) stored.push(srt);
    const audio = request.audio
      ? await resolveMediaInput(context.workspaceId, request.audio, {
          param: `${param}audio`,
          accept: ['audio'],
        })
      : null;
    if (audio) stored.push(audio);

    const mode = request.mode ?? 'speed';
    // A proofread is paid for by the translations generated from it.
    const credits = context.proofread ? 0 : translationCredits(estimateSeconds, mode);
    assertCanPay(workspace, credits * targets.length, false);
    const records: VideoTranslationRecord[] = [];
    for (const [index, target] of targets.entries()) {
      const record: Omit<
        VideoTranslationRecord,
        'billing_state' | 'credits_reserved' | 'credits_charged' | 'credits_balance' | 'trial_counted'
      > = {
        video_translation_id: context.batch
          ? batchItemTranslationId(context.batch.batchId, context.batch.firstIndex + index)
          : newId(),
        workspace_id: context.workspaceId,
        ...notStarted(),
        proofread: context.proofread ?? false,
        prepared_from: null,
        title: request.title ?? `Translation into ${target.name}`,
        output_language: target.name,
        output_language_tag: target.tag,
        input_language: input?.name ?? null,
        input_language_tag: input?.tag ?? null,
        options: {
          mode,
          translate_audio_only: request.translate_audio_only ?? false,
          speaker_num: request.speaker_num ?? null,
          start_ms: startMs,
          end_ms: endMs,
          enable_caption: request.enable_caption ?? false,
          keep_the_same_format: request.keep_the_same_format ?? false,
          enable_dynamic_duration: request.enable_dynamic_duration ?? true,
          disable_music_track: request.disable_music_track ?? false,
          enable_speech_enhancement: request.enable_speech_enhancement ?? false,
          enable_watermark: request.enable_watermark ?? false,
          fps_mode: request.fps_mode ?? null,
          srt_role: srt ? (request.srt_role ?? 'input') : null,
          stock_voice_ids: stockVoices,
        },
        source,
        srt_key: srt?.objectKey ?? null,
        audio_key: audio?.objectKey ?? null,
        glossary,
        folder_id: request.folder_id ?? null,
        callback_url: request.callback_url ?? null,
        callback_id: request.callback_id ?? null,
        batch_id: context.batch?.batchId ?? null,
        item_index: context.batch ? context.batch.firstIndex + index : null,
      };
      const billing = await createJobWithReservation(workspace, translationItem(record), credits, {
        trialVideo: false,
        engines: ['speechRecognition', 'translation', 'speech'],
      });
      records.push({ ...record, ...billing });
    }
    for (const record of records) await startJob(videoTranslationJob, videoTranslationJob.refOf(record));
    return records;
  } catch (error) {
    // Nothing was admitted: the media this request stored goes again (assets stay).
    await Promise.all(
      stored.filter((media) => media.source !== 'asset').map((media) => deleteMediaObject(media.objectKey)),
    );
    throw error;
  }
}
