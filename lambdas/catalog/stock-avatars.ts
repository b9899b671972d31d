/**
 * The stock (public) avatars: a few preset characters (avatar groups), each with two or three looks.
 * A look id is what clients pass as `avatar_id`. Portraits are drawn by the project itself
 * (`portrait-art.ts`) and stored at `portraitKey` (the figure on a transparent background, which the
 * video composer overlays as the presenter) and `previewKey` (the same figure in front of its
 * backdrop, served as `preview_image_url`).
 *
 * Pure data: no I/O, safe to import from any handler.
 */
import { catalogKeys } from './catalog-keys.js';
import type { LookAppearance } from './look-appearance.js';
import type { Orientation } from './portrait-art.js';
import { findStockVoice } from './stock-voices.js';

export interface StockLook {
  /** Stable public id, e.g. `maya-office`: the `avatar_id` of video creation. */
  id: string;
  groupId: string;
  name: string;
  gender: 'male' | 'female';
  /** A stock voice of the same gender (`findStockVoice`). */
  defaultVoiceId: string;
  /** S3 key (media bucket) of the presenter portrait PNG used by the video composer. */
  portraitKey: string;
  /** S3 key (media bucket) of the preview PNG (the figure in front of its backdrop, half size). */
  previewKey: string;
  /** Size of the portrait PNG, in pixels. */
  imageWidth: number;
  imageHeight: number;
  preferredOrientation: 'portrait' | 'landscape' | 'square';
  supportedApiEngines: string[];
  tags: string[];
  /** How the portrait is drawn. */
  appearance: LookAppearance;
}

export interface StockAvatarGroup {
  /** Stable public id, e.g. `maya`. */
  id: string;
  name: string;
  gender: 'male' | 'female';
  /** The default voice of the group's first look. */
  defaultVoiceId: string;
  /** The group's first look: its preview is the group's preview. */
  coverLookId: string;
  looks: readonly StockLook[];
}

/** When the stock catalog was published: the `created_at` of every stock group (Unix seconds). */
export const STOCK_CATALOG_CREATED_AT = 1_767_225_600; // 2026-01-01T00:00:00Z

/**
 * The video engines a stock look can be rendered with (the `engine.type` values of
 * `POST /v3/videos`; Avatar IV is the default when none is given).
 */
export const STOCK_LOOK_ENGINES: readonly string[] = ['avatar_iii', 'avatar_iv', 'avatar_v'];

/** Portrait size per orientation: full HD, so the presenter stays sharp in 1080p videos. */
export const PORTRAIT_SIZES: Readonly<Record<Orientation, { width: number; height: number }>> = {
  landscape: { width: 1920, height: 1080 },
  portrait: { width: 1080, height: 1920 },
  square: { width: 1080, height: 1080 },
};

/** Previews are drawn at this share of the portrait's size. */
export const PREVIEW_SCALE = 0.5;

interface LookDefinition {
  slug: string;
  name: string;
  orientation: Orientation;
  tags: string[];
  defaultVoiceId?: string;
  appearance: LookAppearance;
}

interface CharacterDefinition {
  id: string;
  name: string;
  gender: 'male' | 'female';
  defaultVoiceId: string;
  looks: LookDefinition[];
}

