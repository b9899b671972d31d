/**
 * How a talking presenter is animated, as frame numbers and pixel boxes: which mouth sprite each frame
 * shows, when the presenter blinks, and where a sprite lands once the portrait is scaled into the frame.
 * Pure: no ffmpeg, no I/O (ffmpeg-arguments.ts turns it into overlays).
 *
 * A presenter is a still portrait plus small sprites of the parts that move (composition-engine.ts,
 * `PresenterAnimation`): a mouth per viseme and a blink. A frame shows the portrait with, at most, one
 * mouth sprite and the blink sprite pasted on it; `rest` is the portrait's own mouth, so nothing is
 * pasted while the presenter is silent.
 */
import { seededRandom } from '../../core/seeded-random.js';
import { VISEMES, type Viseme, type VisemeCue } from '../speech/visemes.js';

/** Inclusive frame ranges `[first, last]`, ordered and disjoint. */
export type FrameRanges = [number, number][];

/**
 * The viseme each of `frames` frames shows: the one covering most of the frame's interval
 * `[k/fps, (k+1)/fps)` (the earlier on a tie), `rest` past the track's end. Short shapes between two
 * frames' centres are not lost as long as they cover most of a frame, and a mouth closure shorter than
 * half a frame (a flap nobody could see at 25 fps) is dropped.
 */
export function frameVisemes(track: readonly VisemeCue[], frames: number, fps: number): Viseme[] {
  const shown = new Array<Viseme>(frames).fill(VISEMES.rest);
  let cue = 0;
  for (let frame = 0; frame < frames; frame++) {
    const startMs = (frame * 1000) / fps;
    const endMs = ((frame + 1) * 1000) / fps;
    while (cue < track.length && (track[cue] as VisemeCue).endMs <= startMs) cue++;
    let best: Viseme = VISEMES.rest;
    let bestOverlap = 0;
    for (let index = cue; index < track.length; index++) {
      const candidate = track[index] as VisemeCue;
      if (candidate.startMs >= endMs) break;
      const overlap = Math.min(endMs, candidate.endMs) - Math.max(startMs, candidate.startMs);
      if (overlap > bestOverlap) {
        best = candidate.viseme;
        bestOverlap = overlap;
      }
    }
    shown[frame] = best;
  }
  return shown;
}

/** The frames showing each viseme, as ranges (visemes never shown are absent). */
export function rangesByViseme(shown: readonly Viseme[]): Map<Viseme, FrameRanges> {
  const ranges = new Map<Viseme, FrameRanges>();
  let start = 0;
  for (let frame = 1; frame <= shown.length; frame++) {
    if (frame < shown.length && shown[frame] === shown[start]) continue;
    const viseme = shown[start] as Viseme;
    const list = ranges.get(viseme) ?? [];
    list.push([start, frame - 1]);
    ranges.set(viseme, list);
    start = frame;
  }
  return ranges;
}

export interface BlinkTiming {
  /** Shortest and longest gap between the starts of two blinks. @default 2000, 6000 */
  minIntervalMs: number;
  maxIntervalMs: number;
  /** How long the eyes stay shut. @default 150 */
  durationMs: number;
}

export const DEFAULT_BLINK_TIMING: BlinkTiming = {
  minIntervalMs: 2000,
  maxIntervalMs: 6000,
  durationMs: 150,
};

/**
 * When the presenter blinks during `frames` frames: gaps drawn uniformly from the timing's interval
 * (people blink every few seconds, irregularly), each blink at least one frame long. The seed makes the
 * schedule repeatable: the same video rendered again blinks at the same frames.
 */
export function blinkFrames(
  seed: number,
  frames: number,
  fps: number,
  timing: BlinkTiming = DEFAULT_BLINK_TIMING,
): FrameRanges {
  const next = seededRandom(seed);
  const length = Math.max(1, Math.round((timing.durationMs * fps) / 1000));
  const gap = () =>
    Math.max(
      length + 1,
      Math.round(
        ((timing.minIntervalMs + next() * (timing.maxIntervalMs - timing.minIntervalMs)) * fps) / 1000,
      ),
    );
  const ranges: FrameRanges = [];
  // The first blink comes a random part of one interval in, so scenes do not all blink at their start.
  for (let start = Math.round(next() * gap()); start < frames; start += gap()) {
    ranges.push([start, Math.min(frames - 1, start + length - 1)]);
  }
  return ranges;
}

/**
 * An ffmpeg timeline expression true on the ranges' frames (`n`: the frame number in the scene, plus
 * `firstFrame` when the filter sees the scene from that frame on).
 */
export function framesExpression(ranges: FrameRanges, firstFrame = 0): string {
  const frame = firstFrame > 0 ? `n+${firstFrame}` : 'n';
  return ranges.map(([first, last]) => `between(${frame},${first},${last})`).join('+');
}

export interface PixelBox {
  x: number;
  y: number;
  width: number;
  height: number;
}

/** How the portrait is scaled (and cropped) into the frame: the same arithmetic as ffmpeg-arguments.ts. */
export interface PortraitFit {
  /** The scaled portrait's size (even numbers). */
  width: number;
  height: number;
  /** Pixels cut from the scaled portrait's left and top (`cover`); 0 for `contain`. */
  cropX: number;
  cropY: number;
}

/**
 * Where a sprite of the portrait lands on the scaled (and cropped) portrait, as whole pixels: its
 * scaled size, and its offset from the portrait's top left corner. Offsets are rounded down to even
 * numbers (4:2:0 video places overlays on even pixels, and an odd offset would put the sprite a pixel
 * away from where the portrait's own feature is); `padX`/`padY` are the transparent pixels to add on the
 * sprite's left and top so its content still lands where it belongs.
 */
export function scaledSpritePlacement(
  box: PixelBox,
  portrait: { width: number; height: number },
  fit: PortraitFit,
): { width: number; height: number; offsetX: number; offsetY: number; padX: number; padY: number } {
  const scaleX = fit.width / portrait.width;
  const scaleY = fit.height / portrait.height;
  const left = Math.round(box.x * scaleX) - fit.cropX;
  const top = Math.round(box.y * scaleY) - fit.cropY;
  const offsetX = 2 * Math.floor(left / 2);
  const offsetY = 2 * Math.floor(top / 2);
  return {
    width: Math.max(1, Math.round(box.width * scaleX)),
    height: Math.max(1, Math.round(box.height * scaleY)),
    offsetX,
    offsetY,
    padX: left - offsetX,
    padY: top - offsetY,
  };
}
