/**
 * The ffmpeg command line of one composition: every scene, the join, the captions, the encodes, the
 * thumbnail and the GIF preview in ONE ffmpeg run, so each source is decoded once, the joined picture is
 * composed once and the audio is mixed in the same pass.
 *
 * Graph, per scene i (all scenes exactly a whole number of frames, cut on a cumulative frame grid so
 * rounding never drifts):
 *   background → [bg_i]: a `color` source, a still image scaled once and repeated by reference (`loop`),
 *     or a clip converted to the frame rate, scaled, padded with its last frame and cut (`tpad` + `trim`);
 *   [bg_i] + avatar → [v_i]: the portrait is scaled once and `overlay` moves it with sin() of time, which
 *     costs a blend per frame instead of a rescale per frame (`zoompan` or animated `scale`); footage
 *     (`avatar.videoPath`) is read looped, scaled per frame by the same fit and laid still;
 *   narration (+ the clip's sound) → [a_i]: resampled, gained, padded with silence and cut to the
 *     scene's exact sample count, so picture and sound stay in step across joins;
 * then the pictures are joined by cuts or a transition (ffmpeg-transitions.ts: centred on each boundary,
 * the frames unchanged) and the sounds by `concat`, sample-exact as they were made; `split` feeds the main encode, the captioned encode (libass over a
 * copy, only when it differs from the main one), a one-frame JPEG and a palette-optimized GIF.
 *
 * Paths the filters read (captions, fonts) are relative to the working directory the command runs in,
 * so they never need filter-graph escaping; inputs and outputs are `file:` arguments.
 */
import { VISEMES } from '../speech/visemes.js';
import type {
  CompositionScene,
  PresenterAnimation,
  PresenterSprite,
  SceneTransition,
  Watermark,
} from './composition-engine.js';
import { joinPictureFilters } from './ffmpeg-transitions.js';
import { orientationFilters } from './image-orientation.js';
import {
  blinkFrames,
  type FrameRanges,
  framesExpression,
  frameVisemes,
  type PortraitFit,
  rangesByViseme,
  scaledSpritePlacement,
} from './presenter-animation.js';
import type { MediaInfo } from './probe.js';
import { fileInput } from './probe.js';
import { transitionFrameCount } from './transition-timeline.js';

export const AUDIO_SAMPLE_RATE = 48_000;

export interface EncodingSettings {
  x264Preset: string;
  x264Crf: number;
  x264Tune: string | undefined;
  vp9CpuUsed: number;
  vp9Crf: number;
  audioBitrateKbps: number;
  /** Encoder threads; 0 lets each encoder choose. */
  threads: number;
  thumbnailAtMs: number;
  thumbnailMaxWidth: number;
  gifWidth: number;
  gifFps: number;
  gifDurationMs: number;
  /** Presenter motion amplitude as a fraction of the frame height; 0 keeps the presenter still. */
  motionAmplitude: number;
  /**
   * Seconds between key frames of mp4 (x264: fixed, closed GOPs, no scene-cut key frames), so a render
   * cut into chunks on multiples of it (`gopFrames`) has its key frames where the single pass has them.
   */
  gopSeconds: number;
}

/** Frames of one GOP of an mp4 at `fps`. */
export function gopFrames(encoding: Pick<EncodingSettings, 'gopSeconds'>, fps: number): number {
  return Math.max(1, Math.round(encoding.gopSeconds * fps));
}

/**
 * What one ffmpeg run of a plan renders: everything (the single pass), or one part of a chunked render
 * (chunked-composition.ts): the sound of the whole timeline, or the pictures of the joined frames
 * `[startFrame, endFrame)`, each frame exactly what the single pass shows there.
 */
export type CompositionPart =
  | { kind: 'whole' }
  | { kind: 'sound' }
  | { kind: 'pictures'; startFrame: number; endFrame: number };

export interface PlannedScene {
  scene: CompositionScene;
  /** Frames of this scene. */
  frames: number;
  /** Probe of the background image or clip. */
  background?: MediaInfo;
  /** Whether the background clip's sound is mixed in (it has audio and a volume above 0). */
  backgroundAudio: boolean;
  /** EXIF orientations (1 = as stored) of a still background and of the presenter's portrait. */
  backgroundOrientation: number;
  avatarOrientation: number;
  /** The presenter portrait's size as displayed (after its orientation), when there is one. */
  avatarSize?: { width: number; height: number };
}

