/**
 * The visual styles of the video agent (`GET /v3/video-agents/styles`, `style_id` on create): this
 * project's own catalogue. A style decides the look of every scene card (a two-colour gradient, the
 * headline's colour, font and weight, an accent bar), how captions are shown (burned in or a sidecar),
 * the music mood searched in the sound catalogue, and the presenter used when the request names none.
 * Fonts are the bundled DejaVu families (engines/composition/bundled-fonts.ts). Each style joins its
 * scenes with one transition of the composition engine (composition-engine.ts, `TRANSITION_KINDS`),
 * which its drafts' render spec carries to the engine.
 *
 * Tags are the hosted catalogue's (`cinematic`, `retro-tech`, `iconic-artist`, `pop-culture`,
 * `handmade`, `print`) plus a few plain ones (`minimal`, `corporate`, `playful`).
 */
import type { BundledFontFamily } from '../engines/composition/bundled-fonts.js';
import type { TransitionKind } from '../engines/composition/composition-engine.js';

export const STYLE_TAGS = [
  'cinematic',
  'retro-tech',
  'iconic-artist',
  'pop-culture',
  'handmade',
  'print',
  'minimal',
  'corporate',
  'playful',
] as const;
export type StyleTag = (typeof STYLE_TAGS)[number];

export interface AgentStyle {
  style_id: string;
  name: string;
  description: string;
  tags: readonly StyleTag[];
  palette: {
    /** Gradient of the scene cards, top left to bottom right. */
    from: string;
    to: string;
    /** Headline colour. */
    text: string;
    /** The bar under the headline. */
    accent: string;
  };
  typography: { family: BundledFontFamily; bold: boolean; uppercase: boolean };
  /** Burned-in captions (else a sidecar SRT and the captioned copy only). */
  burn_captions: boolean;
  /** How one scene gives way to the next (a scene shorter than twice `duration_ms` cuts). */
  transition: StyleTransition;
  /** Words searched in the sound catalogue, with the tone's. */
  music_mood: string;
  /** The stock look that presents when the request names no `avatar_id`. */
  presenter_look: string;
}

export interface StyleTransition {
  kind: TransitionKind;
  duration_ms: number;
}

const style = (definition: AgentStyle) => Object.freeze(definition);

