/**
 * The media primitives of dubbing (video translation): cutting the source, building the new soundtrack
 * (dub-soundtrack.ts), retiming the picture where a translated line needs more time, and muxing the
 * result. ffmpeg from npm runs them as child processes (ffmpeg-binaries.ts); the arithmetic is in
 * dub-timeline.ts.
 *
 * What happens to the original soundtrack. There is NO source separation here (no npm package ships
 * the weights of a model that splits voice from music), so the old voice, the music and the effects are
 * one signal and are treated alike:
 * - `remove` (`disable_music_track`): the original soundtrack is dropped; the result is the new speech
 *   over silence. No music, no effects.
 * - `duck` (the default): between the new lines the original plays at its own level, music, effects AND
 *   any untranslated voice (laughter, a line nobody transcribed); from 120 ms before each new line to
 *   120 ms after it, it eases (raised cosine, no click) down to -24 dB and stays there under the line.
 *   Lines less than 600 ms apart share one duck so the music does not swell in the breath between them.
 *   At -24 dB under new speech at the same loudness the old voice is a faint murmur under the new one,
 *   not intelligible; the music and effects under a line are equally quiet.
 * - `duck_centre_cut` (opt-in, stereo sources): as `duck`, plus under each line the original's side
 *   signal (L − R) / 2 on both channels at -3 dB. Measured (test/unit/engines/composition/
 *   dubbing-soundtrack.test.ts) on a synthetic stereo mix, a centred 300 Hz "voice" (L = R = 0.25) and
 *   a 1 kHz "music" tone panned L = 0.25, R = 0.075, levels under a line against the original (mono
 *   downmix): voice -24.0 dB with `duck` and -24.0 dB with the cut (the side signal holds none of it);
 *   music -24.0 dB with `duck` but -7.0 dB with the cut. Why it is offered but not the default: only
 *   what is EXACTLY centred cancels. The same voice 0.5 ms later on one channel (two microphones, or
 *   any stereo reverb, which is decorrelated) comes through the cut at -8.7 dB, far louder than under
 *   a plain duck. Everything centred in the music (bass, kick, a lead singer) vanishes under the lines
 *   with the voice, so the music changes colour at each line. The side signal goes to both channels
 *   alike (so it does not cancel itself on a mono phone speaker), which narrows the stereo image under
 *   the lines. Use it for studio mixes with dry dialogue panned centre; mono sources have no side
 *   signal, so for them it is `duck`.
 *
 * The new speech is placed at its times sample-exactly and never cut or shifted: overlapping lines are
 * both heard, and a line running past the video's end lengthens the soundtrack and is reported
 * (`overruns`); `muxDub` then holds the last frame until it ends. `enable_speech_enhancement` treats the
 * NEW speech only (80 Hz high-pass, `afftdn` de-noising that follows the noise floor, one gain to
 * -16 LUFS that never pushes its true peak past -1.5 dBTP); it cannot clean the original, which is not
 * separated. Measured on a quiet 600 Hz "voice" over 40 Hz rumble and white hiss: rumble 12.3 dB and
 * hiss 5.2 dB lower relative to the voice (the hiss in the half second before the voice, while
 * `afftdn` is still learning the floor; about 9 dB once it has), loudness -30.3 → -16.0 LUFS, the
 * voice's onset unmoved.
 *
 * The picture (`enable_dynamic_duration`): a segment whose translated line needs more time is slowed
 * (at most 1.5×) and its last frame held for the rest; the rest copies through. `retimeAudio` does the
 * same to the original soundtrack (time-stretched with `atempo`, pitch kept; silence during a hold) so
 * that its music and effects stay in step with the picture; the new speech is then placed on the
 * retimed timeline.
 */
import { mkdir } from 'node:fs/promises';
import path from 'node:path';
import { CompositionError } from './composition-engine.js';
import {
  expressionNumber,
  type RetimedSpan,
  type RetimeSpan,
  retimePtsExpression,
  retimeSchedule,
} from './dub-timeline.js';
import { compositionFailureOf, ensureExecutable, ffmpegPath, runProcess } from './ffmpeg-binaries.js';
import { fileInput, type MediaInfo, probeMedia } from './probe.js';

