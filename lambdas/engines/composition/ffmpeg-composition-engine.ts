/**
 * The reference composition engine: the npm ffmpeg 4.1 static build, run as a child process (it is GPL;
 * see ffmpeg-binaries.ts), one ffmpeg run per video (see ffmpeg-arguments.ts for the graph).
 *
 * Steps: validate the request, probe every input file once (in parallel) so unreadable media fails early
 * with `invalid_media` naming the file, read still images' EXIF orientation (image-orientation.ts), write
 * the captions as an ASS script, run ffmpeg, probe the result.
 *
 * Captions are burned with libass (the `ass` filter): one filter for all cues, each line centred, lines
 * wider than the frame wrapped, outline and shadow drawn. The 2018 build's `drawtext` would need one
 * filter per cue line and can neither centre the lines of a block nor wrap them.
 * libass finds fonts through fontconfig, whose system configuration may be missing (a Lambda image) or
 * newer than this build understands: each run gets a private fontconfig file naming a folder that holds
 * only the caption font, so rendering never depends on the host's fonts.
 *
 * Caption font: the request's `captionStyle.font` (a brand kit's), else the `captionFontFile` option,
 * else `CAPTION_FONT_FILE` (a bundled build, where the npm package cannot be resolved), else DejaVu Sans
 * from `dejavu-fonts-ttf`.
 *
 * Files written in `workDir`: video.{mp4,webm}, video-captioned.{mp4,webm} (when a separate captioned
 * video is needed), thumbnail.jpg, preview.gif, and for burned captions captions.ass, fonts.conf and
 * caption-fonts/. A second composition in the same `workDir` overwrites them.
 */
import { constants } from 'node:fs';
import { access, copyFile, mkdir, rm, stat, symlink, writeFile } from 'node:fs/promises';
import { createRequire } from 'node:module';
import path from 'node:path';
import pLimit from 'p-limit';
import { mediaToolsConfig } from '../../core/config.js';
import { toAss } from './captions.js';
import {
  type ChunkedComposition,
  type ChunkJoin,
  type CompositionEngine,
  CompositionError,
  type CompositionRequest,
  type CompositionResult,
  compositionInputFiles,
  compositionOutputPaths,
  presenterSprites,
  validateCompositionRequest,
} from './composition-engine.js';
import {
  type CompositionPart,
  type CompositionPlan,
  type EncodingSettings,
  FILTER_GRAPH_FILE,
  ffmpegCompositionArgs,
  gopFrames,
  previewFilters,
  previewOutputs,
  sceneFrameCounts,
} from './ffmpeg-arguments.js';
import { compositionFailureOf, ensureExecutable, ffmpegPath, runProcess } from './ffmpeg-binaries.js';
import { imageOrientation } from './image-orientation.js';
import { fileInput, type MediaInfo, probeMedia } from './probe.js';

export const FFMPEG_ENGINE_NAME = 'ffmpeg';

export interface FfmpegCompositionEngineOptions {
  /** The ffmpeg run is killed after this long and the composition fails. @default 15 min */
  timeoutMs?: number;
  /** Each ffprobe run is killed after this long. @default 30 s */
  probeTimeoutMs?: number;
  /** Input files probed at once. @default 4 */
  probeConcurrency?: number;
  /**
   * x264 preset for mp4. Measured on this engine's 720p avatar videos (two encodes per video):
   * `superfast` takes about 20% less CPU than `veryfast` and, at the same CRF, looks as good or better
   * (higher SSIM) in larger files, since it skips macroblock-tree rate control. @default 'superfast'
   */
  x264Preset?: string;
  /** x264 constant rate factor (lower is better and bigger; 18 to 28 is sensible). @default 23 */
  x264Crf?: number;
  /** x264 tune, e.g. `stillimage` (measured 15% slower here for no visible gain). @default none */
  x264Tune?: string;
  /** libvpx-vp9 speed in realtime mode, 5 (better) to 8 (faster). @default 6 */
  vp9CpuUsed?: number;
  /** libvpx-vp9 constant quality (lower is better, 15 to 40 is sensible). @default 32 */
  vp9Crf?: number;
  /** AAC (mp4) or Opus (webm) bitrate. @default 128 */
  audioBitrateKbps?: number;
  /** Threads per video encoder; 0 lets the encoder choose from the CPU count. @default 0 */
  threads?: number;
  /** The thumbnail shows the frame at this time (the last frame of a shorter video). @default 1000 */
  thumbnailAtMs?: number;
  /** Thumbnails of wider videos are scaled down to this width. @default 1280 */
  thumbnailMaxWidth?: number;
  /** GIF preview width in pixels (at most the video's). @default 320 */
  gifWidth?: number;
  /** GIF preview frame rate. @default 10 */
  gifFps?: number;
  /** The GIF preview shows the video's first this-many milliseconds. @default 3000 */
  gifDurationMs?: number;
  /**
   * Presenter motion amplitude as a fraction of the frame height (about 6 pixels at 720p); 0 keeps the
   * presenter still (tests that compare frames). @default 0.008
   */
  motionAmplitude?: number;
  /** TrueType/OpenType font for burned captions. @default CAPTION_FONT_FILE, else DejaVu Sans from npm */
  captionFontFile?: string;
  /**
   * Seconds between mp4 key frames (fixed GOPs; a chunked render cuts on their multiples). 2 s is what
   * streaming players seek by, and costs about nothing over x264's own placement on these videos.
   * @default 2
   */
  gopSeconds?: number;
}