const CHARACTERS: readonly CharacterDefinition[] = [
  {
    id: 'maya',
    name: 'Maya',
    gender: 'female',
    defaultVoiceId: 'en-us-olivia',
    looks: [
      {
        slug: 'office',
        name: 'Maya Office',
        orientation: 'landscape',
        tags: ['business', 'professional', 'indoor'],
        appearance: {
          skin: '#f1c6a2',
          eyes: '#6b4423',
          hair: { style: 'long', color: '#3b2417' },
          outfit: { style: 'blazer', color: '#1f3a5f', accent: '#f2f4f7' },
          earrings: '#d4af37',
          backdrop: { from: '#dfe7f1', to: '#9fb3cc', accent: '#ffffff' },
        },
      },
      {
        slug: 'casual',
        name: 'Maya Casual',
        orientation: 'portrait',
        tags: ['casual', 'social media', 'lifestyle'],
        appearance: {
          skin: '#f1c6a2',
          eyes: '#6b4423',
          hair: { style: 'bun', color: '#3b2417' },
          outfit: { style: 'sweater', color: '#d9a23c', accent: '#ffffff' },
          backdrop: { from: '#fff1dc', to: '#f3b98a', accent: '#ffe3b3' },
        },
      },
      {
        slug: 'studio',
        name: 'Maya Studio',
        orientation: 'square',
        tags: ['studio', 'minimal'],
        appearance: {
          skin: '#f1c6a2',
          eyes: '#6b4423',
          hair: { style: 'long', color: '#3b2417' },
          outfit: { style: 'turtleneck', color: '#26282c', accent: '#26282c' },
          lips: '#b4424f',
          backdrop: { from: '#2f8f88', to: '#17494d', accent: '#7fd6c9' },
        },
      },
    ],
  },
  {
    id: 'daniel',
    name: 'Daniel',
    gender: 'male',
    defaultVoiceId: 'en-us-ethan',
    looks: [
      {
        slug: 'business',
        name: 'Daniel Business',
        orientation: 'landscape',
        tags: ['business', 'finance', 'professional'],
        appearance: {
          skin: '#c98b60',
          eyes: '#4a2f1d',
          hair: { style: 'short', color: '#1d1714' },
          outfit: { style: 'suit', color: '#2d333d', accent: '#8e2b3a' },
          backdrop: { from: '#e9ecef', to: '#aab4c0', accent: '#ffffff' },
        },
      },
      {
        slug: 'casual',
        name: 'Daniel Casual',
        orientation: 'portrait',
        tags: ['casual', 'social media', 'technology'],
        appearance: {
          skin: '#c98b60',
          eyes: '#4a2f1d',
          hair: { style: 'short', color: '#1d1714' },
          outfit: { style: 'hoodie', color: '#3e7c59', accent: '#f1f1f1' },
          beard: 'stubble',
          backdrop: { from: '#e4f4e8', to: '#8fc5a1', accent: '#fbfff6' },
        },
      },
    ],
  },
  {
    id: 'amara',
    name: 'Amara',
    gender: 'female',
    defaultVoiceId: 'en-gb-charlotte',
    looks: [
      {
        slug: 'presenter',
        name: 'Amara Presenter',
        orientation: 'landscape',
        tags: ['presenter', 'marketing', 'friendly'],
        appearance: {
          skin: '#8d5a3b',
          eyes: '#3d2314',
          hair: { style: 'afro', color: '#1c1411' },
          outfit: { style: 'blouse', color: '#e4574c', accent: '#e4574c' },
          earrings: '#e0b34a',
          lips: '#8c3b3b',
          backdrop: { from: '#fde8df', to: '#f2a48f', accent: '#fff4e6' },
        },
      },
      {
        slug: 'lab',
        name: 'Amara Lab',
        orientation: 'landscape',
        tags: ['healthcare', 'science', 'education'],
        appearance: {
          skin: '#8d5a3b',
          eyes: '#3d2314',
          hair: { style: 'bun', color: '#1c1411' },
          outfit: { style: 'labcoat', color: '#f4f6f7', accent: '#2a9d8f' },
          glasses: '#2b2b2b',
          backdrop: { from: '#e6f4f6', to: '#9ccfd6', accent: '#ffffff' },
        },
      },
      {
        slug: 'keynote',
        name: 'Amara Keynote',
        orientation: 'portrait',
        tags: ['keynote', 'business', 'leadership'],
        appearance: {
          skin: '#8d5a3b',
          eyes: '#3d2314',
          hair: { style: 'afro', color: '#1c1411' },
          outfit: { style: 'blazer', color: '#1f6f54', accent: '#f6efe4' },
          earrings: '#e0b34a',
          backdrop: { from: '#23313f', to: '#0e1620', accent: '#3fb68b' },
        },
      },
    ],
  },
  {
    id: 'kenji',
    name: 'Kenji',
    gender: 'male',
    defaultVoiceId: 'en-us-ethan',
    looks: [
      {
        slug: 'tech',
        name: 'Kenji Tech',
        orientation: 'landscape',
        tags: ['technology', 'education', 'tutorial'],
        appearance: {
          skin: '#f0cfa8',
          eyes: '#3b2a20',
          hair: { style: 'side_part', color: '#15120f' },
          outfit: { style: 'tshirt', color: '#3a4250', accent: '#5cc8ff' },
          glasses: '#1e1e1e',
          backdrop: { from: '#1d2b44', to: '#0c1322', accent: '#3a8dde' },
        },
      },
      {
        slug: 'formal',
        name: 'Kenji Formal',
        orientation: 'landscape',
        tags: ['business', 'professional', 'corporate'],
        appearance: {
          skin: '#f0cfa8',
          eyes: '#3b2a20',
          hair: { style: 'side_part', color: '#15120f' },
          outfit: { style: 'suit', color: '#1c2a4a', accent: '#2a8c8c', shirt: '#eef3f8' },
          backdrop: { from: '#eef0f4', to: '#b9c2d3', accent: '#ffffff' },
        },
      },
    ],
  },
  {
    id: 'sofia',
    name: 'Sofia',
    gender: 'female',
    defaultVoiceId: 'en-us-olivia',
    looks: [
      {
        slug: 'newsroom',
        name: 'Sofia Newsroom',
        orientation: 'landscape',
        tags: ['news', 'presenter', 'professional'],
        appearance: {
          skin: '#f6d5bd',
          eyes: '#4f7a4f',
          hair: { style: 'bob', color: '#8a3b1c' },
          outfit: { style: 'blazer', color: '#b8323a', accent: '#fbf5ec' },
          lips: '#b8323a',
          backdrop: { from: '#1b2a4a', to: '#0a1228', accent: '#4d7fd6' },
        },
      },
      {
        slug: 'friendly',
        name: 'Sofia Friendly',
        orientation: 'portrait',
        tags: ['casual', 'customer support', 'friendly'],
        appearance: {
          skin: '#f6d5bd',
          eyes: '#4f7a4f',
          hair: { style: 'bob', color: '#8a3b1c' },
          outfit: { style: 'tshirt', color: '#8e7cc3', accent: '#f4f0ff' },
          earrings: '#c0c0c0',
          backdrop: { from: '#f3efff', to: '#c7b9ec', accent: '#ffffff' },
        },
      },
    ],
  },
  {
    id: 'lucas',
    name: 'Lucas',
    gender: 'male',
    defaultVoiceId: 'en-gb-oliver',
    looks: [
      {
        slug: 'consultant',
        name: 'Lucas Consultant',
        orientation: 'landscape',
        tags: ['business', 'consulting', 'professional'],
        appearance: {
          skin: '#a86b47',
          eyes: '#3e2616',
          hair: { style: 'curly_short', color: '#2a1a12' },
          outfit: { style: 'blazer', color: '#9c7658', accent: '#cfe2f3' },
          beard: 'full',
          backdrop: { from: '#f4ede4', to: '#cdb9a0', accent: '#ffffff' },
        },
      },
      {
        slug: 'denim',
        name: 'Lucas Denim',
        orientation: 'portrait',
        tags: ['casual', 'lifestyle', 'outdoor'],
        appearance: {
          skin: '#a86b47',
          eyes: '#3e2616',
          hair: { style: 'curly_short', color: '#2a1a12' },
          outfit: { style: 'shirt', color: '#4f6d8f', accent: '#4f6d8f' },
          beard: 'full',
          backdrop: { from: '#fdf3d8', to: '#e7b566', accent: '#fff8e8' },
        },
      },
      {
        slug: 'studio',
        name: 'Lucas Studio',
        orientation: 'square',
        tags: ['studio', 'minimal'],
        appearance: {
          skin: '#a86b47',
          eyes: '#3e2616',
          hair: { style: 'buzz', color: '#2a1a12' },
          outfit: { style: 'turtleneck', color: '#5a6b3a', accent: '#5a6b3a' },
          beard: 'stubble',
          backdrop: { from: '#3a3f47', to: '#16191d', accent: '#c9a227' },
        },
      },
    ],
  },
];

