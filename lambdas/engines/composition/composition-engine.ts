/**
 * The video composition capability (docs/architecture.md, "Media engines"): one interface, interchangeable engines
 * (the reference ffmpeg engine from npm; on AWS the same code in a container Lambda). Job code only sees
 * this module and the factory of the engine it configured.
 *
 * A composition is a list of scenes played in order and joined without gaps, by cuts or by one transition
 * (`SceneTransition`). Each scene has a background
 * (a colour, a still image or a video clip), optionally a presenter (a portrait with gentle motion, or
 * looped footage of a person, and, given its sprites, lips that follow the speech and blinks) and optionally narration audio starting at
 * the scene's start. Captions run on the whole video's
 * timeline. Every output file is written inside the request's `workDir`.
 *
 * Units: times in integer milliseconds unless a name says otherwise; volumes are linear gains from 0
 * (silent) to 1 (the file's own level); colours are `#rrggbb`.
 */
import path from 'node:path';
import { JobFailure } from '../../core/errors.js';
import type { Viseme, VisemeCue } from '../speech/visemes.js';
import type { PixelBox } from './presenter-animation.js';

/** Most scenes one composition takes; callers split longer videos. */
export const MAX_SCENES = 50;
/** Smallest and largest frame side in pixels (3840x2160 and 2160x3840 fit). */
export const MIN_FRAME_SIDE = 16;
export const MAX_FRAME_SIDE = 4096;
/** Largest frame rate; frame rates are whole numbers of frames per second. */
export const MAX_FPS = 60;
export const DEFAULT_FPS = 25;

export interface CompositionEngine {
  /** Engine name recorded on jobs, e.g. `ffmpeg`. */
  readonly name: string;
  compose(request: CompositionRequest): Promise<CompositionResult>;
  /** The same composition rendered in parts, where the engine can (mp4 only). @default none */
  readonly chunked?: ChunkedComposition;
}

/**
 * A composition rendered in parts that may run on different machines: the sound of the whole timeline
 * once, the pictures of each chunk of frames (each chunk's frames are exactly the single pass's, each
 * chunk encoded with the single pass's settings from a key frame), then joined without re-encoding.
 */
export interface ChunkedComposition {
  /** Frames of one GOP at `fps`: chunks start on multiples of it. */
  gopFrames(fps: number): number;
  /** The whole timeline's sound, encoded as the video's audio (`sound.m4a` in `workDir`). */
  composeSound(request: CompositionRequest): Promise<{ soundPath: string }>;
  /**
   * The pictures of the frames `[startFrame, endFrame)` of the joined video, without sound, into
   * `workDir` (`video.mp4`, and `video-captioned.mp4` when a separate captioned video is made).
   */
  composePictures(
    request: CompositionRequest,
    frames: { startFrame: number; endFrame: number },
  ): Promise<{ videoPath: string; captionedVideoPath: string | null }>;
  /** The chunks, in order, joined (no re-encode) with the sound, plus the thumbnail and GIF. */
  joinChunks(join: ChunkJoin): Promise<CompositionResult>;
}

export interface ChunkJoin {
  /** Scratch directory (exists, writable): the outputs are written in it, as `compose` names them. */
  workDir: string;
  format: 'mp4';
  width: number;
  height: number;
  fps: number;
  /** Each chunk's picture files, in the video's order. */
  chunks: { videoPath: string; captionedVideoPath: string | null }[];
  soundPath: string;
}

