/**
 * A digital twin's base footage: from a video of a person, a few seconds where the face is steady and
 * the mouth mostly closed, cut and made loopable, plus the same mouth and blink sprites a photo
 * presenter has (`photo-presenter.ts`), made on the loop's first frame. The composition engine plays
 * the loop for as long as a scene lasts (`CompositionScene.avatar.videoPath`) and pastes the sprites on
 * it: the recorded body, head and eyes move as they did, the mouth says the new script.
 *
 * How:
 * 1. ffmpeg samples the source (`sampleFps`, scaled to at most `analysisMaxSide`) as raw RGB on a pipe,
 *    and each sample's face is found (`findFaces`) and checked with the photo presenter's rules
 *    (`stillReason`: one face, large enough, mouth and eyes inside the picture);
 * 2. every window of `windowMs` (shorter when the usable part is shorter, never under `minWindowMs`)
 *    over consecutive usable samples is scored: mean face motion from one sample to the next (the
 *    centre of the eye corners and nose bridge moving, in inter-ocular distances, plus the change of that
 *    distance's logarithm) + `mouthWeight` × the mean mouth opening + `startMouthWeight` × the mouth
 *    opening at the window's start (the reference frame the sprites are made from should be closed);
 *    the lowest score wins, refused when its motion is above `maxMotion`;
 * 3. ffmpeg cuts the window at `loopFps`, scales it to at most `loopMaxSide` on the long side (even
 *    sides), and plays it forward then backward (ping-pong, the turning frame not repeated): the last
 *    frame is the first, so a loop never jumps (replayed, the first frame shows for two frames);
 * 4. the loop's first frame (as encoded) is the reference: its face, its PNG, its sprites (`rest`
 *    covering the whole recorded mouth, which moves);
 * 5. the face is followed through the loop (`FaceTrack`: each frame's eyes and nose block-matched
 *    against the reference's), and the composition engine moves the sprites by it.
 *
 * Limits: the track is a translation in whole pixels, so a head that turns or leans shows the sprites'
 * edges as faint seams (the window with the least motion is chosen for this, and `maxMotion` refuses
 * shaky footage); the recorded eyes keep their own blinks.
 */
import { spawn } from 'node:child_process';
import { mkdir, readFile } from 'node:fs/promises';
import path from 'node:path';
import sharp from 'sharp';
import { JobFailure } from '../../core/errors.js';
import {
  ensureExecutable,
  ffmpegPath,
  lastLine,
  ProcessError,
  rawFrames,
  runProcess,
} from '../composition/ffmpeg-binaries.js';
import { fileInput, probeMedia } from '../composition/probe.js';
import {
  distance,
  type FaceLandmarks,
  findFaces,
  mouthOpening,
  type PixelBox,
  type Point,
} from './face-landmarks.js';
import type { RgbaImage } from './feature-warps.js';
import {
  encodedPresenterSprites,
  type PresenterSprite,
  type PresenterSpriteName,
  STILL_REASONS,
  type StillReason,
  stillReason,
} from './photo-presenter.js';

/**
 * Why footage cannot become a twin; job code copies it to the job's `failure_code`.
 * - `no_face`, `multiple_faces`, `face_too_small`, `face_cut_off`: no window of the video has one
 *   usable face (the photo presenter's rules, `stillReason`), the commonest reason among its samples;
 * - `too_much_motion`: the steadiest window still moves more than `maxMotion`;
 * - `too_short`: the video (or its longest usable stretch) is shorter than `minWindowMs`;
 * - `invalid_media`: not a readable video; `engine_unavailable`: ffmpeg or the models cannot run.
 */
export const TWIN_FAILURE = {
  noFace: 'no_face',
  multipleFaces: 'multiple_faces',
  faceTooSmall: 'face_too_small',
  faceCutOff: 'face_cut_off',
  tooMuchMotion: 'too_much_motion',
  tooShort: 'too_short',
  invalidMedia: 'invalid_media',
  engineUnavailable: 'engine_unavailable',
} as const;
export type TwinFailureCode = (typeof TWIN_FAILURE)[keyof typeof TWIN_FAILURE];

