/**
 * `POST /v3/background-removals`: the source stored, the record created with its credits reserved
 * (every started minute of the source, estimated from its size, settled on the measured length), and
 * one `background-removal` run started.
 *
 * `request_id` is the hosted API's dedup key over the workspace and the key: the first request claims
 * it (a conditional write), and any later one, whatever its body, answers the first one's record, with
 * its status and its charge, and creates nothing. The `Idempotency-Key` header is honoured as well, by
 * the request pipeline, as on every create.
 */
import { getWorkspace } from '../accounts/workspaces.js';
import type { MediaInput } from '../assets/media-inputs.js';
import { assertCanPay, createJobWithReservation } from '../billing/credits.js';
import { backgroundRemovalCredits } from '../billing/plans.js';
import { ConflictError, InvalidParameterError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { startJob } from '../jobs/job-lifecycle.js';
import { type AdmittedSource, admitJobSource, discardAdmittedSource } from '../videos/source-transcript.js';
import { backgroundRemovalJob } from './background-removal-job.js';
import {
  BACKGROUND_REMOVAL_LAYERS,
  type BackgroundRemovalLayer,
  type BackgroundRemovalRecord,
  backgroundRemovalItem,
  claimRequestId,
  getBackgroundRemoval,
  MAX_SOURCE_SECONDS,
  notStarted,
  releaseRequestId,
  removalOfRequest,
} from './background-removal-records.js';

export interface BackgroundRemovalRequest {
  video: MediaInput;
  layers?: BackgroundRemovalLayer[] | undefined;
  title?: string | undefined;
  request_id?: string | undefined;
}

/** The layers asked for (the schema checked the names), in the engine's order, once each. */
function layersOf(requested: readonly BackgroundRemovalLayer[] | undefined): BackgroundRemovalLayer[] {
  if (requested === undefined) return [...BACKGROUND_REMOVAL_LAYERS];
  return BACKGROUND_REMOVAL_LAYERS.filter((layer) => requested.includes(layer));
}

/** Creates a background removal and starts it; a repeated `request_id` answers the original. */
export async function createBackgroundRemoval(
  workspaceId: string,
  request: BackgroundRemovalRequest,
): Promise<BackgroundRemovalRecord> {
  const layers = layersOf(request.layers);
  if (layers.length === 0) throw new InvalidParameterError('Ask for at least one layer.', 'layers');
  const requestId = request.request_id;
  const original = requestId === undefined ? undefined : await removalOfRequest(workspaceId, requestId);
  if (original) return original;
  const workspace = await getWorkspace(workspaceId);
  if (!workspace) throw new Error(`Workspace ${workspaceId} not found`);
  // Before anything is downloaded: a workspace that cannot pay for one minute is refused at once.
  assertCanPay(workspace, backgroundRemovalCredits(0), false);

  const id = newId();
  let admitted: AdmittedSource | undefined;
  let claimed = false;
  try {
    admitted = await admitJobSource(workspaceId, request.video, { param: 'video', accept: ['video'] });
    if (requestId !== undefined) {
      const earlier = await claimRequestId(workspaceId, requestId, id);
      if (earlier !== undefined) {
        // Another request with this request_id got there first: that one is the original.
        await discardAdmittedSource(admitted);
        admitted = undefined;
        const first = await getBackgroundRemoval(workspaceId, earlier, true);
        if (first) return first;
        throw new ConflictError(
          'A background removal with this request_id is being created by another request; repeat the request in a moment to get it.',
          'request_in_progress',
          { param: 'request_id' },
        );
      }
      claimed = true;
    }
    const estimateSeconds = Math.min(MAX_SOURCE_SECONDS, admitted.estimateSeconds);
    const credits = backgroundRemovalCredits(estimateSeconds);
    const record: Omit<
      BackgroundRemovalRecord,
      'billing_state' | 'credits_reserved' | 'credits_charged' | 'credits_balance' | 'trial_counted'
    > = {
      background_removal_id: id,
      workspace_id: workspaceId,
      ...notStarted(),
      title: request.title ?? null,
      layers,
      request_id: requestId ?? null,
      source: admitted.source,
    };
    const billing = await createJobWithReservation(workspace, backgroundRemovalItem(record), credits, {
      trialVideo: false,
    });
    claimed = false;
    await startJob(backgroundRemovalJob, backgroundRemovalJob.refOf({ ...record, ...billing }));
    return { ...record, ...billing };
  } catch (error) {
    // Nothing was admitted: the media this request stored goes again (assets stay), and its claim.
    await discardAdmittedSource(admitted);
    if (claimed && requestId !== undefined) await releaseRequestId(workspaceId, requestId);
    throw error;
  }
}