export interface CompositionPlan {
  width: number;
  height: number;
  fps: number;
  format: 'mp4' | 'webm';
  scenes: PlannedScene[];
  /** 1 (mono) unless some source has more channels. */
  audioChannels: 1 | 2;
  /** ASS script and fonts directory, relative to the working directory; absent when nothing is burned. */
  captions?: { assFile: string; fontsDir: string };
  burnCaptions: boolean;
  watermark?: Watermark;
  /** A brand kit's logo, laid over the video after the watermark. */
  logo?: Watermark;
  /** Background music, looped under the joined scenes' sound. */
  music?: { path: string; volume: number };
  /** How each scene gives way to the next. @default cuts */
  transition?: SceneTransition;
  outputs: { video: string; captionedVideo: string; thumbnail: string; gif: string };
  encoding: EncodingSettings;
  /** @default whole */
  part?: CompositionPart;
}

/** Frames of each scene, cut on the cumulative frame grid (the total never drifts from the sum). */
export function sceneFrameCounts(durationsMs: readonly number[], fps: number): number[] {
  let elapsedMs = 0;
  let elapsedFrames = 0;
  return durationsMs.map((durationMs) => {
    elapsedMs += durationMs;
    const boundary = Math.max(elapsedFrames + 1, Math.round((elapsedMs * fps) / 1000));
    const frames = boundary - elapsedFrames;
    elapsedFrames = boundary;
    return frames;
  });
}

/** Time factors for `atempo`, which takes 0.5 to 2 per instance in this ffmpeg. */
function atempoChain(factor: number): string[] {
  const steps: string[] = [];
  let remaining = factor;
  while (remaining > 2) {
    steps.push('atempo=2');
    remaining /= 2;
  }
  while (remaining < 0.5) {
    steps.push('atempo=0.5');
    remaining /= 0.5;
  }
  if (Math.abs(remaining - 1) > 1e-6) steps.push(`atempo=${remaining.toFixed(6)}`);
  return steps;
}

/** Scales (and crops or pads) any picture to exactly `width`x`height`, preserving its aspect ratio. */
function fitFilters(fit: 'cover' | 'contain', width: number, height: number): string[] {
  if (fit === 'cover') {
    const scale = `max(${width}/iw,${height}/ih)`;
    return [
      `scale=w='2*ceil(iw*${scale}/2)':h='2*ceil(ih*${scale}/2)'`,
      `crop=${width}:${height}`,
      'setsar=1',
    ];
  }
  const scale = `min(${width}/iw,${height}/ih)`;
  return [
    `scale=w='2*trunc(iw*${scale}/2)':h='2*trunc(ih*${scale}/2)'`,
    `pad=${width}:${height}:(ow-iw)/2:(oh-ih)/2:black`,
    'setsar=1',
  ];
}

function seconds(value: number): string {
  return value.toFixed(6).replace(/\.?0+$/, '');
}

/**
 * A position expression snapped to even pixels. overlay does that itself for 4:2:0 output, but by
 * truncating towards zero, which puts -2.6 at -2 and 7.4 at 6: the sprites, at the portrait's position
 * plus an offset, would land 2 pixels off the face whenever the portrait is left of or above the
 * frame's edge. Snapped once here, every overlay lands exactly where the expression says.
 */
export function evenPixels(expression: string): string {
  return `2*floor((${expression})/2)`;
}

/**
 * The portrait's scaled size (even numbers, like every picture of the graph) and, for `cover`, the crop
 * offset that centres the frame-plus-motion window on it.
 */
export function portraitFit(
  fit: 'contain' | 'cover',
  portrait: { width: number; height: number },
  width: number,
  height: number,
  amplitude: number,
): PortraitFit {
  if (fit === 'contain') {
    const scale = Math.min(width / portrait.width, height / portrait.height);
    return {
      width: Math.max(2, 2 * Math.trunc((portrait.width * scale) / 2)),
      height: Math.max(2, 2 * Math.trunc((portrait.height * scale) / 2)),
      cropX: 0,
      cropY: 0,
    };
  }
  const windowWidth = width + 2 * amplitude;
  const windowHeight = height + 2 * amplitude;
  const scale = Math.max(windowWidth / portrait.width, windowHeight / portrait.height);
  const scaledWidth = Math.max(windowWidth, 2 * Math.ceil((portrait.width * scale) / 2));
  const scaledHeight = Math.max(windowHeight, 2 * Math.ceil((portrait.height * scale) / 2));
  return {
    width: scaledWidth,
    height: scaledHeight,
    cropX: Math.floor((scaledWidth - windowWidth) / 2),
    cropY: Math.floor((scaledHeight - windowHeight) / 2),
  };
}

