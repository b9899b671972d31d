/**
 * Proofread sessions (`/v3/video-translations/proofreads`): a translation stopped once its words are
 * translated (the `proofread` flag of a translation record: the same job, which ends after Prepare),
 * so a person can read and correct the subtitles before anything is spoken. `PUT …/srt` replaces the
 * translated subtitles (times and text); `POST …/generate` makes a video translation from them, which
 * starts at the voice (video-translation-job.ts, Prepare of a record `prepared_from` the proofread).
 */
import { getWorkspace } from '../accounts/workspaces.js';
import { type MediaInput, resolveMediaInput } from '../assets/media-inputs.js';
import { createJobWithReservation } from '../billing/credits.js';
import { translationCredits } from '../billing/plans.js';
import { ConflictError, InvalidParameterError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { formatSrt, isSubtitleFormatError, parseSubtitles } from '../engines/composition/subtitle-files.js';
import { startJob } from '../jobs/job-lifecycle.js';
import { deleteMediaObject, putMediaObject, readMediaObject } from '../media/media-store.js';
import {
  notStarted,
  requireProofread,
  TRANSLATION_STATUS,
  translationItem,
  translationMediaKeys,
  type VideoTranslationRecord,
} from './translation-records.js';
import { videoTranslationJob } from './video-translation-job.js';

/** The part of Prepare's work file a proofread's subtitles edit (translation-steps.ts). */
interface PreparedSegments {
  source_ms: number;
  segments: { text: string; startMs: number; endMs: number; source: string | null }[];
}

const preparedKey = (proofread: VideoTranslationRecord) =>
  translationMediaKeys.work(proofread, 'prepared.json');

function requireReviewable(
  proofread: VideoTranslationRecord,
): NonNullable<VideoTranslationRecord['proofread_outputs']> {
  if (proofread.status !== TRANSLATION_STATUS.completed || !proofread.proofread_outputs) {
    throw new ConflictError(
      proofread.status === TRANSLATION_STATUS.failed
        ? `Proofread ${proofread.video_translation_id} failed: ${proofread.failure_message ?? ''}`
        : `Proofread ${proofread.video_translation_id} is still being translated; its subtitles are ready when its status is completed.`,
      'resource_not_ready',
    );
  }
  return proofread.proofread_outputs;
}

/** The keys of a ready proofread's subtitles. @throws 404, 409 `resource_not_ready` */
export async function proofreadSubtitles(workspaceId: string, proofreadId: string) {
  return requireReviewable(await requireProofread(workspaceId, proofreadId));
}

/**
 * Replaces a ready proofread's translated subtitles (their cues become the lines: text and times).
 * @throws 400 naming the line of a bad file, 404, 409 `resource_not_ready`
 */
export async function replaceProofreadSubtitles(
  workspaceId: string,
  proofreadId: string,
  srt: MediaInput,
): Promise<VideoTranslationRecord> {
  const proofread = await requireProofread(workspaceId, proofreadId);
  const outputs = requireReviewable(proofread);
  const media = await resolveMediaInput(workspaceId, srt, { param: 'srt', accept: ['subtitle'] });
  let cues: ReturnType<typeof parseSubtitles>['cues'];
  try {
    cues = parseSubtitles(await readMediaObject(media.objectKey)).cues;
  } catch (error) {
    if (isSubtitleFormatError(error)) throw new InvalidParameterError(error.message, 'srt');
    throw error;
  } finally {
    if (media.source !== 'asset') await deleteMediaObject(media.objectKey);
  }
  const prepared = JSON.parse(
    (await readMediaObject(preparedKey(proofread))).toString('utf8'),
  ) as PreparedSegments;
  const outside = cues.findIndex((cue) => cue.startMs >= prepared.source_ms);
  if (outside >= 0) {
    throw new InvalidParameterError(
      `Cue ${outside + 1} starts after the video's end (${(prepared.source_ms / 1000).toFixed(3)} s).`,
      'srt',
    );
  }
  // The original words stay beside the lines when the edit kept the lines (only their wording changed).
  const sameLines = cues.length === prepared.segments.length;
  const edited = {
    ...prepared,
    segments: cues.map((cue, index) => ({
      text: cue.text.replace(/\n/g, ' '),
      startMs: cue.startMs,
      endMs: Math.min(cue.endMs, prepared.source_ms),
      source: sameLines ? (prepared.segments[index]?.source ?? null) : null,
    })),
  };
  await putMediaObject(
    workspaceId,
    preparedKey(proofread),
    Buffer.from(JSON.stringify(edited)),
    'application/json',
  );
  await putMediaObject(
    workspaceId,
    outputs.srt_key,
    Buffer.from(formatSrt(edited.segments.map(({ text, startMs, endMs }) => ({ text, startMs, endMs })))),
    'application/x-subrip',
  );
  return proofread;
}

export interface GenerateRequest {
  captions?: boolean | undefined;
  translate_audio_only?: boolean | undefined;
  callback_url?: string | undefined;
  callback_id?: string | undefined;
}

/** A video translation made from a ready proofread's subtitles. @throws 402, 404, 409 `resource_not_ready` */
export async function generateFromProofread(
  workspaceId: string,
  proofreadId: string,
  request: GenerateRequest,
): Promise<VideoTranslationRecord> {
  const proofread = await requireProofread(workspaceId, proofreadId);
  requireReviewable(proofread);
  const workspace = await getWorkspace(workspaceId);
  if (!workspace) throw new Error(`Workspace ${workspaceId} not found`);
  const prepared = JSON.parse(
    (await readMediaObject(preparedKey(proofread))).toString('utf8'),
  ) as PreparedSegments;
  const {
    billing_state: _state,
    credits_reserved: _reserved,
    credits_charged: _charged,
    credits_balance: _balance,
    trial_counted: _trial,
    credits_due: _due,
    ...base
  } = proofread;
  const record: Omit<
    VideoTranslationRecord,
    'billing_state' | 'credits_reserved' | 'credits_charged' | 'credits_balance' | 'trial_counted'
  > = {
    ...base,
    ...notStarted(),
    video_translation_id: newId(),
    proofread: false,
    prepared_from: proofread.video_translation_id,
    options: {
      ...proofread.options,
      enable_caption: request.captions ?? false,
      translate_audio_only: request.translate_audio_only ?? false,
    },
    // The source stays the proofread's (it is kept for more generations): this translation does not own it.
    source: { ...proofread.source, owned: false },
    srt_key: null,
    audio_key: null,
    callback_url: request.callback_url ?? null,
    callback_id: request.callback_id ?? null,
    batch_id: null,
    item_index: null,
  };
  const billing = await createJobWithReservation(
    workspace,
    translationItem(record),
    translationCredits(prepared.source_ms / 1000, proofread.options.mode),
    { trialVideo: false, engines: ['speechRecognition', 'translation'] },
  );
  const created = { ...record, ...billing };
  await startJob(videoTranslationJob, videoTranslationJob.refOf(created));
  return created;
}

/** A proofread as `GET /v3/video-translations/proofreads/{id}` answers it (the reference's fields). */
export function proofreadView(record: VideoTranslationRecord) {
  return {
    id: record.video_translation_id,
    title: record.title,
    status:
      record.status === TRANSLATION_STATUS.completed || record.status === TRANSLATION_STATUS.failed
        ? record.status
        : 'processing',
    input_language: record.input_language,
    output_language: record.output_language,
    // There is no human review service behind this API: sessions are reviewed by the caller.
    submitted_for_review: false,
    failure_message: record.failure_message,
    created_at: record.created_at,
  };
}
