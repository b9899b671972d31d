/**
 * `bedrock`: Amazon Nova models on Amazon Bedrock (deployed engine).
 *
 * Images, Nova Canvas (`MEDIA_GENERATION_IMAGE_MODEL`, default `amazon.nova-canvas-v1:0`): one
 * `InvokeModel` with the body `{taskType: "TEXT_IMAGE", textToImageParams: {text, negativeText?},
 * imageGenerationConfig: {numberOfImages, width, height, seed, quality: "standard", cfgScale: 6.5}}`;
 * the answer's `images` are base64 PNGs, its `error` a refusal (content filters: `invalid_input`). An
 * image conditioned on pictures (an identity remix) is an IMAGE_VARIATION of them instead (up to five,
 * each fitted to 320–1408 pixels a side as PNG, `similarityStrength` 0.8): a blend guided by the
 * pictures, not an identity-preserving model.
 *
 * Videos, Nova Reel (`MEDIA_GENERATION_VIDEO_MODEL`, default `amazon.nova-reel-v1:1`): `StartAsyncInvoke`
 * writes into the media bucket (`s3://<bucket>/<prefix>`; Bedrock adds a folder per invocation and
 * writes `output.mp4` in it) with the run's id as the client request token, so a repeated start is the
 * same invocation; 6 s is a TEXT_VIDEO task (1280x720, 24 fps), longer is MULTI_SHOT_AUTOMATED, and a
 * first frame (image to video) is fitted to 1280x720 and starts the TEXT_VIDEO shot, or the first shot of
 * a MULTI_SHOT_MANUAL video. Nova Reel renders nothing but 1280x720 and takes no reference media: a
 * request for another frame shape, a frame taller than 768 rows or references is refused with
 * `engine_unavailable` before anything is invoked (`novaReelRefusal`).
 * `GetAsyncInvoke` is polled every `MEDIA_GENERATION_POLL_INTERVAL_MS` until Completed or Failed, for at
 * most `MEDIA_GENERATION_TIMEOUT_MS`; the video is `<the answer's s3Uri>/output.mp4`. IAM authorizes
 * StartAsyncInvoke as `bedrock:InvokeModel` on the model; Bedrock writes the video with the caller's
 * access to the bucket.
 *
 * Errors (bedrock-runtime.ts): ValidationException → `invalid_input`; model access, quotas, throttling,
 * credentials → `engine_unavailable`; a failed invocation, a model error or the timeout →
 * `media_generation_failed`.
 */
import { setTimeout as sleep } from 'node:timers/promises';
import {
  type AsyncInvokeSummary,
  type BedrockRuntimeClient,
  GetAsyncInvokeCommand,
  type GetAsyncInvokeCommandOutput,
  InvokeModelCommand,
  StartAsyncInvokeCommand,
} from '@aws-sdk/client-bedrock-runtime';
import {
  type BedrockFailure,
  bedrockFailureOf,
  bedrockRuntimeClient,
  describeBedrockError,
} from '../bedrock-runtime.js';
import {
  type ImageGenerationRequest,
  type ImageGenerationResult,
  type MediaGenerationEngine,
  MediaGenerationError,
  type MediaGenerationFailureCode,
  type VideoGenerationRequest,
  type VideoGenerationResult,
  validateImageRequest,
  validateVideoRequest,
} from './generation-engine.js';

export const BEDROCK_GENERATION_ENGINE = 'bedrock';
export const NOVA_REEL_DIMENSION = '1280x720';
export const NOVA_REEL_WIDTH = 1280;
export const NOVA_REEL_HEIGHT = 720;
export const NOVA_REEL_FPS = 24;
/** Nova Reel's shot: a 6 s video is one, longer ones are made of several. */
export const NOVA_REEL_SHOT_SECONDS = 6;
/**
 * The tallest frame made from Nova Reel's 720 rows (a 768p video: 7 % upscaled). Taller frames (1080p,
 * 2k) are refused rather than upscaled and sold at their price.
 */
export const NOVA_REEL_MAX_DELIVERED_HEIGHT = 768;
/** The file Nova Reel writes in its invocation's folder. */
export const NOVA_REEL_OUTPUT_FILE = 'output.mp4';