export interface AnimationOverlays {
  animation: PresenterAnimation;
  portrait: { width: number; height: number };
  fit: PortraitFit;
  frames: number;
  fps: number;
  /** The portrait overlay's position expressions: sprites move with it. */
  position: { x: string; y: string };
  from: string;
  to: string;
  /** Prefix of this scene's labels. */
  label: string;
  inputOf: (file: string) => number;
  /**
   * Paste the `rest` mouth (when there is one) on every frame no other mouth is pasted on: footage,
   * whose own mouth moves. Portraits leave it out (`rest` is the portrait's own mouth).
   */
  pasteRest?: boolean;
  /**
   * The scene frame of the first frame the overlays see (a chunk starts its scenes where it needs
   * them: `n` counts from there). @default 0
   */
  firstFrame?: number;
}

/**
 * Filters that paste the presenter's sprites over the composed frame, each on the frames it shows:
 * the mouth of each viseme the scene uses (never `rest`: the portrait's own mouth), then the blink.
 * Each sprite is scaled once (a single frame, repeated by overlay) by the portrait's scale, and
 * placed with the portrait's own motion expressions plus its even offset, so it moves with the face.
 */
export function animationOverlays(options: AnimationOverlays): string[] {
  const { animation, frames, fps, label } = options;
  const layers: { sprite: PresenterSprite; ranges: FrameRanges }[] = [];
  const restRanges: FrameRanges = [];
  for (const [viseme, ranges] of rangesByViseme(frameVisemes(animation.visemes, frames, fps))) {
    const sprite = animation.mouths[viseme];
    if (viseme !== VISEMES.rest && sprite) layers.push({ sprite, ranges });
    else restRanges.push(...ranges);
  }
  if (options.pasteRest && animation.mouths.rest && restRanges.length > 0) {
    restRanges.sort((a, b) => a[0] - b[0]);
    layers.unshift({ sprite: animation.mouths.rest, ranges: restRanges });
  }
  if (animation.blink) {
    const ranges = blinkFrames(animation.blinkSeed, frames, fps);
    if (ranges.length > 0) layers.push({ sprite: animation.blink, ranges });
  }
  if (layers.length === 0) return [`[${options.from}]null[${options.to}]`];
  const graph: string[] = [];
  let current = options.from;
  layers.forEach(({ sprite, ranges }, layer) => {
    const place = scaledSpritePlacement(sprite.box, options.portrait, options.fit);
    const spriteLabel = `${label}sp${layer}`;
    const pad =
      place.padX > 0 || place.padY > 0
        ? [
            `pad=w=${place.width + place.padX}:h=${place.height + place.padY}:x=${place.padX}:y=${place.padY}:color=black@0`,
          ]
        : [];
    graph.push(
      [
        `[${options.inputOf(sprite.imagePath)}:v:0]trim=end_frame=1`,
        `scale=w=${place.width}:h=${place.height}:flags=lanczos`,
        'format=rgba',
        ...pad,
        `setsar=1[${spriteLabel}]`,
      ].join(','),
    );
    const next = layer === layers.length - 1 ? options.to : `${label}l${layer}`;
    graph.push(
      `[${current}][${spriteLabel}]overlay=x='${options.position.x}+${place.offsetX}':y='${options.position.y}+${place.offsetY}':eval=frame:format=yuv420:enable='${framesExpression(ranges, options.firstFrame)}'[${next}]`,
    );
    current = next;
  });
  return graph;
}

/**
 * Overlay expressions of a footage track: the offset of the footage frame shown at time `t` (the
 * footage's frame `round(t × fps)`, repeating every `offsets.length` frames), scaled by the footage's
 * scale and snapped to even pixels, as a sum of `between(frame, first, last) * offset` over the runs
 * of equal offsets (0 runs left out).
 */
export function trackExpressions(
  track: { fps: number; offsets: readonly { x: number; y: number }[] },
  scale: number,
): { x: string; y: string } {
  const frame = `mod(floor(t*${track.fps}+0.5),${track.offsets.length})`;
  const axis = (key: 'x' | 'y') => {
    const values = track.offsets.map((offset) => 2 * Math.round((offset[key] * scale) / 2));
    const terms: string[] = [];
    let start = 0;
    for (let index = 1; index <= values.length; index++) {
      if (index < values.length && values[index] === values[start]) continue;
      const value = values[start] as number;
      if (value !== 0) {
        const when =
          start === index - 1 ? `eq(${frame},${start})` : `between(${frame},${start},${index - 1})`;
        terms.push(`${when}*(${value})`);
      }
      start = index;
    }
    return terms.length > 0 ? `(${terms.join('+')})` : '0';
  };
  return { x: axis('x'), y: axis('y') };
}

/** The file, relative to the working directory, that holds the filter graph (`-filter_complex_script`). */
export const FILTER_GRAPH_FILE = 'filter-graph.txt';

