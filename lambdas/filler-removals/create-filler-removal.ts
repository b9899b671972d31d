/**
 * `POST /v3/filler-word-removals`: the source stored (or, for a video of this workspace, read where it
 * is), the record written with its credits reserved for the source's minutes, and the
 * `filler-word-removal` run started.
 */
import { getWorkspace } from '../accounts/workspaces.js';
import type { MediaInput } from '../assets/media-inputs.js';
import { assertCanPay, createJobWithReservation } from '../billing/credits.js';
import { fillerRemovalCredits } from '../billing/plans.js';
import { newId } from '../core/ids.js';
import { startJob } from '../jobs/job-lifecycle.js';
import { type AdmittedSource, admitJobSource, discardAdmittedSource } from '../videos/source-transcript.js';
import { fillerRemovalJob } from './filler-removal-job.js';
import { type FillerRemovalRecord, fillerRemovalItem, notStarted } from './filler-removal-records.js';

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
  let admitted: AdmittedSource | undefined;
  try {
    admitted = await admitJobSource(workspaceId, request.video, {
      param: 'video',
      accept: ['video', 'audio'],
    });
    const { source, estimateSeconds } = admitted;
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
      engines: ['speechRecognition'],
    });
    const created = { ...record, ...billing };
    await startJob(fillerRemovalJob, fillerRemovalJob.refOf(created));
    return created;
  } catch (error) {
    await discardAdmittedSource(admitted);
    throw error;
  }
}
