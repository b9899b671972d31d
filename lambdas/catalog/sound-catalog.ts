/**
 * The royalty-free sound catalog of `GET /v3/audio/sounds`: music beds and sound effects that this
 * project makes itself (sound-recipes.ts; nothing is downloaded), published with the stock catalog's
 * media under `catalog/sounds/` (see catalog/publish-catalog-media.ts) as 44.1 kHz stereo MP3.
 *
 * Pure data and recipes (no I/O): safe to import from any handler. `durationSeconds` is the recipe's own length and
 * `peakOffset` the loudest moment of its samples (a unit test renders every recipe and checks both).
 */
import { CATALOG_PREFIX } from './catalog-keys.js';
import { MUSIC_RECIPES, SOUND_EFFECT_RECIPES } from './sound-recipes.js';

export const SOUND_TYPES = ['music', 'sound_effects'] as const;
export type SoundType = (typeof SOUND_TYPES)[number];

/** How a sound effect is meant to be placed: on a moment (`hit`), leading into one (`riser`), or under a scene (`bed`). */
export type Placement = 'hit' | 'riser' | 'bed';

export interface CatalogSound {
  /** Stable id, e.g. `music-sunrise-lofi`. */
  id: string;
  /** The recipe that makes it (sound-recipes.ts). */
  recipe: string;
  type: SoundType;
  name: string;
  /** What it sounds like, in the words people search with. */
  description: string;
  /** More search words: genre, mood, use. */
  tags: readonly string[];
  durationSeconds: number;
  /** Sound effects: where it is meant to sit, and seconds to its loudest moment. */
  placement?: Placement;
  peakOffset?: number;
  /** Music: tempo. */
  bpm?: number;
}

/**
 * Bump when the way samples become bytes changes in a way the recipes' own text does not show (the
 * synthesizer, the MP3 encoding).
 */
export const SOUND_GENERATOR_VERSION = 2;

/**
 * What a sound's catalog version is computed from (catalog/catalog-media.ts): the generator version,
 * the sound's kind and recipe, and the recipe's source text, so editing a recipe republishes it.
 */
export function soundVersionInputs(sound: CatalogSound): unknown[] {
  const recipes = sound.type === 'music' ? MUSIC_RECIPES : SOUND_EFFECT_RECIPES;
  return [SOUND_GENERATOR_VERSION, sound.type, sound.recipe, canonicalSource(String(recipes[sound.recipe]))];
}

/** Vite's SSR transform reaches an import's binding through its module object: `(0,__vite_ssr_import_3__.tone)`. */
const VITE_SSR_IMPORT = /\(0,\s*__vite_ssr_import_\d+__\.([\w$]+)\)|__vite_ssr_import_\d+__\.([\w$]+)/g;
const SOURCE_TOKEN =
  /\/\/[^\n]*|\/\*[\s\S]*?\*\/|"(?:[^"\\]|\\.)*"|'(?:[^'\\]|\\.)*'|`(?:[^`\\]|\\.)*`|(?:\d+\.?\d*|\.\d+)(?:[eE][+-]?\d+)?|[\w$]+|=>|\s+|./g;

/**
 * A function's source text as its tokens, the same whichever transformer loaded the module: the test
 * suite (Vite's SSR transform), `tsx` on each Node.js version (esbuild, whitespace minified for that
 * version) and a Lambda bundle print a recipe differently. Versions from the raw text differed between
 * them, and the processes that share the generated-media cache (a suite's files and its smoke test's
 * service, on three Node.js versions) each found the others' sounds outdated: they regenerated all of
 * them (seconds of CPU per sound) and pruned the others'. Comments, whitespace, semicolons, the
 * parentheses of a lone arrow parameter and a number's spelling (`.5`, `0.5`) are left out; Vite's
 * import bindings read as their names.
 */