export interface CompositionRequest {
  /** Scratch directory (exists, writable); every output is written inside it. */
  workDir: string;
  /** Frame width in pixels: even, `MIN_FRAME_SIDE` to `MAX_FRAME_SIDE`. */
  width: number;
  /** Frame height in pixels: even, `MIN_FRAME_SIDE` to `MAX_FRAME_SIDE`. */
  height: number;
  /** Frames per second, a whole number from 1 to `MAX_FPS`. @default 25 */
  fps?: number;
  /**
   * `mp4`: H.264 (yuv420p) + AAC, moov atom first (`+faststart`) so playback starts before the download
   * ends. `webm`: VP9 + Opus.
   */
  format: 'mp4' | 'webm';
  /** 1 to `MAX_SCENES` scenes, played in order and joined seamlessly. */
  scenes: CompositionScene[];
  /** Captions on the whole video's timeline (ms from the video's start); cues past the end are cut. */
  captions: CaptionCue[];
  /**
   * `true`: the main video has burned captions and `captionedVideoPath === videoPath` (one encode).
   * `false`: the main video is clean and a second, captioned video is written too.
   */
  burnCaptions: boolean;
  /** An image laid over every frame of every output (a brand mark). @default none */
  watermark?: Watermark;
  /**
   * A second mark (a brand kit's logo), laid like `watermark` and after it: a video may carry both,
   * in different corners. @default none
   */
  logo?: Watermark;
  /**
   * Background music under the whole video (any audio ffmpeg reads): looped from its start to the
   * video's end, mixed under the scenes' sound at `volume` (0 to 1, a linear gain; music beds sit
   * around 0.1 to 0.2 under speech), faded in and out over a second. @default none
   */
  music?: { path: string; volume: number };
  /** How burned captions look (a brand kit's font and colours). @default see `CaptionStyle` */
  captionStyle?: CaptionStyle;
  /**
   * How each scene gives way to the next: centred on their boundary, without moving or shortening
   * anything (transition-timeline.ts); a boundary whose scenes are too short for it cuts. @default cuts
   */
  transition?: SceneTransition;
}

/**
 * The transitions (named as ffmpeg's `xfade` names them, which this ffmpeg build predates; the graph
 * draws them with masks, ffmpeg-transitions.ts):
 * - `cut`: none;
 * - `fade`: a cross-dissolve, every pixel mixed from both scenes;
 * - `dissolve`: pixels (2x2 blocks) switch to the next scene one by one, in a random order;
 * - `fadeblack` / `fadewhite`: the scene fades to black (white), then the next fades in from it;
 * - `wipeleft`: an edge moves from right to left, the next scene behind it;
 * - `slideleft`: the next scene pushes the scene out to the left;
 * - `circleopen`: the next scene shows through a circle growing from the centre.
 */
export const TRANSITION_KINDS = {
  cut: 'cut',
  fade: 'fade',
  dissolve: 'dissolve',
  fadeblack: 'fadeblack',
  fadewhite: 'fadewhite',
  wipeleft: 'wipeleft',
  slideleft: 'slideleft',
  circleopen: 'circleopen',
} as const;
export type TransitionKind = (typeof TRANSITION_KINDS)[keyof typeof TRANSITION_KINDS];

/** Longest transition a request may ask for. */
export const MAX_TRANSITION_MS = 5000;

export interface SceneTransition {
  kind: TransitionKind;
  /** Whole milliseconds, 0 to `MAX_TRANSITION_MS` (under 2 frames, it cuts). */
  durationMs: number;
}

/**
 * The look of burned captions. Without one: the engine's caption font (DejaVu Sans), white text with a
 * dark outline and a soft shadow.
 */
export interface CaptionStyle {
  /**
   * A TrueType or OpenType file and the family name its `name` table gives (what the caption script
   * asks the renderer for). Both or neither. @default the engine's caption font
   */
  font?: { path: string; family: string };
  /** `#rrggbb` of the text. @default white */
  textColor?: string;
  /**
   * `#rrggbb` of an opaque box behind each caption line, instead of the outline and shadow (readable on
   * any picture). @default none
   */
  boxColor?: string;
  /** `#rrggbb` of the outline around the letters. @default black */
  outlineColor?: string;
  /** Outline width as a fraction of the font size, 0 to 0.3. @default 0.08 */
  outlineWidth?: number;
  /** Shadow offset as a fraction of the font size, 0 to 0.3. @default 0.04 */
  shadowDepth?: number;
  bold?: boolean;
  italic?: boolean;
  /** Captions in capitals. */
  uppercase?: boolean;
  /** Font size relative to the default (5 % of the frame's height), 0.5 to 3. @default 1 */
  sizeScale?: number;
  /** Where the lines sit: on the bottom margin, at the lower third, or in the middle. @default 'bottom' */
  position?: CaptionPosition;
}

export const CAPTION_POSITIONS = ['bottom', 'lower_third', 'middle'] as const;
export type CaptionPosition = (typeof CAPTION_POSITIONS)[number];

export interface Watermark {
  /** PNG (transparency kept) or JPEG. */
  imagePath: string;
  /** 0 (invisible) to 1 (opaque). */
  opacity: number;
  /** Multiplier of the image's own size: 1 = native pixels. */
  scale: number;
  /** Corner it is anchored to, a small margin (3 % of the shorter side) in from the edges. */
  position: 'top_left' | 'top_right' | 'bottom_left' | 'bottom_right';
  /** Shifts as fractions of the frame's width and height (0.05 = 5 % right or down). */
  offsetX: number;
  offsetY: number;
}

