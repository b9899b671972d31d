/**
 * Person segmentation: which pixels of a picture or of each video frame are the person, as an 8-bit
 * mask (255 = person). Used for photo presenters placed on a chosen background, transparent WebM of
 * photo presenters, and background removal (`separateVideoLayers`).
 *
 * The model is MediaPipe's selfie segmentation (Apache-2.0 weights, `vendor/models/selfie/`, 256×256
 * RGB in [0, 1], one sigmoid channel out), run on the process's TensorFlow.js WASM backend
 * (`human-runtime.ts`). It is loaded with tfjs-converter's `loadGraphModel` through the runtime's
 * `file://` load router rather than through `human.segmentation()`, because Human's path stretches every
 * picture to 256×256 (a 9:16 portrait on a plain wall then comes out at IoU 0.12 against 0.98 here),
 * casts the mask to int32 at full size, and merges per-call settings into the configuration the face
 * code shares.
 *
 * How a mask is made:
 * 1. sharp shrinks the picture to the model's input: landscape and square pictures are squeezed to
 *    256×256 (measured as good as padding), portrait pictures are scaled to 256 high and their sides
 *    filled with copies of the edge columns (squeezing them widens the person, which the model misses);
 * 2. the model's probabilities are mapped through a ramp (`edgeLow` → 0, `edgeHigh` → 255), which moves
 *    the soft edge onto the person and trims the halo of background the bare probabilities let through;
 * 3. that low-resolution mask is scaled up to the picture (bilinear) and blurred by a fraction of the
 *    picture's shorter side (feathering, so the edge never shows the model's 256-pixel grid), both in
 *    typed arrays that only work on the band around the outline (`mask-edges.ts`);
 * 4. the feathered edge is choked (`edgeChoke`): its outer, faint part is cut and the rest stretched
 *    back to 0–255, so the pixels that would still show the old background around the person go;
 * 5. for cut-outs and videos, the colours of the half-transparent outline pixels are repaired from the
 *    opaque person pixels around them (`edgeColourFraction`), so what is left of the old background
 *    in them does not show as a coloured fringe.
 * For video, step 2 works on an exponential moving average of each frame's probabilities, which calms
 * the flicker of a per-frame model at the cost of a short lag on fast motion.
 *
 * Video is streamed (`segmentationPass`): one ffmpeg process decodes to raw RGB on its stdout, each
 * frame is segmented once, and handed to one ffmpeg encoder per output on its stdin. `segmentVideo`
 * has one output: RGBA (VP9 with alpha in WebM, ProRes 4444 in MOV) or the person laid over a colour or
 * an image. `separateVideoLayers` (background removal) has up to three from the same decode: the
 * foreground (VP8 with alpha), the mask (H.264) and the background, the person replaced by what other
 * frames showed there (`background-plate.ts`). The input's audio is kept. ffmpeg (GPL) only ever runs
 * as a child process (`../composition/ffmpeg-binaries.ts`).
 */
import { spawn } from 'node:child_process';
import { once } from 'node:events';
import { createRequire } from 'node:module';
import path from 'node:path';
import { pathToFileURL } from 'node:url';
import type { GraphModel } from '@tensorflow/tfjs-converter';
import type * as TensorFlow from '@tensorflow/tfjs-core';
import sharp from 'sharp';
import { onProcessReset } from '../../core/process-state.js';
import {
  ensureExecutable,
  ffmpegPath,
  ffprobePath,
  lastLine,
  rawFrames,
} from '../composition/ffmpeg-binaries.js';
import { fileInput } from '../composition/probe.js';
import {
  type BackgroundPlate,
  backgroundLayerFrame,
  createBackgroundPlate,
  personCover,
} from './background-plate.js';
import {
  type RawImage,
  selfieModelFile,
  VISION_FAILURE,
  VisionEngineError,
  visionRuntime,
} from './human-runtime.js';
import {
  blurMaskEdges,
  chokeMask,
  FOUR_OPAQUE,
  rgbaWithEdgeColours,
  scaleUpBilinear,
  wholeWords,
} from './mask-edges.js';

const require = createRequire(import.meta.url);

/** The model's input side, in pixels (`selfie.json`: [1, 256, 256, 3]). */
const MODEL_SIZE = 256;

/** Below this fraction of person pixels a picture is said to show nobody. */
export const NO_PERSON_COVERAGE = 0.01;

/** A mask the size of its picture: one byte per pixel, 0 background to 255 person. */
export interface PersonMask {
  data: Uint8Array;
  width: number;
  height: number;
  /** The fraction of pixels that are more person than not (mask ≥ 128); below `NO_PERSON_COVERAGE`: nobody. */
  coverage: number;
}

/** How masks are drawn from the model's probabilities. */
export interface MaskOptions {
  /**
   * The person probability at which the mask starts to rise above 0. Raising it trims more of the
   * background halo around the person, and more of their hair.
   * @default 0.4
   */
  edgeLow?: number;
  /** The person probability at which the mask is fully opaque (255). @default 0.8 */
  edgeHigh?: number;
  /**
   * Feathering: the Gaussian blur's sigma as a fraction of the picture's shorter side (0.003 is about
   * 3 px on 1080p, 1 px on 360p); 0 turns it off.
   * @default 0.003
   */
  featherFraction?: number;
  /**
   * After feathering, mask values up to this level become 0 and the rest are stretched back to 0–255:
   * the feathered edge is pulled inside the person, so the outer, half-transparent pixels (which
   * still show the old background: the halo) disappear. 0 keeps the feathered edge as it is.
   * @default 96
   */
  edgeChoke?: number;
}

const MASK_DEFAULTS: Required<MaskOptions> = {
  edgeLow: 0.4,
  edgeHigh: 0.8,
  featherFraction: 0.003,
  edgeChoke: 96,
};

/** `options` without its undefined entries: spread over the defaults, an explicit undefined keeps them. */
function definedOnly<T extends object>(options: T): Partial<T> {
  return Object.fromEntries(Object.entries(options).filter(([, value]) => value !== undefined)) as Partial<T>;
}

