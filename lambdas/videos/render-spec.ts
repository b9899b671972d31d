/**
 * The render spec: what a video's workflow makes, decided when the video is created. Media inputs
 * are already stored in the bucket (their keys are here); avatar looks and voices are named by id
 * and resolved when the render starts, so a look or voice deleted in between fails the video with a
 * reason instead of rendering something else. Every type of `POST /v3/videos` becomes a list of
 * scenes: an avatar or image video is one scene, a studio video one per requested scene.
 */
import type { Resolution } from '../billing/plans.js';
import type { TransitionKind } from '../engines/composition/composition-engine.js';
import type { Pronunciation } from '../engines/speech/speech-engine.js';
import type { AspectRatio, VoiceSettings } from './video-requests.js';

export type SceneBackground =
  /**
   * `transparent`: a webm video's alpha background; `color` is what the thumbnail (no alpha) shows.
   * `implicit`: the request chose no background (the default grey, or a brand kit's colour): a brand
   * kit applied later (a template's video) recolours it.
   */
  | { type: 'color'; color: string; transparent?: boolean; implicit?: true }
  | { type: 'image'; key: string; fit: 'cover' | 'contain' }
  | { type: 'video'; key: string; mode: 'freeze' | 'loop' | 'fit_to_scene'; volume: number };

/** Who speaks: a stock or own avatar look, or an arbitrary image animated as the presenter. */
export type ScenePresenter =
  | {
      kind: 'avatar';
      avatar_id: string;
      engine: string;
      expressiveness: string | null;
      motion_prompt: string | null;
      fit: 'contain' | 'cover';
    }
  | { kind: 'image'; key: string; fit: 'contain' | 'cover' };

export type SceneSpeech =
  | {
      kind: 'script';
      text: string;
      /** Null: the avatar look's default voice (resolved when the render starts). */
      voice_id: string | null;
      settings: VoiceSettings;
      /**
       * The same words in the same voice were spoken for a scene of an earlier video of the workspace
       * (a video agent's draft, edited): its kept speech is copied instead of speaking again. When that
       * speech is gone or differs (text, voice, settings), the scene is spoken as usual.
       */
      reuse?: { video_id: string; scene_id: string };
    }
  | { kind: 'audio'; key: string };

export interface RenderScene {
  /** Scene id within the video (`scene_1`, ...), used by the scenes document. */
  id: string;
  /** The request's scene type, for the scenes document. */
  source: 'avatar' | 'image' | 'avatar_video' | 'image_scene' | 'video_scene' | 'cinematic';
  background: SceneBackground;
  presenter: ScenePresenter | null;
  speech: SceneSpeech | null;
  /** Length of a silent scene, in ms (a narrated scene lasts as long as its speech). */
  duration_ms: number | null;
}

export interface RenderSpec {
  scenes: RenderScene[];
  /** Burn captions into `video_url` (a caption style was requested). */
  burn_captions: boolean;
  /** Whether the request asked for captions at all (`caption` given). */
  captions_requested: boolean;
  watermark: {
    key: string;
    opacity: number;
    scale: number;
    position: 'top_left' | 'top_right' | 'bottom_left' | 'bottom_right';
    offset_x: number;
    offset_y: number;
  } | null;
  /** Set for `cinematic_avatar`: what a generative video model would need. */
  cinematic: {
    prompt: string;
    avatar_ids: string[];
    duration_seconds: number;
    reference_keys: string[];
  } | null;
  brand_glossary_id: string | null;
  /**
   * The glossary's pronunciations when the video was admitted (brand/brand-glossaries.ts). Absent on
   * videos admitted before glossaries were applied.
   */
  pronunciations?: Pronunciation[];
  /**
   * Keep each scene's speech after the render (`speech/` of the video, with what was spoken), so a
   * later video can reuse it (`SceneSpeech.reuse`). Video agent drafts keep it. @default false
   */
  keep_speech?: boolean;
  /**
   * Background music under the whole video: a track of the sound catalog (`GET /v3/audio/sounds`), by
   * its media key, at a gain under the speech. Video agent drafts choose one. @default null
   */
  music?: { key: string; volume: number; sound_id: string } | null;
  /** The brand kit the video is made with, as it was at creation (brand-kit-render.ts). @default null */
  brand_kit?: RenderBrandKit | null;
  /**
   * How each scene gives way to the next (the composition engine's `SceneTransition`): not a field of
   * `POST /v3/videos`; a video agent's draft takes its style's. @default null: cuts
   */
  transition?: { kind: TransitionKind; duration_ms: number } | null;
}

/**
 * What a video takes from its brand kit, copied when the video is created: editing or deleting the
 * kit later leaves the video as it was. Its files are the video's own inputs.
 */
export interface RenderBrandKit {
  brand_kit_id: string;
  /** `#rrggbb`, lower case: the first is the primary colour, the second the accent. */
  colors: string[];
  /** The caption font: a bundled family (`key` null) or the kit's font file, copied. */
  caption_font: { family: string; key: string | null } | null;
  /** The kit's primary logo, copied; shown in a corner of every frame. */
  logo_key: string | null;
}

/** Short edge in pixels of each resolution tier, and the longest edge it allows. */
const TIERS: Readonly<Record<Resolution, { short: number; long: number }>> = {
  '720p': { short: 720, long: 1280 },
  '1080p': { short: 1080, long: 1920 },
  '4k': { short: 2160, long: 3840 },
};

const even = (value: number) => Math.max(2, Math.round(value / 2) * 2);

/**
 * Frame size of a resolution and aspect ratio: the short edge is the tier's, the long edge follows
 * the ratio (at most the tier's long edge). `auto` follows `source` (the presenter's own width and
 * height) and falls back to 16:9 without one.
 */
export function frameSize(
  resolution: Resolution,
  aspectRatio: AspectRatio,
  source?: { width: number; height: number },
): { width: number; height: number } {
  const tier = TIERS[resolution];
  let ratio: number;
  if (aspectRatio === 'auto')
    ratio = source && source.width > 0 && source.height > 0 ? source.width / source.height : 16 / 9;
  else {
    const [w, h] = aspectRatio.split(':').map(Number) as [number, number];
    ratio = w / h;
  }
  if (ratio >= 1) return { width: even(Math.min(tier.long, tier.short * ratio)), height: tier.short };
  return { width: tier.short, height: even(Math.min(tier.long, tier.short / ratio)) };
}
