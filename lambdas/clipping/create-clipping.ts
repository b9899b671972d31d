/**
 * `POST /v3/ai-clipping`: the request checked, its source found (a video of this workspace is read
 * from the media bucket directly, and its words are known) or stored, the job's credits reserved for
 * the source's estimated minutes, and its `ai-clipping` run started.
 */
import { getWorkspace } from '../accounts/workspaces.js';
import type { MediaInput } from '../assets/media-inputs.js';
import { assertCanPay, createJobWithReservation } from '../billing/credits.js';
import { clippingCredits } from '../billing/plans.js';
import { InvalidParameterError } from '../core/errors.js';
import { newId } from '../core/ids.js';
import {
  CAPTION_PRESET_NAMES,
  type CaptionPresetName,
  DEFAULT_CAPTION_PRESET,
} from '../engines/composition/caption-presets.js';
import { startJob } from '../jobs/job-lifecycle.js';
import { type AdmittedSource, admitJobSource, discardAdmittedSource } from '../videos/source-transcript.js';
import { aiClippingJob } from './ai-clipping-job.js';
import type { DurationType } from './clip-planner.js';
import { type AiClippingRecord, type AspectRatio, clippingItem, notStarted } from './clipping-records.js';

export interface ClippingRequest {
  video: MediaInput;
  title?: string | null | undefined;
  input_language?: string | null | undefined;
  output_settings?:
    | {
        aspect_ratio?: AspectRatio | undefined;
        captions?: boolean | undefined;
        caption_style?: string | null | undefined;
        duration_types?: DurationType[] | undefined;
        prompt?: string | null | undefined;
      }
    | undefined;
  callback_url?: string | null | undefined;
  callback_id?: string | null | undefined;
}

/** The durations made when none are asked for: a short and a one-minute cut. */
export const DEFAULT_DURATION_TYPES: readonly DurationType[] = ['30', '60'];

/** The reference: a null or unrecognized style falls back to the default. */
const captionStyleOf = (name: string | null | undefined): CaptionPresetName =>
  CAPTION_PRESET_NAMES.find((preset) => preset === name) ?? DEFAULT_CAPTION_PRESET;

function durationTypesOf(requested: readonly DurationType[] | undefined): DurationType[] {
  if (requested === undefined) return [...DEFAULT_DURATION_TYPES];
  requested.forEach((type, index) => {
    if (requested.indexOf(type) !== index)
      throw new InvalidParameterError(
        `${type} is asked for twice.`,
        `output_settings.duration_types[${index}]`,
      );
  });
  return [...requested];
}

export async function createClipping(
  workspaceId: string,
  request: ClippingRequest,
): Promise<AiClippingRecord> {
  const workspace = await getWorkspace(workspaceId);
  if (!workspace) throw new Error(`Workspace ${workspaceId} not found`);
  const settings = request.output_settings ?? {};
  const durationTypes = durationTypesOf(settings.duration_types);

  let admitted: AdmittedSource | undefined;
  try {
    admitted = await admitJobSource(workspaceId, request.video, { param: 'video', accept: ['video'] });
    const { source, estimateSeconds, title: sourceTitle } = admitted;
    const credits = clippingCredits(estimateSeconds);
    assertCanPay(workspace, credits, false);
    const record: Omit<
      AiClippingRecord,
      'billing_state' | 'credits_reserved' | 'credits_charged' | 'credits_balance' | 'trial_counted'
    > = {
      clipping_id: newId(),
      workspace_id: workspaceId,
      ...notStarted(),
      title: request.title ?? sourceTitle,
      input_language: request.input_language ?? null,
      output_settings: {
        aspect_ratio: settings.aspect_ratio ?? 'portrait',
        captions: settings.captions ?? true,
        caption_style: captionStyleOf(settings.caption_style),
        duration_types: durationTypes,
        prompt: settings.prompt ?? null,
      },
      source,
      callback_url: request.callback_url ?? null,
      callback_id: request.callback_id ?? null,
    };
    const billing = await createJobWithReservation(workspace, clippingItem(record), credits, {
      trialVideo: false,
      engines: ['speechRecognition', 'textGeneration'],
    });
    const created = { ...record, ...billing };
    await startJob(aiClippingJob, aiClippingJob.refOf(created));
    return created;
  } catch (error) {
    await discardAdmittedSource(admitted);
    throw error;
  }
}