export class TwinFootageError extends JobFailure<TwinFailureCode> {}

export interface TwinFootageOptions {
  /** Length of the chosen stretch of the source (the loop plays it forward and back). @default 4000 */
  windowMs?: number;
  /** Shortest stretch accepted when less is usable. @default 2000 */
  minWindowMs?: number;
  /** Samples analysed per second of source. @default 5 */
  sampleFps?: number;
  /** Samples are scaled down to at most this long side. @default 640 */
  analysisMaxSide?: number;
  /** The loop is scaled down to at most this long side (even sides; never scaled up). @default 1080 */
  loopMaxSide?: number;
  /** The loop's frame rate. @default 25 */
  loopFps?: number;
  /**
   * Most motion accepted: mean face movement between samples, in inter-ocular distances (plus the
   * change of the face's scale as a log ratio). A person talking calmly moves about 0.01 to 0.03.
   * @default 0.12
   */
  maxMotion?: number;
  /** Weight of the window's mean mouth opening in its score. @default 0.1 */
  mouthWeight?: number;
  /** Weight of the mouth opening at the window's first sample (the reference frame). @default 0.2 */
  startMouthWeight?: number;
  /** x264 quality of the loop. @default 18 */
  x264Crf?: number;
  /** @default 'veryfast' */
  x264Preset?: string;
  /** Each ffmpeg run is killed after this long. @default 300_000 */
  timeoutMs?: number;
}

export const TWIN_DEFAULTS: Readonly<Required<TwinFootageOptions>> = {
  windowMs: 4000,
  minWindowMs: 2000,
  sampleFps: 5,
  analysisMaxSide: 640,
  loopMaxSide: 1080,
  loopFps: 25,
  maxMotion: 0.12,
  mouthWeight: 0.1,
  startMouthWeight: 0.2,
  x264Crf: 18,
  x264Preset: 'veryfast',
  timeoutMs: 300_000,
};

export interface TwinFootage {
  /** H.264 yuv420p mp4 without audio, even sides, at most `loopMaxSide` long; first frame = last frame. */
  loopPath: string;
  width: number;
  height: number;
  durationMs: number;
  /** The loop's first frame (the reference), PNG. */
  previewPng: Uint8Array;
  /** The stretch of the source the loop plays, ms from the source's start. */
  segment: { startMs: number; endMs: number };
  /** Mouth (every viseme, `rest` included) and blink sprites of the reference frame, boxes in loop pixels. */
  sprites: Record<PresenterSpriteName, PresenterSprite>;
  /** The face on the reference frame, loop pixels. */
  faceBox: PixelBox;
  /**
   * Where the face is on each loop frame relative to the reference: the composition engine moves the
   * sprites by it (`CompositionScene.avatar.track`), so they stay on a head that moves.
   */
  track: FaceTrack;
  /** What was measured on the chosen window (for logs and tests). */
  measures: { motion: number; mouthOpening: number; samples: number };
}

/** One analysed sample: usable (the face's position, scale and mouth) or why not. */
export type FootageSample =
  | { usable: true; centre: Point; scale: number; mouth: number }
  | { usable: false; reason: StillReason };

const EYE_CORNERS = [33, 133, 263, 362] as const;
/** The nose bridge between the eyes: the mouth opening moves the tip and base in the mesh, not these. */
const NOSE_POINTS = [6, 168] as const;

function failureOfStill(reason: StillReason): TwinFailureCode {
  return reason === STILL_REASONS.severalFaces ? TWIN_FAILURE.multipleFaces : reason;
}

function scalePoint(point: Point, factor: number): Point {
  return { x: point.x * factor, y: point.y * factor };
}