export type SceneBackground =
  | {
      type: 'color';
      /** `#rrggbb`. */
      color: string;
      /**
       * Fully transparent instead (an alpha channel: `webm` only). `color` is then only what the
       * thumbnail and GIF, which have no alpha, show behind the presenter. @default false
       */
      transparent?: boolean;
    }
  | {
      type: 'image';
      /** Any still image ffmpeg reads (PNG, JPEG, WebP...); of an animation, the first frame is used. */
      path: string;
      /** `cover` fills the frame and crops the overflow; `contain` shows all of it on black bars. */
      fit: 'cover' | 'contain';
    }
  | {
      type: 'video';
      path: string;
      /**
       * How a clip whose length differs from the scene's fills it:
       * - `freeze`: plays once from its start; if shorter, its last frame stays (and its audio stops).
       * - `loop`: plays again from its start until the scene ends.
       * - `fit_to_scene`: plays exactly once, sped up or slowed down (picture and sound) to the scene.
       * A clip longer than its scene is cut at the scene's end in `freeze` and `loop`.
       */
      mode: 'freeze' | 'loop' | 'fit_to_scene';
      /** Gain of the clip's own audio, 0 (muted) to 1. Clips without audio are silent. */
      volume: number;
      /** As for images. @default 'cover' */
      fit?: 'cover' | 'contain';
    };

export interface CompositionScene {
  /** Length of the scene; positive and at least one frame long. */
  durationMs: number;
  background: SceneBackground;
  /**
   * The presenter: a portrait (PNG with transparency, or JPEG) shown over the background with gentle
   * motion (a slow sway and a breathing-like rise and fall) and, with `animation`, lips that move with
   * the speech and eyes that blink.
   * - `contain`: the whole portrait, as large as fits, bottom-centred (head-and-shoulders portraits are
   *   cut at the bottom edge, so they sit on the frame's bottom).
   * - `cover`: the portrait fills the frame (cropped), hiding the background.
   *
   * Footage presenters (a digital twin, `engines/vision/twin-footage.ts`): with `videoPath`, the
   * presenter is that video (no audio used), read looped for the whole scene (`-stream_loop -1`, so it
   * should loop seamlessly), every frame scaled and placed by the same `portraitFit` as a portrait but
   * without the sway (the footage moves by itself). `imagePath` is then the footage's first frame (the
   * reference its sprites were made on): checked and probed, not shown. Sprite boxes are in the
   * footage's pixels and placed exactly as on a portrait; the `rest` mouth, when given, is pasted on
   * every frame no other mouth is (on a portrait nothing is pasted then, since `rest` is the portrait's
   * own mouth; on footage it hides the recorded mouth, which moves).
   */
  avatar?: {
    imagePath: string;
    videoPath?: string;
    fit: 'contain' | 'cover';
    animation?: PresenterAnimation;
    /**
     * Footage only: where the face is on each of the footage's frames relative to the reference frame
     * (footage pixels, `offsets[k]` for frame `k` at `fps`, repeating as the footage loops); the
     * sprites move with it (scaled, snapped to even pixels). Without it they stay put.
     */
    track?: FootageTrack;
  };
  /**
   * Speech over the scene (WAV or any audio ffmpeg reads), starting at the scene's start; cut at the
   * scene's end. `volume` 0 to 1.
   */
  narration?: { path: string; volume: number };
}

/**
 * What makes a portrait talk: small transparent pictures of its moving parts, each drawn for exactly
 * its place on the portrait, and when to show them. Each frame shows the mouth of the viseme the track
 * names for it (presenter-animation.ts, `frameVisemes`); `rest` is the portrait's own mouth, so a
 * viseme without a sprite shows the portrait as it is. The blink sprite (both eyes shut) is shown for
 * ~150 ms every 2 to 6 s, at moments drawn from `blinkSeed`.
 */
export interface PresenterAnimation {
  /** PNG sprites with transparency, by viseme; boxes in the pixels of the portrait as displayed (upright). */
  mouths: Partial<Record<Viseme, PresenterSprite>>;
  blink?: PresenterSprite;
  /** The scene's mouth shapes, ms from the scene's start (visemes.ts, normalised); `rest` after its end. */
  visemes: readonly VisemeCue[];
  /** Seed of the blink moments: the same seed blinks at the same frames. */
  blinkSeed: number;
}