/** One ffmpeg run: what `compose` executes, for callers that must run or measure exactly that command. */
export interface FfmpegInvocation {
  command: string;
  args: string[];
  /** The run's working directory (the request's `workDir`): filter file names are relative to it. */
  cwd: string;
  /** The run's whole environment. */
  env: NodeJS.ProcessEnv;
  /** The result's file paths (absolute). */
  outputs: Pick<CompositionResult, 'videoPath' | 'captionedVideoPath' | 'thumbnailPath' | 'gifPath'>;
}

export interface FfmpegCompositionEngine extends CompositionEngine {
  /**
   * Validates and probes the request and writes its caption files, then returns the ffmpeg run that
   * `compose` would execute, without running it.
   */
  prepare(request: CompositionRequest, part?: CompositionPart): Promise<FfmpegInvocation>;
  readonly chunked: ChunkedComposition;
}

const require = createRequire(import.meta.url);

function defaultCaptionFont(): string {
  const configured = mediaToolsConfig().captionFontFile;
  if (configured) return configured;
  try {
    return require.resolve('dejavu-fonts-ttf/ttf/DejaVuSans.ttf');
  } catch (error) {
    throw new CompositionError(
      'engine_unavailable',
      'no caption font: set CAPTION_FONT_FILE or install dejavu-fonts-ttf',
      { cause: error },
    );
  }
}