/** The landmarks of a face found on a scaled copy, in the pixels of the original. */
export function scaleFace(face: FaceLandmarks, factor: number): FaceLandmarks {
  const contour = (points: readonly Point[]) => points.map((point) => scalePoint(point, factor));
  const eye = (lids: FaceLandmarks['rightEye']) => ({
    upper: contour(lids.upper),
    lower: contour(lids.lower),
    browLower: contour(lids.browLower),
  });
  return {
    score: face.score,
    box: {
      x: face.box.x * factor,
      y: face.box.y * factor,
      width: face.box.width * factor,
      height: face.box.height * factor,
    },
    lips: {
      upperOuter: contour(face.lips.upperOuter),
      lowerOuter: contour(face.lips.lowerOuter),
      upperInner: contour(face.lips.upperInner),
      lowerInner: contour(face.lips.lowerInner),
    },
    rightEye: eye(face.rightEye),
    leftEye: eye(face.leftEye),
    jaw: contour(face.jaw),
    noseBottom: scalePoint(face.noseBottom, factor),
    mesh: contour(face.mesh),
  };
}

/** A sample's measures: where the face is (eye corners and nose bridge), how large (inter-ocular), the mouth. */
export function sampleOf(faces: readonly FaceLandmarks[], width: number, height: number): FootageSample {
  const still = stillReason(faces, width, height);
  if (still) return { usable: false, reason: still.reason };
  const face = faces[0] as FaceLandmarks;
  const points = [...EYE_CORNERS, ...NOSE_POINTS].map((index) => face.mesh[index] as Point);
  const centre = {
    x: points.reduce((sum, point) => sum + point.x, 0) / points.length,
    y: points.reduce((sum, point) => sum + point.y, 0) / points.length,
  };
  const scale = Math.max(1, distance(face.mesh[33] as Point, face.mesh[263] as Point));
  return { usable: true, centre, scale, mouth: mouthOpening(face) };
}

export interface ChosenWindow {
  /** First and last sample of the window (inclusive). */
  first: number;
  last: number;
  motion: number;
  mouth: number;
  score: number;
}

/**
 * The best window of `steps` sample steps over consecutive usable samples (lowest score; the earlier
 * on a tie), or undefined when no such stretch exists. Pure, for tests.
 */
export function chooseWindow(
  samples: readonly FootageSample[],
  steps: number,
  weights: { mouthWeight: number; startMouthWeight: number },
): ChosenWindow | undefined {
  const motions: number[] = [];
  for (let index = 0; index + 1 < samples.length; index++) {
    const a = samples[index] as FootageSample;
    const b = samples[index + 1] as FootageSample;
    motions.push(
      a.usable && b.usable
        ? distance(a.centre, b.centre) / ((a.scale + b.scale) / 2) + Math.abs(Math.log(b.scale / a.scale))
        : Number.POSITIVE_INFINITY,
    );
  }
  let best: ChosenWindow | undefined;
  for (let first = 0; first + steps < samples.length; first++) {
    const last = first + steps;
    let motion = 0;
    let mouth = 0;
    let usable = true;
    for (let index = first; index <= last; index++) {
      const sample = samples[index] as FootageSample;
      if (!sample.usable) {
        usable = false;
        break;
      }
      mouth += sample.mouth;
      if (index < last) motion += motions[index] as number;
    }
    if (!usable) continue;
    motion /= steps;
    mouth /= steps + 1;
    const start = samples[first] as Extract<FootageSample, { usable: true }>;
    const score = motion + weights.mouthWeight * mouth + weights.startMouthWeight * start.mouth;
    if (!best || score < best.score) best = { first, last, motion, mouth, score };
  }
  return best;
}

/**
 * The samples with each lone detector miss (`no_face` between two usable samples) replaced by the mean
 * of its neighbours: the face detector skips a frame now and then, even on steady footage, and one
 * skipped sample must not split a window. Two misses in a row stay misses.
 */