export interface FootageTrack {
  fps: number;
  offsets: readonly { x: number; y: number }[];
}

export interface PresenterSprite {
  imagePath: string;
  /** Where the sprite goes on the upright portrait, in its pixels; the PNG is this size. */
  box: PixelBox;
}

export interface CaptionCue {
  startMs: number;
  endMs: number;
  /** The cue's text; `\n` separates its lines. */
  text: string;
}

export interface CompositionResult {
  /** The main video; captions are burned in only when the request's `burnCaptions` is true. */
  videoPath: string;
  /**
   * The video with captions always burned in. The same file as `videoPath` when `burnCaptions` is true,
   * or when there are no captions (the two would be identical).
   */
  captionedVideoPath: string;
  /** JPEG of one frame of the main video, full size or scaled down to at most 1280 pixels wide. */
  thumbnailPath: string;
  /** Animated GIF preview of the main video's first seconds, small (about 320 pixels wide, 10 fps). */
  gifPath: string;
  /** Length of the written video, from ffprobe. */
  durationSeconds: number;
  width: number;
  height: number;
}

/**
 * Why a composition could not be made; job code copies it to the job's `failure_code`.
 * - `invalid_media`: the caller's fault: an input file is missing or unreadable, lacks the stream it is
 *   used for (narration without audio, background clip without pictures), or the request describes a
 *   video that cannot be made (odd or out-of-range size, no scenes, bad colour, volume out of range).
 * - `engine_unavailable`: the engine cannot run here (ffmpeg, ffprobe or the caption font is missing or
 *   cannot be made executable).
 * - `composition_failed`: the engine ran and failed or timed out on valid-looking input.
 */
export type CompositionFailureCode = 'invalid_media' | 'engine_unavailable' | 'composition_failed';

export class CompositionError extends JobFailure<CompositionFailureCode> {}

export function isCompositionError(error: unknown): error is CompositionError {
  return error instanceof CompositionError;
}

const COLOR_PATTERN = /^#[0-9a-fA-F]{6}$/;

function invalid(message: string): CompositionError {
  return new CompositionError('invalid_media', message);
}

function isNumberIn(value: unknown, min: number, max: number): value is number {
  return typeof value === 'number' && Number.isFinite(value) && value >= min && value <= max;
}

function checkVolume(value: unknown, what: string): void {
  if (!isNumberIn(value, 0, 1)) throw invalid(`${what} volume must be a number from 0 to 1`);
}

function checkPath(value: unknown, what: string): void {
  if (typeof value !== 'string' || value.length === 0) throw invalid(`${what} path is missing`);
}

/** Every sprite of an animation: its mouths, then its blink. */
export function animationSprites(animation: PresenterAnimation): PresenterSprite[] {
  const sprites = Object.values(animation.mouths).filter((sprite) => sprite !== undefined);
  return animation.blink ? [...sprites, animation.blink] : sprites;
}

/** Every sprite of a scene's presenter (none without an animation). */
export function presenterSprites(scene: CompositionScene): PresenterSprite[] {
  return scene.avatar?.animation ? animationSprites(scene.avatar.animation) : [];
}

/** Where every engine writes a composition's files inside its `workDir`. */
export function compositionOutputPaths(workDir: string, format: CompositionRequest['format']) {
  return {
    videoPath: path.join(workDir, `video.${format}`),
    captionedVideoPath: path.join(workDir, `video-captioned.${format}`),
    thumbnailPath: path.join(workDir, 'thumbnail.jpg'),
    gifPath: path.join(workDir, 'preview.gif'),
  };
}

/** The distinct input files of a request's scenes (backgrounds, portraits, sprites, narrations) and its logo, for engines to probe. */
export function compositionInputFiles(request: CompositionRequest): string[] {
  const files = new Set<string>();
  for (const scene of request.scenes) {
    if (scene.background.type !== 'color') files.add(scene.background.path);
    if (scene.avatar) files.add(scene.avatar.imagePath);
    if (scene.avatar?.videoPath) files.add(scene.avatar.videoPath);
    for (const sprite of presenterSprites(scene)) files.add(sprite.imagePath);
    if (scene.narration) files.add(scene.narration.path);
  }
  if (request.logo) files.add(request.logo.imagePath);
  if (request.music) files.add(request.music.path);
  return [...files];
}