export function canonicalSource(source: string): string {
  const tokens = (
    source.replace(VITE_SSR_IMPORT, (_, called, bound) => called ?? bound).match(SOURCE_TOKEN) ?? []
  )
    .filter((token) => token !== ';' && !/^\s+$/.test(token) && !/^\/[/*]/.test(token))
    .map((token) => (/^[\d.]/.test(token) && token !== '.' ? String(Number(token)) : token));
  const canonical: string[] = [];
  for (let index = 0; index < tokens.length; index++) {
    // `(note) =>` and `note=>`.
    const [open, name, close, arrow] = tokens.slice(index, index + 4);
    if (
      open === '(' &&
      name !== undefined &&
      /^[A-Za-z_$][\w$]*$/.test(name) &&
      close === ')' &&
      arrow === '=>'
    ) {
      canonical.push(name);
      index += 2;
    } else canonical.push(tokens[index] as string);
  }
  return canonical.join(' ');
}

/** S3 key of a sound (media bucket). */
export const soundKey = (id: string) => `${CATALOG_PREFIX}sounds/${id}.mp3`;

const music = (
  recipe: string,
  name: string,
  bpm: number | undefined,
  durationSeconds: number,
  description: string,
  tags: readonly string[],
): CatalogSound => ({
  id: `music-${recipe}`,
  recipe,
  type: 'music',
  name,
  description,
  tags,
  durationSeconds,
  ...(bpm ? { bpm } : {}),
});

const effect = (
  recipe: string,
  name: string,
  durationSeconds: number,
  placement: Placement,
  peakOffset: number,
  description: string,
  tags: readonly string[],
): CatalogSound => ({
  id: `sfx-${recipe}`,
  recipe,
  type: 'sound_effects',
  name,
  description,
  tags,
  durationSeconds,
  placement,
  peakOffset,
});

export const CATALOG_SOUNDS: readonly CatalogSound[] = [
  music(
    'sunrise-lofi',
    'Sunrise Lo-fi',
    80,
    24,
    'Mellow lo-fi hip-hop beat with warm electric piano chords, a dusty boom-bap groove and vinyl crackle.',
    ['lofi', 'chill', 'hip-hop', 'study', 'relaxed', 'mellow', 'beat', 'background', 'cozy'],
  ),
  music(
    'bright-steps',
    'Bright Steps',
    120,
    24,
    'Upbeat, positive corporate track: plucked arpeggios, bouncy bass, four-on-the-floor kick and claps.',
    [
      'upbeat',
      'corporate',
      'positive',
      'happy',
      'presentation',
      'business',
      'optimistic',
      'energetic',
      'explainer',
    ],
  ),
  music(
    'tense-horizon',
    'Tense Horizon',
    90,
    24,
    'Dark cinematic tension: a low drone, a driving pulse, deep booms and a riser into the end.',
    ['cinematic', 'tense', 'suspense', 'dark', 'trailer', 'thriller', 'dramatic', 'riser', 'ominous'],
  ),
  music(
    'calm-waters',
    'Calm Waters',
    undefined,
    24,
    'Slow ambient pads with gentle bells and long echoes: peaceful and spacious.',
    ['ambient', 'calm', 'peaceful', 'meditation', 'relaxing', 'soft', 'background', 'spa', 'dreamy'],
  ),
  music(
    'night-drive',
    'Night Drive',
    100,
    24,
    'Retro 80s synthwave with pulsing saw bass, wide pads and a square-wave arpeggio.',
    ['synthwave', 'retro', '80s', 'electronic', 'synth', 'driving', 'neon', 'night', 'energetic'],
  ),
  music(
    'little-wonders',
    'Little Wonders',
    110,
    24,
    'Playful, cheerful ukulele strums with a glockenspiel tune and a light shaker.',
    ['playful', 'cheerful', 'kids', 'quirky', 'happy', 'ukulele', 'fun', 'whimsical', 'bright'],
  ),
  music(
    'epic-dawn',
    'Epic Dawn',
    80,
    24,
    'Heroic, epic swell of brass-like chords over pounding toms and cymbal swells.',
    [
      'epic',
      'heroic',
      'inspiring',
      'trailer',
      'dramatic',
      'orchestral',
      'powerful',
      'motivational',
      'cinematic',
    ],
  ),
  music(
    'soft-focus',
    'Soft Focus',
    70,
    24,
    'Reflective solo piano arpeggios, gentle and a little melancholic.',
    ['piano', 'emotional', 'reflective', 'sad', 'melancholic', 'gentle', 'soft', 'heartfelt', 'calm'],
  ),
  music(
    'pulse-grid',
    'Pulse Grid',
    125,
    23.04,
    'Minimal tech electronica: square-wave blips, offbeat hats and a steady kick, for product demos.',
    ['tech', 'electronic', 'minimal', 'startup', 'product', 'demo', 'modern', 'innovation', 'digital'],
  ),
  music(
    'golden-hour',
    'Golden Hour',
    96,
    25,
    'Warm acoustic guitar strumming with a soft groove: friendly, sunny lifestyle feel.',
    ['acoustic', 'guitar', 'warm', 'folk', 'lifestyle', 'sunny', 'friendly', 'travel', 'feel-good'],
  ),
  effect(
    'whoosh',
    'Whoosh',
    1.4,
    'hit',
    0.5,
    'Airy whoosh sweeping past, for a scene change or transition.',
    ['whoosh', 'swoosh', 'transition', 'swipe', 'fast', 'air', 'scene change', 'pass by'],
  ),
  effect(
    'reverse-swoosh',
    'Reverse Swoosh',
    1.6,
    'riser',
    1.48,
    'A reversed swoosh that sucks in and stops dead: leads into a cut.',
    ['reverse', 'swoosh', 'suck', 'transition', 'build', 'riser', 'whoosh'],
  ),
  effect(
    'tension-riser',
    'Tension Riser',
    4,
    'riser',
    3.9,
    'Rising noise and a climbing saw tone that build tension for four seconds.',
    ['riser', 'tension', 'build up', 'suspense', 'cinematic', 'sweep', 'rising', 'trailer'],
  ),
  effect(
    'cinematic-impact',
    'Cinematic Impact',
    3,
    'hit',
    0.03,
    'Deep cinematic boom with a sub drop and a dark tail.',
    ['impact', 'boom', 'hit', 'cinematic', 'trailer', 'sub drop', 'bass', 'dramatic', 'thud'],
  ),
  effect('ui-click', 'UI Click', 0.12, 'hit', 0.03, 'Short, crisp interface click.', [
    'click',
    'ui',
    'button',
    'tap',
    'interface',
    'select',
    'mouse',
  ]),
  effect('bubble-pop', 'Bubble Pop', 0.25, 'hit', 0.03, 'Round, playful pop.', [
    'pop',
    'bubble',
    'cartoon',
    'playful',
    'notification',
    'cute',
  ]),
  effect(
    'notification-ding',
    'Notification Ding',
    1.6,
    'hit',
    0.15,
    'Two-note bell ding for a notification or a new message.',
    ['ding', 'notification', 'bell', 'alert', 'message', 'chime', 'ping'],
  ),
  effect(
    'success-chime',
    'Success Chime',
    1.5,
    'hit',
    0.3,
    'Bright rising bell arpeggio for success, achievement or completion.',
    ['success', 'chime', 'achievement', 'complete', 'win', 'positive', 'level up', 'correct'],
  ),
  effect('error-buzz', 'Error Buzz', 0.6, 'hit', 0.05, 'Two low buzzes: wrong answer, error or denied.', [
    'error',
    'buzz',
    'wrong',
    'fail',
    'denied',
    'negative',
    'alert',
    'incorrect',
  ]),
  effect(
    'cash-register',
    'Cash Register',
    1.5,
    'hit',
    0.33,
    'Cash register cha-ching: drawer clunk, bell and coins.',
    ['cash register', 'cha-ching', 'money', 'sale', 'coins', 'purchase', 'payment', 'register', 'bell'],
  ),
  effect('keyboard-typing', 'Keyboard Typing', 3.2, 'bed', 2.8, 'Steady typing on a keyboard.', [
    'typing',
    'keyboard',
    'computer',
    'office',
    'keys',
    'writing',
    'work',
  ]),
  effect('camera-shutter', 'Camera Shutter', 0.4, 'hit', 0.03, 'Mechanical camera shutter click.', [
    'camera',
    'shutter',
    'photo',
    'snapshot',
    'click',
    'picture',
  ]),
  effect('heartbeat', 'Heartbeat', 4, 'bed', 2.53, 'Slow, deep heartbeat: lub-dub, five times.', [
    'heartbeat',
    'heart',
    'pulse',
    'tension',
    'suspense',
    'medical',
    'thump',
  ]),
  effect('rain-ambience', 'Rain Ambience', 8, 'bed', 2.78, 'Soft steady rain with scattered droplets.', [
    'rain',
    'ambience',
    'weather',
    'nature',
    'calm',
    'storm',
    'water',
    'background',
  ]),
  effect(
    'drum-roll',
    'Drum Roll',
    3,
    'riser',
    2.58,
    'Snare drum roll building to a cymbal crash: the big reveal.',
    ['drum roll', 'reveal', 'announcement', 'suspense', 'snare', 'crash', 'build up', 'ta-da'],
  ),
  effect('glitch', 'Digital Glitch', 0.8, 'hit', 0.55, 'Stuttering digital glitch of random blips.', [
    'glitch',
    'digital',
    'error',
    'tech',
    'computer',
    'stutter',
    'data',
    'cyber',
  ]),
];

export function findCatalogSound(id: string): CatalogSound | undefined {
  return CATALOG_SOUNDS.find((sound) => sound.id === id);
}
