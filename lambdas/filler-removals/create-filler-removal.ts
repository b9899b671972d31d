/**
 * `POST /v3/filler-word-removals`: the source stored (or, for a video of this workspace, read where it
 * is), the record written with its credits reserved for the source's minutes, and the
 * `filler-word-removal` run started.
 */
import { getWorkspace } from '../accounts/workspaces.js';
import { type MediaInput, type ResolvedMedia, resolveMediaInput } from '../assets/media-inputs.js';
import { assertCanPay, createJobWithReservation } from '../billing/credits.js';
import { estimatedSourceSeconds, fillerRemovalCredits } from '../billing/plans.js';
import { newId } from '../core/ids.js';
import { startJob } from '../jobs/job-lifecycle.js';
import { deleteMediaObject } from '../media/media-store.js';
import { videoMadeHere } from '../videos/source-transcript.js';
import { fillerRemovalJob } from './filler-removal-job.js';
import {
  type FillerRemovalRecord,
  type FillerRemovalSource,
  fillerRemovalItem,
  notStarted,
} from './filler-removal-records.js';

export interface FillerRemovalRequest {
  video: MediaInput;
  title?: string | null | undefined;
  callback_url?: string | null | undefined;
  callback_id?: string | null | undefined;
  silence_threshold_ms?: number | undefined;
  filler_words?: string[] | undefined;
  language?: string | undefined;
}

export const DEFAULT_FILLER_REMOVAL_TITLE = 'Filler Removal';
/** Silences longer than this are shortened when the request does not say. */
export const DEFAULT_SILENCE_THRESHOLD_MS = 1000;

export async function createFillerRemoval(
  workspaceId: string,
  request: FillerRemovalRequest,
): Promise<FillerRemovalRecord> {
  const workspace = await getWorkspace(workspaceId);
  if (!workspace) throw new Error(`Workspace ${workspaceId} not found`);
  let stored: ResolvedMedia | null = null;
  try {
    const madeHere = await videoMadeHere(workspaceId, request.video);
    let source: FillerRemovalSource;
    let estimateSeconds: number;
    if (madeHere) {
      source = { key: madeHere.key, owned: false, video_id: madeHere.video_id };
      estimateSeconds = madeHere.duration_seconds;
    } else {
      stored = await resolveMediaInput(workspaceId, request.video, {
        param: 'video',
        accept: ['video', 'audio'],
      });
      source = { key: stored.objectKey, owned: stored.source !== 'asset', video_id: null };
      estimateSeconds = estimatedSourceSeconds(stored.sizeBytes);
    }
    const credits = fillerRemovalCredits(estimateSeconds);
    assertCanPay(workspace, credits, false);
    const record: Omit<
      FillerRemovalRecord,
      'billing_state' | 'credits_reserved' | 'credits_charged' | 'credits_balance' | 'trial_counted'
    > = {
      filler_word_removal_id: newId(),
      workspace_id: workspaceId,
      ...notStarted(),
      title: request.title ?? DEFAULT_FILLER_REMOVAL_TITLE,
      options: {
        silence_threshold_ms: request.silence_threshold_ms ?? DEFAULT_SILENCE_THRESHOLD_MS,
        filler_words: request.filler_words ?? null,
        language: request.language ?? null,
      },
      source,
      callback_url: request.callback_url ?? null,
      callback_id: request.callback_id ?? null,
    };
    const billing = await createJobWithReservation(workspace, fillerRemovalItem(record), credits, {
      trialVideo: false,
    });
    const created = { ...record, ...billing };
    await startJob(fillerRemovalJob, fillerRemovalJob.refOf(created));
    return created;
  } catch (error) {
    // Nothing was admitted: the media this request stored goes again (assets stay).
    if (stored && stored.source !== 'asset') await deleteMediaObject(stored.objectKey);
    throw error;
  }
}