function buildGroup(character: CharacterDefinition): StockAvatarGroup {
  const looks = character.looks.map((definition): StockLook => {
    const id = `${character.id}-${definition.slug}`;
    const size = PORTRAIT_SIZES[definition.orientation];
    return Object.freeze({
      id,
      groupId: character.id,
      name: definition.name,
      gender: character.gender,
      defaultVoiceId: definition.defaultVoiceId ?? character.defaultVoiceId,
      portraitKey: catalogKeys.portrait(id),
      previewKey: catalogKeys.lookPreview(id),
      imageWidth: size.width,
      imageHeight: size.height,
      preferredOrientation: definition.orientation,
      supportedApiEngines: [...STOCK_LOOK_ENGINES],
      tags: [...definition.tags],
      appearance: definition.appearance,
    });
  });
  const [cover] = looks;
  if (!cover) throw new Error(`Stock avatar ${character.id} has no look`);
  return Object.freeze({
    id: character.id,
    name: character.name,
    gender: character.gender,
    defaultVoiceId: cover.defaultVoiceId,
    coverLookId: cover.id,
    looks,
  });
}

export const STOCK_AVATAR_GROUPS: readonly StockAvatarGroup[] = CHARACTERS.map(buildGroup);

/** Every stock look, group by group, in catalog order. */
export const STOCK_LOOKS: readonly StockLook[] = STOCK_AVATAR_GROUPS.flatMap((group) => group.looks);

const GROUPS_BY_ID = new Map(STOCK_AVATAR_GROUPS.map((group) => [group.id, group]));
const LOOKS_BY_ID = new Map(STOCK_LOOKS.map((look) => [look.id, look]));

export function findStockLook(lookId: string): StockLook | undefined {
  return LOOKS_BY_ID.get(lookId);
}

export function findStockAvatarGroup(groupId: string): StockAvatarGroup | undefined {
  return GROUPS_BY_ID.get(groupId);
}

// A default voice that does not exist would break every video made with the look: refuse to load.
for (const look of STOCK_LOOKS) {
  const voice = findStockVoice(look.defaultVoiceId);
  if (!voice || voice.gender !== look.gender) {
    throw new Error(
      `Stock look ${look.id}: default voice ${look.defaultVoiceId} is missing or of another gender`,
    );
  }
}
