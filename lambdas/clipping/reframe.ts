/**
 * Reframing a clip to its aspect ratio so that the speaker stays in the picture: frames are sampled
 * (two a second, at most `MAX_SAMPLES`), the face found in each (Human's face mesh,
 * engines/vision/face-landmarks.ts), the track of its centre smoothed, and ffmpeg's `crop` follows it
 * (its `x` and `y` are piecewise linear in time between the samples).
 *
 * Smoothing: frames where no face is found take the nearest found position; then a moving average over
 * about 1.5 s removes detector jitter, and a dead zone keeps the window still while the face moves
 * less than 5 % of the frame (a camera that wobbles with every nod is worse than one that stands).
 * Without any face, the window stays centred.
 *
 * The output keeps the crop's own pixels (rounded to even sides): upscaling adds no detail.
 */
import { readFile } from 'node:fs/promises';
import { join } from 'node:path';
import { JobFailure } from '../core/errors.js';
import { ensureExecutable, ffmpegPath, runProcess } from '../engines/composition/ffmpeg-binaries.js';
import { findFaces } from '../engines/vision/face-landmarks.js';
import type { AspectRatio } from './clipping-records.js';

/** Width over height of each aspect ratio. */
export const ASPECT_VALUES: Readonly<Record<AspectRatio, number>> = {
  landscape: 16 / 9,
  portrait: 9 / 16,
  square: 1,
};

const SAMPLES_PER_SECOND = 2;
const MAX_SAMPLES = 40;
/** Frames are searched at this width (the mesh model sees a face at 192 px anyway). */
const SAMPLE_WIDTH = 480;
const SMOOTHING_MS = 1500;
const DEAD_ZONE = 0.05;

export interface FaceSample {
  /** Seconds from the clip's start. */
  t: number;
  /** The face's centre as a fraction of the frame's width and height, or null when none was found. */
  x: number | null;
  y: number | null;
}

export interface CropWindow {
  width: number;
  height: number;
}

const even = (value: number) => Math.max(2, 2 * Math.floor(value / 2));

/** The largest window of the aspect ratio inside the frame, even-sided. */
export function cropWindow(frameWidth: number, frameHeight: number, aspect: AspectRatio): CropWindow {
  const ratio = ASPECT_VALUES[aspect];
  if (frameWidth / frameHeight > ratio)
    return { width: even(frameHeight * ratio), height: even(frameHeight) };
  return { width: even(frameWidth), height: even(frameWidth / ratio) };
}

/** The face track with gaps filled, smoothed and held still within the dead zone. */
export function smoothTrack(samples: readonly FaceSample[]): { t: number; x: number; y: number }[] {
  const found = samples.filter((sample) => sample.x !== null && sample.y !== null);
  if (found.length === 0) return samples.map((sample) => ({ t: sample.t, x: 0.5, y: 0.5 }));
  const filled = samples.map((sample) => {
    if (sample.x !== null && sample.y !== null) return { t: sample.t, x: sample.x, y: sample.y };
    const nearest = found.reduce((best, candidate) =>
      Math.abs(candidate.t - sample.t) < Math.abs(best.t - sample.t) ? candidate : best,
    );
    return { t: sample.t, x: nearest.x as number, y: nearest.y as number };
  });
  const half = SMOOTHING_MS / 2000;
  const averaged = filled.map((sample) => {
    const near = filled.filter((other) => Math.abs(other.t - sample.t) <= half);
    return {
      t: sample.t,
      x: near.reduce((sum, other) => sum + other.x, 0) / near.length,
      y: near.reduce((sum, other) => sum + other.y, 0) / near.length,
    };
  });
  const held: { t: number; x: number; y: number }[] = [];
  for (const sample of averaged) {
    const previous = held.at(-1);
    if (
      previous &&
      Math.abs(sample.x - previous.x) < DEAD_ZONE &&
      Math.abs(sample.y - previous.y) < DEAD_ZONE
    )
      held.push({ t: sample.t, x: previous.x, y: previous.y });
    else held.push(sample);
  }
  return held;
}

/**
 * An ffmpeg expression of time `t` (seconds) for the crop's left (or top) edge: the window centred on
 * the track, kept inside the frame, linear between samples.
 */
export function cropOffsetExpression(
  track: readonly { t: number; centre: number }[],
  frameSide: number,
  windowSide: number,
): string {
  const room = frameSide - windowSide;
  if (room <= 0 || track.length === 0) return '0';
  const offsets = track.map(({ t, centre }) => ({
    t,
    offset: Math.round(Math.min(room, Math.max(0, centre * frameSide - windowSide / 2))),
  }));
  // Only the points where the motion changes: a still camera is one number.
  const points = offsets.filter(
    (point, index) =>
      index === 0 ||
      index === offsets.length - 1 ||
      point.offset !== offsets[index - 1]?.offset ||
      point.offset !== offsets[index + 1]?.offset,
  );
  if (points.every((point) => point.offset === points[0]?.offset)) return String(points[0]?.offset ?? 0);
  let expression = String(points.at(-1)?.offset ?? 0);
  for (let index = points.length - 2; index >= 0; index--) {
    const a = points[index] as { t: number; offset: number };
    const b = points[index + 1] as { t: number; offset: number };
    const span = Math.max(0.001, b.t - a.t);
    const segment = `${a.offset}+(${b.offset - a.offset})*(t-${a.t.toFixed(3)})/${span.toFixed(3)}`;
    expression = `if(lt(t,${b.t.toFixed(3)}),${segment},${expression})`;
  }
  // Before the first sample the window stays where the first one puts it.
  const first = points[0] as { t: number; offset: number };
  return `if(lt(t,${first.t.toFixed(3)}),${first.offset},${expression})`;
}

