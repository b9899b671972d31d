/**
 * The image generation job's step (model-image-job.ts): Generate, in the media container on AWS. The
 * canvas is settled (the ratio asked for, else the reference image's upright proportions), and the
 * deployment's generation engine makes each image from the pictures (the reference first, then up to
 * four identity images: an engine conditions on five at most) and the remix prompt, with the first
 * seed plus the image's index. First, each identity image must show exactly one face (the face
 * landmark engine, as photo looks are checked): the reference's `no_face_detected` and
 * `multiple_faces_detected`, naming the image. What each engine makes of that is its own (README, "Models: images"):
 * Nova Canvas makes an IMAGE_VARIATION of the pictures, which is not an identity-preserving model. No
 * engine configured fails the job `engine_unavailable`, refunded.
 */
import { JobFailure } from '../core/errors.js';
import { newId, nowSeconds } from '../core/ids.js';
import {
  generationEngine,
  imageGenerationConfigured,
  MEDIA_GENERATION_NOT_CONFIGURED,
} from '../engines/generation/index.js';
import { faceSignature } from '../engines/vision/face-similarity.js';
import { VISION_FAILURE, VisionEngineError } from '../engines/vision/human-runtime.js';
import { endJob, resumeJob } from '../jobs/job-lifecycle.js';
import { jobStep } from '../jobs/job-steps.js';
import { putMediaObject, readMediaObject } from '../media/media-store.js';
import { MODEL_IMAGE_FAILURE, type ModelImageRef, modelImageJob } from './model-image-job.js';
import {
  canvasOf,
  type GeneratedImage,
  MODEL_IMAGE_CANVAS,
  MODEL_IMAGE_STATUS,
  type ModelImageRecord,
  modelImageMediaKeys,
  updateRunningModelImage,
} from './model-image-records.js';

/** What the engine is asked to draw from the pictures: the identity kept, the scene followed. */
export const IDENTITY_REMIX_PROMPT =
  'A photograph of the same person as in the portrait photos, with their face, hair and features unchanged, wearing the clothing and in the pose, framing, lighting and background of the scene photo.';

/** Pictures an engine conditions one image on, at most (Nova Canvas's IMAGE_VARIATION takes five). */
const MAX_CONDITIONING = 5;

/** The canvas of the generation: the ratio asked for, else the reference image's upright proportions. */
async function canvasFor(
  record: ModelImageRecord,
  reference: Buffer,
): Promise<{ width: number; height: number }> {
  if (record.aspect_ratio) return MODEL_IMAGE_CANVAS[record.aspect_ratio];
  // Loaded when used: only the media image has sharp.
  const { default: sharp } = await import('sharp');
  const metadata = await sharp(reference)
    .metadata()
    .catch((error: unknown) => {
      throw new JobFailure(MODEL_IMAGE_FAILURE.invalidInput, 'The reference image cannot be decoded.', {
        cause: error,
      });
    });
  const { width = 0, height = 0, orientation = 1 } = metadata;
  if (!width || !height)
    throw new JobFailure(MODEL_IMAGE_FAILURE.invalidInput, 'The reference image has no size.');
  // EXIF orientations 5 to 8 turn the picture a quarter: its upright width is its stored height.
  return orientation >= 5 ? canvasOf(height, width) : canvasOf(width, height);
}

/** Each identity image shows exactly one face, or the job fails naming the first that does not. */
async function checkIdentityFaces(images: readonly Buffer[]): Promise<void> {
  for (const [index, bytes] of images.entries()) {
    const field = `identity_images[${index}]`;
    const found = await faceSignature(new Uint8Array(bytes)).catch((error: unknown) => {
      if (error instanceof VisionEngineError && error.failureCode === VISION_FAILURE.invalidMedia)
        throw new JobFailure(MODEL_IMAGE_FAILURE.invalidInput, `${field} cannot be decoded as an image.`, {
          cause: error,
        });
      throw error;
    });
    if (!('code' in found)) continue;
    throw found.code === 'no_face'
      ? new JobFailure(
          MODEL_IMAGE_FAILURE.noFace,
          `No face was found in ${field}: an identity image shows the person's face, upright and unobstructed. Replace that image; the credits were returned.`,
        )
      : new JobFailure(
          MODEL_IMAGE_FAILURE.multipleFaces,
          `${field} shows more than one face: an identity image shows one person. Replace that image; the credits were returned.`,
        );
  }
}

async function generate(ref: ModelImageRef): Promise<null> {
  const record = await resumeJob(modelImageJob, ref);
  if (!record) return null;
  if (!imageGenerationConfigured()) {
    throw new JobFailure(
      MODEL_IMAGE_FAILURE.engineUnavailable,
      `Image generations need an image generation model. ${MEDIA_GENERATION_NOT_CONFIGURED}`,
    );
  }
  const reference = await readMediaObject(record.reference_image.key);
  const identityInputs = record.identity_images.slice(0, MAX_CONDITIONING - 1);
  const identity = await Promise.all(identityInputs.map((input) => readMediaObject(input.key)));
  // Every identity image is checked, the ones beyond what the engine takes too: each must be usable.
  await checkIdentityFaces([
    ...identity,
    ...(await Promise.all(
      record.identity_images.slice(identityInputs.length).map((input) => readMediaObject(input.key)),
    )),
  ]);
  const conditioning = [record.reference_image, ...identityInputs].map((input, index) => ({
    bytes: new Uint8Array(index === 0 ? reference : (identity[index - 1] as Buffer)),
    mediaType: input.mime_type,
  }));
  const canvas = await canvasFor(record, reference);
  const engine = generationEngine();
  const images: GeneratedImage[] = [];
  let model = '';
  for (let index = 0; index < record.num_images; index += 1) {
    const seed = record.seed + index;
    const made = await engine.generateImage({
      prompt: IDENTITY_REMIX_PROMPT,
      width: canvas.width,
      height: canvas.height,
      count: 1,
      seed,
      conditioning,
    });
    const [png] = made.images;
    if (!png)
      throw new JobFailure(MODEL_IMAGE_FAILURE.generationFailed, 'The engine answered without an image.');
    const imageId = newId();
    const key = modelImageMediaKeys.image(record, imageId);
    await putMediaObject(record.workspace_id, key, png, made.mediaType);
    images.push({ image_id: imageId, key, width: made.width, height: made.height, seed });
    model = `${made.engine} (${made.model})`;
  }
  const done = await updateRunningModelImage(record, {
    status: MODEL_IMAGE_STATUS.completed,
    images,
    engines: {
      generation: `${model}: ${images.length} image(s) at ${canvas.width}x${canvas.height}, each from the reference and ${identity.length} identity image(s)`,
    },
    completed_at: nowSeconds(),
  });
  await endJob(modelImageJob, ref, done);
  return null;
}

export const Generate = /* @__PURE__ */ jobStep(modelImageJob, 'Generate', generate);
