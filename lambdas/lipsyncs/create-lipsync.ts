/**
 * `POST /v3/lipsyncs` (and `POST /v3/overdubs`, and each payload of a batch): the request checked
 * against what this deployment can do, its two media stored, the record written with its credits
 * reserved, and one `lipsync` run started.
 *
 * A `video` or `audio` that is a video of this workspace (its `video_url` as the API gave it) is read
 * from the media bucket directly; such an audio's words are known (the render keeps them), so captions
 * and `precision` need no speech recognition for it.
 */
import { getWorkspace } from '../accounts/workspaces.js';
import type { MediaInput } from '../assets/media-inputs.js';
import { assertCanPay, createJobWithReservation } from '../billing/credits.js';
import { lipsyncCredits } from '../billing/plans.js';
import { InvalidParameterError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { speechRecognitionConfigured } from '../engines/recognition/index.js';
import { requireUsableFolder } from '../folders/folders.js';
import { startJob } from '../jobs/job-lifecycle.js';
import {
  type AdmittedSource,
  admitJobSource,
  discardAdmittedSource,
  hasStoredWords,
} from '../videos/source-transcript.js';
import { lipsyncJob } from './lipsync-job.js';
import {
  batchItemLipsyncId,
  type LIPSYNC_FPS_MODES,
  LIPSYNC_ORIGINS,
  type LipsyncMedia,
  type LipsyncMode,
  type LipsyncOrigin,
  type LipsyncRecord,
  lipsyncItem,
  notStarted,
} from './lipsync-records.js';

export interface LipsyncRequest {
  video: MediaInput;
  audio: MediaInput;
  title?: string | undefined;
  mode?: LipsyncMode | undefined;
  start_time?: number | undefined;
  end_time?: number | undefined;
  fps_mode?: (typeof LIPSYNC_FPS_MODES)[number] | undefined;
  enable_caption?: boolean | undefined;
  keep_the_same_format?: boolean | undefined;
  enable_dynamic_duration?: boolean | undefined;
  disable_music_track?: boolean | undefined;
  enable_speech_enhancement?: boolean | undefined;
  enable_watermark?: boolean | undefined;
  folder_id?: string | undefined;
  callback_url?: string | undefined;
  callback_id?: string | undefined;
}

export interface LipsyncContext {
  workspaceId: string;
  origin: LipsyncOrigin;
  /** Prefix of every `param` (`lipsyncs[3].` in a batch). */
  param?: string;
  batch?: { batchId: string; itemIndex: number };
}

/** A media input as the record keeps it, and its estimated length. */
async function mediaOf(
  context: LipsyncContext,
  input: MediaInput,
  field: 'video' | 'audio',
  stored: AdmittedSource[],
): Promise<LipsyncMedia & { estimate_seconds: number }> {
  const admitted = await admitJobSource(context.workspaceId, input, {
    param: `${context.param ?? ''}${field}`,
    // A video's own soundtrack may be the new audio (its picture is ignored).
    accept: field === 'video' ? ['video'] : ['audio', 'video'],
  });
  stored.push(admitted);
  return { ...admitted.source, estimate_seconds: admitted.estimateSeconds };
}

/** Creates one lipsync and starts it. */
export async function createLipsync(
  context: LipsyncContext,
  request: LipsyncRequest,
): Promise<LipsyncRecord> {
  const param = context.param ?? '';
  const workspace = await getWorkspace(context.workspaceId);
  if (!workspace) throw new Error(`Workspace ${context.workspaceId} not found`);
  const startMs = request.start_time !== undefined ? Math.round(request.start_time * 1000) : null;
  const endMs = request.end_time !== undefined ? Math.round(request.end_time * 1000) : null;
  if (startMs !== null && endMs !== null && endMs <= startMs)
    throw new InvalidParameterError('end_time must be after start_time.', `${param}end_time`);
  if (request.folder_id !== undefined)
    await requireUsableFolder(context.workspaceId, request.folder_id, `${param}folder_id`, 'video');

  const mode = request.mode ?? 'speed';
  // The least it can cost, before any media is fetched: a workspace that cannot pay that hears so at once.
  assertCanPay(workspace, lipsyncCredits(0, mode), false);

  const stored: AdmittedSource[] = [];
  try {
    const { estimate_seconds: videoSeconds, ...video } = await mediaOf(
      context,
      request.video,
      'video',
      stored,
    );
    const { estimate_seconds: _audioSeconds, ...audio } = await mediaOf(
      context,
      request.audio,
      'audio',
      stored,
    );
    if (
      request.enable_caption &&
      !speechRecognitionConfigured() &&
      !(await hasStoredWords(context.workspaceId, audio.video_id))
    ) {
      throw new InvalidParameterError(
        'enable_caption needs the words of the audio, and this deployment has no speech recognition engine (SPEECH_RECOGNITION_ENGINE) to hear them; only the audio of a video made by this service (its video_url) has known words. Leave enable_caption out, or configure speech recognition.',
        `${param}enable_caption`,
      );
    }
    let estimateSeconds = videoSeconds;
    if (startMs !== null || endMs !== null) {
      const spanSeconds = ((endMs ?? estimateSeconds * 1000) - (startMs ?? 0)) / 1000;
      estimateSeconds = Math.max(1, Math.min(estimateSeconds, spanSeconds));
    }
    const credits = lipsyncCredits(estimateSeconds, mode);
    assertCanPay(workspace, credits, false);
    const record: Omit<
      LipsyncRecord,
      'billing_state' | 'credits_reserved' | 'credits_charged' | 'credits_balance' | 'trial_counted'
    > = {
      lipsync_id: context.batch
        ? batchItemLipsyncId(context.batch.batchId, context.batch.itemIndex)
        : newId(),
      workspace_id: context.workspaceId,
      origin: context.origin,
      ...notStarted(),
      title: request.title ?? (context.origin === LIPSYNC_ORIGINS.overdubs ? 'Overdub' : 'Lipsync'),
      options: {
        mode,
        start_ms: startMs,
        end_ms: endMs,
        fps_mode: request.fps_mode ?? null,
        enable_caption: request.enable_caption ?? false,
        keep_the_same_format: request.keep_the_same_format ?? false,
        enable_dynamic_duration: request.enable_dynamic_duration ?? true,
        disable_music_track: request.disable_music_track ?? false,
        enable_speech_enhancement: request.enable_speech_enhancement ?? false,
        enable_watermark: request.enable_watermark ?? false,
      },
      video,
      audio,
      folder_id: request.folder_id ?? null,
      callback_url: request.callback_url ?? null,
      callback_id: request.callback_id ?? null,
      batch_id: context.batch?.batchId ?? null,
      item_index: context.batch?.itemIndex ?? null,
    };
    const billing = await createJobWithReservation(workspace, lipsyncItem(record), credits, {
      trialVideo: false,
      engines: ['speechRecognition'],
    });
    const created = { ...record, ...billing };
    await startJob(lipsyncJob, lipsyncJob.refOf(created));
    return created;
  } catch (error) {
    // Nothing was admitted: the media this request stored goes again (assets stay).
    await Promise.all(stored.map(discardAdmittedSource));
    throw error;
  }
}