/**
 * The ffmpeg arguments (after the executable) that render `plan`, and the filter graph they read from
 * `FILTER_GRAPH_FILE`: a long video's lip movements make a graph larger than one command-line argument
 * may be (128 KiB on Linux).
 */
export function ffmpegCompositionArgs(plan: CompositionPlan): { args: string[]; filterGraph: string } {
  const { width, height, fps, encoding } = plan;
  const inputs: string[] = [];
  let inputCount = 0;
  const addInput = (file: string, before: string[] = []): number => {
    inputs.push(...before, '-i', fileInput(file));
    return inputCount++;
  };
  // Sprites recur across scenes (the same look speaks in several): one input per file, read once.
  const sharedInputs = new Map<string, number>();
  const addSharedInput = (file: string): number => {
    const known = sharedInputs.get(file);
    if (known !== undefined) return known;
    const input = addInput(file);
    sharedInputs.set(file, input);
    return input;
  };
  const layout = plan.audioChannels === 2 ? 'stereo' : 'mono';
  const audioFormat = `aformat=sample_fmts=fltp:sample_rates=${AUDIO_SAMPLE_RATE}:channel_layouts=${layout}`;
  // Even amplitude (overlay positions snap to even pixels in yuv420p), at least 2 unless motion is off.
  const amplitude =
    encoding.motionAmplitude > 0 ? Math.max(2, 2 * Math.round((height * encoding.motionAmplitude) / 2)) : 0;
  const graph: string[] = [];
  const part = plan.part ?? { kind: 'whole' };
  const pictures = part.kind !== 'sound';
  const sound = part.kind !== 'pictures';
  // A chunk renders each scene from the first frame it needs: the frames it shows in the chunk, and
  // those a transition at the chunk's start borrows (a transition's length to spare). The frames
  // before stand in as copies of that first frame (references, no work): they are cut away. Frames
  // after the chunk are never asked for (ffmpeg stops when the chunk's trim ends).
  const spare = transitionFrameCount(plan.transition, fps);
  const sceneStarts = plan.scenes.map((_, index) =>
    plan.scenes.slice(0, index).reduce((sum, scene) => sum + scene.frames, 0),
  );
  const firstFrameOf = (index: number): number => {
    if (part.kind !== 'pictures') return 0;
    const frames = (plan.scenes[index] as PlannedScene).frames;
    return Math.min(frames - 1, Math.max(0, part.startFrame - (sceneStarts[index] as number) - spare));
  };

  plan.scenes.forEach((planned, index) => {
    const { scene, frames, background, backgroundAudio } = planned;
    const firstFrame = firstFrameOf(index);
    // Timestamps kept: the motion expressions read the scene's own times.
    const skip = firstFrame > 0 ? `,trim=start_frame=${firstFrame}` : '';
    const picture = firstFrame > 0 ? `vw${index}` : `v${index}`;
    const durationSeconds = frames / fps;
    const samples = Math.round((frames * AUDIO_SAMPLE_RATE) / fps);
    const bg = scene.background;
    const bgLabel = scene.avatar ? `bg${index}` : picture;
    const audioSources: string[] = [];

    if (!pictures) {
      // The sound alone: only a clip's sound is read.
    } else if (bg.type === 'color') {
      // A transparent background keeps its colour under alpha 0: outputs without alpha show that.
      const [alpha, pixelFormat] = bg.transparent ? ['@0', 'yuva420p'] : ['', 'yuv420p'];
      graph.push(
        `color=c=0x${bg.color.slice(1)}${alpha}:s=${width}x${height}:r=${fps},format=${pixelFormat},trim=end_frame=${frames}${skip}[${bgLabel}]`,
      );
    } else if (bg.type === 'image') {
      const input = addInput(bg.path);
      graph.push(
        [
          `[${input}:v:0]trim=end_frame=1`,
          ...orientationFilters(planned.backgroundOrientation),
          ...fitFilters(bg.fit, width, height),
          'format=yuv420p',
          // Every frame is a reference to the one scaled picture: no per-frame work.
          `loop=loop=${frames - 1}:size=1:start=0`,
          `setpts=N/${fps}/TB${skip}[${bgLabel}]`,
        ].join(','),
      );
    }
    if (bg.type === 'video' && (pictures || backgroundAudio)) {
      const clipSeconds =
        background?.streams.find((stream) => stream.type === 'video' && !stream.attachedPicture)
          ?.durationSeconds ??
        background?.durationSeconds ??
        0;
      const fitToScene = bg.mode === 'fit_to_scene' && clipSeconds > 0;
      // Reading stops at the scene's end (looping first if asked), so a long clip is not decoded in full.
      const before =
        bg.mode === 'loop'
          ? ['-stream_loop', '-1', '-t', seconds(durationSeconds)]
          : fitToScene
            ? []
            : ['-t', seconds(durationSeconds)];
      const input = addInput(bg.path, before);
      const retime = fitToScene
        ? `setpts=(PTS-STARTPTS)*${(durationSeconds / clipSeconds).toFixed(6)}`
        : 'setpts=PTS-STARTPTS';
      if (pictures)
        graph.push(
          [
            `[${input}:v:0]${retime}`,
            // Frame rate first: frames the output drops are never scaled.
            `fps=${fps}`,
            ...fitFilters(bg.fit ?? 'cover', width, height),
            'format=yuv420p',
            'tpad=stop_mode=clone:stop=-1',
            `trim=end_frame=${frames}`,
            `setpts=N/${fps}/TB${skip}[${bgLabel}]`,
          ].join(','),
        );
      if (sound && backgroundAudio) {
        const tempo = fitToScene ? atempoChain(clipSeconds / durationSeconds) : [];
        audioSources.push([`[${input}:a:0]asetpts=PTS-STARTPTS`, ...tempo, `volume=${bg.volume}`].join(','));
      }
      // A part decodes the clip's other stream too, unused: a looped input's next round is offset by
      // the longest stream decoded, so the picture and the sound of each round stay the single pass's.
      if (!sound && backgroundAudio) graph.push(`[${input}:a:0]anullsink`);
      if (!pictures) graph.push(`[${input}:v:0]nullsink`);
    }

    if (!pictures) {
      // No presenter in the sound.
    } else if (scene.avatar?.videoPath !== undefined) {
      // Footage: read looped for the scene, each frame fitted like a portrait, no sway.
      const input = addInput(scene.avatar.videoPath, ['-stream_loop', '-1', '-t', seconds(durationSeconds)]);
      const size = planned.avatarSize;
      if (!size) throw new Error(`scene ${index + 1}: the presenter's footage size was not probed`);
      const fit = portraitFit(scene.avatar.fit, size, width, height, 0);
      const x = scene.avatar.fit === 'contain' ? String(2 * Math.floor((width - fit.width) / 4)) : '0';
      const y = scene.avatar.fit === 'contain' ? String(height - fit.height) : '0';
      const track = scene.avatar.track
        ? trackExpressions(scene.avatar.track, fit.width / size.width)
        : undefined;
      const crop = scene.avatar.fit === 'cover' ? [`crop=${width}:${height}:${fit.cropX}:${fit.cropY}`] : [];
      graph.push(
        [
          `[${input}:v:0]setpts=PTS-STARTPTS`,
          `fps=${fps}`,
          `scale=w=${fit.width}:h=${fit.height}:flags=lanczos`,
          'format=rgba',
          ...crop,
          'setsar=1',
          'tpad=stop_mode=clone:stop=-1',
          `trim=end_frame=${frames}`,
          `setpts=N/${fps}/TB[av${index}]`,
        ].join(','),
      );
      const animation = scene.avatar.animation;
      const footageLabel = animation ? `vp${index}` : picture;
      graph.push(`[${bgLabel}][av${index}]overlay=x=${x}:y=${y}:format=yuv420[${footageLabel}]`);
      if (animation) {
        graph.push(
          ...animationOverlays({
            animation,
            portrait: size,
            fit,
            frames,
            fps,
            position: track ? { x: `${x}+${track.x}`, y: `${y}+${track.y}` } : { x, y },
            from: footageLabel,
            to: picture,
            label: `s${index}`,
            inputOf: addSharedInput,
            pasteRest: true,
            firstFrame,
          }),
        );
      }
    } else if (scene.avatar) {
      const input = addInput(scene.avatar.imagePath);
      const size = planned.avatarSize;
      if (!size) throw new Error(`scene ${index + 1}: the presenter's size was not probed`);
      const fit = portraitFit(scene.avatar.fit, size, width, height, amplitude);
      const a = amplitude;
      // Bottom-centred (`contain`: the rise and fall keeps the bottom edge at or below the frame's
      // bottom), or larger than the frame by the amplitude on each side (`cover`: the motion never
      // uncovers an edge). Numbers, not `w`/`h`, so the sprites' overlays can share the expressions.
      const [motionX, motionY] =
        scene.avatar.fit === 'contain'
          ? [`${(width - fit.width) / 2}+${a}*sin(2*PI*t/7)`, `${height - fit.height + a}+${a}*sin(2*PI*t/4)`]
          : [`-${a}+${a}*sin(2*PI*t/7)`, `-${a}+${a}*sin(2*PI*t/4)`];
      const x = evenPixels(motionX);
      const y = evenPixels(motionY);
      const crop =
        scene.avatar.fit === 'cover'
          ? [`crop=${width + 2 * a}:${height + 2 * a}:${fit.cropX}:${fit.cropY}`]
          : [];
      graph.push(
        [
          `[${input}:v:0]trim=end_frame=1`,
          ...orientationFilters(planned.avatarOrientation),
          `scale=w=${fit.width}:h=${fit.height}:flags=lanczos`,
          // RGBA before cropping: a 4:2:0 crop would round its offset to even pixels, and the sprites'
          // placement counts on the exact offset.
          'format=rgba',
          ...crop,
          `setsar=1[av${index}]`,
        ].join(','),
      );
      const animation = scene.avatar.animation;
      const portraitLabel = animation ? `vp${index}` : picture;
      // The single portrait frame is repeated by overlay (eof_action=repeat) for the whole scene.
      graph.push(
        `[${bgLabel}][av${index}]overlay=x='${x}':y='${y}':eval=frame:format=yuv420[${portraitLabel}]`,
      );
      if (animation) {
        graph.push(
          ...animationOverlays({
            animation,
            portrait: size,
            fit,
            frames,
            fps,
            position: { x, y },
            from: portraitLabel,
            to: picture,
            label: `s${index}`,
            inputOf: addSharedInput,
            firstFrame,
          }),
        );
      }
    }

    if (firstFrame > 0)
      graph.push(`[${picture}]tpad=start=${firstFrame}:start_mode=clone,setpts=N/${fps}/TB[v${index}]`);
    if (!sound) return;
    if (scene.narration && scene.narration.volume > 0) {
      const input = addInput(scene.narration.path, ['-t', seconds(durationSeconds)]);
      audioSources.push(`[${input}:a:0]asetpts=PTS-STARTPTS,volume=${scene.narration.volume}`);
    }

    const padded = audioSources.map(
      (source, sourceIndex) =>
        `${source},aresample=${AUDIO_SAMPLE_RATE},${audioFormat},apad,atrim=end_sample=${samples}[a${index}s${sourceIndex}]`,
    );
    graph.push(...padded);
    if (audioSources.length === 0) {
      graph.push(
        `anullsrc=r=${AUDIO_SAMPLE_RATE}:cl=${layout},${audioFormat},atrim=end_sample=${samples}[a${index}]`,
      );
    } else if (audioSources.length === 1) {
      graph.push(`[a${index}s0]asetpts=N/SR/TB[a${index}]`);
    } else {
      // Inputs of equal length: amix's 1/n scaling is constant, and the volume filter undoes it.
      const labels = audioSources.map((_, sourceIndex) => `[a${index}s${sourceIndex}]`).join('');
      graph.push(
        `${labels}amix=inputs=${audioSources.length}:duration=longest:dropout_transition=0,volume=${audioSources.length},${audioFormat},asetpts=N/SR/TB[a${index}]`,
      );
    }
  });

  // Pictures and sound are joined apart: a transition overlaps two scenes' pictures, while each scene's
  // sound keeps its exact samples, so the sound of the cut version plays under the transitions.
  const sceneCount = plan.scenes.length;
  const totalFrames = plan.scenes.reduce((sum, scene) => sum + scene.frames, 0);
  const burn = plan.captions ? `ass=${plan.captions.assFile}:fontsdir=${plan.captions.fontsDir}` : undefined;
  const separateCaptioned = burn !== undefined && !plan.burnCaptions;
  if (pictures) {
    const transparent = plan.scenes.map(
      ({ scene }) => scene.background.type === 'color' && scene.background.transparent === true,
    );
    graph.push(
      ...joinPictureFilters({
        pictures: plan.scenes.map((_, index) => `v${index}`),
        frames: plan.scenes.map((scene) => scene.frames),
        fps,
        width,
        height,
        ...(plan.transition ? { transition: plan.transition } : {}),
        // The transitions' masks mix 4:2:0 pictures: a transparent scene's alpha would not follow.
        joinable: (boundary) => !transparent[boundary] && !transparent[boundary + 1],
        label: 'j',
        output: 'vjoined',
      }),
    );
    // A chunk keeps its frames' times on the video's timeline through the marks and captions (the
    // captions are timed by them), and starts at 0 in its own file.
    let joined = 'vjoined';
    if (part.kind === 'pictures') {
      graph.push(`[vjoined]trim=start_frame=${part.startFrame}:end_frame=${part.endFrame}[vchunk]`);
      joined = 'vchunk';
    }

    // The marks go over the joined video, before the outputs split: every output carries them, and
    // captions stay on top. The watermark first, then the logo.
    const marks = [plan.watermark, plan.logo].filter((mark): mark is Watermark => mark !== undefined);
    let marked = joined;
    marks.forEach((mark, index) => {
      const input = addInput(mark.imagePath);
      const margin = 2 * Math.round(Math.min(width, height) * 0.015);
      const shift = (fraction: number, size: number) => {
        const pixels = Math.round(fraction * size);
        return pixels >= 0 ? `+${pixels}` : `${pixels}`;
      };
      const x = mark.position.endsWith('left') ? `${margin}` : `W-w-${margin}`;
      const y = mark.position.startsWith('top') ? `${margin}` : `H-h-${margin}`;
      const label = index === marks.length - 1 ? 'vmarked' : `vmark${index}`;
      graph.push(
        [
          `[${input}:v:0]trim=end_frame=1`,
          `scale=w='max(2,2*trunc(iw*${mark.scale}/2))':h='max(2,2*trunc(ih*${mark.scale}/2))':flags=lanczos`,
          'format=rgba',
          `colorchannelmixer=aa=${mark.opacity}[mark${index}]`,
        ].join(','),
        `[${marked}][mark${index}]overlay=x='${x}${shift(mark.offsetX, width)}':y='${y}${shift(mark.offsetY, height)}':format=yuv420[${label}]`,
      );
      marked = label;
    });
    if (marks.length === 0) graph.push(`[${joined}]null[vmarked]`);

    if (part.kind === 'pictures') {
      const restart = 'setpts=PTS-STARTPTS';
      if (burn && plan.burnCaptions) graph.push(`[vmarked]${burn},${restart}[vmain]`);
      else if (separateCaptioned)
        graph.push(
          '[vmarked]split=2[vmainin][vclean]',
          `[vmainin]${restart}[vmain]`,
          `[vclean]${burn},${restart}[vcaptioned]`,
        );
      else graph.push(`[vmarked]${restart}[vmain]`);
    } else {
      if (burn && plan.burnCaptions) {
        graph.push(`[vmarked]${burn},split=3[vmain][vthumb][vgif]`);
      } else if (separateCaptioned) {
        graph.push(`[vmarked]split=4[vmain][vclean][vthumb][vgif]`, `[vclean]${burn}[vcaptioned]`);
      } else {
        graph.push('[vmarked]split=3[vmain][vthumb][vgif]');
      }
      graph.push(
        ...previewFilters({ totalFrames, width, fps, encoding, from: { thumb: 'vthumb', gif: 'vgif' } }),
      );
    }
  }

  if (sound) {
    graph.push(
      sceneCount > 1
        ? `${plan.scenes.map((_, index) => `[a${index}]`).join('')}concat=n=${sceneCount}:v=0:a=1[ajoined]`
        : '[a0]anull[ajoined]',
    );
    // Music under the whole video: looped, cut to its length, faded at both ends, mixed under the scenes'
    // sound (amix's 1/n scaling undone, as for the scenes).
    let joinedAudio = 'ajoined';
    if (plan.music && plan.music.volume > 0) {
      const totalSeconds = totalFrames / fps;
      const fade = Math.min(1, totalSeconds / 4);
      const input = addInput(plan.music.path, ['-stream_loop', '-1']);
      graph.push(
        `[${input}:a:0]asetpts=PTS-STARTPTS,atrim=duration=${seconds(totalSeconds)},${audioFormat},volume=${plan.music.volume},afade=t=in:d=${fade.toFixed(3)},afade=t=out:st=${Math.max(0, totalSeconds - fade).toFixed(3)}:d=${fade.toFixed(3)}[music]`,
        `[ajoined][music]amix=inputs=2:duration=first:dropout_transition=0,volume=2,${audioFormat}[amixed]`,
      );
      joinedAudio = 'amixed';
    }
    graph.push(
      separateCaptioned && part.kind === 'whole'
        ? `[${joinedAudio}]asplit=2[amain][acaptioned]`
        : `[${joinedAudio}]anull[amain]`,
    );
  }

  const threads = ['-threads', String(encoding.threads)];
  const withAlpha = plan.scenes.some(
    ({ scene }) => scene.background.type === 'color' && scene.background.transparent,
  );
  const gop = String(gopFrames(encoding, fps));
  const { video: videoCodec, audio: audioCodec } =
    plan.format === 'mp4'
      ? {
          video: [
            '-c:v',
            'libx264',
            '-preset',
            encoding.x264Preset,
            ...(encoding.x264Tune ? ['-tune', encoding.x264Tune] : []),
            '-crf',
            String(encoding.x264Crf),
            '-pix_fmt',
            'yuv420p',
            // Fixed, closed GOPs (x264's default is closed): key frames on the multiples a chunked
            // render cuts at, whichever way the video is rendered.
            '-g',
            gop,
            '-keyint_min',
            gop,
            '-sc_threshold',
            '0',
            ...threads,
          ],
          audio: ['-c:a', 'aac', '-b:a', `${encoding.audioBitrateKbps}k`],
        }
      : {
          video: [
            '-c:v',
            'libvpx-vp9',
            // The realtime deadline is libvpx's fastest mode; the CRF keeps the quality constant.
            '-deadline',
            'realtime',
            '-cpu-used',
            String(encoding.vp9CpuUsed),
            '-row-mt',
            '1',
            '-b:v',
            '0',
            '-crf',
            String(encoding.vp9Crf),
            '-pix_fmt',
            withAlpha ? 'yuva420p' : 'yuv420p',
            ...threads,
          ],
          audio: ['-c:a', 'libopus', '-b:a', `${encoding.audioBitrateKbps}k`],
        };
  const codecs = [
    ...videoCodec,
    ...audioCodec,
    ...(plan.format === 'mp4' ? ['-movflags', '+faststart'] : []),
  ];
  // Outputs advance at different speeds (the thumbnail ends after one frame); a larger queue keeps
  // ffmpeg 4.1 from failing with "Too many packets buffered".
  const queue = ['-max_muxing_queue_size', '4096'];
  let outputs: string[];
  if (part.kind === 'sound') {
    outputs = ['-map', '[amain]', ...audioCodec, fileInput(plan.outputs.video)];
  } else if (part.kind === 'pictures') {
    outputs = [
      ...['-map', '[vmain]', ...videoCodec, '-an', fileInput(plan.outputs.video)],
      ...(separateCaptioned
        ? ['-map', '[vcaptioned]', ...videoCodec, '-an', fileInput(plan.outputs.captionedVideo)]
        : []),
    ];
  } else {
    outputs = [
      ...['-map', '[vmain]', '-map', '[amain]', ...codecs, ...queue, fileInput(plan.outputs.video)],
      ...(separateCaptioned
        ? [
            '-map',
            '[vcaptioned]',
            '-map',
            '[acaptioned]',
            ...codecs,
            ...queue,
            fileInput(plan.outputs.captionedVideo),
          ]
        : []),
      ...previewOutputs(plan.outputs),
    ];
  }
  return {
    args: [
      '-hide_banner',
      '-nostdin',
      '-nostats',
      '-loglevel',
      'error',
      '-y',
      ...inputs,
      '-filter_complex_script',
      FILTER_GRAPH_FILE,
      ...outputs,
    ],
    filterGraph: graph.join(';\n'),
  };
}