export * from './dub-audio-retime.js';
export * from './dub-soundtrack.js';
export type { RetimedSpan, RetimeSpan } from './dub-timeline.js';

export const DUBBING_DEFAULTS = {
  /** Each ffprobe run is killed after this long. */
  probeTimeoutMs: 30_000,
  /** Cutting, retiming and muxing runs are each killed after this long. */
  encodeTimeoutMs: 30 * 60_000,
  /** Frame rate assumed when the source does not state one. */
  fallbackFps: 25,
  /** A picture is slowed at most this much; a segment needing more holds its last frame for the rest. */
  maxSlowdown: 1.5,
  /** Intermediates (the cut, the retimed picture) are encoded again at the end: near-transparent CRF. */
  intermediateCrf: 18,
  /** x264 preset of every encode (the composition engine's measured choice). */
  x264Preset: 'superfast',
  /** x264 CRF of the final video. */
  x264Crf: 23,
  vp9CpuUsed: 6,
  vp9Crf: 32,
  /** AAC or Opus bitrate in the final video, and of `encodeAudioFile`'s m4a. */
  audioBitrateKbps: 128,
  /** `encodeAudioFile`'s MP3 bitrate. */
  mp3BitrateKbps: 192,
  /** Sample rate of the extracted original soundtrack. */
  sampleRate: 48_000,
} as const;

export type FpsMode = 'vfr' | 'cfr' | 'passthrough';
export type DubContainer = 'mp4' | 'webm' | 'mkv';

export interface PreparedSource {
  /**
   * The picture: the source file itself when nothing was cut (so `muxDub` can copy its video stream),
   * else the cut re-encoded (H.264, near-transparent) starting at 0. Null for an audio-only source.
   */
  videoPath: string | null;
  /** The cut's soundtrack, 16-bit PCM WAV at 48 kHz, mono or stereo (more channels downmixed); null without audio. */
  audioPath: string | null;
  /** Length of the cut (of the whole source when uncut). */
  durationMs: number;
  /** Where the cut starts and ends in the source. */
  startMs: number;
  endMs: number;
  cut: boolean;
  /** 0 for an audio-only source. */
  width: number;
  height: number;
  /** The source's mean frame rate (DUBBING_DEFAULTS.fallbackFps when unknown or audio-only). */
  fps: number;
  hasVideo: boolean;
  hasAudio: boolean;
  /** The SOURCE's container and codecs (ffmpeg names), for `keep_the_same_format`. */
  codecs: { container: string; video: string | null; audio: string | null };
  /** The source's audio channels and sample rate (0 without audio). */
  audioChannels: number;
  audioSampleRate: number;
}

export interface PrepareSourceOptions {
  /** `start_time` in ms; the cut starts at the frame shown at this instant. @default 0 */
  startMs?: number;
  /** `end_time` in ms; past the source's end it is the end. @default the source's end */
  endMs?: number;
  /** Scratch directory (exists, writable); the cut is written inside it. */
  workDir: string;
  /** @default DUBBING_DEFAULTS.encodeTimeoutMs */
  timeoutMs?: number;
}

function invalid(message: string): CompositionError {
  return new CompositionError('invalid_media', message);
}