export interface BedrockGenerationOptions {
  imageModel: string;
  /** '' when video generation is off. */
  videoModel: string;
  pollIntervalMs: number;
  videoTimeoutMs: number;
  /** @default the process's Bedrock Runtime client */
  client?: BedrockRuntimeClient;
}

const FAILURE_CODES: Readonly<Record<BedrockFailure, MediaGenerationFailureCode>> = {
  unavailable: 'engine_unavailable',
  invalid_input: 'invalid_input',
  failed: 'media_generation_failed',
};

const failureOf = (error: unknown, what: string) =>
  new MediaGenerationError(
    FAILURE_CODES[bedrockFailureOf(error)],
    `${what} (${describeBedrockError(error)})`,
    { cause: error },
  );

/** `s3://bucket/some/key` → bucket and key. */
export function parseS3Uri(uri: string): { bucket: string; key: string } | undefined {
  const match = /^s3:\/\/([^/]+)\/?(.*)$/.exec(uri);
  return match ? { bucket: match[1] as string, key: (match[2] as string).replace(/\/+$/, '') } : undefined;
}

/** Bedrock's client request token: `[a-zA-Z0-9-]`, at most 256 characters. */
export const clientRequestToken = (runId: string) => runId.replace(/[^a-zA-Z0-9-]/g, '-').slice(0, 256);

/**
 * Nova Reel's model input for a prompt and duration, and a first frame (a 1280x720 PNG, base64) when
 * given: 6 s is one TEXT_VIDEO shot (with the frame as its `images`), longer is MULTI_SHOT_AUTOMATED, or
 * MULTI_SHOT_MANUAL from a first frame (the frame starts the first shot; every shot takes the prompt).
 */
export function novaReelInput(
  prompt: string,
  durationSeconds: number,
  seed: number,
  firstFramePng?: string,
): Record<string, unknown> {
  const videoGenerationConfig = { durationSeconds, fps: NOVA_REEL_FPS, dimension: NOVA_REEL_DIMENSION, seed };
  const image = firstFramePng ? { format: 'png', source: { bytes: firstFramePng } } : undefined;
  if (durationSeconds === NOVA_REEL_SHOT_SECONDS) {
    return {
      taskType: 'TEXT_VIDEO',
      textToVideoParams: { text: prompt, ...(image ? { images: [image] } : {}) },
      videoGenerationConfig,
    };
  }
  if (image) {
    const shots = Array.from({ length: durationSeconds / NOVA_REEL_SHOT_SECONDS }, (_, index) =>
      index === 0 ? { text: prompt, image } : { text: prompt },
    );
    return {
      taskType: 'MULTI_SHOT_MANUAL',
      multiShotManualParams: { shots },
      videoGenerationConfig: { fps: NOVA_REEL_FPS, dimension: NOVA_REEL_DIMENSION, seed },
    };
  }
  return {
    taskType: 'MULTI_SHOT_AUTOMATED',
    multiShotAutomatedParams: { text: prompt },
    videoGenerationConfig,
  };
}

/**
 * Why Nova Reel cannot make a request, or undefined when it can: it renders 1280x720 (16:9) only, from
 * a prompt and at most a first frame; it takes no reference media.
 */
export function novaReelRefusal(request: VideoGenerationRequest): string | undefined {
  const references = request.references;
  if (references && references.images.length + references.videos.length + references.audio.length > 0) {
    return 'Nova Reel has no reference-to-video mode: it films a prompt, from a first frame at most, and takes no reference images, videos or audio. reference_to_video needs a video engine that does, and this deployment has none';
  }
  if (request.frame) {
    const { width, height } = request.frame;
    // Within 3 %: the contract's 16:9 frames are 1.75 wide per high (1890x1080), Nova Reel's 1.78.
    const sameShape = Math.abs(Math.log(width / height / (NOVA_REEL_WIDTH / NOVA_REEL_HEIGHT))) < 0.03;
    if (!sameShape || height > NOVA_REEL_MAX_DELIVERED_HEIGHT) {
      return `Nova Reel renders 1280x720 (16:9) only, which makes 16:9 videos at 480p or 768p; a ${width}x${height} frame needs a video engine that renders it, and this deployment has none`;
    }
  }
  return undefined;
}

