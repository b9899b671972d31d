/**
 * What a media file contains, from ffprobe's JSON output.
 *
 * Inputs are opened through ffmpeg's `file:` protocol, so a path can never be read as a URL or as one of
 * ffmpeg's special protocols (`concat:`, `subfile,`...).
 */
import path from 'node:path';
import { CompositionError } from './composition-engine.js';
import { ensureExecutable, ffprobePath, lastLine, ProcessError, runProcess } from './ffmpeg-binaries.js';

export interface MediaStream {
  type: 'video' | 'audio' | 'subtitle' | 'data' | 'attachment' | 'unknown';
  /** ffmpeg's codec name, e.g. `h264`, `aac`, `png`, `pcm_s16le`. */
  codec: string;
  /** Pixels, for video streams. */
  width?: number;
  height?: number;
  /** Audio channels, for audio streams. */
  channels?: number;
  /** The stream's own length when the container states it. */
  durationSeconds?: number;
  /** A cover picture attached to an audio file (an MP3's album art), not moving pictures. */
  attachedPicture?: boolean;
  /**
   * Video streams: frames per second on average (`avg_frame_rate`, else `r_frame_rate`), when ffprobe
   * knows it; a variable-frame-rate stream reports its mean.
   */
  frameRate?: number;
  /** Audio streams: samples per second per channel. */
  sampleRate?: number;
}

export interface MediaInfo {
  /** The container's length; 0 when it has none (a still image may report one frame's length). */
  durationSeconds: number;
  streams: MediaStream[];
  /** ffmpeg's names of the container, comma-separated (`mov,mp4,m4a,3gp,3g2,mj2`, `matroska,webm`, `wav`). */
  formatName?: string;
}

export interface ProbeOptions {
  /** ffprobe is killed after this long. @default 30 s */
  timeoutMs?: number;
}

interface FfprobeJson {
  streams?: {
    codec_type?: string;
    codec_name?: string;
    width?: number;
    height?: number;
    channels?: number;
    duration?: string;
    disposition?: { attached_pic?: number };
    avg_frame_rate?: string;
    r_frame_rate?: string;
    sample_rate?: string;
  }[];
  format?: { duration?: string; format_name?: string };
}

const STREAM_TYPES = new Set(['video', 'audio', 'subtitle', 'data', 'attachment']);

/** A rate ffprobe writes as a fraction (`30000/1001`); undefined for `0/0` and other non-rates. */
function rate(value: string | undefined): number | undefined {
  const [numerator, denominator = '1'] = (value ?? '').split('/');
  const parsed = Number(numerator) / Number(denominator);
  return Number.isFinite(parsed) && parsed > 0 ? parsed : undefined;
}

function seconds(value: string | undefined): number | undefined {
  const parsed = value === undefined ? Number.NaN : Number(value);
  return Number.isFinite(parsed) && parsed >= 0 ? parsed : undefined;
}

/** The input argument that makes ffmpeg/ffprobe read `file` as a local file and nothing else. */
export function fileInput(file: string): string {
  return `file:${path.resolve(file)}`;
}

/**
 * Reads the streams and length of a media file. A file that is missing, unreadable, has no streams, or
 * has a picture ffmpeg cannot decode fails with `invalid_media`, naming the file and the reason.
 */
export async function probeMedia(file: string, options: ProbeOptions = {}): Promise<MediaInfo> {
  const probe = ffprobePath();
  await ensureExecutable(probe);
  let stdout: string;
  let stderr: string;
  try {
    ({ stdout, stderr } = await runProcess(
      probe,
      ['-v', 'error', '-print_format', 'json', '-show_format', '-show_streams', fileInput(file)],
      { timeoutMs: options.timeoutMs ?? 30_000 },
    ));
  } catch (error) {
    if (error instanceof ProcessError && error.reason === 'exit_code') {
      throw new CompositionError('invalid_media', `cannot read ${file}: ${lastLine(error.stderr)}`, {
        cause: error,
      });
    }
    if (error instanceof ProcessError && error.reason === 'timed_out') {
      throw new CompositionError('invalid_media', `cannot read ${file}: ffprobe gave up (${error.message})`, {
        cause: error,
      });
    }
    throw new CompositionError('engine_unavailable', `ffprobe cannot run: ${(error as Error).message}`, {
      cause: error,
    });
  }
  let json: FfprobeJson;
  try {
    json = JSON.parse(stdout) as FfprobeJson;
  } catch (error) {
    throw new CompositionError('invalid_media', `cannot read ${file}: ffprobe printed no description`, {
      cause: error,
    });
  }
  const streams: MediaStream[] = (json.streams ?? []).map((stream) => {
    const type = STREAM_TYPES.has(stream.codec_type ?? '')
      ? (stream.codec_type as MediaStream['type'])
      : 'unknown';
    const result: MediaStream = { type, codec: stream.codec_name ?? 'unknown' };
    if (type === 'video') {
      result.width = stream.width ?? 0;
      result.height = stream.height ?? 0;
      result.attachedPicture = stream.disposition?.attached_pic === 1;
      const frameRate = rate(stream.avg_frame_rate) ?? rate(stream.r_frame_rate);
      if (frameRate !== undefined) result.frameRate = frameRate;
    }
    if (type === 'audio' && stream.channels !== undefined) result.channels = stream.channels;
    const sampleRate = type === 'audio' ? rate(stream.sample_rate) : undefined;
    if (sampleRate !== undefined) result.sampleRate = sampleRate;
    const duration = seconds(stream.duration);
    if (duration !== undefined) result.durationSeconds = duration;
    return result;
  });
  if (streams.length === 0) {
    throw new CompositionError('invalid_media', `cannot read ${file}: it has no audio or video stream`);
  }
  // ffprobe "reads" a corrupt image named *.png as a picture of size 0x0 (and complains on stderr).
  if (streams.some((stream) => stream.type === 'video' && (!stream.width || !stream.height))) {
    throw new CompositionError(
      'invalid_media',
      `cannot read ${file}: its picture cannot be decoded (${stderr ? lastLine(stderr) : 'no size'})`,
    );
  }
  const info: MediaInfo = { durationSeconds: seconds(json.format?.duration) ?? 0, streams };
  if (json.format?.format_name) info.formatName = json.format.format_name;
  return info;
}
