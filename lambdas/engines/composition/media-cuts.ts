/**
 * Cutting spans out of a video and its soundtrack in one ffmpeg run (filler-word removal). The kept
 * spans are whole frames: the picture is made constant-rate (`fps`) and its frames are selected by
 * number, so every cut is on a frame boundary; the soundtrack is cut at exactly the same instants
 * (frame k starts at k / fps s, a whole number of samples at 48 kHz for the usual rates), so picture
 * and sound stay in step however many cuts there are.
 *
 * Joins in the sound are crossfaded over a few milliseconds so nothing clicks, WITHOUT shifting what
 * follows: each side of a join reads half the fade into the part that is cut, and the crossfade
 * overlaps exactly that, so every kept span is as long in the sound as in the picture.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { expressionNumber } from './dub-timeline.js';
import { DUBBING_DEFAULTS } from './dubbing.js';
import { compositionFailureOf, ensureExecutable, ffmpegPath, runProcess } from './ffmpeg-binaries.js';
import { fileInput } from './probe.js';

/** A part of the source that is kept: frames `startFrame` (included) to `endFrame` (excluded). */
export interface KeptFrames {
  startFrame: number;
  endFrame: number;
}

export interface CutMediaRequest {
  /** The picture; null for an audio-only source. */
  videoPath: string | null;
  /** The soundtrack as prepareSource wrote it (PCM WAV, 48 kHz, sample 0 = picture time 0); null without sound. */
  audioPath: string | null;
  /** The frame grid of the cuts (the source's frame rate; any fine grid for audio-only media). */
  fps: number;
  /** In order, not overlapping, each at least one frame. */
  kept: readonly KeptFrames[];
  /** Length of each crossfade at a join of the sound. */
  crossfadeMs: number;
  workDir: string;
  /** @default DUBBING_DEFAULTS.encodeTimeoutMs */
  timeoutMs?: number;
}

export interface CutMedia {
  /** H.264 (near-transparent intermediate), constant rate, no sound; null for audio-only media. */
  videoPath: string | null;
  /** PCM WAV at the soundtrack's rate; null without sound. */
  audioPath: string | null;
  /** Frames kept, in all. */
  frames: number;
}

const QUIET = ['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'error', '-y'] as const;

/** ffmpeg's `select` expression keeping the frames of `kept`. */
export function frameSelection(kept: readonly KeptFrames[]): string {
  return kept.map((span) => `between(n,${span.startFrame},${span.endFrame - 1})`).join('+');
}

/**
 * The sound's filter: each kept span as a sample range (reaching half a crossfade into the cut at a
 * join), the spans crossfaded in order. `[a]` is its output.
 */
export function soundFilter(
  input: string,
  kept: readonly KeptFrames[],
  options: { fps: number; sampleRate: number; crossfadeSamples: number },
): string {
  const sampleOf = (frame: number) => Math.round((frame * options.sampleRate) / options.fps);
  const half = Math.floor(options.crossfadeSamples / 2);
  const fade = half * 2;
  if (kept.length === 1) {
    const only = kept[0] as KeptFrames;
    return `[${input}]atrim=start_sample=${sampleOf(only.startFrame)}:end_sample=${sampleOf(only.endFrame)},asetpts=PTS-STARTPTS[a]`;
  }
  const parts = [`[${input}]asplit=${kept.length}${kept.map((_, index) => `[s${index}]`).join('')}`];
  kept.forEach((span, index) => {
    const start = sampleOf(span.startFrame) - (index > 0 && fade > 0 ? half : 0);
    const end = sampleOf(span.endFrame) + (index < kept.length - 1 && fade > 0 ? half : 0);
    parts.push(`[s${index}]atrim=start_sample=${start}:end_sample=${end},asetpts=PTS-STARTPTS[k${index}]`);
  });
  let previous = 'k0';
  for (let index = 1; index < kept.length; index++) {
    const out = index === kept.length - 1 ? 'a' : `j${index}`;
    parts.push(
      fade > 0
        ? `[${previous}][k${index}]acrossfade=ns=${fade}:c1=tri:c2=tri[${out}]`
        : `[${previous}][k${index}]concat=n=2:v=0:a=1[${out}]`,
    );
    previous = out;
  }
  return parts.join(';');
}

/** Keeps `kept` of the picture and the sound, dropping the rest; one ffmpeg run. */
export async function cutMedia(request: CutMediaRequest): Promise<CutMedia> {
  if (request.kept.length === 0) throw new Error('cutMedia needs at least one kept span');
  const fps = expressionNumber(request.fps);
  const filters: string[] = [];
  const outputs: string[] = [];
  const inputs: string[] = [];
  let videoPath: string | null = null;
  let audioPath: string | null = null;
  if (request.videoPath) {
    inputs.push('-i', fileInput(request.videoPath));
    videoPath = path.join(request.workDir, 'cut-picture.mp4');
    filters.push(`[0:v:0]fps=fps=${fps},select='${frameSelection(request.kept)}',setpts=N/(${fps}*TB)[v]`);
    outputs.push(
      ...['-map', '[v]', '-an', '-c:v', 'libx264', '-preset', DUBBING_DEFAULTS.x264Preset],
      ...['-crf', String(DUBBING_DEFAULTS.intermediateCrf), '-pix_fmt', 'yuv420p'],
      ...['-r', fps, '-vsync', 'cfr'],
      fileInput(videoPath),
    );
  }
  if (request.audioPath) {
    const index = inputs.length / 2;
    inputs.push('-i', fileInput(request.audioPath));
    audioPath = path.join(request.workDir, 'cut-sound.wav');
    filters.push(
      soundFilter(`${index}:a:0`, request.kept, {
        fps: request.fps,
        sampleRate: DUBBING_DEFAULTS.sampleRate,
        crossfadeSamples: Math.round((request.crossfadeMs / 1000) * DUBBING_DEFAULTS.sampleRate),
      }),
    );
    outputs.push('-map', '[a]', '-c:a', 'pcm_s16le', fileInput(audioPath));
  }
  const ffmpeg = ffmpegPath();
  await ensureExecutable(ffmpeg);
  // From a file: a long source with hundreds of cuts makes a graph longer than one argument may be.
  const graphPath = path.join(request.workDir, 'cut-graph.txt');
  await writeFile(graphPath, filters.join(';\n'));
  try {
    await runProcess(ffmpeg, [...QUIET, ...inputs, '-filter_complex_script', graphPath, ...outputs], {
      timeoutMs: request.timeoutMs ?? DUBBING_DEFAULTS.encodeTimeoutMs,
    });
  } catch (error) {
    throw compositionFailureOf(error);
  }
  return {
    videoPath,
    audioPath,
    frames: request.kept.reduce((sum, span) => sum + span.endFrame - span.startFrame, 0),
  };
}

/** One frame of a video as a JPEG (a thumbnail). */
export async function extractFrame(
  videoPath: string,
  atMs: number,
  outPath: string,
  timeoutMs = 60_000,
): Promise<string> {
  const ffmpeg = ffmpegPath();
  await ensureExecutable(ffmpeg);
  try {
    await runProcess(
      ffmpeg,
      [
        ...QUIET,
        ...['-ss', expressionNumber(Math.max(0, atMs) / 1000), '-i', fileInput(videoPath)],
        ...['-map', '0:v:0', '-frames:v', '1', '-q:v', '3', '-update', '1', fileInput(outPath)],
      ],
      { timeoutMs },
    );
  } catch (error) {
    throw compositionFailureOf(error);
  }
  return outPath;
}