function checkAnimation(animation: PresenterAnimation, what: string): void {
  if (!Array.isArray(animation.visemes)) throw invalid(`${what} avatar animation visemes must be a list`);
  if (typeof animation.mouths !== 'object' || animation.mouths === null)
    throw invalid(`${what} avatar animation mouths must be an object of sprites by viseme`);
  if (!Number.isInteger(animation.blinkSeed))
    throw invalid(`${what} avatar animation blinkSeed must be an integer`);
  let previousEnd = 0;
  for (const cue of animation.visemes) {
    if (
      !Number.isInteger(cue.startMs) ||
      !Number.isInteger(cue.endMs) ||
      cue.startMs < previousEnd ||
      cue.endMs <= cue.startMs
    )
      throw invalid(`${what} avatar visemes must be ordered, non-overlapping cues of whole milliseconds`);
    previousEnd = cue.endMs;
  }
  for (const sprite of animationSprites(animation)) {
    checkPath(sprite.imagePath, `${what} avatar sprite`);
    const { x, y, width, height } = sprite.box ?? {};
    if (
      ![x, y].every((value) => Number.isInteger(value) && (value as number) >= 0) ||
      ![width, height].every((value) => Number.isInteger(value) && (value as number) >= 1)
    )
      throw invalid(`${what} avatar sprite boxes must be whole pixels inside the portrait`);
  }
}

/**
 * Checks the request's shape and ranges the same way for every engine (not the files: engines probe
 * them). Returns the frame rate to use.
 */
