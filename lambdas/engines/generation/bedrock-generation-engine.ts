/**
 * `bedrock`: Amazon Nova models on Amazon Bedrock (deployed engine).
 *
 * Images, Nova Canvas (`MEDIA_GENERATION_IMAGE_MODEL`, default `amazon.nova-canvas-v1:0`): one
 * `InvokeModel` with the body `{taskType: "TEXT_IMAGE", textToImageParams: {text, negativeText?},
 * imageGenerationConfig: {numberOfImages, width, height, seed, quality: "standard", cfgScale: 6.5}}`;
 * the answer's `images` are base64 PNGs, its `error` a refusal (content filters: `invalid_input`).
 *
 * Videos, Nova Reel (`MEDIA_GENERATION_VIDEO_MODEL`, default `amazon.nova-reel-v1:1`): `StartAsyncInvoke`
 * writes into the media bucket (`s3://<bucket>/<prefix>`; Bedrock adds a folder per invocation and
 * writes `output.mp4` in it) with the run's id as the client request token, so a repeated start is the
 * same invocation; 6 s is a TEXT_VIDEO task (1280x720, 24 fps), longer is MULTI_SHOT_AUTOMATED.
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
export const NOVA_REEL_FPS = 24;
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

/** Nova Reel's model input for a prompt and duration. */
export function novaReelInput(
  prompt: string,
  durationSeconds: number,
  seed: number,
): Record<string, unknown> {
  const videoGenerationConfig = { durationSeconds, fps: NOVA_REEL_FPS, dimension: NOVA_REEL_DIMENSION, seed };
  return durationSeconds === 6
    ? { taskType: 'TEXT_VIDEO', textToVideoParams: { text: prompt }, videoGenerationConfig }
    : { taskType: 'MULTI_SHOT_AUTOMATED', multiShotAutomatedParams: { text: prompt }, videoGenerationConfig };
}

class BedrockGenerationEngine implements MediaGenerationEngine {
  readonly name = BEDROCK_GENERATION_ENGINE;

  constructor(private readonly options: BedrockGenerationOptions) {}

  private bedrock(): BedrockRuntimeClient {
    return this.options.client ?? bedrockRuntimeClient();
  }

  async generateImage(request: ImageGenerationRequest): Promise<ImageGenerationResult> {
    const image = validateImageRequest(request);
    const body = {
      taskType: 'TEXT_IMAGE',
      textToImageParams: {
        text: image.prompt,
        ...(image.negativePrompt ? { negativeText: image.negativePrompt } : {}),
      },
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
    const prefix = request.output.prefix.replace(/^\/+|\/+$/g, '');
    let invocationArn: string | undefined;
    try {
      invocationArn = (
        await this.bedrock().send(
          new StartAsyncInvokeCommand({
            modelId: model,
            clientRequestToken: clientRequestToken(request.runId),
            modelInput: novaReelInput(request.prompt.trim(), durationSeconds, request.seed ?? 0) as never,
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
