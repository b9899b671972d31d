/**
 * The process's vision runtime: one `Human` (`@vladmandic/human`, MIT) on TensorFlow.js's WASM backend,
 * with the models it ships (blazeface, facemesh, iris: Apache-2.0 weights) and the MediaPipe selfie
 * segmentation model vendored in `vendor/models/selfie/`. Face landmarks (`face-landmarks.ts`) and person
 * segmentation (`segmentation.ts`) both run on it; nothing else imports Human.
 *
 * Why it is loaded this way (verified on Node 20 to 24, docs/architecture.md, "Media engines"):
 * - Human's package `exports` map mixes conditions and subpaths, so Node resolves its main entry (the
 *   tfjs-node build, whose native addon downloads at install and fails offline). The WASM build is
 *   required by its resolved path instead.
 * - TensorFlow.js loads models by URL, and Node 20's `fetch` cannot read `file://`. A load router for
 *   `file://` URLs reads the model's JSON and weight shards from disk, so Human's own loading code works
 *   unchanged and no model is ever fetched from the network.
 * - The WASM backend's `.wasm` files are read from `@tensorflow/tfjs-backend-wasm/dist/` the same way.
 *
 * Loading takes about 70 ms and the first inference compiles its kernels; both happen once per process
 * (a warm Lambda container keeps them).
 */
import { readFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import { fileURLToPath, pathToFileURL } from 'node:url';
import type * as TensorFlow from '@tensorflow/tfjs-core';
import type { Config, Human } from '@vladmandic/human';
import { visionModelsDir } from '../../core/config.js';
import { JobFailure } from '../../core/errors.js';
import { onProcessReset } from '../../core/process-state.js';

const require = createRequire(import.meta.url);

/**
 * Why a vision step could not run; job code copies it to the job's `failure_code`.
 * - `engine_unavailable`: the runtime or a model cannot be loaded here.
 * - `invalid_media`: the picture cannot be read.
 */
export const VISION_FAILURE = {
  engineUnavailable: 'engine_unavailable',
  invalidMedia: 'invalid_media',
  /** The work did not finish within the caller's `timeoutMs`. */
  timeout: 'vision_timeout',
} as const;
export type VisionFailureCode = (typeof VISION_FAILURE)[keyof typeof VISION_FAILURE];

export class VisionEngineError extends JobFailure<VisionFailureCode> {}

/**
 * The directory of the vendored models: `VISION_MODELS_DIR` when set (the media image, whose bundled
 * code no longer sits in the repository), else the repository's `vendor/models/`.
 */
export function visionModelsDirectory(): string {
  return visionModelsDir() || fileURLToPath(new URL('../../../vendor/models/', import.meta.url));
}

/** The vendored segmentation model's JSON (`selfie/selfie.json`, weights in `selfie.bin` beside it). */
export function selfieModelFile(): string {
  return path.join(visionModelsDirectory(), 'selfie', 'selfie.json');
}

/** A picture as packed RGB or RGBA bytes, row by row from the top left. */
export interface RawImage {
  data: Uint8Array;
  width: number;
  height: number;
  channels: 3 | 4;
}

export interface VisionRuntime {
  human: Human;
  tf: typeof TensorFlow;
}

/**
 * Human's configuration: only what this service uses is enabled. Face: detection (up to 3 faces, so a
 * group photo is told apart from a portrait), the 478-point mesh with lip contours, and the iris model
 * (it refines the eye contours that blinks are drawn from). Everything else is off.
 */
function humanConfig(modelBasePath: string, wasmPath: string): Partial<Config> {
  return {
    backend: 'wasm',
    wasmPath,
    modelBasePath,
    debug: false,
    async: true,
    warmup: 'none',
    cacheSensitivity: 0,
    filter: { enabled: false },
    face: {
      enabled: true,
      detector: { rotation: true, maxDetected: 3, minConfidence: 0.5, skipFrames: 0, return: false },
      mesh: { enabled: true },
      iris: { enabled: true },
      attention: { enabled: false },
      description: { enabled: false },
      emotion: { enabled: false },
      antispoof: { enabled: false },
      liveness: { enabled: false },
    },
    body: { enabled: false },
    hand: { enabled: false },
    object: { enabled: false },
    gesture: { enabled: false },
    segmentation: {
      enabled: false,
      modelPath: pathToFileURL(selfieModelFile()).href,
    },
  } as Partial<Config>;
}

interface ModelJson {
  modelTopology: unknown;
  format?: string;
  generatedBy?: string;
  convertedBy?: string;
  signature?: unknown;
  userDefinedMetadata?: Record<string, object>;
  weightsManifest: { paths: string[]; weights: TensorFlow.io.WeightsManifestEntry[] }[];
}

/** Reads a TensorFlow.js graph model (`model.json` and its weight shards) from a local directory. */
async function readModelArtifacts(modelFile: string): Promise<TensorFlow.io.ModelArtifacts> {
  const model = JSON.parse(await readFile(modelFile, 'utf8')) as ModelJson;
  const directory = path.dirname(modelFile);
  const weightSpecs = model.weightsManifest.flatMap((group) => group.weights);
  const shards = await Promise.all(
    model.weightsManifest
      .flatMap((group) => group.paths)
      .map((shard) => readFile(path.join(directory, shard))),
  );
  const weights = Buffer.concat(shards);
  return {
    modelTopology: model.modelTopology as TensorFlow.io.ModelArtifacts['modelTopology'],
    ...(model.format ? { format: model.format } : {}),
    ...(model.generatedBy ? { generatedBy: model.generatedBy } : {}),
    ...(model.convertedBy ? { convertedBy: model.convertedBy } : {}),
    ...(model.signature ? { signature: model.signature as object } : {}),
    ...(model.userDefinedMetadata ? { userDefinedMetadata: model.userDefinedMetadata } : {}),
    weightSpecs,
    weightData: weights.buffer.slice(weights.byteOffset, weights.byteOffset + weights.byteLength),
  };
}

/** The same tfjs-core Human requires: one registry of backends, kernels and load routers. */
function tensorFlow(): typeof TensorFlow {
  return require('@tensorflow/tfjs-core') as typeof TensorFlow;
}

let fileRouterRegistered = false;

function registerFileModelRouter(tf: typeof TensorFlow): void {
  if (fileRouterRegistered) return;
  fileRouterRegistered = true;
  // A router answers null for URLs it does not handle (tfjs's own type leaves that out).
  const fileRouter = (url: string | string[]) => {
    const href = Array.isArray(url) ? url[0] : url;
    if (typeof href !== 'string' || !href.startsWith('file://')) return null;
    return { load: () => readModelArtifacts(fileURLToPath(href)) };
  };
  tf.io.registerLoadRouter(fileRouter as Parameters<typeof tf.io.registerLoadRouter>[0]);
}

let loading: Promise<VisionRuntime> | undefined;

async function loadRuntime(): Promise<VisionRuntime> {
  try {
    const tf = tensorFlow();
    registerFileModelRouter(tf);
    // Registers the WASM backend with the shared tfjs-core before Human selects it.
    require('@tensorflow/tfjs-backend-wasm');
    const humanMain = require.resolve('@vladmandic/human');
    const { Human: HumanClass } = require(path.join(path.dirname(humanMain), 'human.node-wasm.js')) as {
      Human: new (config: Partial<Config>) => Human;
    };
    const modelBasePath = pathToFileURL(path.join(path.dirname(humanMain), '..', 'models')).href;
    const wasmDir = path.dirname(require.resolve('@tensorflow/tfjs-backend-wasm'));
    const human = new HumanClass(humanConfig(`${modelBasePath}/`, `${pathToFileURL(wasmDir).href}/`));
    await human.load();
    return { human, tf };
  } catch (error) {
    throw new VisionEngineError(
      VISION_FAILURE.engineUnavailable,
      `The face and person models cannot be loaded here (@vladmandic/human on @tensorflow/tfjs-backend-wasm): ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** The process's runtime, loaded on first use and kept. A failed load is tried again next time. */
export function visionRuntime(): Promise<VisionRuntime> {
  loading ??= loadRuntime().catch((error: unknown) => {
    loading = undefined;
    throw error;
  });
  return loading;
}

/** A [1, height, width, 3] int32 tensor of the picture, which Human's models take; the caller disposes it. */
export function imageTensor(tf: typeof TensorFlow, image: RawImage): TensorFlow.Tensor4D {
  const pixels = image.width * image.height;
  const rgb = new Int32Array(pixels * 3);
  for (let pixel = 0; pixel < pixels; pixel++) {
    const from = pixel * image.channels;
    rgb[pixel * 3] = image.data[from] ?? 0;
    rgb[pixel * 3 + 1] = image.data[from + 1] ?? 0;
    rgb[pixel * 3 + 2] = image.data[from + 2] ?? 0;
  }
  return tf.tensor4d(rgb, [1, image.height, image.width, 3], 'int32');
}

/** Forgets the runtime (tests; the local stack on restart). Human keeps no resources beyond memory. */
export function resetVisionRuntime(): void {
  loading = undefined;
}
onProcessReset(resetVisionRuntime);
