/**
 * `POST /v3/models/images`: the identity and reference images stored, the generation written `pending`
 * with its credits reserved (per image asked for), and one `model-image` run started. Whether the
 * deployment's engine can make it is the job's to say (it fails `engine_unavailable`, refunded).
 * `Idempotency-Key` is honoured by the request pipeline, as on every create.
 */
import { randomInt } from 'node:crypto';
import { getWorkspace } from '../accounts/workspaces.js';
import { type MediaInput, resolveMediaInput } from '../assets/media-inputs.js';
import { assertCanPay, createJobWithReservation, type JobBilling } from '../billing/credits.js';
import { MODEL_IMAGE_CREDITS_PER_IMAGE } from '../billing/plans.js';
import { newId, nowSeconds } from '../core/ids.js';
import { startJob } from '../jobs/job-lifecycle.js';
import { deleteMediaObject } from '../media/media-store.js';
import { modelImageJob } from './model-image-job.js';
import {
  MODEL_IMAGE_LIMITS,
  MODEL_IMAGE_STATUS,
  type ModelImageInput,
  type ModelImageRecord,
  modelImageItem,
} from './model-image-records.js';
import type { CreateModelImageBody } from './model-image-request.js';

async function storeImages(
  workspaceId: string,
  inputs: readonly MediaInput[],
  field: string,
  stored: ModelImageInput[],
): Promise<ModelImageInput[]> {
  const made: ModelImageInput[] = [];
  for (const [index, input] of inputs.entries()) {
    const media = await resolveMediaInput(workspaceId, input, {
      param: `${field}[${index}]`,
      accept: ['image'],
    });
    const entry = { key: media.objectKey, mime_type: media.mimeType, owned: media.source !== 'asset' };
    made.push(entry);
    stored.push(entry);
  }
  return made;
}

/**
 * Creates an image generation and starts it.
 * @throws ServiceError 400 (media inputs), 402 (credits)
 */
export async function createModelImage(
  workspaceId: string,
  body: CreateModelImageBody,
): Promise<ModelImageRecord> {
  const count = body.num_images ?? MODEL_IMAGE_LIMITS.defaultImages;
  const credits = count * MODEL_IMAGE_CREDITS_PER_IMAGE;
  const workspace = await getWorkspace(workspaceId);
  if (!workspace) throw new Error(`Workspace ${workspaceId} not found`);
  // Before anything is downloaded: a workspace that cannot pay is refused at once.
  assertCanPay(workspace, credits, false);

  const stored: ModelImageInput[] = [];
  try {
    const identity = await storeImages(workspaceId, body.identity_images, 'identity_images', stored);
    const [reference] = await storeImages(workspaceId, body.reference_images, 'reference_images', stored);
    if (!reference) throw new Error('the schema lets exactly one reference image through');
    const record: Omit<ModelImageRecord, keyof JobBilling> = {
      generation_id: newId(),
      workspace_id: workspaceId,
      status: MODEL_IMAGE_STATUS.pending,
      model: body.model,
      mode: body.mode ?? 'identity_remix',
      num_images: count,
      aspect_ratio: body.aspect_ratio ?? null,
      seed: body.seed ?? randomInt(0, MODEL_IMAGE_LIMITS.maxSeed - MODEL_IMAGE_LIMITS.maxImages + 2),
      identity_images: identity,
      reference_image: reference,
      images: [],
      engines: {},
      failure_code: null,
      failure_message: null,
      created_at: nowSeconds(),
      completed_at: null,
    };
    const billing = await createJobWithReservation(workspace, modelImageItem(record), credits, {
      trialVideo: false,
      engines: ['mediaGeneration'],
    });
    // Admitted: the inputs belong to the job now (it releases them when it ends).
    stored.length = 0;
    await startJob(modelImageJob, modelImageJob.refOf({ ...record, ...billing }));
    return { ...record, ...billing };
  } catch (error) {
    await Promise.all(stored.filter((input) => input.owned).map((input) => deleteMediaObject(input.key)));
    throw error;
  }
}
