/**
 * The image and short video generation capability (docs/architecture.md, "Engines"). One interface,
 * chosen by configuration (`MEDIA_GENERATION_ENGINE`) and recorded on the job by `name`:
 * - `bedrock`: Amazon Bedrock's Nova Canvas (images, `InvokeModel` TEXT_IMAGE or IMAGE_VARIATION) and
 *   Nova Reel (videos, `StartAsyncInvoke` into the media bucket, then `GetAsyncInvoke` until it ends),
 *   bedrock-generation-engine.ts.
 * - `openai`: an OpenAI-compatible images server (images only), openai-image-engine.ts.
 * - `composite`: identity remixes composed from segmentation and face landmarks, not generated (images
 *   from pictures only), composite-remix-engine.ts.
 * There is no local generative engine: no npm package ships image or video generation weights, and this
 * service returns no canned media. With nothing configured, every call fails with `engine_unavailable` naming
 * the settings (`videoGenerationConfigured()` says beforehand whether a video can be made).
 *
 * Units: sizes in pixels, durations in whole seconds, seeds as the model takes them.
 */
import { JobFailure } from '../../core/errors.js';

export interface ImageGenerationRequest {
  /** What to draw, 1 to 1024 characters. */
  prompt: string;
  /** What not to draw, at most 1024 characters. */
  negativePrompt?: string;
  /** 320 to 4096, a multiple of 16. @default 1280 */
  width?: number;
  /** 320 to 4096, a multiple of 16. @default 720 */
  height?: number;
  /** Images to make, 1 to 5. @default 1 */
  count?: number;
  /** 0 to 2147483646; the same seed and prompt give the same image. @default 0 */
  seed?: number;
  /**
   * Pictures the image is made from rather than from the prompt alone (1 to 5): each engine conditions
   * on them as it can (Nova Canvas: IMAGE_VARIATION). @default none (text to image)
   */
  conditioning?: GenerationImageInput[];
}

export interface ImageGenerationResult {
  /** The engine that made it (`MediaGenerationEngine.name`), for the job's record. */
  engine: string;
  model: string;
  /** PNG files, `count` of them. */
  images: Uint8Array[];
  mediaType: 'image/png';
  width: number;
  height: number;
}

/** An image handed to an engine, as bytes (PNG, JPEG or WebP). */
export interface GenerationImageInput {
  bytes: Uint8Array;
  mediaType: string;
}

/** Media of the media bucket that guides a video (reference to video): object keys, by kind. */
export interface VideoReferences {
  images: string[];
  videos: string[];
  audio: string[];
}

export interface VideoGenerationRequest {
  /**
   * What to film: 1 to 512 characters for 6 s (and for each 6 s shot of a video from a first frame),
   * up to 4000 for longer videos.
   */
  prompt: string;
  /** 6, or (Nova Reel 1.1) a multiple of 6 up to 120. @default 6 */
  durationSeconds?: number;
  /** @default 0 */
  seed?: number;
  /** Where the video is written in the media bucket: the engine adds its own folder and `output.mp4`. */
  output: { bucket: string; prefix: string };
  /**
   * Unique to this run (the job's id): the start is idempotent on it, so a step that runs again
   * does not pay for a second video.
   */
  runId: string;
  /** The first frame (image to video); the engine fits it to its frame. @default none (text to video) */
  firstFrame?: GenerationImageInput;
  /** Media that guides the video (reference to video). @default none */
  references?: VideoReferences;
  /**
   * The frame the caller delivers the video at: the engine renders it, or refuses with
   * `engine_unavailable` when it cannot (`VideoGenerationResult` says what it rendered, which the caller
   * scales to this frame). @default the engine's own frame
   */
  frame?: { width: number; height: number };
}

export interface VideoGenerationResult {
  engine: string;
  model: string;
  /** The MP4 in the media bucket. */
  bucket: string;
  key: string;
  mediaType: 'video/mp4';
  durationSeconds: number;
  /** The frame the engine rendered, in pixels. */
  width: number;
  height: number;
}

export interface MediaGenerationEngine {
  /** Engine name recorded on jobs, e.g. `bedrock`. */
  readonly name: string;
  generateImage(request: ImageGenerationRequest): Promise<ImageGenerationResult>;
  generateVideo(request: VideoGenerationRequest): Promise<VideoGenerationResult>;
}

