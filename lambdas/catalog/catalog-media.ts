/**
 * The catalog's media objects and their versions, without generating anything (no sharp, no engine):
 * what `publishCatalogMedia` must make sure exists, and a version per object that changes whenever
 * its bytes would. A portrait's version is the hash of its SVG, so any change to a look or to the
 * drawing code gives new versions by itself; a voice preview's version covers the engine, the engine
 * voice and the sentence. The bucket records each object's version in its metadata, and the disk
 * cache names files by it.
 */
import { createHash } from 'node:crypto';
import { musicFor } from '../audio/sound-search.js';
import {
  AGENT_STYLES,
  type AgentStyle,
  stylePreviewKey,
  styleThumbnailKey,
} from '../video-agents/agent-styles.js';
import { catalogKeys } from './catalog-keys.js';
import { type CatalogIcon, catalogIcons, ICON_PNG_SIZE, iconKeys, iconSetVersion } from './icon-catalog.js';
import type { DrawnLook } from './look-appearance.js';
import { type PixelBox, type PortraitCanvas, portraitSvg } from './portrait-art.js';
import { CATALOG_SOUNDS, type CatalogSound, soundKey, soundVersionInputs } from './sound-catalog.js';
import { SPRITES, type SpriteName, spriteBox, spriteSvg } from './sprite-art.js';
import { PREVIEW_SCALE, STOCK_LOOKS, type StockLook } from './stock-avatars.js';
import { engineVoiceOf, STOCK_VOICES, type StockVoice } from './stock-voices.js';

/** The size and text of a style's thumbnail: a 16:9 card with the style's name as its headline. */
export const STYLE_THUMBNAIL = { width: 640, height: 360, drawing: 'scene-card-1' } as const;

/** The size, timing and encoding of a style's preview video. */
export interface StylePreviewLayout {
  width: number;
  height: number;
  frameRate: number;
  /** Seconds each card is shown, in order; the preview lasts their sum. */
  cardSeconds: readonly number[];
  musicFadeInSeconds: number;
  musicFadeOutSeconds: number;
  /** x264's quality (lower is better) and speed. */
  crf: number;
  x264Preset: string;
  audioBitRate: string;
}

/**
 * A style's preview video: its scene cards in sequence, joined as the style joins scenes, over the
 * music the agent picks for the style's mood, faded in and out. Small (a catalog page lists a dozen of
 * them) and short. The cards: the style's name, then its description, as an agent's scene shows text.
 */
export const STYLE_PREVIEW: Readonly<StylePreviewLayout> = {
  width: 640,
  height: 360,
  frameRate: 25,
  cardSeconds: [2, 3],
  musicFadeInSeconds: 0.5,
  musicFadeOutSeconds: 1,
  // A still card compresses to almost nothing (about 80 KB for 5 s): this quality keeps the gradients
  // free of bands, and the preset is fast enough that rendering is mostly drawing and synthesis.
  crf: 26,
  x264Preset: 'veryfast',
  audioBitRate: '96k',
};

/** Bump when the way bytes are made from the same inputs changes (PNG options, WAV encoding). */
export const CATALOG_GENERATOR_VERSION = 2;

/** The object metadata entry (`x-amz-meta-catalog-version`) holding an object's version. */
export const CATALOG_VERSION_METADATA = 'catalog-version';

export type CatalogMediaItem =
  | {
      kind: 'portrait' | 'look-preview';
      key: string;
      contentType: 'image/png';
      version: string;
      look: StockLook;
    }
  | {
      /** The mouths and blink of a look's portrait, which make the presenter talk (`lookSpriteSheet`). */
      kind: 'sprite-sheet';
      key: string;
      contentType: 'image/png';
      version: string;
      look: StockLook;
    }
  | {
      kind: 'voice-preview';
      key: string;
      contentType: 'audio/wav';
      version: string;
      voice: StockVoice;
      /** The engine's voice id for this voice. */
      engineVoiceId: string;
    }
  | {
      /** An icon of `GET /v3/assets/search` (icon-catalog.ts) as the package's SVG file. */
      kind: 'icon-svg';
      key: string;
      contentType: 'image/svg+xml';
      version: string;
      icon: CatalogIcon;
    }
  | {
      /** The same icon drawn as a transparent PNG (render-icon.ts). */
      kind: 'icon-png';
      key: string;
      contentType: 'image/png';
      version: string;
      icon: CatalogIcon;
    }
  | {
      /** A video agent style's thumbnail: a scene card drawn in the style (video-agents/scene-cards.ts). */
      kind: 'style-thumbnail';
      key: string;
      contentType: 'image/png';
      version: string;
      style: AgentStyle;
    }
  | {
      /** A video agent style's preview video (`STYLE_PREVIEW`, render-style-preview.ts). */
      kind: 'style-preview';
      key: string;
      contentType: 'video/mp4';
      version: string;
      style: AgentStyle;
      /** The music under it: the catalog's best match for the style's mood. */
      music: CatalogSound;
    }
  | {
      /** Music or a sound effect of `GET /v3/audio/sounds` (sound-catalog.ts). */
      kind: 'sound';
      key: string;
      contentType: 'audio/mpeg';
      version: string;
      sound: CatalogSound;
    };