/**
 * How closely an IMAGE_VARIATION follows its pictures (Nova Canvas: 0.2 to 1.0): close, so that what
 * the pictures show (a face, clothing, a scene) carries over, with room for the prompt to combine them.
 */
export const NOVA_CANVAS_SIMILARITY = 0.8;

/** A picture as Nova Canvas takes it: PNG, base64, 320 to 1408 pixels a side (its limits, with a margin). */
async function novaCanvasInputImage(image: { bytes: Uint8Array }): Promise<string> {
  const { default: sharp } = await import('sharp');
  try {
    const upright = sharp(image.bytes).rotate();
    const { width = 0, height = 0 } = await sharp(await upright.clone().png().toBuffer()).metadata();
    const scale = Math.min(1408 / Math.max(width, height), Math.max(1, 320 / Math.min(width, height)));
    const png = await upright
      .resize(Math.max(320, Math.round(width * scale)), Math.max(320, Math.round(height * scale)), {
        fit: 'cover',
      })
      .png()
      .toBuffer();
    return png.toString('base64');
  } catch (error) {
    throw new MediaGenerationError('invalid_input', 'A picture to make the image from cannot be decoded', {
      cause: error,
    });
  }
}

/** A first frame fitted to Nova Reel's frame (covering it, centred), as the base64 PNG it takes. */
async function novaReelFirstFrame(image: { bytes: Uint8Array }): Promise<string> {
  // Loaded when used: only the media image has sharp.
  const { default: sharp } = await import('sharp');
  try {
    const png = await sharp(image.bytes)
      .rotate()
      .resize(NOVA_REEL_WIDTH, NOVA_REEL_HEIGHT, { fit: 'cover' })
      .png()
      .toBuffer();
    return png.toString('base64');
  } catch (error) {
    throw new MediaGenerationError('invalid_input', 'The first-frame image cannot be decoded', {
      cause: error,
    });
  }
}

class BedrockGenerationEngine implements MediaGenerationEngine {
  readonly name = BEDROCK_GENERATION_ENGINE;

  constructor(private readonly options: BedrockGenerationOptions) {}

  private bedrock(): BedrockRuntimeClient {
    return this.options.client ?? bedrockRuntimeClient();
  }

  async generateImage(request: ImageGenerationRequest): Promise<ImageGenerationResult> {
    const image = validateImageRequest(request);
    const text = {
      text: image.prompt,
      ...(image.negativePrompt ? { negativeText: image.negativePrompt } : {}),
    };
    const task =
      image.conditioning.length > 0
        ? {
            taskType: 'IMAGE_VARIATION',
            imageVariationParams: {
              ...text,
              images: await Promise.all(image.conditioning.map(novaCanvasInputImage)),
              similarityStrength: NOVA_CANVAS_SIMILARITY,
            },
          }
        : { taskType: 'TEXT_IMAGE', textToImageParams: text };
    const body = {
      ...task,
      imageGenerationConfig: {
        numberOfImages: image.count,
        width: image.width,
        height: image.height,
        seed: image.seed,
        quality: 'standard',
        cfgScale: 6.5,
      },
    };
    let answer: { images?: unknown; error?: unknown };
    try {
      const output = await this.bedrock().send(
        new InvokeModelCommand({
          modelId: this.options.imageModel,
          contentType: 'application/json',
          accept: 'application/json',
          body: new TextEncoder().encode(JSON.stringify(body)),
        }),
      );
      answer = JSON.parse(new TextDecoder().decode(output.body)) as typeof answer;
    } catch (error) {
      if (error instanceof SyntaxError) {
        throw new MediaGenerationError(
          'media_generation_failed',
          'Nova Canvas answered with something that is not JSON',
          { cause: error },
        );
      }
      throw failureOf(error, `Amazon Bedrock did not generate the image with ${this.options.imageModel}`);
    }
    if (typeof answer.error === 'string' && answer.error) {
      throw new MediaGenerationError('invalid_input', `Nova Canvas refused the prompt: ${answer.error}`);
    }
    const images = Array.isArray(answer.images)
      ? answer.images
          .filter((item): item is string => typeof item === 'string')
          .map((item) => new Uint8Array(Buffer.from(item, 'base64')))
      : [];
    if (images.length === 0)
      throw new MediaGenerationError('media_generation_failed', 'Nova Canvas answered without an image');
    return {
      engine: this.name,
      model: this.options.imageModel,
      images,
      mediaType: 'image/png',
      width: image.width,
      height: image.height,
    };
  }