/**
 * The thumbnail (`[thumb]`: the frame at `thumbnailAtMs`, the last of a shorter video) and the GIF
 * preview (`[gif]`: the first `gifDurationMs`) of a video of `totalFrames`, from the labels `from`.
 */
export function previewFilters(options: {
  totalFrames: number;
  width: number;
  fps: number;
  encoding: EncodingSettings;
  from: { thumb: string; gif: string };
}): string[] {
  const { totalFrames, width, fps, encoding, from } = options;
  const thumbFrame = Math.min(totalFrames - 1, Math.round((encoding.thumbnailAtMs * fps) / 1000));
  const thumbScale = width > encoding.thumbnailMaxWidth ? `scale=${encoding.thumbnailMaxWidth}:-2,` : '';
  const gifFrames = Math.max(1, Math.min(totalFrames, Math.round((encoding.gifDurationMs * fps) / 1000)));
  const gifWidth = Math.min(width, 2 * Math.round(encoding.gifWidth / 2));
  return [
    `[${from.thumb}]trim=start_frame=${thumbFrame}:end_frame=${thumbFrame + 1},${thumbScale}format=yuvj420p[thumb]`,
    `[${from.gif}]trim=end_frame=${gifFrames},fps=${Math.min(encoding.gifFps, fps)},scale=${gifWidth}:-2:flags=bilinear,split[gifpalette][gifframes]`,
    '[gifpalette]palettegen[palette]',
    '[gifframes][palette]paletteuse=dither=bayer:bayer_scale=3[gif]',
  ];
}

/** The output arguments writing `[thumb]` and `[gif]` of `previewFilters`. */
export function previewOutputs(paths: { thumbnail: string; gif: string }): string[] {
  return [
    ...['-map', '[thumb]', '-frames:v', '1', '-q:v', '3', '-update', '1', fileInput(paths.thumbnail)],
    ...['-map', '[gif]', '-loop', '0', fileInput(paths.gif)],
  ];
}