function maskSettings(options: MaskOptions): Required<MaskOptions> {
  const settings = { ...MASK_DEFAULTS, ...definedOnly(options) };
  if (!(settings.edgeLow >= 0 && settings.edgeLow < settings.edgeHigh && settings.edgeHigh <= 1)) {
    throw new RangeError('edgeLow and edgeHigh must satisfy 0 <= edgeLow < edgeHigh <= 1');
  }
  if (!(settings.featherFraction >= 0 && settings.featherFraction < 0.1)) {
    throw new RangeError('featherFraction must be at least 0 and below 0.1');
  }
  if (!(Number.isInteger(settings.edgeChoke) && settings.edgeChoke >= 0 && settings.edgeChoke < 255)) {
    throw new RangeError('edgeChoke must be a whole number from 0 to 254');
  }
  return settings;
}

// ---- the model ----

let modelLoading: Promise<{ model: GraphModel; tf: typeof TensorFlow }> | undefined;

async function loadSelfieModel(): Promise<{ model: GraphModel; tf: typeof TensorFlow }> {
  // The runtime registers the WASM backend and the file:// load router this load goes through.
  const { tf } = await visionRuntime();
  const file = selfieModelFile();
  try {
    const converter = require('@tensorflow/tfjs-converter') as typeof import('@tensorflow/tfjs-converter');
    const model = await converter.loadGraphModel(pathToFileURL(file).href);
    return { model, tf };
  } catch (error) {
    throw new VisionEngineError(
      VISION_FAILURE.engineUnavailable,
      `The person segmentation model cannot be loaded from ${file} (set VISION_MODELS_DIR): ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** Forgets the loaded model (tests; the local stack on restart), e.g. after `VISION_MODELS_DIR` changed. */
export function resetSegmentationModel(): void {
  const loaded = modelLoading;
  modelLoading = undefined;
  // The weights live in the WASM backend's memory, which the garbage collector does not see.
  loaded?.then(({ model }) => model.dispose()).catch(() => undefined);
}
onProcessReset(resetSegmentationModel);

/** The segmentation model, loaded on first use and kept for the process; a failed load is retried. */
function selfieModel(): Promise<{ model: GraphModel; tf: typeof TensorFlow }> {
  modelLoading ??= loadSelfieModel().catch((error: unknown) => {
    modelLoading = undefined;
    throw error;
  });
  return modelLoading;
}

/** Person probabilities (0 to 1) at the model's resolution, for the part of its input that is the picture. */
interface Probabilities {
  data: Float32Array;
  width: number;
  height: number;
}

/**
 * Runs the model on a picture. Portrait pictures keep their proportions (the sides of the model's input
 * are edge copies, cropped off the result); other pictures are squeezed to the square input.
 */
async function personProbabilities(image: RawImage): Promise<Probabilities> {
  const { model, tf } = await selfieModel();
  const portrait = image.height > image.width;
  const innerWidth = portrait
    ? Math.max(1, Math.min(MODEL_SIZE, Math.round((MODEL_SIZE * image.width) / image.height)))
    : MODEL_SIZE;
  const left = Math.floor((MODEL_SIZE - innerWidth) / 2);
  let input = sharp(image.data, {
    raw: { width: image.width, height: image.height, channels: image.channels },
  })
    .removeAlpha()
    .resize(innerWidth, MODEL_SIZE, { fit: 'fill' });
  if (innerWidth < MODEL_SIZE) {
    input = input.extend({ left, right: MODEL_SIZE - innerWidth - left, extendWith: 'copy' });
  }
  const rgb = await input.raw().toBuffer();
  const scaled = new Float32Array(rgb.length);
  for (let index = 0; index < rgb.length; index++) scaled[index] = (rgb[index] as number) / 255;
  const output = tf.tidy(() => {
    const batch = tf.tensor4d(scaled, [1, MODEL_SIZE, MODEL_SIZE, 3], 'float32');
    return model.execute(batch) as TensorFlow.Tensor;
  });
  let probabilities: Float32Array;
  try {
    probabilities = (await output.data()) as Float32Array;
  } finally {
    output.dispose();
  }
  if (innerWidth === MODEL_SIZE) return { data: probabilities, width: MODEL_SIZE, height: MODEL_SIZE };
  const cropped = new Float32Array(innerWidth * MODEL_SIZE);
  for (let row = 0; row < MODEL_SIZE; row++) {
    const from = row * MODEL_SIZE + left;
    cropped.set(probabilities.subarray(from, from + innerWidth), row * innerWidth);
  }
  return { data: cropped, width: innerWidth, height: MODEL_SIZE };
}

// ---- masks ----

/**
 * Maps probabilities (0 to 1) through the edge ramp to mask bytes: up to `edgeLow` 0, from `edgeHigh`
 * 255, linear between.
 */
export function rampToMask(probabilities: ArrayLike<number>, edgeLow: number, edgeHigh: number): Uint8Array {
  const factor = 255 / (edgeHigh - edgeLow);
  const mask = new Uint8Array(probabilities.length);
  for (let index = 0; index < probabilities.length; index++) {
    // Clamped here: a Uint8Array would wrap values outside 0–255 (and stores NaN as 0).
    mask[index] = Math.round(
      Math.min(255, Math.max(0, ((probabilities[index] as number) - edgeLow) * factor)),
    );
  }
  return mask;
}

/**
 * Scales a low-resolution mask up to `width` × `height` (bilinear), feathers it (a Gaussian of
 * `featherFraction` of the shorter side) and chokes its edge; the blur touches only the edge's band
 * (`mask-edges.ts`).
 */
function upscaleMask(
  low: Uint8Array,
  lowWidth: number,
  lowHeight: number,
  width: number,
  height: number,
  featherFraction: number,
  edgeChoke: number,
): Uint8Array {
  const scaled = scaleUpBilinear(low, lowWidth, lowHeight, width, height);
  const feathered = blurMaskEdges(scaled, width, height, featherFraction * Math.min(width, height));
  return chokeMask(feathered, edgeChoke);
}

/** The fraction of mask bytes at 128 or more. */
export function maskCoverage(mask: Uint8Array): number {
  let person = 0;
  const words = wholeWords(mask);
  for (let word = 0; word < words.length; word++) {
    const four = words[word] as number;
    if (four === 0) continue;
    if (four === FOUR_OPAQUE) {
      person += 4;
      continue;
    }
    for (let index = word * 4; index < word * 4 + 4; index++) if ((mask[index] as number) >= 128) person++;
  }
  for (let index = words.length * 4; index < mask.length; index++)
    if ((mask[index] as number) >= 128) person++;
  return mask.length === 0 ? 0 : person / mask.length;
}

function assertRawImage(image: RawImage): void {
  const { width, height, channels, data } = image;
  if (!(Number.isInteger(width) && Number.isInteger(height) && width > 0 && height > 0)) {
    throw new VisionEngineError(VISION_FAILURE.invalidMedia, `A picture of ${width}x${height} has no pixels`);
  }
  if (data.length !== width * height * channels) {
    throw new VisionEngineError(
      VISION_FAILURE.invalidMedia,
      `A ${width}x${height} picture with ${channels} channels needs ${width * height * channels} bytes, not ${data.length}`,
    );
  }
}

/**
 * The person in `image`: a mask at the image's size, computed at the model's 256-pixel resolution,
 * scaled up smoothly and feathered, and the fraction of the image the person covers (below
 * `NO_PERSON_COVERAGE`: nobody found). About 30 ms for a 512×512 picture on 2 shared cores, 15 ms of
 * it the model.
 */
export async function segmentPerson(image: RawImage, options: MaskOptions = {}): Promise<PersonMask> {
  const settings = maskSettings(options);
  assertRawImage(image);
  const probabilities = await personProbabilities(image);
  const low = rampToMask(probabilities.data, settings.edgeLow, settings.edgeHigh);
  const data = upscaleMask(
    low,
    probabilities.width,
    probabilities.height,
    image.width,
    image.height,
    settings.featherFraction,
    settings.edgeChoke,
  );
  return { data, width: image.width, height: image.height, coverage: maskCoverage(data) };
}

/** How the person's colours are written out (cut-outs and videos). */
export interface ColourOptions {
  /**
   * Edge colour repair: the half-transparent pixels of the outline, whose colour still mixes in the
   * old background (an orange fringe on hair in front of an orange wall), take the colour of the
   * fully opaque person pixels around them instead: a Gaussian average weighted by opacity, with this
   * sigma as a fraction of the picture's shorter side. 0 keeps the photo's own colours.
   * @default 0.008
   */
  edgeColourFraction?: number;
}

const COLOUR_DEFAULTS: Required<ColourOptions> = { edgeColourFraction: 0.008 };

function colourSettings(options: ColourOptions): Required<ColourOptions> {
  const settings = { ...COLOUR_DEFAULTS, ...definedOnly(options) };
  if (!(settings.edgeColourFraction >= 0 && settings.edgeColourFraction < 0.1)) {
    throw new RangeError('edgeColourFraction must be at least 0 and below 0.1');
  }
  return settings;
}

/**
 * The person as RGBA: `rgb` with the mask as its alpha, the outline's colours repaired from the opaque
 * person pixels near them (`edgeColourFraction`; only the outline is touched, `mask-edges.ts`).
 */
function personRgba(
  rgb: Uint8Array,
  mask: Uint8Array,
  width: number,
  height: number,
  edgeColourFraction: number,
): Buffer {
  return rgbaWithEdgeColours(rgb, mask, width, height, edgeColourFraction * Math.min(width, height));
}

export interface PersonCutOut {
  /** The upright photo as an RGBA PNG whose alpha is the person mask. */
  png: Uint8Array;
  width: number;
  height: number;
  coverage: number;
}

/**
 * The person of a photo (any format sharp reads), turned upright by its EXIF orientation, on a
 * transparent background. A photo that cannot be decoded fails with `invalid_media`.
 */
export async function cutOutPerson(
  photo: Uint8Array,
  options: MaskOptions & ColourOptions = {},
): Promise<PersonCutOut> {
  const { edgeColourFraction } = colourSettings(options);
  let rgb: { data: Buffer; info: { width: number; height: number } };
  try {
    rgb = await sharp(photo).rotate().removeAlpha().raw().toBuffer({ resolveWithObject: true });
  } catch (error) {
    throw new VisionEngineError(
      VISION_FAILURE.invalidMedia,
      `The photo cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
  const { width, height } = rgb.info;
  const mask = await segmentPerson({ data: rgb.data, width, height, channels: 3 }, options);
  const png = await sharp(personRgba(rgb.data, mask.data, width, height, edgeColourFraction), {
    raw: { width, height, channels: 4 },
  })
    .png()
    .toBuffer();
  return {
    png: new Uint8Array(png.buffer, png.byteOffset, png.byteLength),
    width,
    height,
    coverage: mask.coverage,
  };
}

// ---- temporal smoothing ----

/**
 * One step of an exponential moving average of masks: `state + newFrameWeight × (frame − state)`, in
 * place on `state` (a copy of `frame` when there is no state yet). With values in [0, 255] the result
 * stays in [0, 255]; a constant input is approached geometrically (the gap shrinks by
 * `1 − newFrameWeight` per frame); weight 1 is no smoothing.
 */
export function smoothOverTime(
  state: Float32Array | undefined,
  frame: ArrayLike<number>,
  newFrameWeight: number,
): Float32Array {
  if (!(newFrameWeight > 0 && newFrameWeight <= 1)) {
    throw new RangeError('newFrameWeight must be above 0 and at most 1');
  }
  if (!state || state.length !== frame.length) return Float32Array.from(frame);
  for (let index = 0; index < state.length; index++) {
    const previous = state[index] as number;
    state[index] = previous + newFrameWeight * ((frame[index] as number) - previous);
  }
  return state;
}

// ---- video ----

/** What the person is laid over: nothing (an alpha channel), a colour, or a picture scaled to cover. */
export type SegmentedVideoBackground = 'transparent' | `#${string}` | { imagePath: string };

export interface SegmentVideoOptions extends MaskOptions, ColourOptions {
  /** Any video ffmpeg reads; its first video stream is segmented and its first audio stream kept. */
  inputPath: string;
  outputPath: string;
  /**
   * `webm`: VP9 (with alpha when transparent) and Opus audio. `mov`: ProRes 4444 with alpha when
   * transparent, else ProRes 422 HQ, and AAC audio (for editors that do not read VP9 alpha).
   * @default 'webm'
   */
  format?: 'webm' | 'mov';
  /** @default 'transparent' */
  background?: SegmentedVideoBackground;
  /**
   * Temporal smoothing: the weight of each new frame in the moving average of the masks (1: none).
   * Lower is steadier and lags more behind movement (0.6 follows about 94 % of a change within 3
   * frames, 0.12 s at 25 fps).
   * @default 0.6
   */
  newFrameWeight?: number;
  /** VP9 constant quality, 0 (best) to 63. @default 32 */
  vp9Crf?: number;
  /** libvpx's `-cpu-used`, 0 (slowest, best) to 8 (fastest). @default 5 */
  vp9Speed?: number;
  /** Both ffmpeg processes are killed after this long. @default 600_000 (10 min) */
  timeoutMs?: number;
  /** Called after each frame is handed to the encoder (progress). */
  onFrame?: (framesDone: number) => void;
}

export interface SegmentVideoResult {
  outputPath: string;
  width: number;
  height: number;
  /** Frames written; the input's frame rate is kept (a variable rate becomes its average). */
  frames: number;
  /** The output's frame rate, e.g. 25 or 29.97. */
  frameRate: number;
  hasAudio: boolean;
  /** Wall time of the whole run: probing, decoding, segmenting, encoding. */
  elapsedMs: number;
  /** Frames per second of wall time. */
  processingFps: number;
  /** Mean time spent segmenting one frame (model and mask, without decoding and encoding). */
  segmentationMsPerFrame: number;
}

const VIDEO_DEFAULTS = {
  format: 'webm',
  background: 'transparent',
  newFrameWeight: 0.6,
  vp9Crf: 32,
  vp9Speed: 5,
  timeoutMs: 600_000,
} as const;

/** A video's first picture stream, as its frames are decoded (upright). */
export interface VideoStreamInfo {
  /** The stream's index in the file (ffmpeg's `-map 0:<index>`). */
  streamIndex: number;
  width: number;
  height: number;
  /** ffmpeg's rational, e.g. `25/1` or `30000/1001`. */
  frameRate: string;
  hasAudio: boolean;
}

const STDERR_TAIL_CHARACTERS = 16 * 1024;

/** A spawned ffmpeg or ffprobe, watched (`watch`). */
export interface Child {
  /** Resolves with the exit code (null when killed) once the process has closed. */
  exit: Promise<number | null>;
  stderr: () => string;
  kill: () => void;
}

/**
 * An ffmpeg encoder reading raw frames on its stdin, watched: `write` hands it one frame and waits
 * while its pipe is full; once it has exited, a write throws (its exit code and stderr say why), and
 * the EPIPE of a write racing its exit is ignored for the same reason.
 */
export interface FrameEncoder extends Child {
  write(frame: Buffer): Promise<void>;
  end(): void;
}

export function frameEncoder(ffmpeg: string, args: readonly string[]): FrameEncoder {
  const encoder = spawn(ffmpeg, args, { stdio: ['pipe', 'ignore', 'pipe'] });
  const encoding = watch(encoder, ffmpeg);
  let closed = false;
  encoding.exit.then(
    () => {
      closed = true;
    },
    () => {
      closed = true;
    },
  );
  encoder.stdin?.on('error', () => undefined);
  return {
    ...encoding,
    async write(frame) {
      const stdin = encoder.stdin;
      if (!stdin || closed) throw new Error('the encoder stopped');
      if (!stdin.write(frame)) await Promise.race([once(stdin, 'drain'), encoding.exit]);
    },
    end: () => encoder.stdin?.end(),
  };
}

/** Watches a spawned ffmpeg/ffprobe: its exit, the tail of its stderr, a way to kill it. */
export function watch(child: ReturnType<typeof spawn>, command: string): Child {
  let stderr = '';
  child.stderr?.setEncoding('utf8');
  child.stderr?.on('data', (text: string) => {
    stderr = (stderr + text).slice(-STDERR_TAIL_CHARACTERS);
  });
  const exit = new Promise<number | null>((resolve, reject) => {
    child.on('error', (error) =>
      reject(
        new VisionEngineError(VISION_FAILURE.engineUnavailable, `cannot run ${command}: ${error.message}`, {
          cause: error,
        }),
      ),
    );
    child.on('close', (code) => resolve(code));
  });
  // A spawn failure is reported by whoever awaits `exit`; until then it must not be unhandled.
  exit.catch(() => undefined);
  return {
    exit,
    stderr: () => stderr,
    kill: () => {
      if (child.exitCode === null && child.signalCode === null) child.kill('SIGKILL');
    },
  };
}

/** The ffmpeg or ffprobe to run, or `engine_unavailable`. */
export async function runnable(tool: 'ffmpeg' | 'ffprobe'): Promise<string> {
  try {
    const command = tool === 'ffmpeg' ? ffmpegPath() : ffprobePath();
    await ensureExecutable(command);
    return command;
  } catch (error) {
    throw new VisionEngineError(
      VISION_FAILURE.engineUnavailable,
      `${tool} is not available: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

interface FfprobeStreams {
  streams?: {
    index?: number;
    codec_type?: string;
    disposition?: { attached_pic?: number };
    width?: number;
    height?: number;
    avg_frame_rate?: string;
    r_frame_rate?: string;
    tags?: { rotate?: string };
    side_data_list?: { rotation?: number }[];
  }[];
}

/** `num/den` when it is a usable frame rate (ffprobe says `0/0` when it does not know). */
function frameRateOf(value: string | undefined): string | undefined {
  const match = /^(\d+)\/(\d+)$/.exec(value ?? '');
  if (!match) return undefined;
  const rate = Number(match[1]) / Number(match[2]);
  return rate > 0 && rate <= 240 ? `${match[1]}/${match[2]}` : undefined;
}

/**
 * The first video stream's upright size and frame rate, and whether there is audio (`invalid_media` when
 * there is no picture stream). Also used by `footage-lips.ts`.
 */
export async function probeVideo(inputPath: string, timeoutMs: number): Promise<VideoStreamInfo> {
  const ffprobe = await runnable('ffprobe');
  const child = spawn(
    ffprobe,
    ['-v', 'error', '-print_format', 'json', '-show_streams', fileInput(inputPath)],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const watched = watch(child, ffprobe);
  const timer = setTimeout(watched.kill, timeoutMs);
  let stdout = '';
  child.stdout?.setEncoding('utf8');
  child.stdout?.on('data', (text: string) => {
    stdout += text;
  });
  const code = await watched.exit.finally(() => clearTimeout(timer));
  if (code !== 0) {
    throw new VisionEngineError(
      VISION_FAILURE.invalidMedia,
      `cannot read ${path.basename(inputPath)}: ${code === null ? 'ffprobe gave up' : lastLine(watched.stderr())}`,
    );
  }
  let json: FfprobeStreams;
  try {
    json = JSON.parse(stdout) as FfprobeStreams;
  } catch (error) {
    throw new VisionEngineError(
      VISION_FAILURE.invalidMedia,
      `cannot read ${path.basename(inputPath)}: no description`,
      {
        cause: error,
      },
    );
  }
  const streams = json.streams ?? [];
  // A cover picture attached to an audio file is a "video" stream of one frame: not a video.
  const video = streams.find(
    (stream) =>
      stream.codec_type === 'video' &&
      stream.width &&
      stream.height &&
      stream.disposition?.attached_pic !== 1,
  );
  if (!video?.width || !video.height || video.index === undefined) {
    throw new VisionEngineError(
      VISION_FAILURE.invalidMedia,
      `${path.basename(inputPath)} has no video stream`,
    );
  }
  // ffmpeg turns rotated video upright while decoding, so a quarter turn swaps the frame's sides.
  const rotation = Number(
    video.side_data_list?.find((data) => data.rotation !== undefined)?.rotation ?? video.tags?.rotate ?? 0,
  );
  const quarterTurn = Math.abs(Math.round(rotation / 90)) % 2 === 1;
  return {
    streamIndex: video.index,
    width: quarterTurn ? video.height : video.width,
    height: quarterTurn ? video.width : video.height,
    frameRate: frameRateOf(video.avg_frame_rate) ?? frameRateOf(video.r_frame_rate) ?? '25/1',
    hasAudio: streams.some((stream) => stream.codec_type === 'audio'),
  };
}

/** Checks a background picture before ffmpeg is asked to read it, so a bad one is the caller's error. */
async function assertReadablePicture(imagePath: string): Promise<void> {
  try {
    const { width, height } = await sharp(imagePath).metadata();
    if (!width || !height) throw new Error('it has no pixels');
  } catch (error) {
    throw new VisionEngineError(
      VISION_FAILURE.invalidMedia,
      `The background picture ${imagePath} cannot be read: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

/** VP8 with alpha, as background removal writes its foreground (`separateVideoLayers`). */
interface Vp8Encoding {
  /** libvpx's constant quality, 4 (best) to 63, capped by a bitrate of `VP8_MAX_BITS_PER_PIXEL`. */
  crf: number;
  /** libvpx's `-cpu-used` in realtime mode, 0 (slowest) to 16 (fastest). */
  speed: number;
}

/**
 * VP8's constant quality needs a bitrate cap: this many bits per pixel and frame (8 Mbit/s at 720p25),
 * above what `crf` 10 asks for on a person in front of transparency, so the quality decides.
 */
const VP8_MAX_BITS_PER_PIXEL = 0.35;

/** The encoder's arguments: RGBA frames on stdin (input 0), the source for its audio, a background. */
function encoderArguments(
  options: Required<Pick<SegmentVideoOptions, 'format' | 'background' | 'vp9Crf' | 'vp9Speed'>> &
    Pick<SegmentVideoOptions, 'inputPath' | 'outputPath'> & {
      /** A WebM's video as VP8 (with alpha when transparent) instead of VP9. */
      vp8?: Vp8Encoding;
    },
  info: VideoStreamInfo,
): string[] {
  const { width, height, frameRate } = info;
  const args = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y'];
  args.push(
    '-f',
    'rawvideo',
    '-pix_fmt',
    'rgba',
    '-s',
    `${width}x${height}`,
    '-framerate',
    frameRate,
    '-i',
    'pipe:0',
  );
  let nextInput = 1;
  const audioInput = info.hasAudio ? nextInput++ : undefined;
  if (audioInput !== undefined) args.push('-i', fileInput(options.inputPath));
  const transparent = options.background === 'transparent';
  if (typeof options.background === 'object') {
    const pictureInput = nextInput++;
    args.push('-loop', '1', '-framerate', frameRate, '-i', fileInput(options.background.imagePath));
    args.push(
      '-filter_complex',
      `[${pictureInput}:v]scale=${width}:${height}:force_original_aspect_ratio=increase,crop=${width}:${height},setsar=1[backdrop];[backdrop][0:v]overlay=shortest=1[video]`,
      '-map',
      '[video]',
    );
  } else if (!transparent) {
    args.push(
      '-filter_complex',
      `color=c=0x${options.background.slice(1)}:s=${width}x${height}:r=${frameRate}[backdrop];[backdrop][0:v]overlay=shortest=1[video]`,
      '-map',
      '[video]',
    );
  } else {
    args.push('-map', '0:v');
  }
  if (audioInput !== undefined) args.push('-map', `${audioInput}:a:0`);
  if (options.format === 'webm' && options.vp8) {
    const maxBitrate = Math.round(VP8_MAX_BITS_PER_PIXEL * width * height * frameRateNumber(frameRate));
    args.push('-c:v', 'libvpx', '-pix_fmt', transparent ? 'yuva420p' : 'yuv420p');
    args.push('-crf', String(options.vp8.crf), '-b:v', String(maxBitrate));
    // libvpx refuses VP8 alpha with alternate reference frames.
    args.push('-auto-alt-ref', '0', '-deadline', 'realtime', '-cpu-used', String(options.vp8.speed));
    if (audioInput !== undefined) args.push('-c:a', 'libopus', '-b:a', '128k');
    args.push('-f', 'webm');
  } else if (options.format === 'webm') {
    args.push(
      '-c:v',
      'libvpx-vp9',
      '-pix_fmt',
      transparent ? 'yuva420p' : 'yuv420p',
      '-crf',
      String(options.vp9Crf),
      '-b:v',
      '0',
      '-deadline',
      'good',
      '-cpu-used',
      String(options.vp9Speed),
      '-row-mt',
      '1',
    );
    if (audioInput !== undefined) args.push('-c:a', 'libopus', '-b:a', '128k');
    args.push('-f', 'webm');
  } else {
    args.push(
      '-c:v',
      'prores_ks',
      '-profile:v',
      transparent ? '4444' : '3',
      '-pix_fmt',
      transparent ? 'yuva444p10le' : 'yuv422p10le',
    );
    if (audioInput !== undefined) args.push('-c:a', 'aac', '-b:a', '192k');
    args.push('-f', 'mov');
  }
  // No -shortest: it can end the output when the audio input is read to its end, before the last frames
  // arrive on stdin. The backgrounds end with the frames (overlay's shortest=1).
  args.push(`file:${path.resolve(options.outputPath)}`);
  return args;
}

/** Settings of one pass over a video's frames, whatever it writes. */
interface PassSettings {
  inputPath: string;
  timeoutMs: number;
  newFrameWeight: number;
  mask: Required<MaskOptions>;
  onFrame?: ((framesDone: number) => void) | undefined;
}

/** A frame as the model saw it, handed to each output of a pass, in order. */
interface SegmentedFrame {
  /** The decoded frame, RGB. */
  rgb: Buffer;
  /** The person mask at the frame's size (feathered, choked). */
  alpha: Uint8Array;
  /** The person probabilities at the model's resolution, smoothed over time. */
  probabilities: Probabilities;
}

/** One output of a pass: its encoder, and how a segmented frame becomes that encoder's input frame. */
interface PassOutput {
  name: string;
  outputPath: string;
  encoderArgs: string[];
  frame(segmented: SegmentedFrame): Promise<Buffer>;
}

/** Where a pass's time went, in milliseconds summed over its frames. */
export interface PassTimings {
  /** Shrinking to the model's input, the model, smoothing and the edge ramp (this thread). */
  model: number;
  /** Scaling the mask up, feathering and choking it (`mask-edges.ts`). */
  mask: number;
  /** Making each output's frames (colours, alpha interleaving, the background model). */
  outputs: Record<string, number>;
  /** Waiting for the encoders to take a frame: the encoders were slower than everything else. */
  encoderWait: number;
}

interface PassResult {
  frames: number;
  /** Frames in which the person covers at least `NO_PERSON_COVERAGE`. */
  personFrames: number;
  timings: PassTimings;
}

/**
 * One decode of the video, every frame segmented once, and each frame handed to every output's
 * encoder. Streaming: two frames are in flight at a time (one in the model, the one before it being
 * scaled up, turned into each output's frame and written), whatever the video's length.
 */
async function segmentationPass(
  settings: PassSettings,
  info: VideoStreamInfo,
  ffmpeg: string,
  outputs: readonly PassOutput[],
): Promise<PassResult> {
  const { width, height } = info;
  const decoder = spawn(
    ffmpeg,
    [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      '-i',
      fileInput(settings.inputPath),
      '-map',
      `0:${info.streamIndex}`,
      // A constant rate (the average of a variable one) keeps the frames in step with the audio. The
      // scale is a no-op for the upright size, and keeps the frames the size this loop reads if a
      // rotation was reported in a way ffprobe and this ffmpeg disagree about.
      '-vf',
      `fps=${info.frameRate},scale=${width}:${height}`,
      '-f',
      'rawvideo',
      '-pix_fmt',
      'rgb24',
      'pipe:1',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  const decoding = watch(decoder, ffmpeg);
  const encoders = outputs.map((output) => frameEncoder(ffmpeg, output.encoderArgs));
  const killAll = () => {
    decoding.kill();
    for (const encoding of encoders) encoding.kill();
  };
  let timedOut = false;
  const timer = setTimeout(() => {
    timedOut = true;
    killAll();
  }, settings.timeoutMs);

  const { mask } = settings;
  const frameBytes = width * height * 3;
  let frames = 0;
  let personFrames = 0;
  const timings: PassTimings = {
    model: 0,
    mask: 0,
    outputs: Object.fromEntries(outputs.map((output) => [output.name, 0])),
    encoderWait: 0,
  };
  let smoothed: Float32Array | undefined;

  /** The second half of a frame: its mask at full size, each output's frame, written. */
  const finishFrame = async (rgb: Buffer, probabilities: Probabilities, low: Uint8Array): Promise<void> => {
    let started = performance.now();
    const alpha = upscaleMask(
      low,
      probabilities.width,
      probabilities.height,
      width,
      height,
      mask.featherFraction,
      mask.edgeChoke,
    );
    if (maskCoverage(alpha) >= NO_PERSON_COVERAGE) personFrames++;
    timings.mask += performance.now() - started;
    const segmented = { rgb, alpha, probabilities };
    const made: Buffer[] = [];
    for (const output of outputs) {
      started = performance.now();
      made.push(await output.frame(segmented));
      timings.outputs[output.name] = (timings.outputs[output.name] ?? 0) + performance.now() - started;
    }
    started = performance.now();
    await Promise.all(encoders.map((encoding, index) => encoding.write(made[index] as Buffer)));
    timings.encoderWait += performance.now() - started;
    frames++;
    settings.onFrame?.(frames);
  };
  // Two frames in flight: while one is being written to the encoders (which may make this thread wait
  // for their pipes), the next one's picture is shrunk for the model on sharp's threads.
  let finishing: Promise<void> = Promise.resolve();
  const processFrame = async (rgb: Buffer): Promise<void> => {
    const started = performance.now();
    const probabilities = await personProbabilities({ data: rgb, width, height, channels: 3 });
    smoothed = smoothOverTime(smoothed, probabilities.data, settings.newFrameWeight);
    const low = rampToMask(smoothed, mask.edgeLow, mask.edgeHigh);
    // The smoothed probabilities are this frame's from here on (the outputs read them).
    const current = { ...probabilities, data: Float32Array.from(smoothed) };
    timings.model += performance.now() - started;
    // The previous frame is written before this one starts: frames stay in order, two at most are held.
    await finishing;
    finishing = finishFrame(rgb, current, low);
    // Its failure is thrown where it is awaited (the next frame, or the end); not unhandled meanwhile.
    finishing.catch(() => undefined);
  };

  let failure: unknown;
  try {
    // Each frame in a buffer of its own: one is still being finished while the next is decoded.
    for await (const frame of rawFrames(decoder.stdout as AsyncIterable<Buffer>, frameBytes)) {
      await processFrame(frame);
    }
    await finishing;
    for (const encoding of encoders) encoding.end();
  } catch (error) {
    failure = error;
    killAll();
  }
  let decoderCode: number | null;
  let encoderCodes: (number | null)[];
  try {
    [decoderCode, ...encoderCodes] = await Promise.all([
      decoding.exit,
      ...encoders.map((encoding) => encoding.exit),
    ]);
  } finally {
    clearTimeout(timer);
  }
  if (timedOut) {
    throw new VisionEngineError(
      VISION_FAILURE.timeout,
      `Segmenting the video did not finish within ${Math.round(settings.timeoutMs / 1000)} s`,
    );
  }
  if (failure instanceof VisionEngineError) throw failure;
  // A process this run killed (after the other one failed) exits with a signal: null, not its fault.
  if (decoderCode !== 0 && decoderCode !== null) {
    throw new VisionEngineError(
      VISION_FAILURE.invalidMedia,
      `cannot decode ${path.basename(settings.inputPath)}: ${lastLine(decoding.stderr())}`,
      { cause: failure },
    );
  }
  const failedEncoder = encoderCodes.findIndex((code) => code !== 0 && code !== null);
  if (failedEncoder >= 0 || encoderCodes.some((code) => code !== 0) || failure) {
    const index = Math.max(0, failedEncoder);
    const reason =
      failedEncoder >= 0 ? lastLine((encoders[index] as FrameEncoder).stderr()) : String(failure);
    throw new VisionEngineError(
      VISION_FAILURE.engineUnavailable,
      `ffmpeg cannot encode ${path.basename((outputs[index] as PassOutput).outputPath)}: ${reason}`,
      { cause: failure },
    );
  }
  if (frames === 0) {
    throw new VisionEngineError(
      VISION_FAILURE.invalidMedia,
      `${path.basename(settings.inputPath)} has no decodable frames`,
    );
  }
  return { frames, personFrames, timings };
}

function checkedVideoSettings(options: SegmentVideoOptions | SeparateLayersOptions) {
  const settings = {
    ...VIDEO_DEFAULTS,
    ...definedOnly(options),
  };
  if (!(Number.isInteger(settings.vp9Crf) && settings.vp9Crf >= 0 && settings.vp9Crf <= 63)) {
    throw new RangeError('vp9Crf must be a whole number from 0 to 63');
  }
  if (!(Number.isInteger(settings.vp9Speed) && settings.vp9Speed >= 0 && settings.vp9Speed <= 8)) {
    throw new RangeError('vp9Speed must be a whole number from 0 to 8');
  }
  if (!(settings.newFrameWeight > 0 && settings.newFrameWeight <= 1)) {
    throw new RangeError('newFrameWeight must be above 0 and at most 1');
  }
  if (!(settings.timeoutMs > 0)) throw new RangeError('timeoutMs must be a positive number of milliseconds');
  return settings;
}

const frameRateNumber = (rate: string) => {
  const [numerator, denominator] = rate.split('/').map(Number) as [number, number];
  return numerator / denominator;
};

/**
 * Segments every frame of a video and writes it with the background removed (an alpha channel) or
 * replaced by a colour or a picture. Streaming, whatever the video's length (`segmentationPass`).
 * Fails with `invalid_media` when the input (or the background picture) cannot be read,
 * `engine_unavailable` when ffmpeg or the model cannot run, the encoder fails, or the run exceeds
 * `timeoutMs`.
 */
export async function segmentVideo(options: SegmentVideoOptions): Promise<SegmentVideoResult> {
  const started = performance.now();
  const settings = {
    ...checkedVideoSettings(options),
    inputPath: options.inputPath,
    outputPath: options.outputPath,
  };
  const mask = maskSettings(options);
  const { edgeColourFraction } = colourSettings(options);
  const { background } = settings;
  if (
    typeof background === 'string' &&
    background !== 'transparent' &&
    !/^#[0-9a-fA-F]{6}$/.test(background)
  ) {
    throw new RangeError(
      `background must be 'transparent', a '#rrggbb' colour or { imagePath }, not ${background}`,
    );
  }
  if (typeof background === 'object') await assertReadablePicture(background.imagePath);
  // Loaded before ffmpeg starts, so a missing model fails fast and the first frame is not slow.
  await selfieModel();
  const info = await probeVideo(settings.inputPath, settings.timeoutMs);
  const ffmpeg = await runnable('ffmpeg');
  const { width, height } = info;
  const pass = await segmentationPass({ ...settings, mask, onFrame: options.onFrame }, info, ffmpeg, [
    {
      name: 'video',
      outputPath: settings.outputPath,
      encoderArgs: encoderArguments(settings, info),
      frame: async ({ rgb, alpha }) => personRgba(rgb, alpha, width, height, edgeColourFraction),
    },
  ]);
  const elapsedMs = performance.now() - started;
  return {
    outputPath: settings.outputPath,
    width,
    height,
    frames: pass.frames,
    frameRate: frameRateNumber(info.frameRate),
    hasAudio: info.hasAudio,
    elapsedMs,
    processingFps: pass.frames / (elapsedMs / 1000),
    segmentationMsPerFrame:
      (pass.timings.model + pass.timings.mask + (pass.timings.outputs.video ?? 0)) / pass.frames,
  };
}

// ---- layers (background removal) ----

/** The layers one pass can write. */
export const VIDEO_LAYERS = ['foreground', 'mask', 'background'] as const;
export type VideoLayer = (typeof VIDEO_LAYERS)[number];

/** What each layer is written as. */
export const LAYER_FORMATS = {
  /** The person with an alpha channel: VP8 with alpha (yuva420p) in WebM, Opus audio. */
  foreground: { extension: 'webm', contentType: 'video/webm' },
  /** The matte, white person on black: H.264 (yuv420p) in MP4, no audio. */
  mask: { extension: 'mp4', contentType: 'video/mp4' },
  /** The scene without the person: H.264 (yuv420p) in MP4, AAC audio. */
  background: { extension: 'mp4', contentType: 'video/mp4' },
} as const satisfies Record<VideoLayer, { extension: string; contentType: string }>;

/**
 * The background layer's cover of the person: probabilities from `COVER_THRESHOLD` (far below the
 * mask's own edge, so the faint halo and stray hair count) widened by `COVER_RADIUS` model pixels (a
 * model pixel is 2.5 px of a 640-wide frame, 5 px of 1280). Looked at on a person over a banded wall:
 * 0.2 and 2 left visible strands of hair in the background layer, 0.1 and 3 a few small specks.
 */
const COVER_THRESHOLD = 0.1;
const COVER_RADIUS = 3;

export interface SeparateLayersOptions extends MaskOptions, ColourOptions {
  inputPath: string;
  /** Where each wanted layer is written (`LAYER_FORMATS` says as what); at least one. */
  outputs: Partial<Record<VideoLayer, string>>;
  /** See `SegmentVideoOptions`. */
  newFrameWeight?: number;
  /** The foreground's VP8 constant quality, 4 (best) to 63. @default 10 */
  vp8Crf?: number;
  /**
   * The foreground's libvpx speed in realtime mode, 0 to 16. VP8 at 8 took 21 ms of CPU a 720p frame
   * where VP9 with alpha at its fastest (realtime, 8) took 126 ms, at a similar size and quality.
   * @default 8
   */
  vp8Speed?: number;
  timeoutMs?: number;
  onFrame?: (framesDone: number) => void;
}

export interface SeparateLayersResult {
  width: number;
  height: number;
  frames: number;
  frameRate: number;
  hasAudio: boolean;
  /** Frames in which a person was found (covering at least `NO_PERSON_COVERAGE`). */
  personFrames: number;
  /** Of the pixels the person covered over all frames, the fraction no earlier frame had shown (inpainted). */
  inpaintedFraction: number;
  elapsedMs: number;
  processingFps: number;
  /** Where the time went, per frame (ms). */
  msPerFrame: {
    model: number;
    mask: number;
    layers: Partial<Record<VideoLayer, number>>;
    encoderWait: number;
  };
}

/** H.264 of raw frames on stdin (`gray` or `rgb24`), the source's audio as AAC when `withAudio`. */
function h264Arguments(
  info: VideoStreamInfo,
  pixelFormat: 'gray' | 'rgb24',
  inputPath: string,
  outputPath: string,
  withAudio: boolean,
): string[] {
  const args = ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y'];
  args.push('-f', 'rawvideo', '-pix_fmt', pixelFormat, '-s', `${info.width}x${info.height}`);
  args.push('-framerate', info.frameRate, '-i', 'pipe:0');
  const audio = withAudio && info.hasAudio;
  if (audio) args.push('-i', fileInput(inputPath), '-map', '0:v', '-map', '1:a:0');
  // 4:2:0 needs even sides: an odd one gets one black row or column (no person; for the mask, exact).
  args.push('-vf', 'pad=ceil(iw/2)*2:ceil(ih/2)*2');
  args.push('-c:v', 'libx264', '-preset', 'veryfast', '-crf', '18', '-pix_fmt', 'yuv420p');
  if (audio) args.push('-c:a', 'aac', '-b:a', '160k');
  args.push('-movflags', '+faststart', '-f', 'mp4', `file:${path.resolve(outputPath)}`);
  return args;
}

/**
 * Background removal of a video in one decode: each frame is segmented once (smoothed over time) and
 * handed to the encoder of every wanted layer. The foreground is the person with the mask as alpha
 * (edge colours repaired), the mask the matte itself, the background the frame with the person
 * replaced by what earlier frames showed there (`background-plate.ts`). Failures as `segmentVideo`'s.
 */
export async function separateVideoLayers(options: SeparateLayersOptions): Promise<SeparateLayersResult> {
  const started = performance.now();
  const settings = checkedVideoSettings(options);
  const vp8 = { crf: options.vp8Crf ?? 10, speed: options.vp8Speed ?? 8 };
  if (!(Number.isInteger(vp8.crf) && vp8.crf >= 4 && vp8.crf <= 63)) {
    throw new RangeError('vp8Crf must be a whole number from 4 to 63');
  }
  if (!(Number.isInteger(vp8.speed) && vp8.speed >= 0 && vp8.speed <= 16)) {
    throw new RangeError('vp8Speed must be a whole number from 0 to 16');
  }
  const mask = maskSettings(options);
  const { edgeColourFraction } = colourSettings(options);
  const wanted = VIDEO_LAYERS.filter((layer) => options.outputs[layer] !== undefined);
  if (wanted.length === 0) throw new RangeError('separateVideoLayers needs at least one output');
  await selfieModel();
  const info = await probeVideo(options.inputPath, settings.timeoutMs);
  const ffmpeg = await runnable('ffmpeg');
  const { width, height } = info;
  let plate: BackgroundPlate | undefined;
  let coveredPixels = 0;
  let inpaintedPixels = 0;

  const layerOutputs: Record<VideoLayer, (outputPath: string) => PassOutput> = {
    foreground: (outputPath) => ({
      name: 'foreground',
      outputPath,
      encoderArgs: encoderArguments(
        {
          ...settings,
          format: 'webm',
          background: 'transparent',
          vp8,
          inputPath: options.inputPath,
          outputPath,
        },
        info,
      ),
      frame: async ({ rgb, alpha }) => personRgba(rgb, alpha, width, height, edgeColourFraction),
    }),
    mask: (outputPath) => ({
      name: 'mask',
      outputPath,
      encoderArgs: h264Arguments(info, 'gray', options.inputPath, outputPath, false),
      frame: async ({ alpha }) => Buffer.from(alpha.buffer, alpha.byteOffset, alpha.byteLength),
    }),
    background: (outputPath) => ({
      name: 'background',
      outputPath,
      encoderArgs: h264Arguments(info, 'rgb24', options.inputPath, outputPath, true),
      frame: async ({ rgb, probabilities }) => {
        plate ??= createBackgroundPlate(width, height);
        const low = personCover(
          probabilities.data,
          probabilities.width,
          probabilities.height,
          COVER_THRESHOLD,
          COVER_RADIUS,
        );
        const cover = scaleUpBilinear(low, probabilities.width, probabilities.height, width, height);
        const layer = backgroundLayerFrame(plate, rgb, cover);
        coveredPixels += layer.coveredPixels;
        inpaintedPixels += layer.inpaintedPixels;
        return layer.rgb;
      },
    }),
  };
  const pass = await segmentationPass(
    {
      inputPath: options.inputPath,
      timeoutMs: settings.timeoutMs,
      newFrameWeight: settings.newFrameWeight,
      mask,
      onFrame: options.onFrame,
    },
    info,
    ffmpeg,
    wanted.map((layer) => layerOutputs[layer](options.outputs[layer] as string)),
  );
  const elapsedMs = performance.now() - started;
  const perFrame = (ms: number) => ms / pass.frames;
  return {
    width,
    height,
    frames: pass.frames,
    frameRate: frameRateNumber(info.frameRate),
    hasAudio: info.hasAudio,
    personFrames: pass.personFrames,
    inpaintedFraction: coveredPixels === 0 ? 0 : inpaintedPixels / coveredPixels,
    elapsedMs,
    processingFps: pass.frames / (elapsedMs / 1000),
    msPerFrame: {
      model: perFrame(pass.timings.model),
      mask: perFrame(pass.timings.mask),
      layers: Object.fromEntries(wanted.map((layer) => [layer, perFrame(pass.timings.outputs[layer] ?? 0)])),
      encoderWait: perFrame(pass.timings.encoderWait),
    },
  };
}