const QUIET = ['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'error', '-y'] as const;

async function ffmpegRun(args: readonly string[], timeoutMs: number): Promise<void> {
  const ffmpeg = ffmpegPath();
  await ensureExecutable(ffmpeg);
  try {
    await runProcess(ffmpeg, args, { timeoutMs });
  } catch (error) {
    throw compositionFailureOf(error);
  }
}

function movingPicture(info: MediaInfo) {
  return info.streams.find((stream) => stream.type === 'video' && !stream.attachedPicture);
}

/** The length of a file: its container's, else its longest stream's. */
function lengthMs(info: MediaInfo): number {
  const seconds =
    info.durationSeconds || Math.max(0, ...info.streams.map((stream) => stream.durationSeconds ?? 0));
  return seconds * 1000;
}

/**
 * Probes the source and cuts it to `startMs`..`endMs` frame-accurately (re-encoding the picture; an
 * uncut source's picture is left as it is). An audio-only source is accepted (`translate_audio_only` of
 * a podcast is plausible): `videoPath` is null and only an audio dub can be made of it. Fails with
 * `invalid_media` for an unreadable file, one without audio or video, a zero-length one, a start at or
 * beyond its end, an end at or before the start, or a cut shorter than one frame.
 */
export async function prepareSource(
  inputPath: string,
  options: PrepareSourceOptions,
): Promise<PreparedSource> {
  const info = await probeMedia(inputPath, { timeoutMs: DUBBING_DEFAULTS.probeTimeoutMs });
  const video = movingPicture(info);
  const audio = info.streams.find((stream) => stream.type === 'audio');
  if (!video && !audio) throw invalid(`${inputPath} has neither moving pictures nor sound to translate`);
  const sourceMs = lengthMs(info);
  if (!(sourceMs > 0)) throw invalid(`${inputPath} has no length (zero-length media)`);
  const startMs = options.startMs ?? 0;
  const requestedEnd = options.endMs ?? sourceMs;
  if (!Number.isFinite(startMs) || startMs < 0) throw invalid('start_time must be 0 or more');
  if (!Number.isFinite(requestedEnd)) throw invalid('end_time must be a number');
  if (startMs >= sourceMs) {
    throw invalid(
      `start_time (${startMs / 1000} s) is at or beyond the end of the video (${sourceMs / 1000} s)`,
    );
  }
  if (requestedEnd <= startMs) throw invalid('end_time must be after start_time');
  const endMs = Math.min(requestedEnd, sourceMs);
  const fps = video?.frameRate ?? DUBBING_DEFAULTS.fallbackFps;
  const durationMs = endMs - startMs;
  if (video && durationMs < 1000 / fps)
    throw invalid(`the part to translate is shorter than one frame (${durationMs} ms)`);
  const cut = startMs > 0 || endMs < sourceMs;
  await mkdir(options.workDir, { recursive: true });
  const timeoutMs = options.timeoutMs ?? DUBBING_DEFAULTS.encodeTimeoutMs;

  // Seeking on the input while transcoding is frame-accurate: ffmpeg decodes from the keyframe before
  // the start and drops what precedes it. Picture and sound are cut by the same run, so they stay aligned.
  const range = cut
    ? ['-ss', expressionNumber(startMs / 1000), '-t', expressionNumber(durationMs / 1000)]
    : [];
  const audioPath = audio ? path.join(options.workDir, 'source-audio.wav') : null;
  const videoPath = video ? (cut ? path.join(options.workDir, 'source-video.mp4') : inputPath) : null;
  const outputs: string[] = [];
  if (video && cut) {
    outputs.push(
      ...['-map', '0:v:0', '-an', '-sn', '-dn', '-c:v', 'libx264', '-preset', DUBBING_DEFAULTS.x264Preset],
      ...['-crf', String(DUBBING_DEFAULTS.intermediateCrf), '-pix_fmt', 'yuv420p', '-vsync', 'vfr'],
      fileInput(videoPath as string),
    );
  }
  if (audio) {
    outputs.push(
      ...['-map', '0:a:0', '-vn', '-sn', '-dn', '-ac', String(Math.min(2, audio.channels ?? 1))],
      // A WAV has no timestamps: sound that starts after the picture (or has gaps) is padded with
      // silence so that the file's sample 0 is the picture's time 0.
      ...['-af', 'aresample=async=1:first_pts=0'],
      ...['-ar', String(DUBBING_DEFAULTS.sampleRate), '-c:a', 'pcm_s16le'],
      fileInput(audioPath as string),
    );
  }
  await ffmpegRun([...QUIET, ...range, '-i', fileInput(inputPath), ...outputs], timeoutMs);
  return {
    videoPath,
    audioPath,
    durationMs,
    startMs,
    endMs,
    cut,
    width: video?.width ?? 0,
    height: video?.height ?? 0,
    fps,
    hasVideo: video !== undefined,
    hasAudio: audio !== undefined,
    codecs: {
      container: info.formatName ?? 'unknown',
      video: video?.codec ?? null,
      audio: audio?.codec ?? null,
    },
    audioChannels: audio?.channels ?? 0,
    audioSampleRate: audio?.sampleRate ?? 0,
  };
}

export interface RetimeOptions {
  /** Output frame rate (the source's). */
  fps: number;
  /** Scratch directory; the result is `retimed-video.mp4` inside it. */
  workDir: string;
  /** @default DUBBING_DEFAULTS.maxSlowdown */
  maxSlowdown?: number;
  /** @default DUBBING_DEFAULTS.encodeTimeoutMs */
  timeoutMs?: number;
}

export interface RetimedVideo {
  /** H.264 (near-transparent CRF, yuv420p), constant `fps`, no audio. */
  path: string;
  /** The sum of the spans' `outputMs`, rounded up to whole frames. */
  durationMs: number;
  schedule: RetimedSpan[];
}

/**
 * The picture retimed span by span (`enable_dynamic_duration`): a span whose `outputMs` equals its
 * source length plays unchanged; a longer one is slowed (`setpts`) to fill it, at most `maxSlowdown`,
 * and its last frame is then held for the rest. Spans are contiguous from 0 and never shorter than their
 * source (a picture is not sped up); frames after the last span are dropped. Frames land within one
 * frame of `outputStart + factor × (t − sourceStart)`.
 */
export async function retimeVideo(
  videoPath: string,
  spans: readonly RetimeSpan[],
  options: RetimeOptions,
): Promise<RetimedVideo> {
  if (!Number.isFinite(options.fps) || options.fps <= 0) throw invalid('fps must be positive');
  if (spans.length === 0) throw invalid('retiming needs at least one span');
  let schedule: RetimedSpan[];
  try {
    schedule = retimeSchedule(spans, options.maxSlowdown ?? DUBBING_DEFAULTS.maxSlowdown);
  } catch (error) {
    throw new CompositionError('invalid_media', (error as Error).message, { cause: error });
  }
  const last = schedule.at(-1) as RetimedSpan;
  const totalSeconds = (last.outputStartMs + last.outputMs) / 1000;
  const frames = Math.ceil(totalSeconds * options.fps - 1e-6);
  // Frames after the last span are sent far past the end, where `trim` drops them.
  const beyond = {
    ...last,
    sourceStartMs: last.sourceEndMs,
    outputStartMs: (totalSeconds + 3600) * 1000,
    factor: 1,
  };
  const fps = expressionNumber(options.fps);
  const filter = [
    `setpts='${retimePtsExpression([...schedule, beyond])}'`,
    // A constant rate: slowed spans' frames are repeated to fill their longer time, a held span's last frame fills its hold.
    `fps=fps=${fps}`,
    `tpad=stop_mode=clone:stop_duration=${expressionNumber(totalSeconds)}`,
    `trim=end_frame=${frames}`,
  ].join(',');
  await mkdir(options.workDir, { recursive: true });
  const out = path.join(options.workDir, 'retimed-video.mp4');
  await ffmpegRun(
    [
      ...QUIET,
      '-i',
      fileInput(videoPath),
      '-map',
      '0:v:0',
      '-an',
      '-vf',
      filter,
      ...[
        '-c:v',
        'libx264',
        '-preset',
        DUBBING_DEFAULTS.x264Preset,
        '-crf',
        String(DUBBING_DEFAULTS.intermediateCrf),
      ],
      ...['-pix_fmt', 'yuv420p', '-r', fps],
      fileInput(out),
    ],
    options.timeoutMs ?? DUBBING_DEFAULTS.encodeTimeoutMs,
  );
  return { path: out, durationMs: (frames * 1000) / options.fps, schedule };
}

/**
 * Given dubbing audio made exactly `durationMs` long (a lipsync's span): cut where it is longer, padded
 * with silence where it is shorter, as 16-bit PCM WAV at DUBBING_DEFAULTS.sampleRate, mono. Returns the
 * audio's own length too (before fitting), so the caller can say how much was cut. Fails with
 * `invalid_media` for a file without sound.
 */
export async function fitAudioLength(
  audioPath: string,
  durationMs: number,
  outPath: string,
  options: { timeoutMs?: number } = {},
): Promise<{ path: string; sourceMs: number; durationMs: number }> {
  const info = await probeMedia(audioPath, { timeoutMs: DUBBING_DEFAULTS.probeTimeoutMs });
  if (!info.streams.some((stream) => stream.type === 'audio'))
    throw invalid(`${audioPath} has no sound to dub with`);
  const sourceMs = lengthMs(info);
  if (!(durationMs > 0)) throw invalid('the audio must be fitted to a positive length');
  const samples = Math.round((durationMs / 1000) * DUBBING_DEFAULTS.sampleRate);
  await ffmpegRun(
    [
      ...QUIET,
      '-i',
      fileInput(audioPath),
      '-map',
      '0:a:0',
      '-vn',
      '-ac',
      '1',
      '-af',
      `aresample=${DUBBING_DEFAULTS.sampleRate}:async=1:first_pts=0,apad=whole_len=${samples},atrim=end_sample=${samples}`,
      '-ar',
      String(DUBBING_DEFAULTS.sampleRate),
      '-c:a',
      'pcm_s16le',
      fileInput(outPath),
    ],
    options.timeoutMs ?? DUBBING_DEFAULTS.encodeTimeoutMs,
  );
  return { path: outPath, sourceMs, durationMs: (samples * 1000) / DUBBING_DEFAULTS.sampleRate };
}

/**
 * The soundtrack with `startMs`..`endMs` silenced (a lipsync's `disable_music_track` over part of the
 * video: the original goes under the part re-dubbed and stays everywhere else), 16-bit PCM WAV at
 * DUBBING_DEFAULTS.sampleRate, the channels kept.
 */
export async function silenceAudioSpan(
  audioPath: string,
  span: { startMs: number; endMs: number },
  outPath: string,
  options: { timeoutMs?: number } = {},
): Promise<string> {
  const from = expressionNumber(span.startMs / 1000);
  const to = expressionNumber(span.endMs / 1000);
  await ffmpegRun(
    [
      ...QUIET,
      '-i',
      fileInput(audioPath),
      '-map',
      '0:a:0',
      '-af',
      `volume=enable='between(t,${from},${to})':volume=0`,
      '-ar',
      String(DUBBING_DEFAULTS.sampleRate),
      '-c:a',
      'pcm_s16le',
      fileInput(outPath),
    ],
    options.timeoutMs ?? DUBBING_DEFAULTS.encodeTimeoutMs,
  );
  return outPath;
}

/**
 * The picture played again from its start until it is `durationMs` long (a lipsync whose audio is
 * longer than the video, `enable_dynamic_duration`): H.264 (near-transparent CRF, yuv420p) at `fps`,
 * no audio, written as `looped-video.mp4` in `workDir`.
 */
export async function loopPicture(
  videoPath: string,
  durationMs: number,
  options: { fps: number; workDir: string; timeoutMs?: number },
): Promise<{ path: string; durationMs: number }> {
  await mkdir(options.workDir, { recursive: true });
  const out = path.join(options.workDir, 'looped-video.mp4');
  const frames = Math.ceil((durationMs / 1000) * options.fps - 1e-6);
  await ffmpegRun(
    [
      ...QUIET,
      '-stream_loop',
      '-1',
      '-i',
      fileInput(videoPath),
      '-map',
      '0:v:0',
      '-an',
      '-vf',
      `fps=fps=${expressionNumber(options.fps)}`,
      '-frames:v',
      String(frames),
      ...['-c:v', 'libx264', '-preset', DUBBING_DEFAULTS.x264Preset],
      ...['-crf', String(DUBBING_DEFAULTS.intermediateCrf), '-pix_fmt', 'yuv420p'],
      fileInput(out),
    ],
    options.timeoutMs ?? DUBBING_DEFAULTS.encodeTimeoutMs,
  );
  return { path: out, durationMs: (frames * 1000) / options.fps };
}

export interface MuxDubRequest {
  /** The (possibly cut or retimed) picture; null for an audio-only result. */
  videoPath: string | null;
  /** The new soundtrack (dubSoundtrack's WAV). */
  audioPath: string;
  /** Written here, in `muxContainer(...)`'s container whatever its extension says. */
  outPath: string;
  /** `same`: the source's container. */
  format: 'mp4' | 'webm' | 'same';
  fpsMode: FpsMode;
  /** `keep_the_same_format`: the source's container and codecs (video copied when it still is the source's). */
  keepSameFormat: boolean;
  sourceInfo: Pick<PreparedSource, 'codecs' | 'fps' | 'audioChannels' | 'audioSampleRate'>;
  /** @default DUBBING_DEFAULTS.encodeTimeoutMs */
  timeoutMs?: number;
}

export interface MuxedDub {
  path: string;
  container: DubContainer;
  /** The video stream was copied bit for bit (no re-encode). */
  videoCopied: boolean;
  videoCodec: string | null;
  audioCodec: string;
  durationMs: number;
}

/** ffmpeg's encoder for each codec it can write here (what `-encoders` of the npm build lists). */
const VIDEO_ENCODERS: Record<string, string> = {
  h264: 'libx264',
  hevc: 'libx265',
  vp9: 'libvpx-vp9',
  vp8: 'libvpx',
  mpeg4: 'mpeg4',
};
const AUDIO_ENCODERS: Record<string, string> = {
  aac: 'aac',
  mp3: 'libmp3lame',
  opus: 'libopus',
  vorbis: 'libvorbis',
  flac: 'flac',
};
/** What each container may hold. */
const CONTAINER_CODECS: Record<DubContainer, { video: readonly string[]; audio: readonly string[] }> = {
  mp4: { video: ['h264', 'hevc', 'mpeg4', 'av1'], audio: ['aac', 'mp3', 'opus', 'flac'] },
  webm: { video: ['vp8', 'vp9', 'av1'], audio: ['opus', 'vorbis'] },
  mkv: {
    video: ['h264', 'hevc', 'mpeg4', 'vp8', 'vp9', 'av1'],
    audio: ['aac', 'mp3', 'opus', 'vorbis', 'flac'],
  },
};
const MUXERS: Record<DubContainer, string> = { mp4: 'mp4', webm: 'webm', mkv: 'matroska' };

/**
 * The container of the dubbed file: `format`, or with `same` or `keepSameFormat` the source's (an
 * MP4/MOV family file is written as mp4, a WebM as webm, other Matroska as mkv, anything else as mp4).
 */
export function muxContainer(
  format: MuxDubRequest['format'],
  keepSameFormat: boolean,
  source: Pick<PreparedSource, 'codecs'>,
): DubContainer {
  if (format !== 'same' && !keepSameFormat) return format;
  const names = source.codecs.container.split(',');
  if (names.includes('matroska') || names.includes('webm')) {
    const webmVideo =
      source.codecs.video === null || CONTAINER_CODECS.webm.video.includes(source.codecs.video);
    const webmAudio =
      source.codecs.audio === null || CONTAINER_CODECS.webm.audio.includes(source.codecs.audio);
    return webmVideo && webmAudio ? 'webm' : 'mkv';
  }
  return 'mp4';
}

/**
 * Writes the dubbed file: the picture with the new soundtrack.
 *
 * The video stream is COPIED (no loss, no time) when the picture's codec is one the container holds
 * (with `keepSameFormat`: it is still the source's codec; otherwise H.264 for mp4, VP8/VP9/AV1 for
 * webm), `fpsMode` is not `cfr`, and the soundtrack is not longer than the picture. Otherwise it is
 * encoded: H.264 yuv420p for mp4 and mkv, VP9 for webm, the source's codec with `keepSameFormat` when an
 * encoder for it is here. The audio is always encoded: AAC (mp4, mkv) or Opus (webm) at 48 kHz, with
 * `keepSameFormat` the source's audio codec, channels and sample rate when possible. mp4 files get
 * `+faststart`.
 *
 * `fpsMode`: `cfr` encodes at a constant `sourceInfo.fps` (frames repeated or dropped to keep the
 * rate); `vfr` keeps every frame's timestamp (a copy keeps them exactly; an encode drops only frames
 * with duplicate timestamps); `passthrough` hands every frame through with its timestamp untouched.
 * With a stream copy `vfr` and `passthrough` are the same thing.
 *
 * Lengths: a soundtrack longer than the picture (a line running past the end) holds the last frame until
 * it ends (an encode); a shorter one is padded with silence. Fails with `composition_failed` when ffmpeg
 * fails, `invalid_media` when an input cannot be read.
 */
export async function muxDub(request: MuxDubRequest): Promise<MuxedDub> {
  const container = muxContainer(request.format, request.keepSameFormat, request.sourceInfo);
  const allowed = CONTAINER_CODECS[container];
  const audioInfo = await probeMedia(request.audioPath, { timeoutMs: DUBBING_DEFAULTS.probeTimeoutMs });
  const audioMs = lengthMs(audioInfo);
  const videoInfo = request.videoPath
    ? await probeMedia(request.videoPath, { timeoutMs: DUBBING_DEFAULTS.probeTimeoutMs })
    : null;
  const picture = videoInfo ? movingPicture(videoInfo) : undefined;
  if (request.videoPath && !picture) throw invalid(`${request.videoPath} has no moving pictures`);
  const videoMs = videoInfo ? lengthMs(videoInfo) : 0;
  const fps = request.sourceInfo.fps || DUBBING_DEFAULTS.fallbackFps;
  const holdMs = picture ? Math.max(0, audioMs - videoMs) : 0;
  const needsHold = holdMs > 1000 / fps;

  const keptVideoCodec = request.keepSameFormat ? request.sourceInfo.codecs.video : null;
  const copyable = (codec: string) =>
    request.keepSameFormat
      ? codec === keptVideoCodec
      : container === 'mp4'
        ? codec === 'h264'
        : allowed.video.includes(codec);
  const videoCopied =
    picture !== undefined && request.fpsMode !== 'cfr' && !needsHold && copyable(picture.codec);
  let videoCodec: string | null = null;
  const videoArgs: string[] = [];
  if (picture) {
    if (videoCopied) {
      videoCodec = picture.codec;
      videoArgs.push('-map', '0:v:0', '-c:v', 'copy');
    } else {
      const wanted =
        keptVideoCodec && VIDEO_ENCODERS[keptVideoCodec] && allowed.video.includes(keptVideoCodec)
          ? keptVideoCodec
          : container === 'webm'
            ? 'vp9'
            : 'h264';
      videoCodec = wanted;
      const filters = [
        ...(needsHold ? [`tpad=stop_mode=clone:stop_duration=${expressionNumber(holdMs / 1000)}`] : []),
        ...(request.fpsMode === 'cfr' ? [`fps=fps=${expressionNumber(fps)}`] : []),
      ];
      videoArgs.push('-map', '0:v:0', ...(filters.length ? ['-vf', filters.join(',')] : []));
      videoArgs.push('-c:v', VIDEO_ENCODERS[wanted] as string);
      if (wanted === 'h264') {
        videoArgs.push(
          '-preset',
          DUBBING_DEFAULTS.x264Preset,
          '-crf',
          String(DUBBING_DEFAULTS.x264Crf),
          '-pix_fmt',
          'yuv420p',
        );
      } else if (wanted === 'vp9') {
        videoArgs.push(
          ...['-deadline', 'realtime', '-cpu-used', String(DUBBING_DEFAULTS.vp9CpuUsed), '-row-mt', '1'],
          ...['-b:v', '0', '-crf', String(DUBBING_DEFAULTS.vp9Crf), '-pix_fmt', 'yuv420p'],
        );
      } else {
        videoArgs.push('-pix_fmt', 'yuv420p');
      }
      videoArgs.push(
        '-vsync',
        request.fpsMode === 'cfr' ? 'cfr' : request.fpsMode === 'vfr' ? 'vfr' : 'passthrough',
      );
      if (request.fpsMode === 'cfr') videoArgs.push('-r', expressionNumber(fps));
    }
  }

  const sourceAudio = request.sourceInfo.codecs.audio;
  const audioCodec =
    request.keepSameFormat &&
    sourceAudio &&
    AUDIO_ENCODERS[sourceAudio] &&
    allowed.audio.includes(sourceAudio)
      ? sourceAudio
      : container === 'webm'
        ? 'opus'
        : 'aac';
  // Opus runs at 48 kHz only; FLAC and MP3 take the source's rate, AAC too.
  const sampleRate =
    audioCodec === 'opus' || !request.keepSameFormat || !request.sourceInfo.audioSampleRate
      ? DUBBING_DEFAULTS.sampleRate
      : request.sourceInfo.audioSampleRate;
  const channels = request.keepSameFormat && request.sourceInfo.audioChannels === 1 ? ['-ac', '1'] : [];
  const totalMs = Math.max(audioMs, videoMs);
  const audioInput = picture ? 1 : 0;
  const audioArgs = [
    '-map',
    `${audioInput}:a:0`,
    '-af',
    `aresample=${sampleRate},apad=whole_len=${Math.round((totalMs / 1000) * sampleRate)}`,
    '-c:a',
    AUDIO_ENCODERS[audioCodec] as string,
    ...(audioCodec === 'flac' ? [] : ['-b:a', `${DUBBING_DEFAULTS.audioBitrateKbps}k`]),
    '-ar',
    String(sampleRate),
    ...channels,
  ];
  await ffmpegRun(
    [
      ...QUIET,
      ...(request.videoPath ? ['-i', fileInput(request.videoPath)] : []),
      '-i',
      fileInput(request.audioPath),
      ...videoArgs,
      ...audioArgs,
      ...(container === 'mp4' ? ['-movflags', '+faststart'] : []),
      '-max_muxing_queue_size',
      '4096',
      '-f',
      MUXERS[container],
      fileInput(request.outPath),
    ],
    request.timeoutMs ?? DUBBING_DEFAULTS.encodeTimeoutMs,
  );
  const written = await probeMedia(request.outPath, { timeoutMs: DUBBING_DEFAULTS.probeTimeoutMs });
  return {
    path: request.outPath,
    container,
    videoCopied,
    videoCodec,
    audioCodec,
    durationMs: lengthMs(written),
  };
}

/** The soundtrack alone (`audio_url`): MP3 (LAME) or AAC in an M4A, both encoders of the npm ffmpeg. */
export async function encodeAudioFile(
  wavPath: string,
  outPath: string,
  format: 'mp3' | 'm4a',
  options: { bitrateKbps?: number; timeoutMs?: number } = {},
): Promise<{ path: string; durationMs: number }> {
  const bitrate =
    options.bitrateKbps ??
    (format === 'mp3' ? DUBBING_DEFAULTS.mp3BitrateKbps : DUBBING_DEFAULTS.audioBitrateKbps);
  await ffmpegRun(
    [
      ...QUIET,
      '-i',
      fileInput(wavPath),
      '-map',
      '0:a:0',
      '-c:a',
      format === 'mp3' ? 'libmp3lame' : 'aac',
      '-b:a',
      `${bitrate}k`,
      ...(format === 'm4a' ? ['-movflags', '+faststart', '-f', 'mp4'] : ['-f', 'mp3']),
      fileInput(outPath),
    ],
    options.timeoutMs ?? DUBBING_DEFAULTS.encodeTimeoutMs,
  );
  const info = await probeMedia(outPath, { timeoutMs: DUBBING_DEFAULTS.probeTimeoutMs });
  return { path: outPath, durationMs: lengthMs(info) };
}
