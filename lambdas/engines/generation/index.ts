/**
 * The process's image and video generation engine, chosen by configuration (`MEDIA_GENERATION_ENGINE`,
 * see `modelEnginesConfig` in core/config.ts): `bedrock` (Nova Canvas and Nova Reel), `none` (the
 * default: every call fails with `engine_unavailable` naming the settings; there is no local engine) or
 * `test-double` (tests only). Job code records the engine's `name` on the job, and asks
 * `videoGenerationConfigured()` before promising a generated video (e.g. a `cinematic_avatar` render).
 */
import {
  type MediaGenerationEngineName,
  modelEnginesConfig,
  UNCONFIGURED_ENGINE,
} from '../../core/config.js';
import { onProcessReset } from '../../core/process-state.js';
import { createBedrockGenerationEngine } from './bedrock-generation-engine.js';
import { type MediaGenerationEngine, MediaGenerationError } from './generation-engine.js';
import { createOpenAiImageEngine } from './openai-image-engine.js';
import { createTestDoubleGenerationEngine } from './test-double-generation-engine.js';

export * from './generation-engine.js';

/** What a deployer reads when image or video generation is asked for and none is configured. */
export const MEDIA_GENERATION_NOT_CONFIGURED =
  "Image and video generation is not configured: there is no local engine (no npm package ships generation models). Set MEDIA_GENERATION_ENGINE=bedrock (CDK option mediaGeneration: { engine: 'bedrock' }) in a region where Amazon Nova Canvas and Nova Reel are enabled for the account. Nothing was charged.";

function createUnconfiguredGenerationEngine(): MediaGenerationEngine {
  const fail = async (): Promise<never> => {
    throw new MediaGenerationError('engine_unavailable', MEDIA_GENERATION_NOT_CONFIGURED);
  };
  return { name: UNCONFIGURED_ENGINE, generateImage: fail, generateVideo: fail };
}

/**
 * The composite engine, loaded when first used: it runs the vision engines (sharp, TensorFlow.js), which
 * only the media image carries, and every bundle that can pick an engine carries this module.
 */
function lazyCompositeEngine(): MediaGenerationEngine {
  let engine: Promise<MediaGenerationEngine> | undefined;
  const loaded = (): Promise<MediaGenerationEngine> => {
    engine ??= import('./composite-remix-engine.js').then((module) => module.createCompositeRemixEngine());
    return engine;
  };
  return {
    name: 'composite',
    generateImage: async (request) => (await loaded()).generateImage(request),
    generateVideo: async (request) => (await loaded()).generateVideo(request),
  };
}

/** A new engine of that name, with its settings from the configuration. */
export function createGenerationEngine(
  name: MediaGenerationEngineName = modelEnginesConfig().mediaGeneration.engine,
): MediaGenerationEngine {
  const settings = modelEnginesConfig().mediaGeneration;
  switch (name) {
    case 'bedrock':
      return createBedrockGenerationEngine({
        imageModel: settings.imageModel,
        videoModel: settings.videoModel,
        pollIntervalMs: settings.pollIntervalMs,
        videoTimeoutMs: settings.videoTimeoutMs,
      });
    case 'openai':
      return createOpenAiImageEngine(settings);
    case 'composite':
      return lazyCompositeEngine();
    case 'test-double':
      return createTestDoubleGenerationEngine();
    case UNCONFIGURED_ENGINE:
      return createUnconfiguredGenerationEngine();
    default:
      throw new Error(`unknown media generation engine ${String(name satisfies never)}`);
  }
}

let shared: MediaGenerationEngine | undefined;

/** The process's image and video generation engine, created on first use from the configuration and kept. */
export function generationEngine(): MediaGenerationEngine {
  shared ??= createGenerationEngine();
  return shared;
}

/** Whether this deployment can generate a video: an engine is configured and its video model is set. */
export function videoGenerationConfigured(): boolean {
  const settings = modelEnginesConfig().mediaGeneration;
  if (settings.engine === 'test-double') return true;
  return settings.engine === 'bedrock' && settings.videoModel !== '';
}

/**
 * Whether this deployment can generate an image: an engine is configured with its image model (Bedrock)
 * or its server (OpenAI-compatible).
 */
export function imageGenerationConfigured(): boolean {
  const settings = modelEnginesConfig().mediaGeneration;
  if (settings.engine === 'test-double') return true;
  if (settings.engine === 'openai') return settings.baseUrl !== '';
  if (settings.engine === 'composite') return true;
  return settings.engine === 'bedrock' && settings.imageModel !== '';
}

/** Forgets the process's engine (tests, and the local stack after it changes settings). */
export function resetGenerationEngine(): void {
  shared = undefined;
}
onProcessReset(resetGenerationEngine);