async function ffmpeg(args: string[], what: string): Promise<void> {
  const command = ffmpegPath();
  await ensureExecutable(command);
  try {
    await runProcess(command, ['-hide_banner', '-nostdin', '-loglevel', 'error', '-y', ...args], {
      timeoutMs: 600_000,
    });
  } catch (error) {
    throw new JobFailure(
      'invalid_media',
      `${what} failed: ${error instanceof Error ? error.message : String(error)}`,
      {
        cause: error,
      },
    );
  }
}

/** Where the face is in frames sampled over `[startMs, endMs)` of the source. */
export async function sampleFaces(input: {
  sourcePath: string;
  startMs: number;
  endMs: number;
  frameWidth: number;
  frameHeight: number;
  workDir: string;
  name: string;
}): Promise<FaceSample[]> {
  const seconds = (input.endMs - input.startMs) / 1000;
  const rate = Math.min(SAMPLES_PER_SECOND, MAX_SAMPLES / Math.max(seconds, 0.001));
  const width = Math.min(SAMPLE_WIDTH, even(input.frameWidth));
  const height = even((width * input.frameHeight) / input.frameWidth);
  const file = join(input.workDir, `${input.name}-samples.rgb`);
  await ffmpeg(
    [
      ...['-ss', (input.startMs / 1000).toFixed(3), '-t', seconds.toFixed(3), '-i', input.sourcePath],
      ...[
        '-vf',
        `fps=${rate.toFixed(4)},scale=${width}:${height}`,
        '-f',
        'rawvideo',
        '-pix_fmt',
        'rgb24',
        file,
      ],
    ],
    'Sampling the frames of a clip',
  );
  const bytes = await readFile(file);
  const frameBytes = width * height * 3;
  const samples: FaceSample[] = [];
  for (let index = 0; (index + 1) * frameBytes <= bytes.length; index++) {
    const data = bytes.subarray(index * frameBytes, (index + 1) * frameBytes);
    const faces = await findFaces({ data, width, height, channels: 3 });
    // The largest face is the speaker's (the one nearest the camera).
    const face = faces.sort((a, b) => b.box.width * b.box.height - a.box.width * a.box.height)[0];
    samples.push({
      t: (index + 0.5) / rate,
      x: face ? (face.box.x + face.box.width / 2) / width : null,
      y: face ? (face.box.y + face.box.height / 2) / height : null,
    });
  }
  return samples;
}

export interface ReframedClip {
  path: string;
  width: number;
  height: number;
  /** Frames of the sampled ones where a face was found. */
  facesFound: number;
  samples: number;
}

/** The clip cut from the source and cropped to the aspect ratio, its window following the face. */
export async function reframeClip(input: {
  sourcePath: string;
  startMs: number;
  endMs: number;
  frameWidth: number;
  frameHeight: number;
  aspect: AspectRatio;
  workDir: string;
  name: string;
}): Promise<ReframedClip> {
  const window = cropWindow(input.frameWidth, input.frameHeight, input.aspect);
  const needsCrop = window.width < input.frameWidth - 1 || window.height < input.frameHeight - 1;
  const samples = needsCrop ? await sampleFaces(input) : [];
  const track = smoothTrack(samples);
  const x = cropOffsetExpression(
    track.map((point) => ({ t: point.t, centre: point.x })),
    input.frameWidth,
    window.width,
  );
  const y = cropOffsetExpression(
    track.map((point) => ({ t: point.t, centre: point.y })),
    input.frameHeight,
    window.height,
  );
  const path = join(input.workDir, `${input.name}-reframed.mp4`);
  // Commas inside the expressions are escaped for the filter graph; the picture leaves in even sides.
  const inFilter = (expression: string) => expression.replace(/,/g, '\\,');
  await ffmpeg(
    [
      ...['-ss', (input.startMs / 1000).toFixed(3), '-t', ((input.endMs - input.startMs) / 1000).toFixed(3)],
      ...['-i', input.sourcePath],
      ...[
        '-vf',
        `crop=${window.width}:${window.height}:${inFilter(x)}:${inFilter(y)},setsar=1,format=yuv420p`,
      ],
      ...['-c:v', 'libx264', '-preset', 'veryfast', '-crf', '16', '-c:a', 'aac', '-b:a', '160k'],
      ...['-movflags', '+faststart', path],
    ],
    'Reframing a clip',
  );
  return {
    path,
    width: window.width,
    height: window.height,
    facesFound: samples.filter((sample) => sample.x !== null).length,
    samples: samples.length,
  };
}