export function fillDropouts(samples: readonly FootageSample[]): FootageSample[] {
  return samples.map((sample, index) => {
    const before = samples[index - 1];
    const after = samples[index + 1];
    if (sample.usable || sample.reason !== STILL_REASONS.noFace || !before?.usable || !after?.usable) {
      return sample;
    }
    return {
      usable: true,
      centre: { x: (before.centre.x + after.centre.x) / 2, y: (before.centre.y + after.centre.y) / 2 },
      scale: (before.scale + after.scale) / 2,
      mouth: (before.mouth + after.mouth) / 2,
    };
  });
}

/** The longest run of consecutive usable samples. */
function longestUsableRun(samples: readonly FootageSample[]): number {
  let longest = 0;
  let run = 0;
  for (const sample of samples) {
    run = sample.usable ? run + 1 : 0;
    longest = Math.max(longest, run);
  }
  return longest;
}

/** The commonest reason among the unusable samples (`no_face` when there are none). */
function commonestReason(samples: readonly FootageSample[]): TwinFailureCode {
  const counts = new Map<StillReason, number>();
  for (const sample of samples) {
    if (!sample.usable) counts.set(sample.reason, (counts.get(sample.reason) ?? 0) + 1);
  }
  let best: StillReason = STILL_REASONS.noFace;
  let bestCount = 0;
  for (const [reason, count] of counts) {
    if (count > bestCount) {
      best = reason;
      bestCount = count;
    }
  }
  return failureOfStill(best);
}

function even(value: number): number {
  return Math.max(2, 2 * Math.round(value / 2));
}

/** The size of a picture scaled down (never up) to at most `maxSide` long, even sides. */
export function fittedSize(
  width: number,
  height: number,
  maxSide: number,
): { width: number; height: number } {
  const scale = Math.min(1, maxSide / Math.max(width, height));
  return { width: even(width * scale), height: even(height * scale) };
}

async function ffmpegCommand(): Promise<string> {
  try {
    const command = ffmpegPath();
    await ensureExecutable(command);
    return command;
  } catch (error) {
    throw new TwinFootageError(
      TWIN_FAILURE.engineUnavailable,
      `ffmpeg is not available: ${error instanceof Error ? error.message : String(error)}`,
      { cause: error },
    );
  }
}

async function runFfmpeg(args: string[], timeoutMs: number, what: string): Promise<void> {
  const command = await ffmpegCommand();
  try {
    await runProcess(command, ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', ...args], {
      timeoutMs,
    });
  } catch (error) {
    const reason = error instanceof ProcessError ? lastLine(error.stderr) || error.message : String(error);
    throw new TwinFootageError(
      error instanceof ProcessError && error.reason === 'exit_code'
        ? TWIN_FAILURE.invalidMedia
        : TWIN_FAILURE.engineUnavailable,
      `${what}: ${reason}`,
      { cause: error },
    );
  }
}

async function rgbaOf(png: Uint8Array | Buffer): Promise<RgbaImage> {
  const { data, info } = await sharp(png).ensureAlpha().raw().toBuffer({ resolveWithObject: true });
  return {
    data: new Uint8Array(data.buffer, data.byteOffset, data.byteLength),
    width: info.width,
    height: info.height,
    channels: 4,
  };
}

/**
 * Decodes `sourcePath` at `fps`, scaled to `width`×`height`, and hands each RGB frame to `onFrame` in
 * order (one frame in flight: decoding waits while a frame is analysed).
 */