function xmlText(value: string): string {
  return value.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

class FfmpegEngine implements FfmpegCompositionEngine {
  readonly name = FFMPEG_ENGINE_NAME;
  private readonly encoding: EncodingSettings;
  private readonly timeoutMs: number;
  private readonly probeTimeoutMs: number;
  private readonly probeConcurrency: number;

  constructor(private readonly options: FfmpegCompositionEngineOptions = {}) {
    this.timeoutMs = options.timeoutMs ?? 15 * 60_000;
    this.probeTimeoutMs = options.probeTimeoutMs ?? 30_000;
    this.probeConcurrency = Math.max(1, options.probeConcurrency ?? 4);
    this.encoding = {
      x264Preset: options.x264Preset ?? 'superfast',
      x264Crf: options.x264Crf ?? 23,
      x264Tune: options.x264Tune,
      vp9CpuUsed: options.vp9CpuUsed ?? 6,
      vp9Crf: options.vp9Crf ?? 32,
      audioBitrateKbps: options.audioBitrateKbps ?? 128,
      threads: options.threads ?? 0,
      thumbnailAtMs: options.thumbnailAtMs ?? 1000,
      thumbnailMaxWidth: options.thumbnailMaxWidth ?? 1280,
      gifWidth: options.gifWidth ?? 320,
      gifFps: options.gifFps ?? 10,
      gifDurationMs: options.gifDurationMs ?? 3000,
      motionAmplitude: options.motionAmplitude ?? 0.008,
      gopSeconds: options.gopSeconds ?? 2,
    };
  }

  async compose(request: CompositionRequest): Promise<CompositionResult> {
    const invocation = await this.prepare(request);
    await this.run(invocation);
    return this.written(invocation.outputs, request);
  }

  readonly chunked: ChunkedComposition = {
    gopFrames: (fps) => gopFrames(this.encoding, fps),
    composeSound: async (request) => {
      const invocation = await this.prepare(request, { kind: 'sound' });
      await this.run(invocation);
      return { soundPath: invocation.outputs.videoPath };
    },
    composePictures: async (request, frames) => {
      const invocation = await this.prepare(request, { kind: 'pictures', ...frames });
      await this.run(invocation);
      const { videoPath, captionedVideoPath } = invocation.outputs;
      return { videoPath, captionedVideoPath: captionedVideoPath === videoPath ? null : captionedVideoPath };
    },
    joinChunks: (join) => this.joinChunks(join),
  };

  /**
   * The chunks joined by the concat demuxer and muxed with the sound, all streams copied (each chunk
   * starts on a key frame with the same encoder settings, so the joined stream is one valid H.264
   * stream); the thumbnail and GIF decoded from the joined video's first seconds.
   */
  private async joinChunks(join: ChunkJoin): Promise<CompositionResult> {
    const workDir = path.resolve(join.workDir);
    const outputs = compositionOutputPaths(workDir, join.format);
    const command = ffmpegPath();
    await ensureExecutable(command);
    const quiet = ['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'error', '-y'];
    const concat = async (files: string[], name: string, output: string) => {
      const list = path.join(workDir, `${name}.txt`);
      // The concat demuxer's list: one `file` line per chunk, quotes escaped as it reads them.
      await writeFile(list, files.map((file) => `file '${file.replaceAll("'", "'\\''")}'\n`).join(''));
      await this.run({
        command,
        cwd: workDir,
        env: process.env,
        args: [
          ...quiet,
          ...['-f', 'concat', '-safe', '0', '-i', fileInput(list), '-i', fileInput(join.soundPath)],
          ...['-map', '0:v:0', '-map', '1:a:0', '-c', 'copy', '-movflags', '+faststart'],
          fileInput(output),
        ],
      });
    };
    const captioned = join.chunks.every((chunk) => chunk.captionedVideoPath !== null);
    await concat(
      join.chunks.map((chunk) => chunk.videoPath),
      'chunks',
      outputs.videoPath,
    );
    if (captioned)
      await concat(
        join.chunks.map((chunk) => chunk.captionedVideoPath as string),
        'captioned-chunks',
        outputs.captionedVideoPath,
      );
    else outputs.captionedVideoPath = outputs.videoPath;
    const joined = await probeMedia(outputs.videoPath, { timeoutMs: this.probeTimeoutMs });
    const totalFrames = Math.round(joined.durationSeconds * join.fps);
    const filters = previewFilters({
      totalFrames,
      width: join.width,
      fps: join.fps,
      encoding: this.encoding,
      from: { thumb: 'vthumb', gif: 'vgif' },
    });
    // Only the first seconds are decoded: the thumbnail's frame and the GIF's.
    const readSeconds = Math.max(this.encoding.thumbnailAtMs, this.encoding.gifDurationMs) / 1000 + 1;
    await writeFile(
      path.join(workDir, FILTER_GRAPH_FILE),
      ['[0:v]split=2[vthumb][vgif]', ...filters].join(';\n'),
    );
    await this.run({
      command,
      cwd: workDir,
      env: process.env,
      args: [
        ...quiet,
        ...['-t', String(readSeconds), '-i', fileInput(outputs.videoPath)],
        ...['-filter_complex_script', FILTER_GRAPH_FILE],
        ...previewOutputs({ thumbnail: outputs.thumbnailPath, gif: outputs.gifPath }),
      ],
    });
    return this.written(outputs, join);
  }

  private async run(invocation: Pick<FfmpegInvocation, 'command' | 'args' | 'cwd' | 'env'>): Promise<void> {
    try {
      await runProcess(invocation.command, invocation.args, {
        cwd: invocation.cwd,
        env: invocation.env,
        timeoutMs: this.timeoutMs,
      });
    } catch (error) {
      throw compositionFailureOf(error);
    }
  }

  /** The result of a render whose files are `outputs`, checked and probed. */
  private async written(
    outputs: FfmpegInvocation['outputs'],
    request: { width: number; height: number },
  ): Promise<CompositionResult> {
    let written: MediaInfo;
    try {
      written = await probeMedia(outputs.videoPath, { timeoutMs: this.probeTimeoutMs });
      await Promise.all([stat(outputs.thumbnailPath), stat(outputs.gifPath)]);
    } catch (error) {
      throw new CompositionError(
        'composition_failed',
        `ffmpeg wrote no usable output: ${(error as Error).message}`,
        {
          cause: error,
        },
      );
    }
    const video = written.streams.find((stream) => stream.type === 'video');
    return {
      ...outputs,
      durationSeconds: written.durationSeconds,
      width: video?.width ?? request.width,
      height: video?.height ?? request.height,
    };
  }

  async prepare(request: CompositionRequest, part?: CompositionPart): Promise<FfmpegInvocation> {
    const { fps } = validateCompositionRequest(request);
    const workDir = path.resolve(request.workDir);
    try {
      await access(workDir, constants.W_OK);
      if (!(await stat(workDir)).isDirectory()) throw new Error('not a directory');
    } catch (error) {
      throw new CompositionError('composition_failed', `workDir ${workDir} is not a writable directory`, {
        cause: error,
      });
    }
    const command = ffmpegPath();
    await ensureExecutable(command);

    const media = await this.probeInputs(request);
    const orientations = await this.stillOrientations(request);
    const frames = sceneFrameCounts(
      request.scenes.map((scene) => scene.durationMs),
      fps,
    );
    let stereo = false;
    const scenes = request.scenes.map((scene, index) => {
      const what = `scene ${index + 1}`;
      const background = scene.background;
      let backgroundInfo: MediaInfo | undefined;
      let backgroundAudio = false;
      if (background.type !== 'color') {
        backgroundInfo = media.get(background.path) as MediaInfo;
        const pictures = backgroundInfo.streams.some(
          (stream) => stream.type === 'video' && !stream.attachedPicture,
        );
        const still = backgroundInfo.streams.some((stream) => stream.type === 'video');
        if (background.type === 'video' ? !pictures : !still) {
          throw new CompositionError('invalid_media', `${what} background ${background.path} has no picture`);
        }
        if (background.type === 'video' && background.volume > 0) {
          const audio = backgroundInfo.streams.find((stream) => stream.type === 'audio');
          backgroundAudio = audio !== undefined;
          if ((audio?.channels ?? 1) > 1) stereo = true;
        }
      }
      let avatarSize: { width: number; height: number } | undefined;
      const avatarOrientation = scene.avatar ? (orientations.get(scene.avatar.imagePath) ?? 1) : 1;
      if (scene.avatar) {
        const avatar = media.get(scene.avatar.imagePath) as MediaInfo;
        const picture = avatar.streams.find(
          (stream) => stream.type === 'video' && stream.width && stream.height,
        );
        if (!picture?.width || !picture.height) {
          throw new CompositionError(
            'invalid_media',
            `${what} avatar ${scene.avatar.imagePath} is not an image`,
          );
        }
        // EXIF orientations 5 to 8 turn the picture a quarter: it is displayed on its side.
        avatarSize =
          avatarOrientation >= 5
            ? { width: picture.height, height: picture.width }
            : { width: picture.width, height: picture.height };
        if (scene.avatar.videoPath !== undefined) {
          // Footage: its own frames' size is what the sprites' boxes and the fit refer to.
          const footage = (media.get(scene.avatar.videoPath) as MediaInfo).streams.find(
            (stream) => stream.type === 'video' && !stream.attachedPicture && stream.width && stream.height,
          );
          if (!footage?.width || !footage.height) {
            throw new CompositionError(
              'invalid_media',
              `${what} avatar video ${scene.avatar.videoPath} has no picture`,
            );
          }
          avatarSize = { width: footage.width, height: footage.height };
        }
        for (const sprite of presenterSprites(scene)) {
          const spriteInfo = media.get(sprite.imagePath) as MediaInfo;
          if (!spriteInfo.streams.some((stream) => stream.type === 'video')) {
            throw new CompositionError(
              'invalid_media',
              `${what} avatar sprite ${sprite.imagePath} is not an image`,
            );
          }
          const { x, y, width, height } = sprite.box;
          if (x + width > avatarSize.width || y + height > avatarSize.height) {
            throw new CompositionError(
              'invalid_media',
              `${what} avatar sprite ${sprite.imagePath} lies outside the ${avatarSize.width}x${avatarSize.height} portrait`,
            );
          }
        }
      }
      if (scene.narration) {
        const narration = media.get(scene.narration.path) as MediaInfo;
        const audio = narration.streams.find((stream) => stream.type === 'audio');
        if (!audio) {
          throw new CompositionError(
            'invalid_media',
            `${what} narration ${scene.narration.path} has no audio`,
          );
        }
        if (scene.narration.volume > 0 && (audio.channels ?? 1) > 1) stereo = true;
      }
      return {
        scene,
        frames: frames[index] as number,
        background: backgroundInfo,
        backgroundAudio,
        backgroundOrientation: background.type === 'image' ? (orientations.get(background.path) ?? 1) : 1,
        avatarOrientation,
        ...(avatarSize ? { avatarSize } : {}),
      };
    });

    const outputs = compositionOutputPaths(workDir, request.format);
    // The sound of a chunked render is the video's audio alone, in the container the join reads.
    if (part?.kind === 'sound') outputs.videoPath = path.join(workDir, 'sound.m4a');
    // The child inherits this process's environment (PATH, locale, temp dir: not configuration),
    // plus its own fontconfig below.
    const env: NodeJS.ProcessEnv = { ...process.env };
    let captions: CompositionPlan['captions'];
    const cues = request.captions.filter((cue) => cue.text.trim().length > 0);
    if (cues.length > 0) {
      captions = { assFile: 'captions.ass', fontsDir: 'caption-fonts' };
      const style = request.captionStyle;
      env.FONTCONFIG_FILE = await this.writeFontSetup(workDir, captions.fontsDir, style?.font?.path);
      await writeFile(
        path.join(workDir, captions.assFile),
        toAss(cues, {
          width: request.width,
          height: request.height,
          ...style,
          fontName: style?.font?.family ?? 'DejaVu Sans',
        }),
      );
    }
    if (!captions || request.burnCaptions) outputs.captionedVideoPath = outputs.videoPath;

    const plan: CompositionPlan = {
      width: request.width,
      height: request.height,
      fps,
      format: request.format,
      scenes,
      audioChannels: stereo ? 2 : 1,
      captions,
      burnCaptions: request.burnCaptions,
      ...(request.watermark ? { watermark: request.watermark } : {}),
      ...(request.logo ? { logo: request.logo } : {}),
      ...(request.music ? { music: request.music } : {}),
      ...(request.transition ? { transition: request.transition } : {}),
      outputs: {
        video: outputs.videoPath,
        captionedVideo: outputs.captionedVideoPath,
        thumbnail: outputs.thumbnailPath,
        gif: outputs.gifPath,
      },
      encoding: this.encoding,
      ...(part ? { part } : {}),
    };
    const { args, filterGraph } = ffmpegCompositionArgs(plan);
    await writeFile(path.join(workDir, FILTER_GRAPH_FILE), filterGraph);
    return { command, args, cwd: workDir, env, outputs };
  }

  /** Probes each distinct input file once; the first unreadable one fails the request. */
  private async probeInputs(request: CompositionRequest): Promise<Map<string, MediaInfo>> {
    const files = compositionInputFiles(request);
    const infos = await pLimit(this.probeConcurrency).map(files, (file) =>
      probeMedia(file, { timeoutMs: this.probeTimeoutMs }),
    );
    return new Map(files.map((file, index) => [file, infos[index] as MediaInfo]));
  }

  /** EXIF orientations of the still images (backgrounds and portraits), read once per file. */
  private async stillOrientations(request: CompositionRequest): Promise<Map<string, number>> {
    const files = new Set<string>();
    for (const scene of request.scenes) {
      if (scene.background.type === 'image') files.add(scene.background.path);
      if (scene.avatar) files.add(scene.avatar.imagePath);
    }
    const list = [...files];
    const orientations = await Promise.all(list.map((file) => imageOrientation(file)));
    return new Map(list.map((file, index) => [file, orientations[index] as number]));
  }

  /**
   * A fonts folder holding only the caption font (the request's, else the engine's), and a fontconfig
   * file naming only that folder.
   */
  private async writeFontSetup(workDir: string, fontsDir: string, requested?: string): Promise<string> {
    const font = requested ?? this.options.captionFontFile ?? defaultCaptionFont();
    try {
      await access(font, constants.R_OK);
    } catch (error) {
      throw new CompositionError('engine_unavailable', `the caption font ${font} cannot be read`, {
        cause: error,
      });
    }
    const folder = path.join(workDir, fontsDir);
    await rm(folder, { recursive: true, force: true });
    await mkdir(folder);
    const target = path.join(folder, path.basename(font));
    try {
      await symlink(path.resolve(font), target);
    } catch {
      // Some file systems have no symbolic links.
      await copyFile(font, target);
    }
    const configFile = path.join(workDir, 'fonts.conf');
    await writeFile(
      configFile,
      `<?xml version="1.0"?>\n<!DOCTYPE fontconfig SYSTEM "fonts.dtd">\n<fontconfig>\n  <dir>${xmlText(folder)}</dir>\n</fontconfig>\n`,
    );
    return configFile;
  }
}

/** A new ffmpeg composition engine; it holds no resources between compositions. */
export function createFfmpegCompositionEngine(
  options?: FfmpegCompositionEngineOptions,
): FfmpegCompositionEngine {
  return new FfmpegEngine(options);
}