export const AGENT_STYLES: readonly AgentStyle[] = [
  style({
    style_id: 'clean-explainer',
    name: 'Clean Explainer',
    description: 'Calm blues, plain sans headlines: the default for explainers.',
    tags: ['minimal', 'corporate'],
    palette: { from: '#0f2b46', to: '#1f7a8c', text: '#ffffff', accent: '#ffd166' },
    typography: { family: 'DejaVu Sans', bold: true, uppercase: false },
    burn_captions: true,
    transition: { kind: 'fade', duration_ms: 500 },
    music_mood: 'light corporate',
    presenter_look: 'maya-office',
  }),
  style({
    style_id: 'noir-cinema',
    name: 'Noir Cinema',
    description: 'Near-black frames, serif titles in pale gold, like an old film card.',
    tags: ['cinematic'],
    palette: { from: '#050505', to: '#2b2b2b', text: '#f2e6c9', accent: '#b08d57' },
    typography: { family: 'DejaVu Serif', bold: true, uppercase: true },
    burn_captions: true,
    transition: { kind: 'fadeblack', duration_ms: 800 },
    music_mood: 'cinematic dramatic',
    presenter_look: 'daniel-business',
  }),
  style({
    style_id: 'golden-hour',
    name: 'Golden Hour',
    description: 'Warm amber to dusk purple: a cinematic, hopeful look.',
    tags: ['cinematic'],
    palette: { from: '#f4a261', to: '#5e2a84', text: '#fffaf0', accent: '#ffe8a3' },
    typography: { family: 'DejaVu Serif', bold: false, uppercase: false },
    burn_captions: true,
    transition: { kind: 'fade', duration_ms: 1000 },
    music_mood: 'cinematic warm',
    presenter_look: 'amara-presenter',
  }),
  style({
    style_id: 'terminal-green',
    name: 'Terminal Green',
    description: 'Phosphor green on black in a monospaced face: an 80s computer screen.',
    tags: ['retro-tech'],
    palette: { from: '#001a00', to: '#002b0f', text: '#33ff66', accent: '#33ff66' },
    typography: { family: 'DejaVu Sans Mono', bold: true, uppercase: true },
    burn_captions: true,
    transition: { kind: 'wipeleft', duration_ms: 400 },
    music_mood: 'electronic retro synth',
    presenter_look: 'kenji-tech',
  }),
  style({
    style_id: 'synthwave',
    name: 'Synthwave',
    description: 'Magenta to midnight with neon cyan: retro-futurist.',
    tags: ['retro-tech', 'pop-culture'],
    palette: { from: '#ff2a6d', to: '#1a1a40', text: '#05d9e8', accent: '#f9c80e' },
    typography: { family: 'DejaVu Sans Condensed', bold: true, uppercase: true },
    burn_captions: true,
    transition: { kind: 'slideleft', duration_ms: 500 },
    music_mood: 'synth electronic energetic',
    presenter_look: 'kenji-tech',
  }),
  style({
    style_id: 'primary-blocks',
    name: 'Primary Blocks',
    description: 'Flat primaries and heavy black type, after the modernist painters.',
    tags: ['iconic-artist', 'print'],
    palette: { from: '#f7f3e8', to: '#f1e9d2', text: '#111111', accent: '#d62828' },
    typography: { family: 'DejaVu Sans', bold: true, uppercase: true },
    burn_captions: false,
    transition: { kind: 'circleopen', duration_ms: 600 },
    music_mood: 'quirky jazz',
    presenter_look: 'sofia-newsroom',
  }),
  style({
    style_id: 'starry-swirl',
    name: 'Starry Swirl',
    description: 'Night blue into cobalt, star-yellow accents: post-impressionist.',
    tags: ['iconic-artist'],
    palette: { from: '#0b1d51', to: '#2e5aac', text: '#f9e79f', accent: '#f4d03f' },
    typography: { family: 'DejaVu Serif', bold: true, uppercase: false },
    burn_captions: true,
    transition: { kind: 'circleopen', duration_ms: 900 },
    music_mood: 'gentle piano',
    presenter_look: 'amara-keynote',
  }),
  style({
    style_id: 'pop-comic',
    name: 'Pop Comic',
    description: 'Loud yellow and red with black type, like a comic panel.',
    tags: ['pop-culture', 'playful'],
    palette: { from: '#ffe600', to: '#ff6b00', text: '#111111', accent: '#e10600' },
    typography: { family: 'DejaVu Sans Condensed', bold: true, uppercase: true },
    burn_captions: true,
    transition: { kind: 'slideleft', duration_ms: 400 },
    music_mood: 'upbeat fun',
    presenter_look: 'lucas-denim',
  }),
  style({
    style_id: 'chalkboard',
    name: 'Chalkboard',
    description: 'Slate green with chalk-white writing: a classroom explainer.',
    tags: ['handmade'],
    palette: { from: '#2f4f3f', to: '#22382d', text: '#f5f5f0', accent: '#f2c14e' },
    typography: { family: 'DejaVu Sans', bold: false, uppercase: false },
    burn_captions: true,
    transition: { kind: 'fade', duration_ms: 600 },
    music_mood: 'acoustic light',
    presenter_look: 'amara-lab',
  }),
  style({
    style_id: 'kraft-paper',
    name: 'Kraft Paper',
    description: 'Brown paper tones and ink-dark serif: handmade and warm.',
    tags: ['handmade', 'print'],
    palette: { from: '#d8b98c', to: '#b08a5a', text: '#2b1d0e', accent: '#7a3e1d' },
    typography: { family: 'DejaVu Serif', bold: true, uppercase: false },
    burn_captions: false,
    transition: { kind: 'fade', duration_ms: 700 },
    music_mood: 'acoustic folk',
    presenter_look: 'sofia-friendly',
  }),
  style({
    style_id: 'newsprint',
    name: 'Newsprint',
    description: 'Off-white paper, black serif headlines and a red rule: a front page.',
    tags: ['print', 'corporate'],
    palette: { from: '#f4f1ea', to: '#e2ddd0', text: '#1a1a1a', accent: '#b3001b' },
    typography: { family: 'DejaVu Serif Condensed', bold: true, uppercase: false },
    burn_captions: false,
    transition: { kind: 'wipeleft', duration_ms: 600 },
    music_mood: 'news serious reflective piano',
    presenter_look: 'sofia-newsroom',
  }),
  style({
    style_id: 'blueprint',
    name: 'Blueprint',
    description: 'Engineering blue with white technical lettering.',
    tags: ['print', 'retro-tech'],
    palette: { from: '#0b3d91', to: '#0a2a66', text: '#ffffff', accent: '#9ad1ff' },
    typography: { family: 'DejaVu Sans Mono', bold: false, uppercase: true },
    burn_captions: true,
    transition: { kind: 'wipeleft', duration_ms: 500 },
    music_mood: 'technology ambient',
    presenter_look: 'kenji-formal',
  }),
  style({
    style_id: 'boardroom',
    name: 'Boardroom',
    description: 'Charcoal and steel with a teal accent: a business presentation.',
    tags: ['corporate', 'minimal'],
    palette: { from: '#2d3436', to: '#485460', text: '#ffffff', accent: '#00b894' },
    typography: { family: 'DejaVu Sans', bold: true, uppercase: false },
    burn_captions: true,
    transition: { kind: 'fade', duration_ms: 500 },
    music_mood: 'corporate inspiring',
    presenter_look: 'lucas-consultant',
  }),
  style({
    style_id: 'confetti',
    name: 'Confetti',
    description: 'Candy pink into sky blue: playful and light.',
    tags: ['playful', 'pop-culture'],
    palette: { from: '#ff9ff3', to: '#54a0ff', text: '#ffffff', accent: '#feca57' },
    typography: { family: 'DejaVu Sans', bold: true, uppercase: false },
    burn_captions: true,
    transition: { kind: 'fadewhite', duration_ms: 600 },
    music_mood: 'happy playful',
    presenter_look: 'maya-casual',
  }),
];

export const DEFAULT_STYLE_ID = 'clean-explainer';

const BY_ID = new Map(AGENT_STYLES.map((entry) => [entry.style_id, entry]));

export function findStyle(styleId: string): AgentStyle | undefined {
  return BY_ID.get(styleId);
}

export function styleOf(styleId: string): AgentStyle {
  return findStyle(styleId) ?? (BY_ID.get(DEFAULT_STYLE_ID) as AgentStyle);
}

/** The styles carrying `tag` (all without one), in catalogue order. */
export function stylesTagged(tag: string | undefined): AgentStyle[] {
  return AGENT_STYLES.filter((entry) => tag === undefined || (entry.tags as readonly string[]).includes(tag));
}

/** Where a style's thumbnail is in the media bucket (published with the stock catalog). */
export const styleThumbnailKey = (styleId: string) => `catalog/video-agent-styles/${styleId}.png`;
/** Where a style's preview video is in the media bucket (published with the stock catalog). */
export const stylePreviewKey = (styleId: string) => `catalog/video-agent-styles/${styleId}.mp4`;