/** An icon's SVG or PNG. */
export type IconMediaItem = Extract<CatalogMediaItem, { kind: 'icon-svg' | 'icon-png' }>;

export type StylePreviewItem = Extract<CatalogMediaItem, { kind: 'style-preview' }>;

const hash = (...parts: readonly unknown[]) =>
  createHash('sha256')
    .update(JSON.stringify([CATALOG_GENERATOR_VERSION, ...parts]))
    .digest('hex')
    .slice(0, 24);

export function lookCanvas(look: DrawnLook): PortraitCanvas {
  return { width: look.imageWidth, height: look.imageHeight, orientation: look.preferredOrientation };
}

/** The SVG of a look's portrait (transparent) or preview (with its backdrop, at `PREVIEW_SCALE`). */
export function lookSvg(look: DrawnLook, kind: 'portrait' | 'look-preview'): string {
  return portraitSvg(
    look.appearance,
    look.gender,
    lookCanvas(look),
    kind === 'portrait' ? {} : { withBackdrop: true, outputScale: PREVIEW_SCALE },
  );
}

export interface LookSprite {
  sprite: SpriteName;
  /** Where it goes on the look's portrait PNG (its pixels). */
  box: PixelBox;
  /** The row of the sheet where its pixels start (at column 0, `box.width` × `box.height` of them). */
  sheetTop: number;
}

/** Where a look's sprites are on its sheet, and the sheet's size: the same for any look of a canvas. */
export interface SpriteSheetLayout {
  width: number;
  height: number;
  sprites: LookSprite[];
}

export interface LookSpriteSheet extends SpriteSheetLayout {
  /** Where the sheet is in the media bucket. */
  key: string;
}

/**
 * The sprites of a look in one PNG, stacked top to bottom in `SPRITES` order: what a video needs to
 * make its presenter talk and blink, in one object (one upload per look when the catalog is
 * published, one download per render). Only the canvas decides it: any drawn look has one.
 */
export function spriteSheetLayout(look: DrawnLook): SpriteSheetLayout {
  const canvas = lookCanvas(look);
  let top = 0;
  const sprites = SPRITES.map((sprite) => {
    const box = spriteBox(canvas, sprite);
    const entry = { sprite, box, sheetTop: top };
    top += box.height;
    return entry;
  });
  return { width: Math.max(...sprites.map((entry) => entry.box.width)), height: top, sprites };
}

/** A stock look's sprite sheet (`spriteSheetLayout`) and where the catalog stores it. */
export function lookSpriteSheet(look: StockLook): LookSpriteSheet {
  return { key: catalogKeys.spriteSheet(look.id), ...spriteSheetLayout(look) };
}

/**
 * An icon's SVG and PNG, the PNG last: a publisher writes them in this order, so a PNG at its version
 * says both are there. Their versions come from the package's version and the icon's name and style
 * (which the keys hold already) and the PNG's size: no file is read to know them.
 */
export function iconMediaItems(
  icon: CatalogIcon,
): [svg: Extract<IconMediaItem, { kind: 'icon-svg' }>, png: Extract<IconMediaItem, { kind: 'icon-png' }>] {
  const keys = iconKeys(icon);
  const inputs = [iconSetVersion(), icon.style, icon.name] as const;
  return [
    {
      kind: 'icon-svg',
      key: keys.svg,
      contentType: 'image/svg+xml',
      version: hash('icon-svg', ...inputs),
      icon,
    },
    {
      kind: 'icon-png',
      key: keys.png,
      contentType: 'image/png',
      version: hash('icon-png', ...inputs, ICON_PNG_SIZE),
      icon,
    },
  ];
}

