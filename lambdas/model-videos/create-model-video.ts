/**
 * `POST /v3/models/videos`: the plan checked for the resolution, the first frame and references stored,
 * the record written `pending` with its credits reserved (every started 5 s at the resolution's rate),
 * and one `model-video` run started. Whether the deployment's engine can make it is the job's to say
 * (it fails `engine_unavailable`, refunded): the engine is chosen where the job runs, not here.
 * `Idempotency-Key` is honoured by the request pipeline, as on every create.
 */
import { randomInt } from 'node:crypto';
import { getWorkspace, type Plan } from '../accounts/workspaces.js';
import { type MediaInput, resolveMediaInput } from '../assets/media-inputs.js';
import { assertCanPay, createJobWithReservation, type JobBilling } from '../billing/credits.js';
import {
  MODEL_VIDEO_RESOLUTION_TIER,
  modelVideoCredits,
  PLAN_ENTITLEMENTS,
  resolutionAllowed,
} from '../billing/plans.js';
import { ServiceError } from '../core/errors.js';
import { newId, nowSeconds } from '../core/ids.js';
import { startJob } from '../jobs/job-lifecycle.js';
import { deleteMediaObject } from '../media/media-store.js';
import type { MediaKind } from '../media/media-types.js';
import { modelVideoJob } from './model-video-job.js';
import {
  ADAPTIVE_ASPECT_RATIO,
  DEFAULT_MODEL_VIDEO_RESOLUTION,
  MODEL_VIDEO_LIMITS,
  MODEL_VIDEO_STATUS,
  type ModelVideoInput,
  type ModelVideoRecord,
  modelVideoItem,
} from './model-video-records.js';
import type { CreateModelVideoBody } from './model-video-request.js';

export interface CreateModelVideoContext {
  workspaceId: string;
  plan: Plan;
}

/** Stores each input of a field, in order; on a refusal the ones stored before it go too. */
async function storeInputs(
  workspaceId: string,
  inputs: readonly MediaInput[],
  field: string,
  kind: MediaKind,
  stored: ModelVideoInput[],
): Promise<ModelVideoInput[]> {
  const made: ModelVideoInput[] = [];
  for (const [index, input] of inputs.entries()) {
    const media = await resolveMediaInput(workspaceId, input, {
      param: field === 'image' ? field : `${field}[${index}]`,
      accept: [kind],
    });
    const entry = { key: media.objectKey, mime_type: media.mimeType, owned: media.source !== 'asset' };
    made.push(entry);
    stored.push(entry);
  }
  return made;
}

async function discardInputs(inputs: readonly ModelVideoInput[]): Promise<void> {
  await Promise.all(inputs.filter((input) => input.owned).map((input) => deleteMediaObject(input.key)));
}

/**
 * Creates a model video and starts it.
 * @throws ServiceError 400 (`resolution_not_allowed`, media inputs), 402 (credits)
 */
export async function createModelVideo(
  context: CreateModelVideoContext,
  body: CreateModelVideoBody,
): Promise<ModelVideoRecord> {
  const { workspaceId, plan } = context;
  const resolution = body.resolution ?? DEFAULT_MODEL_VIDEO_RESOLUTION;
  if (!resolutionAllowed(plan, MODEL_VIDEO_RESOLUTION_TIER[resolution])) {
    throw new ServiceError(
      400,
      'resolution_not_allowed',
      `Resolution ${resolution} is above what the ${plan} plan allows for model videos (its highest video resolution is ${PLAN_ENTITLEMENTS[plan].maxResolution}: 1080p needs a 1080p plan, 2k a 4k one).`,
      { param: 'resolution' },
    );
  }
  const duration = body.duration ?? MODEL_VIDEO_LIMITS.defaultDurationSeconds;
  const credits = modelVideoCredits(duration, resolution);
  const workspace = await getWorkspace(workspaceId);
  if (!workspace) throw new Error(`Workspace ${workspaceId} not found`);
  // Before anything is downloaded: a workspace that cannot pay is refused at once.
  assertCanPay(workspace, credits, false);

  const stored: ModelVideoInput[] = [];
  try {
    const [image] = body.image ? await storeInputs(workspaceId, [body.image], 'image', 'image', stored) : [];
    const referenceImages = await storeInputs(
      workspaceId,
      body.reference_images ?? [],
      'reference_images',
      'image',
      stored,
    );
    const referenceVideos = await storeInputs(
      workspaceId,
      body.reference_videos ?? [],
      'reference_videos',
      'video',
      stored,
    );
    const referenceAudio = await storeInputs(
      workspaceId,
      body.reference_audio ?? [],
      'reference_audio',
      'audio',
      stored,
    );
    const record: Omit<ModelVideoRecord, keyof JobBilling> = {
      video_id: newId(),
      workspace_id: workspaceId,
      status: MODEL_VIDEO_STATUS.pending,
      model: body.model,
      mode: body.mode,
      prompt: body.prompt,
      prompt_enhancement: body.prompt_enhancement ?? 'quality',
      duration,
      resolution,
      // Image to video follows its image whatever was asked (the reference ignores the field there).
      aspect_ratio:
        body.mode === 'image_to_video'
          ? ADAPTIVE_ASPECT_RATIO
          : (body.aspect_ratio ?? (body.mode === 'reference_to_video' ? ADAPTIVE_ASPECT_RATIO : '16:9')),
      seed: body.seed ?? randomInt(0, MODEL_VIDEO_LIMITS.maxSeed + 1),
      image: image ?? null,
      reference_images: referenceImages,
      reference_videos: referenceVideos,
      reference_audio: referenceAudio,
      callback_url: body.callback_url ?? null,
      callback_id: body.callback_id ?? null,
      video_key: null,
      width: null,
      height: null,
      engines: {},
      failure_code: null,
      failure_message: null,
      created_at: nowSeconds(),
      completed_at: null,
    };
    const billing = await createJobWithReservation(workspace, modelVideoItem(record), credits, {
      trialVideo: false,
      engines: ['mediaGeneration'],
    });
    // Admitted: the inputs belong to the job now (it releases them when it ends).
    stored.length = 0;
    await startJob(modelVideoJob, modelVideoJob.refOf({ ...record, ...billing }));
    return { ...record, ...billing };
  } catch (error) {
    await discardInputs(stored);
    throw error;
  }
}
