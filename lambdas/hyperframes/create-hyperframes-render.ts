/**
 * `POST /v3/hyperframes/renders`: the project zip resolved (a URL, an asset or inline) and stored, then
 * checked before anything renders (size, entries, paths, the composition present: hyperframes-project.ts)
 * and its composition's authored size held against the request's `resolution` and `aspect_ratio`
 * (render-size.ts); the record written with its credits reserved for the composition's stated length,
 * and the `hyperframes-render` run started.
 */
import { getWorkspace } from '../accounts/workspaces.js';
import { type MediaInput, type ResolvedMedia, resolveMediaInput } from '../assets/media-inputs.js';
import { assertCanPay, createJobWithReservation } from '../billing/credits.js';
import { videoCredits } from '../billing/plans.js';
import { config } from '../core/config.js';
import { InvalidParameterError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import { authoredComposition } from '../engines/hyperframes/composition-root.js';
import type { HyperframesFormat, HyperframesQuality } from '../engines/hyperframes/hyperframes-engine.js';
import { startJob } from '../jobs/job-lifecycle.js';
import { deleteMediaObject, readMediaObject } from '../media/media-store.js';
import { hyperframesRenderJob } from './hyperframes-job.js';
import { checkProjectZip, compositionPath, readProjectEntry } from './hyperframes-project.js';
import { type HyperframesRenderRecord, hyperframesRenderItem, notStarted } from './hyperframes-records.js';
import {
  type HyperframesAspectRatio,
  type HyperframesResolution,
  LEGACY_RESOLUTION_PRESETS,
  type LegacyResolutionPreset,
  refuseLegacyPreset,
  renderSize,
} from './render-size.js';

export interface HyperframesRenderRequest {
  project: MediaInput;
  composition?: string | undefined;
  fps?: number | undefined;
  quality?: HyperframesQuality | undefined;
  format?: HyperframesFormat | undefined;
  resolution?: HyperframesResolution | LegacyResolutionPreset | undefined;
  aspect_ratio?: HyperframesAspectRatio | undefined;
  variables?: Record<string, unknown> | undefined;
  title?: string | null | undefined;
  callback_url?: string | null | undefined;
  callback_id?: string | null | undefined;
}

export const HYPERFRAMES_DEFAULTS = {
  composition: 'index.html',
  fps: 30,
  quality: 'standard',
  format: 'mp4',
  resolution: '1080p',
  aspectRatio: '16:9',
} as const;

const isLegacyPreset = (value: string): value is LegacyResolutionPreset =>
  (LEGACY_RESOLUTION_PRESETS as readonly string[]).includes(value);

export async function createHyperframesRender(
  workspaceId: string,
  request: HyperframesRenderRequest,
): Promise<HyperframesRenderRecord> {
  const requested = request.resolution ?? HYPERFRAMES_DEFAULTS.resolution;
  if (isLegacyPreset(requested)) refuseLegacyPreset(requested);
  const resolution: HyperframesResolution = requested;
  const format = request.format ?? HYPERFRAMES_DEFAULTS.format;
  if (resolution === '4k' && format !== 'mp4') {
    throw new InvalidParameterError(
      `resolution 4k is rendered as mp4 only; format is ${format}.`,
      'resolution',
    );
  }
  const composition = compositionPath(request.composition ?? HYPERFRAMES_DEFAULTS.composition);
  const aspectRatio = request.aspect_ratio ?? HYPERFRAMES_DEFAULTS.aspectRatio;
  const workspace = await getWorkspace(workspaceId);
  if (!workspace) throw new Error(`Workspace ${workspaceId} not found`);
  const settings = config().hyperframes;

  let stored: ResolvedMedia | undefined;
  try {
    stored = await resolveMediaInput(workspaceId, request.project, { param: 'project', accept: ['archive'] });
    const zip = await readMediaObject(stored.objectKey);
    checkProjectZip(zip, composition, settings);
    const authored = authoredComposition(new TextDecoder().decode(readProjectEntry(zip, composition)));
    const size = renderSize(authored, resolution, aspectRatio, composition);
    const credits = videoCredits(authored.durationSeconds ?? settings.unstatedDurationSeconds, resolution);
    assertCanPay(workspace, credits, false);
    const record: Omit<
      HyperframesRenderRecord,
      'billing_state' | 'credits_reserved' | 'credits_charged' | 'credits_balance' | 'trial_counted'
    > = {
      render_id: newId(),
      workspace_id: workspaceId,
      ...notStarted(),
      title: request.title ?? null,
      project: { key: stored.objectKey, owned: stored.source !== 'asset', size_bytes: stored.sizeBytes },
      composition,
      fps: request.fps ?? HYPERFRAMES_DEFAULTS.fps,
      quality: request.quality ?? HYPERFRAMES_DEFAULTS.quality,
      format,
      resolution,
      aspect_ratio: aspectRatio,
      variables: request.variables ?? {},
      output_preset: size.outputPreset,
      width: size.width,
      height: size.height,
      callback_url: request.callback_url ?? null,
      callback_id: request.callback_id ?? null,
    };
    const billing = await createJobWithReservation(workspace, hyperframesRenderItem(record), credits, {
      trialVideo: false,
    });
    const created = { ...record, ...billing };
    await startJob(hyperframesRenderJob, hyperframesRenderJob.refOf(created));
    return created;
  } catch (error) {
    if (stored && stored.source !== 'asset') await deleteMediaObject(stored.objectKey);
    throw error;
  }
}