export function validateCompositionRequest(request: CompositionRequest): { fps: number } {
  if (typeof request.workDir !== 'string' || request.workDir.length === 0) {
    throw invalid('workDir is missing');
  }
  for (const side of ['width', 'height'] as const) {
    const value = request[side];
    if (!Number.isInteger(value) || value % 2 !== 0 || value < MIN_FRAME_SIDE || value > MAX_FRAME_SIDE) {
      throw invalid(`${side} must be an even whole number from ${MIN_FRAME_SIDE} to ${MAX_FRAME_SIDE}`);
    }
  }
  const fps = request.fps ?? DEFAULT_FPS;
  if (!Number.isInteger(fps) || fps < 1 || fps > MAX_FPS) {
    throw invalid(`fps must be a whole number from 1 to ${MAX_FPS}`);
  }
  if (request.format !== 'mp4' && request.format !== 'webm') throw invalid('format must be mp4 or webm');
  if (!Array.isArray(request.scenes) || request.scenes.length < 1 || request.scenes.length > MAX_SCENES) {
    throw invalid(`a composition has 1 to ${MAX_SCENES} scenes`);
  }
  request.scenes.forEach((scene, index) => {
    const what = `scene ${index + 1}`;
    if (!isNumberIn(scene.durationMs, 1000 / fps, Number.MAX_SAFE_INTEGER)) {
      throw invalid(`${what} durationMs must be at least one frame (${Math.ceil(1000 / fps)} ms)`);
    }
    const background = scene.background;
    switch (background?.type) {
      case 'color':
        if (typeof background.color !== 'string' || !COLOR_PATTERN.test(background.color)) {
          throw invalid(`${what} background color must look like #rrggbb`);
        }
        if (background.transparent === true && request.format !== 'webm') {
          throw invalid(`${what} background can only be transparent in a webm video`);
        }
        break;
      case 'image':
        checkPath(background.path, `${what} background image`);
        if (background.fit !== 'cover' && background.fit !== 'contain') {
          throw invalid(`${what} background image fit must be cover or contain`);
        }
        break;
      case 'video':
        checkPath(background.path, `${what} background video`);
        if (!['freeze', 'loop', 'fit_to_scene'].includes(background.mode)) {
          throw invalid(`${what} background video mode must be freeze, loop or fit_to_scene`);
        }
        checkVolume(background.volume, `${what} background video`);
        if (background.fit !== undefined && background.fit !== 'cover' && background.fit !== 'contain') {
          throw invalid(`${what} background video fit must be cover or contain`);
        }
        break;
      default:
        throw invalid(`${what} background type must be color, image or video`);
    }
    if (scene.avatar !== undefined) {
      checkPath(scene.avatar.imagePath, `${what} avatar image`);
      if (scene.avatar.videoPath !== undefined) checkPath(scene.avatar.videoPath, `${what} avatar video`);
      if (scene.avatar.fit !== 'cover' && scene.avatar.fit !== 'contain') {
        throw invalid(`${what} avatar fit must be cover or contain`);
      }
      if (scene.avatar.animation !== undefined) checkAnimation(scene.avatar.animation, what);
      const track = scene.avatar.track;
      if (track !== undefined) {
        if (scene.avatar.videoPath === undefined) throw invalid(`${what} avatar track needs a videoPath`);
        if (
          !isNumberIn(track.fps, 1, MAX_FPS) ||
          !Array.isArray(track.offsets) ||
          track.offsets.length === 0 ||
          !track.offsets.every((offset) => Number.isInteger(offset?.x) && Number.isInteger(offset?.y))
        )
          throw invalid(`${what} avatar track must have an fps and whole-pixel offsets`);
      }
    }
    if (scene.narration !== undefined) {
      checkPath(scene.narration.path, `${what} narration`);
      checkVolume(scene.narration.volume, `${what} narration`);
    }
  });
  if (!Array.isArray(request.captions)) throw invalid('captions must be a list (possibly empty)');
  request.captions.forEach((cue, index) => {
    if (
      !isNumberIn(cue.startMs, 0, Number.MAX_SAFE_INTEGER) ||
      !isNumberIn(cue.endMs, 0, Number.MAX_SAFE_INTEGER) ||
      cue.endMs <= cue.startMs
    ) {
      throw invalid(`caption ${index + 1} must have 0 <= startMs < endMs`);
    }
    if (typeof cue.text !== 'string') throw invalid(`caption ${index + 1} text must be a string`);
  });
  if (typeof request.burnCaptions !== 'boolean') throw invalid('burnCaptions must be true or false');
  for (const [what, mark] of [
    ['watermark', request.watermark],
    ['logo', request.logo],
  ] as const) {
    if (mark === undefined) continue;
    if (typeof mark.imagePath !== 'string' || mark.imagePath === '')
      throw invalid(`${what} imagePath must be a file path`);
    if (!isNumberIn(mark.opacity, 0, 1)) throw invalid(`${what} opacity must be from 0 to 1`);
    if (!isNumberIn(mark.scale, 0.01, 10)) throw invalid(`${what} scale must be from 0.01 to 10`);
    if (!isNumberIn(mark.offsetX, -1, 1) || !isNumberIn(mark.offsetY, -1, 1)) {
      throw invalid(`${what} offsets must be fractions from -1 to 1`);
    }
  }
  if (request.music !== undefined) {
    checkPath(request.music.path, 'music');
    if (!isNumberIn(request.music.volume, 0, 1)) throw invalid('music volume must be from 0 to 1');
  }
  const transition = request.transition;
  if (transition !== undefined) {
    if (!Object.values(TRANSITION_KINDS).includes(transition.kind))
      throw invalid(`transition kind must be one of ${Object.values(TRANSITION_KINDS).join(', ')}`);
    if (!Number.isInteger(transition.durationMs) || !isNumberIn(transition.durationMs, 0, MAX_TRANSITION_MS))
      throw invalid(`transition durationMs must be whole milliseconds from 0 to ${MAX_TRANSITION_MS}`);
  }
  const style = request.captionStyle;
  if (style !== undefined) {
    if (style.font !== undefined) {
      checkPath(style.font.path, 'caption font');
      if (typeof style.font.family !== 'string' || style.font.family.trim() === '')
        throw invalid('caption font family must be named');
    }
    for (const [what, color] of [
      ['text', style.textColor],
      ['box', style.boxColor],
      ['outline', style.outlineColor],
    ] as const)
      if (color !== undefined && (typeof color !== 'string' || !COLOR_PATTERN.test(color)))
        throw invalid(`caption ${what} colour must look like #rrggbb`);
    for (const [what, value, low, high] of [
      ['outline width', style.outlineWidth, 0, 0.3],
      ['shadow depth', style.shadowDepth, 0, 0.3],
      ['size scale', style.sizeScale, 0.5, 3],
    ] as const)
      if (value !== undefined && !isNumberIn(value, low, high))
        throw invalid(`caption ${what} must be from ${low} to ${high}`);
    if (style.position !== undefined && !CAPTION_POSITIONS.includes(style.position))
      throw invalid(`caption position must be one of ${CAPTION_POSITIONS.join(', ')}`);
  }
  return { fps };
}