/**
 * Why media could not be generated; job code copies it to the job's `failure_code`.
 * - `invalid_input`: the request is wrong, or the model refused the prompt (content filters).
 * - `engine_unavailable`: no engine is configured, or it cannot be used now (model access, quotas).
 * - `media_generation_failed`: the model ran and failed, or did not finish in time.
 */
export const MEDIA_GENERATION_FAILURE_CODES = {
  invalidInput: 'invalid_input',
  engineUnavailable: 'engine_unavailable',
  mediaGenerationFailed: 'media_generation_failed',
} as const;
export type MediaGenerationFailureCode =
  (typeof MEDIA_GENERATION_FAILURE_CODES)[keyof typeof MEDIA_GENERATION_FAILURE_CODES];

export class MediaGenerationError extends JobFailure<MediaGenerationFailureCode> {}

export const DEFAULT_IMAGE_WIDTH = 1280;
export const DEFAULT_IMAGE_HEIGHT = 720;
export const DEFAULT_VIDEO_SECONDS = 6;

export interface NormalizedImageRequest {
  prompt: string;
  negativePrompt: string | undefined;
  width: number;
  height: number;
  count: number;
  seed: number;
  conditioning: GenerationImageInput[];
}

const invalid = (message: string) => new MediaGenerationError('invalid_input', message);

/** Checks an image request the same way for every engine; fills the defaults. */
export function validateImageRequest(request: ImageGenerationRequest): NormalizedImageRequest {
  const prompt = request.prompt?.trim() ?? '';
  if (prompt.length < 1 || prompt.length > 1024)
    throw invalid('The image prompt must be 1 to 1024 characters.');
  if (request.negativePrompt !== undefined && request.negativePrompt.length > 1024) {
    throw invalid('The negative prompt must be at most 1024 characters.');
  }
  const width = request.width ?? DEFAULT_IMAGE_WIDTH;
  const height = request.height ?? DEFAULT_IMAGE_HEIGHT;
  for (const [name, side] of [
    ['width', width],
    ['height', height],
  ] as const) {
    if (!Number.isInteger(side) || side < 320 || side > 4096 || side % 16 !== 0) {
      throw invalid(`The image ${name} must be a multiple of 16 from 320 to 4096 pixels.`);
    }
  }
  const count = request.count ?? 1;
  if (!Number.isInteger(count) || count < 1 || count > 5)
    throw invalid('From 1 to 5 images are made at once.');
  const seed = request.seed ?? 0;
  if (!Number.isInteger(seed) || seed < 0 || seed > 2_147_483_646)
    throw invalid('The seed must be a whole number from 0 to 2147483646.');
  const conditioning = request.conditioning ?? [];
  if (conditioning.length > 5) throw invalid('An image is made from at most 5 pictures.');
  return {
    prompt,
    negativePrompt: request.negativePrompt?.trim() || undefined,
    width,
    height,
    count,
    seed,
    conditioning,
  };
}

/** Checks a video request the same way for every engine; returns its duration. */
export function validateVideoRequest(request: VideoGenerationRequest): number {
  const durationSeconds = request.durationSeconds ?? DEFAULT_VIDEO_SECONDS;
  if (
    !Number.isInteger(durationSeconds) ||
    durationSeconds < 6 ||
    durationSeconds > 120 ||
    durationSeconds % 6 !== 0
  ) {
    throw invalid('A generated video lasts 6 seconds, or a multiple of 6 up to 120.');
  }
  const prompt = request.prompt?.trim() ?? '';
  // A video from a first frame is made of 6 s shots, each of which takes the prompt whole.
  const limit = durationSeconds === 6 || request.firstFrame ? 512 : 4000;
  if (prompt.length < 1 || prompt.length > limit) {
    throw invalid(
      `The video prompt must be 1 to ${limit} characters for ${durationSeconds} seconds${request.firstFrame ? ' from a first frame' : ''} (it has ${prompt.length}).`,
    );
  }
  if (request.frame) {
    const { width, height } = request.frame;
    if (![width, height].every((side) => Number.isInteger(side) && side >= 16 && side <= 4096))
      throw invalid('The video frame must be 16 to 4096 pixels on each side.');
  }
  if (
    !request.output?.bucket ||
    !/^[A-Za-z0-9-]{1,200}$/.test(request.runId.replace(/[^A-Za-z0-9-]/g, '-'))
  ) {
    throw invalid('A video needs its output bucket and a run id.');
  }
  return durationSeconds;
}