/**
 * A style's preview video, over the music the agent picks for the style's mood (`musicFor`). A mood
 * that matches no music has none (a unit test keeps every style's mood matching).
 */
export function stylePreviewItem(style: AgentStyle): StylePreviewItem | undefined {
  const music = musicFor(style.music_mood)?.sound;
  if (!music) return undefined;
  return {
    kind: 'style-preview',
    key: stylePreviewKey(style.style_id),
    contentType: 'video/mp4',
    version: hash('style-preview', STYLE_PREVIEW, style, music.id, soundVersionInputs(music)),
    style,
    music,
  };
}

/** Which parts of the catalog a publication covers. */
export interface CatalogScope {
  /**
   * The icons (6,287 SVGs and as many PNGs). The local stack leaves them out: its searches publish
   * each icon on first use, where uploading them all would add about a minute to a start with an
   * empty bucket. @default true
   */
  icons?: boolean;
  /**
   * The styles' preview videos (a second of drawing, synthesis and encoding each). The local stack
   * leaves them out: the styles list publishes the previews it answers on first use
   * (style-preview-media.ts), which keeps a start with an empty cache fast. @default true
   */
  stylePreviews?: boolean;
}

/**
 * Every catalog object for a deployment whose speech engine is `engineName`. Voices that engine
 * cannot speak have no preview (they are not offered there either). The sound catalog's music and
 * effects, and the icons, are the same for every engine.
 */
export function catalogMediaItems(engineName: string, scope: CatalogScope = {}): CatalogMediaItem[] {
  const images = STOCK_LOOKS.flatMap((look) =>
    (['portrait', 'look-preview'] as const).map((kind) => ({
      kind,
      key: kind === 'portrait' ? look.portraitKey : look.previewKey,
      contentType: 'image/png' as const,
      version: hash(kind, lookSvg(look, kind)),
      look,
    })),
  );
  const spriteSheets = STOCK_LOOKS.map((look) => ({
    kind: 'sprite-sheet' as const,
    key: catalogKeys.spriteSheet(look.id),
    contentType: 'image/png' as const,
    version: hash(
      'sprite-sheet',
      SPRITES.map((sprite) => spriteSvg(look.appearance, look.gender, lookCanvas(look), sprite)),
    ),
    look,
  }));
  const previews = STOCK_VOICES.flatMap((voice) => {
    const engineVoiceId = engineVoiceOf(voice, engineName);
    if (engineVoiceId === undefined) return [];
    return [
      {
        kind: 'voice-preview' as const,
        key: voice.previewKey,
        contentType: 'audio/wav' as const,
        version: hash('voice-preview', engineName, engineVoiceId, voice.previewText),
        voice,
        engineVoiceId,
      },
    ];
  });
  const sounds = CATALOG_SOUNDS.map((sound) => ({
    kind: 'sound' as const,
    key: soundKey(sound.id),
    contentType: 'audio/mpeg' as const,
    version: hash('sound', soundVersionInputs(sound)),
    sound,
  }));
  const icons = (scope.icons ?? true) ? catalogIcons().flatMap(iconMediaItems) : [];
  const styles = AGENT_STYLES.map((style) => ({
    kind: 'style-thumbnail' as const,
    key: styleThumbnailKey(style.style_id),
    contentType: 'image/png' as const,
    version: hash('style-thumbnail', STYLE_THUMBNAIL, style),
    style,
  }));
  const stylePreviews =
    (scope.stylePreviews ?? true) ? AGENT_STYLES.flatMap((style) => stylePreviewItem(style) ?? []) : [];
  return [...images, ...spriteSheets, ...previews, ...sounds, ...styles, ...stylePreviews, ...icons];
}

/**
 * One version for the whole catalog of a deployment: changes whenever any object would. A CDK custom
 * resource that publishes the catalog takes it as a property, so CloudFormation updates (and the
 * handler republishes) exactly when the catalog changed.
 */
export function catalogMediaVersion(engineName: string): string {
  return hash(catalogMediaItems(engineName).map((item) => [item.key, item.version]));
}