async function streamFrames(
  sourcePath: string,
  fps: number | undefined,
  size: { width: number; height: number },
  timeoutMs: number,
  onFrame: (pixels: Buffer) => Promise<void>,
  pixelFormat: 'rgb24' | 'gray' = 'rgb24',
): Promise<number> {
  const command = await ffmpegCommand();
  const child = spawn(
    command,
    [
      '-hide_banner',
      '-nostdin',
      '-loglevel',
      'error',
      '-i',
      fileInput(sourcePath),
      '-map',
      '0:v:0',
      '-vf',
      // round=up: sample k is the source's frame at k / fps exactly (the default takes a later one).
      `${fps ? `fps=${fps}:round=up,` : ''}scale=${size.width}:${size.height}`,
      '-f',
      'rawvideo',
      '-pix_fmt',
      pixelFormat,
      'pipe:1',
    ],
    { stdio: ['ignore', 'pipe', 'pipe'] },
  );
  let stderr = '';
  child.stderr.setEncoding('utf8');
  child.stderr.on('data', (text: string) => {
    stderr = (stderr + text).slice(-8192);
  });
  const exit = new Promise<number | null>((resolve, reject) => {
    child.on('error', reject);
    child.on('close', (code) => resolve(code));
  });
  exit.catch(() => undefined);
  const timer = setTimeout(() => child.kill('SIGKILL'), timeoutMs);
  const frameBytes = size.width * size.height * (pixelFormat === 'gray' ? 1 : 3);
  let frames = 0;
  try {
    for await (const frame of rawFrames(child.stdout as AsyncIterable<Buffer>, frameBytes)) {
      await onFrame(frame);
      frames++;
    }
    const code = await exit;
    if (code !== 0) {
      throw new TwinFootageError(
        TWIN_FAILURE.invalidMedia,
        `cannot decode ${sourcePath}: ${lastLine(stderr) || `ffmpeg exited with ${code}`}`,
      );
    }
  } catch (error) {
    if (child.exitCode === null) child.kill('SIGKILL');
    throw error;
  } finally {
    clearTimeout(timer);
  }
  return frames;
}

/** Where the face is on each frame of the loop, relative to the reference (its first frame). */
export interface FaceTrack {
  /** The loop's frame rate: offset `k` is the loop's frame `k`. */
  fps: number;
  /** Whole loop pixels; the first is `{ x: 0, y: 0 }`. */
  offsets: { x: number; y: number }[];
}

/**
 * The shift (whole pixels, each way up to `radius`) that best lays `frame`'s `patch` on the
 * reference's (least mean absolute difference of grey levels, every second pixel).
 */
export function patchShift(
  reference: Uint8Array,
  frame: Uint8Array,
  width: number,
  patch: PixelBox,
  radius: number,
): { x: number; y: number } {
  let best = { x: 0, y: 0 };
  let bestCost = Number.POSITIVE_INFINITY;
  for (let dy = -radius; dy <= radius; dy++) {
    for (let dx = -radius; dx <= radius; dx++) {
      let cost = 0;
      let complete = true;
      for (let y = patch.y; y < patch.y + patch.height; y += 2) {
        const from = y * width;
        const to = (y + dy) * width + dx;
        for (let x = patch.x; x < patch.x + patch.width; x += 2) {
          cost += Math.abs((reference[from + x] as number) - (frame[to + x] as number));
        }
        if (cost > bestCost) {
          complete = false;
          break;
        }
      }
      if (!complete) continue;
      // Ties go to the smaller shift: a still frame stays at 0.
      if (cost < bestCost || Math.hypot(dx, dy) < Math.hypot(best.x, best.y)) {
        bestCost = cost;
        best = { x: dx, y: dy };
      }
    }
  }
  return best;
}

/**
 * Follows the face through the loop: each frame's upper face (eyes and nose, never the mouth) matched
 * against the reference's by block matching, so the sprites can move with the recorded head.
 */
async function trackFace(
  loopPath: string,
  size: { width: number; height: number },
  face: FaceLandmarks,
  fps: number,
  timeoutMs: number,
): Promise<FaceTrack> {
  const radius = Math.max(4, Math.round(TRACK_RADIUS_SHARE * face.box.width));
  const left = Math.max(radius, Math.round(face.box.x + 0.15 * face.box.width));
  const right = Math.min(size.width - radius, Math.round(face.box.x + 0.85 * face.box.width));
  const top = Math.max(radius, Math.round(face.box.y + 0.15 * face.box.height));
  const bottom = Math.min(size.height - radius, Math.round(face.noseBottom.y));
  const patch = { x: left, y: top, width: Math.max(2, right - left), height: Math.max(2, bottom - top) };
  let reference: Uint8Array | undefined;
  const offsets: FaceTrack['offsets'] = [];
  await streamFrames(
    loopPath,
    undefined,
    size,
    timeoutMs,
    async (grey) => {
      if (!reference) {
        reference = new Uint8Array(grey);
        offsets.push({ x: 0, y: 0 });
        return;
      }
      offsets.push(patchShift(reference, grey, size.width, patch, radius));
    },
    'gray',
  );
  return { fps, offsets };
}

