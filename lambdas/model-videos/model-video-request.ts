/**
 * The body of `POST /v3/models/videos`: the reference's three request shapes (selected by `mode`) as one
 * strict object, so that every refusal names its field: `image` only with `image_to_video` (and
 * required there), references only with `reference_to_video` (at least one image or video, at most 9
 * images, 3 videos, 3 audio, 12 in all), `adaptive` only where there is a picture to follow, and at
 * 1080p and 2k a text or reference video is 16:9 or 9:16 (the contract's rules).
 */
import { z } from 'zod';
import { mediaInputSchema } from '../assets/media-inputs.js';
import { outboundUrlParam } from '../core/validation.js';
import {
  ADAPTIVE_ASPECT_RATIO,
  HIGH_RESOLUTION_ASPECT_RATIOS,
  isHighResolution,
  MODEL_VIDEO_ASPECT_RATIOS,
  MODEL_VIDEO_LIMITS,
  MODEL_VIDEO_MODELS,
  MODEL_VIDEO_MODES,
  MODEL_VIDEO_RESOLUTIONS,
  PROMPT_ENHANCEMENTS,
} from './model-video-records.js';

const oneOf = (values: readonly string[]) => ({ error: `must be one of: ${values.join(', ')}` });

const references = (max: number, noun: string) =>
  z
    .array(mediaInputSchema, { error: 'must be an array of media inputs' })
    .max(max, { error: `must hold at most ${max} ${noun}` })
    .optional();

const REFERENCE_FIELDS = ['reference_images', 'reference_videos', 'reference_audio'] as const;

export const createModelVideoBody = z
  .strictObject({
    mode: z.enum(MODEL_VIDEO_MODES, oneOf(MODEL_VIDEO_MODES)).meta({
      description:
        '`text_to_video` (from the prompt alone), `image_to_video` (animates `image`, the first frame) or `reference_to_video` (guided by reference images, videos and audio).',
    }),
    model: z
      .enum(MODEL_VIDEO_MODELS, oneOf(MODEL_VIDEO_MODELS))
      .meta({ description: "`service-video-1`: this service's video model (the deployment's engine)." }),
    prompt: z
      .string({ error: 'must be a string' })
      .trim()
      .min(1, { error: 'must not be empty' })
      .max(MODEL_VIDEO_LIMITS.maxPromptCharacters, {
        error: `must be at most ${MODEL_VIDEO_LIMITS.maxPromptCharacters} characters`,
      })
      .meta({ description: 'What to film, at most 5000 characters (an engine may take fewer: README).' }),
    duration: z
      .number({ error: 'must be a whole number of seconds' })
      .int({ error: 'must be a whole number of seconds' })
      .min(MODEL_VIDEO_LIMITS.minDurationSeconds, { error: 'must be from 5 to 15 seconds' })
      .max(MODEL_VIDEO_LIMITS.maxDurationSeconds, { error: 'must be from 5 to 15 seconds' })
      .optional()
      .meta({ description: 'Seconds, 5 to 15. Default 5.' }),
    resolution: z.enum(MODEL_VIDEO_RESOLUTIONS, oneOf(MODEL_VIDEO_RESOLUTIONS)).optional().meta({
      description:
        '`480p`, `768p` (default), `1080p` or `2k` (the short side: 480, 768, 1080, 1440 pixels; 16:9 at 1080p is 1890x1080). 1080p is billed at the 2k rate, 3 times the 768p rate.',
    }),
    aspect_ratio: z
      .enum(
        [...MODEL_VIDEO_ASPECT_RATIOS, ADAPTIVE_ASPECT_RATIO],
        oneOf([...MODEL_VIDEO_ASPECT_RATIOS, 'adaptive']),
      )
      .nullable()
      .optional()
      .meta({
        description:
          'Text to video: a fixed ratio, default `16:9`. Reference to video: default `adaptive` (the first reference image, else video). Image to video follows the image; a value given is ignored.',
      }),
    prompt_enhancement: z.enum(PROMPT_ENHANCEMENTS, oneOf(PROMPT_ENHANCEMENTS)).optional().meta({
      description:
        'Accepted and recorded; no engine of this service rewrites prompts, so every value films the prompt as written.',
    }),
    seed: z
      .number({ error: 'must be a whole number' })
      .int({ error: 'must be a whole number' })
      .min(0, { error: `must be from 0 to ${MODEL_VIDEO_LIMITS.maxSeed}` })
      .max(MODEL_VIDEO_LIMITS.maxSeed, { error: `must be from 0 to ${MODEL_VIDEO_LIMITS.maxSeed}` })
      .nullable()
      .optional()
      .meta({ description: 'The same seed, prompt and settings film the same video. Random when omitted.' }),
    image: mediaInputSchema
      .optional()
      .meta({ description: '`image_to_video` only (required there): the first frame, an image.' }),
    reference_images: references(MODEL_VIDEO_LIMITS.maxReferenceImages, 'images'),
    reference_videos: references(MODEL_VIDEO_LIMITS.maxReferenceVideos, 'videos'),
    reference_audio: references(MODEL_VIDEO_LIMITS.maxReferenceAudio, 'recordings'),
    callback_url: outboundUrlParam.nullable().optional(),
    callback_id: z.string().max(255, { error: 'must be at most 255 characters' }).nullable().optional(),
  })
  .superRefine((body, context) => {
    const issue = (path: string, message: string) =>
      context.addIssue({ code: 'custom', path: [path], message });
    if (body.mode === 'image_to_video' && body.image === undefined)
      issue('image', 'is required with mode image_to_video (the first frame)');
    if (body.mode !== 'image_to_video' && body.image !== undefined)
      issue('image', 'is taken by mode image_to_video only');
    const given = REFERENCE_FIELDS.filter((field) => (body[field]?.length ?? 0) > 0);
    if (body.mode !== 'reference_to_video') {
      const [first] = given;
      if (first) issue(first, 'references are taken by mode reference_to_video only');
      if (body.mode === 'text_to_video' && body.aspect_ratio === ADAPTIVE_ASPECT_RATIO)
        issue('aspect_ratio', 'adaptive follows a picture: text_to_video takes a fixed ratio');
    } else {
      if ((body.reference_images?.length ?? 0) + (body.reference_videos?.length ?? 0) === 0)
        issue('reference_images', 'reference_to_video needs at least one reference image or video');
      const total = given.reduce((sum, field) => sum + (body[field]?.length ?? 0), 0);
      if (total > MODEL_VIDEO_LIMITS.maxReferences)
        issue(
          given.at(-1) ?? 'reference_images',
          `references are at most ${MODEL_VIDEO_LIMITS.maxReferences} in all (images, videos and audio); ${total} were given`,
        );
    }
    const aspect = body.aspect_ratio;
    if (
      body.mode !== 'image_to_video' &&
      body.resolution !== undefined &&
      isHighResolution(body.resolution) &&
      aspect &&
      aspect !== ADAPTIVE_ASPECT_RATIO &&
      !HIGH_RESOLUTION_ASPECT_RATIOS.includes(aspect)
    )
      issue('aspect_ratio', `at ${body.resolution}, text and reference videos are 16:9 or 9:16`);
  });
export type CreateModelVideoBody = z.output<typeof createModelVideoBody>;
