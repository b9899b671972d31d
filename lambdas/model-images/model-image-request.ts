/**
 * The body of `POST /v3/models/images`: the reference's fields. One to five `identity_images` (the
 * person to keep), exactly one `reference_images` item (the scene: clothing, pose, composition,
 * background), `num_images` 1 to 5, an optional `aspect_ratio` (else the reference image's), and the
 * first image's `seed` (each next image's is one more, so it leaves room for them).
 */
import { z } from 'zod';
import { mediaInputSchema } from '../assets/media-inputs.js';
import {
  MODEL_IMAGE_ASPECT_RATIOS,
  MODEL_IMAGE_LIMITS,
  MODEL_IMAGE_MODELS,
  MODEL_IMAGE_MODES,
} from './model-image-records.js';

const oneOf = (values: readonly string[]) => ({ error: `must be one of: ${values.join(', ')}` });

export const createModelImageBody = z
  .strictObject({
    model: z
      .enum(MODEL_IMAGE_MODELS, oneOf(MODEL_IMAGE_MODELS))
      .meta({ description: "`service-image-1`: this service's image model (the deployment's engine)." }),
    mode: z
      .enum(MODEL_IMAGE_MODES, oneOf(MODEL_IMAGE_MODES))
      .optional()
      .meta({ description: '`identity_remix`, the default and only mode.' }),
    identity_images: z
      .array(mediaInputSchema, { error: 'must be an array of images' })
      .min(1, { error: 'must hold at least one image' })
      .max(MODEL_IMAGE_LIMITS.maxIdentityImages, {
        error: `must hold at most ${MODEL_IMAGE_LIMITS.maxIdentityImages} images`,
      })
      .meta({ description: 'One to five images of the person whose identity is kept.' }),
    reference_images: z
      .array(mediaInputSchema, { error: 'must be an array of images' })
      .length(MODEL_IMAGE_LIMITS.referenceImages, { error: 'must hold exactly one image' })
      .meta({ description: 'Exactly one image: the clothing, pose, composition and background to follow.' }),
    num_images: z
      .number({ error: 'must be a whole number from 1 to 5' })
      .int({ error: 'must be a whole number from 1 to 5' })
      .min(1, { error: 'must be a whole number from 1 to 5' })
      .max(MODEL_IMAGE_LIMITS.maxImages, { error: 'must be a whole number from 1 to 5' })
      .optional()
      .meta({ description: 'Images to make, 1 to 5. Default 1. Billed per image.' }),
    aspect_ratio: z
      .enum(MODEL_IMAGE_ASPECT_RATIOS, oneOf(MODEL_IMAGE_ASPECT_RATIOS))
      .nullable()
      .optional()
      .meta({ description: "Omitted: the reference image's proportions (upright, after EXIF orientation)." }),
    seed: z
      .number({ error: 'must be a whole number' })
      .int({ error: 'must be a whole number' })
      .min(0, { error: `must be from 0 to ${MODEL_IMAGE_LIMITS.maxSeed}` })
      .max(MODEL_IMAGE_LIMITS.maxSeed, { error: `must be from 0 to ${MODEL_IMAGE_LIMITS.maxSeed}` })
      .nullable()
      .optional()
      .meta({ description: "The first image's seed; each next image's is one more. Random when omitted." }),
  })
  .superRefine((body, context) => {
    const count = body.num_images ?? MODEL_IMAGE_LIMITS.defaultImages;
    if (typeof body.seed === 'number' && body.seed + count - 1 > MODEL_IMAGE_LIMITS.maxSeed) {
      context.addIssue({
        code: 'custom',
        path: ['seed'],
        message: `the seeds of ${count} images run from it to ${body.seed + count - 1}, past ${MODEL_IMAGE_LIMITS.maxSeed}`,
      });
    }
  });
export type CreateModelImageBody = z.output<typeof createModelImageBody>;