/** How far the face is searched for from one loop frame to the reference: a share of its width. */
export const TRACK_RADIUS_SHARE = 0.08;

/**
 * Turns a video of one person (any container and codec ffmpeg reads, with or without sound) into a
 * twin's base footage in `workDir` (`twin-loop.mp4`, `twin-reference.png`). Throws `TwinFootageError`.
 */
export async function prepareTwinFootage(
  sourcePath: string,
  workDir: string,
  options: TwinFootageOptions = {},
): Promise<TwinFootage> {
  const settings = { ...TWIN_DEFAULTS };
  for (const [key, value] of Object.entries(options)) {
    if (value !== undefined) (settings as Record<string, unknown>)[key] = value;
  }
  if (!(settings.minWindowMs > 0 && settings.windowMs >= settings.minWindowMs)) {
    throw new RangeError('windowMs must be at least minWindowMs, and minWindowMs positive');
  }
  await mkdir(workDir, { recursive: true });

  // The upright size, from a decoded frame (ffmpeg applies rotation; the container's sizes do not).
  const firstPath = path.join(workDir, 'twin-source-first.png');
  await runFfmpeg(
    ['-i', fileInput(sourcePath), '-map', '0:v:0', '-frames:v', '1', fileInput(firstPath)],
    settings.timeoutMs,
    `cannot read ${sourcePath} as a video`,
  );
  const { width: sourceWidth = 0, height: sourceHeight = 0 } = await sharp(firstPath).metadata();
  let durationMs: number;
  try {
    const info = await probeMedia(sourcePath, { timeoutMs: 30_000 });
    const video = info.streams.find((stream) => stream.type === 'video' && !stream.attachedPicture);
    durationMs = Math.round(1000 * (video?.durationSeconds ?? info.durationSeconds));
  } catch (error) {
    throw new TwinFootageError(TWIN_FAILURE.invalidMedia, `cannot read ${sourcePath}`, { cause: error });
  }
  if (durationMs < settings.minWindowMs) {
    throw new TwinFootageError(
      TWIN_FAILURE.tooShort,
      `The video is ${(durationMs / 1000).toFixed(1)} s long: a twin needs at least ${settings.minWindowMs / 1000} s of the person facing the camera.`,
    );
  }

  const analysis = fittedSize(sourceWidth, sourceHeight, settings.analysisMaxSide);
  const toSource = sourceWidth / analysis.width;
  const measured: FootageSample[] = [];
  await streamFrames(sourcePath, settings.sampleFps, analysis, settings.timeoutMs, async (rgb) => {
    const faces = await findFaces({ data: rgb, width: analysis.width, height: analysis.height, channels: 3 });
    measured.push(
      sampleOf(
        faces.map((face) => scaleFace(face, toSource)),
        sourceWidth,
        sourceHeight,
      ),
    );
  });

  const samples = fillDropouts(measured);
  const stepMs = 1000 / settings.sampleFps;
  // The last sample sits less than one step before the end: a window may reach to the video's end.
  const usableMs = Math.min(durationMs, longestUsableRun(samples) * stepMs);
  if (usableMs < settings.minWindowMs) {
    const code =
      samples.some((sample) => sample.usable) && longestUsableRun(samples) === samples.length
        ? TWIN_FAILURE.tooShort
        : commonestReason(samples);
    throw new TwinFootageError(
      code,
      code === TWIN_FAILURE.tooShort
        ? `The person is in view for ${(usableMs / 1000).toFixed(1)} s: a twin needs at least ${settings.minWindowMs / 1000} s.`
        : `No ${settings.minWindowMs / 1000} s of the video show one face usable for a twin (${code}): record one person facing the camera, the whole face in view and at least 64 px wide.`,
    );
  }
  const windowMs = Math.min(settings.windowMs, usableMs);
  // Steps between the window's first and last sample; the window itself is windowMs long.
  const steps = Math.max(1, Math.min(samples.length - 1, Math.floor((windowMs - 1) / stepMs)));
  const chosen = chooseWindow(samples, steps, settings);
  if (!chosen) {
    throw new TwinFootageError(commonestReason(samples), 'No stretch of the video shows one usable face.');
  }
  if (chosen.motion > settings.maxMotion) {
    throw new TwinFootageError(
      TWIN_FAILURE.tooMuchMotion,
      `The steadiest ${(windowMs / 1000).toFixed(1)} s of the video move too much (${chosen.motion.toFixed(3)} > ${settings.maxMotion}): record with the camera and the head still.`,
    );
  }
  const startMs = Math.max(0, Math.min(Math.round(chosen.first * stepMs), durationMs - windowMs));
  const endMs = startMs + Math.round(windowMs);

  const loopSize = fittedSize(sourceWidth, sourceHeight, settings.loopMaxSide);
  const loopPath = path.join(workDir, 'twin-loop.mp4');
  await runFfmpeg(
    [
      '-ss',
      (startMs / 1000).toFixed(3),
      '-t',
      (windowMs / 1000).toFixed(3),
      '-i',
      fileInput(sourcePath),
      '-filter_complex',
      [
        `[0:v:0]fps=${settings.loopFps},scale=${loopSize.width}:${loopSize.height}:flags=lanczos,setsar=1,format=yuv420p,split[forward][copy]`,
        // Backward without the turning frame (it ends the forward part): first frame = last frame.
        '[copy]reverse,trim=start_frame=1,setpts=PTS-STARTPTS[backward]',
        '[forward][backward]concat=n=2:v=1:a=0[loop]',
      ].join(';'),
      '-map',
      '[loop]',
      '-an',
      '-c:v',
      'libx264',
      '-preset',
      settings.x264Preset,
      '-crf',
      String(settings.x264Crf),
      '-pix_fmt',
      'yuv420p',
      '-r',
      String(settings.loopFps),
      '-movflags',
      '+faststart',
      fileInput(loopPath),
    ],
    settings.timeoutMs,
    `cannot cut the loop from ${sourcePath}`,
  );

  const referencePath = path.join(workDir, 'twin-reference.png');
  await runFfmpeg(
    ['-i', fileInput(loopPath), '-frames:v', '1', fileInput(referencePath)],
    settings.timeoutMs,
    'cannot read the loop back',
  );
  const previewPng = await readFile(referencePath);
  const reference = await rgbaOf(previewPng);
  const faces = await findFaces(reference);
  const still = stillReason(faces, reference.width, reference.height);
  if (still) throw new TwinFootageError(failureOfStill(still.reason), still.message);
  const face = faces[0] as FaceLandmarks;
  const [sprites, track, loopInfo] = await Promise.all([
    encodedPresenterSprites(reference, face, { coverMouth: true }),
    trackFace(loopPath, loopSize, face, settings.loopFps, settings.timeoutMs),
    probeMedia(loopPath, { timeoutMs: 30_000 }),
  ]);

  return {
    loopPath,
    width: loopSize.width,
    height: loopSize.height,
    durationMs: Math.round(loopInfo.durationSeconds * 1000),
    previewPng: new Uint8Array(previewPng.buffer, previewPng.byteOffset, previewPng.byteLength),
    segment: { startMs, endMs },
    sprites,
    faceBox: {
      x: Math.round(face.box.x),
      y: Math.round(face.box.y),
      width: Math.round(face.box.width),
      height: Math.round(face.box.height),
    },
    track,
    measures: { motion: chosen.motion, mouthOpening: chosen.mouth, samples: samples.length },
  };
}