  async generateVideo(request: VideoGenerationRequest): Promise<VideoGenerationResult> {
    const durationSeconds = validateVideoRequest(request);
    const model = this.options.videoModel;
    if (!model) {
      throw new MediaGenerationError(
        'engine_unavailable',
        'Video generation is off: MEDIA_GENERATION_VIDEO_MODEL is empty (CDK option mediaGeneration.videoModel). Nothing was charged.',
      );
    }
    const refusal = novaReelRefusal(request);
    if (refusal) throw new MediaGenerationError('engine_unavailable', `${refusal}. Nothing was charged.`);
    const firstFrame = request.firstFrame ? await novaReelFirstFrame(request.firstFrame) : undefined;
    const prefix = request.output.prefix.replace(/^\/+|\/+$/g, '');
    let invocationArn: string | undefined;
    try {
      invocationArn = (
        await this.bedrock().send(
          new StartAsyncInvokeCommand({
            modelId: model,
            clientRequestToken: clientRequestToken(request.runId),
            modelInput: novaReelInput(
              request.prompt.trim(),
              durationSeconds,
              request.seed ?? 0,
              firstFrame,
            ) as never,
            outputDataConfig: { s3OutputDataConfig: { s3Uri: `s3://${request.output.bucket}/${prefix}` } },
          }),
        )
      ).invocationArn;
    } catch (error) {
      throw failureOf(error, `Amazon Bedrock did not start the video with ${model}`);
    }
    if (!invocationArn)
      throw new MediaGenerationError('media_generation_failed', 'Amazon Bedrock started no video invocation');
    const done = await this.waitFor(invocationArn);
    const location = parseS3Uri(done.outputDataConfig?.s3OutputDataConfig?.s3Uri ?? '');
    if (!location) {
      throw new MediaGenerationError(
        'media_generation_failed',
        `Nova Reel finished ${invocationArn} without saying where the video is`,
      );
    }
    return {
      engine: this.name,
      model,
      bucket: location.bucket,
      key: location.key ? `${location.key}/${NOVA_REEL_OUTPUT_FILE}` : NOVA_REEL_OUTPUT_FILE,
      mediaType: 'video/mp4',
      durationSeconds,
      width: NOVA_REEL_WIDTH,
      height: NOVA_REEL_HEIGHT,
    };
  }

  private async waitFor(invocationArn: string): Promise<GetAsyncInvokeCommandOutput | AsyncInvokeSummary> {
    const deadline = Date.now() + this.options.videoTimeoutMs;
    for (;;) {
      let state: GetAsyncInvokeCommandOutput;
      try {
        state = await this.bedrock().send(new GetAsyncInvokeCommand({ invocationArn }));
      } catch (error) {
        throw failureOf(error, `Amazon Bedrock could not report on the video ${invocationArn}`);
      }
      if (state.status === 'Completed') return state;
      if (state.status === 'Failed') {
        throw new MediaGenerationError(
          'media_generation_failed',
          `Nova Reel could not make the video: ${state.failureMessage ?? 'no reason given'}`,
        );
      }
      if (Date.now() + this.options.pollIntervalMs > deadline) {
        throw new MediaGenerationError(
          'media_generation_failed',
          `Nova Reel did not finish the video within ${this.options.videoTimeoutMs} ms (${invocationArn})`,
        );
      }
      await sleep(this.options.pollIntervalMs);
    }
  }
}

/** A Bedrock engine for the configured Nova models. */
export function createBedrockGenerationEngine(options: BedrockGenerationOptions): MediaGenerationEngine {
  return new BedrockGenerationEngine(options);
}
