/**
 * A drawn presenter's appearance from a text prompt ("a young woman with long red hair in a navy
 * blazer in an office"): the attributes the prompt names (gender, age, hair, clothing and colours,
 * accessories, skin tone, setting, orientation), everything else chosen from a hash of the
 * normalised prompt, so the same prompt always gives the same look and different prompts usually
 * differ. Pure: no I/O, no randomness, a few microseconds per prompt.
 *
 * Words, not language understanding: a colour goes to the nearest thing it stands before ("red hair",
 * "navy blazer", "blue eyes", "gold earrings", "green background"), or after "is"/"are" ("her hair is
 * pink"); hair-only words (blonde, brunette, ginger, redhead, auburn) colour the hair wherever they
 * are; a colour after "in", "wearing" or "dressed" colours the outfit ("a man in red").
 */

import { darken, lighten, mix } from './art-colors.js';
import type { HairStyle, LookAppearance, OutfitStyle } from './look-appearance.js';

export type PromptGender = 'male' | 'female';
export type PromptOrientation = 'landscape' | 'portrait' | 'square';

export interface PromptAppearance {
  appearance: LookAppearance;
  gender: PromptGender;
  orientation: PromptOrientation;
  /** The words (or phrases) of the prompt that decided an attribute, in the order they were used. */
  recognised: string[];
}

// ---------------------------------------------------------------------------------------------------
// Vocabulary

/** A table's own entry for a word of the prompt (never `Object.prototype`'s: "constructor" is a word). */
function entry<T>(table: Readonly<Record<string, T>>, word: string): T | undefined {
  return Object.hasOwn(table, word) ? table[word] : undefined;
}

/** Named colours for garments, backdrops and accessories (`#rrggbb`). */
export const NAMED_COLOURS: Readonly<Record<string, string>> = {
  red: '#c0392b',
  crimson: '#a4202f',
  scarlet: '#c4262e',
  maroon: '#6e1e26',
  burgundy: '#7a1f3d',
  wine: '#6f2137',
  pink: '#e58fb4',
  hotpink: '#e0457b',
  rose: '#d9738b',
  magenta: '#b8327a',
  fuchsia: '#c2307e',
  orange: '#e07b39',
  rust: '#a94f2a',
  coral: '#ef7f6a',
  peach: '#f2b28f',
  salmon: '#ee8e7a',
  yellow: '#e8c547',
  mustard: '#c99a2e',
  gold: '#d4af37',
  golden: '#d4af37',
  beige: '#d8c3a5',
  cream: '#f1e8d6',
  ivory: '#f3eddc',
  tan: '#c19a6b',
  tweed: '#7a6a52',
  camel: '#b9875a',
  khaki: '#b5a77a',
  brown: '#6b4226',
  chocolate: '#4e2f1d',
  green: '#3e8e5a',
  olive: '#6b7a3a',
  sage: '#9cae8f',
  mint: '#9fd8c1',
  emerald: '#1f7a55',
  forestgreen: '#2f5d3a',
  teal: '#2a8c8c',
  turquoise: '#3fb3aa',
  cyan: '#3cb8d0',
  aqua: '#5cc8d0',
  blue: '#2f6fb5',
  navy: '#1f3a5f',
  royalblue: '#2a4fb5',
  cobalt: '#2450a8',
  skyblue: '#8cc4e8',
  denim: '#4a6a8f',
  indigo: '#3b3f8f',
  purple: '#7a4fa8',
  violet: '#7d5cc4',
  lavender: '#b9a6e0',
  lilac: '#c3a6d8',
  plum: '#6e3b5e',
  grey: '#7d8590',
  gray: '#7d8590',
  charcoal: '#36393f',
  silver: '#c0c0c8',
  black: '#1e1f22',
  white: '#f4f5f7',
};

/** How the same words colour hair, where the garment colour would look painted. */
const HAIR_COLOURS: Readonly<Record<string, string>> = {
  black: '#15120f',
  brown: '#5a3a22',
  brunette: '#4a2e1c',
  chestnut: '#6b3a1e',
  chocolate: '#3b2417',
  blonde: '#d8b26a',
  blond: '#d8b26a',
  golden: '#d4a752',
  gold: '#d4a752',
  platinum: '#e8e0c8',
  strawberryblonde: '#d69a6a',
  red: '#a8432a',
  ginger: '#b5552c',
  redhead: '#a8432a',
  copper: '#b0582c',
  auburn: '#8a3b1c',
  grey: '#9a9a9a',
  gray: '#9a9a9a',
  silver: '#c4c4c8',
  saltandpepper: '#7c7a78',
  white: '#e4e2de',
};

/** Words that mean a hair colour wherever they are ("a blonde woman", "a redhead"). */
const HAIR_ONLY = [
  'blonde',
  'blond',
  'brunette',
  'ginger',
  'redhead',
  'auburn',
  'platinum',
  'strawberryblonde',
];

const EYE_COLOURS: Readonly<Record<string, string>> = {
  blue: '#3b6fa8',
  green: '#4f7a4f',
  brown: '#5a3a22',
  hazel: '#7a6a3a',
  grey: '#6d7a86',
  gray: '#6d7a86',
  amber: '#a0702a',
  black: '#2a1a12',
  dark: '#3a2418',
};

const SKIN_TONES = ['#f6d5bd', '#f1c6a2', '#f0cfa8', '#e0b48c', '#c68e62', '#a86b47', '#8d5a3b', '#6b4128'];
const SKIN_WORDS: Readonly<Record<string, string>> = {
  porcelain: '#f8dcc8',
  pale: '#f6d5bd',
  fair: '#f3cfb3',
  light: '#f0cfa8',
  freckled: '#f1c6a2',
  medium: '#d9a878',
  olive: '#c89a6a',
  tan: '#c68e62',
  tanned: '#c68e62',
  golden: '#d3a06e',
  brown: '#8d5a3b',
  dark: '#6b4128',
  deep: '#5a3522',
  ebony: '#4e2f1f',
};
/** Skin words that mean skin without "skin" after them. */
const SKIN_ALONE = ['porcelain', 'pale', 'tanned', 'freckled'];

const HAIR_STYLE_WORDS: Readonly<Record<string, HairStyle>> = {
  long: 'long',
  flowing: 'long',
  braids: 'long',
  braided: 'long',
  dreadlocks: 'long',
  locs: 'long',
  bob: 'bob',
  bobbed: 'bob',
  bun: 'bun',
  updo: 'bun',
  ponytail: 'bun',
  topknot: 'bun',
  short: 'short',
  cropped: 'short',
  pixie: 'short',
  curly: 'curly_short',
  curls: 'curly_short',
  afro: 'afro',
  buzzcut: 'buzz',
  buzz: 'buzz',
  shaved: 'buzz',
  bald: 'buzz',
  sidepart: 'side_part',
  parted: 'side_part',
  slicked: 'side_part',
  combover: 'side_part',
};

/** Garment words and the style that draws them (the first of an outer garment wins over a shirt). */
const GARMENT_WORDS: Readonly<Record<string, OutfitStyle>> = {
  blazer: 'blazer',
  jacket: 'blazer',
  coat: 'blazer',
  cardigan: 'sweater',
  suit: 'suit',
  tuxedo: 'suit',
  tux: 'suit',
  sweater: 'sweater',
  jumper: 'sweater',
  pullover: 'sweater',
  knit: 'sweater',
  sweatshirt: 'hoodie',
  turtleneck: 'turtleneck',
  hoodie: 'hoodie',
  hoody: 'hoodie',
  tshirt: 'tshirt',
  tee: 'tshirt',
  blouse: 'blouse',
  dress: 'blouse',
  shirt: 'shirt',
  polo: 'shirt',
  buttondown: 'shirt',
  labcoat: 'labcoat',
  scrubs: 'tshirt',
};
const INNER_GARMENTS: readonly OutfitStyle[] = ['shirt', 'blouse', 'tshirt'];

/** People whose clothes say what they do. */
const ROLE_OUTFITS: Readonly<Record<string, OutfitStyle>> = {
  doctor: 'labcoat',
  physician: 'labcoat',
  surgeon: 'labcoat',
  scientist: 'labcoat',
  chemist: 'labcoat',
  researcher: 'labcoat',
  pharmacist: 'labcoat',
  dentist: 'labcoat',
  vet: 'labcoat',
  veterinarian: 'labcoat',
  chef: 'labcoat',
  nurse: 'tshirt',
  lawyer: 'suit',
  attorney: 'suit',
  banker: 'suit',
  executive: 'suit',
  ceo: 'suit',
  politician: 'suit',
  businessman: 'suit',
  businesswoman: 'blazer',
  manager: 'blazer',
  consultant: 'blazer',
  presenter: 'blazer',
  anchor: 'blazer',
  newscaster: 'blazer',
  teacher: 'sweater',
  professor: 'blazer',
  developer: 'hoodie',
  programmer: 'hoodie',
  coder: 'hoodie',
  engineer: 'hoodie',
  gamer: 'hoodie',
  student: 'hoodie',
  streamer: 'hoodie',
  designer: 'turtleneck',
  artist: 'turtleneck',
  architect: 'turtleneck',
};

const FEMALE_WORDS = [
  'woman',
  'women',
  'female',
  'girl',
  'lady',
  'she',
  'her',
  'hers',
  'mother',
  'mom',
  'mum',
  'wife',
  'sister',
  'daughter',
  'grandmother',
  'grandma',
  'businesswoman',
  'actress',
  'feminine',
  'gal',
];
const MALE_WORDS = [
  'man',
  'men',
  'male',
  'boy',
  'guy',
  'gentleman',
  'he',
  'him',
  'his',
  'father',
  'dad',
  'husband',
  'brother',
  'son',
  'grandfather',
  'grandpa',
  'businessman',
  'masculine',
  'dude',
];

type Age = 'young' | 'middle' | 'older';
const AGE_WORDS: Readonly<Record<string, Age>> = {
  young: 'young',
  youthful: 'young',
  teen: 'young',
  teenage: 'young',
  teenager: 'young',
  twenties: 'young',
  '20s': 'young',
  '30s': 'young',
  thirties: 'young',
  girl: 'young',
  boy: 'young',
  middleaged: 'middle',
  forties: 'middle',
  fifties: 'middle',
  '40s': 'middle',
  '50s': 'middle',
  mature: 'middle',
  older: 'older',
  old: 'older',
  senior: 'older',
  elderly: 'older',
  retired: 'older',
  sixties: 'older',
  seventies: 'older',
  '60s': 'older',
  '70s': 'older',
  grandmother: 'older',
  grandma: 'older',
  grandfather: 'older',
  grandpa: 'older',
};

export interface Setting {
  backdrop: LookAppearance['backdrop'];
  /** Clothes people usually wear there, for a prompt that names none. */
  outfits?: readonly OutfitStyle[];
}

/** Where the presenter is: the preview's backdrop (and, unless named, the clothes). */
export const SETTINGS: Readonly<Record<string, Setting>> = {
  office: {
    backdrop: { from: '#dfe7f1', to: '#9fb3cc', accent: '#ffffff' },
    outfits: ['blazer', 'suit', 'shirt'],
  },
  studio: { backdrop: { from: '#eef0f4', to: '#b9c2d3', accent: '#ffffff' } },
  beach: {
    backdrop: { from: '#bfe6f2', to: '#f3d9a4', accent: '#fff6dc' },
    outfits: ['tshirt', 'shirt', 'blouse'],
  },
  forest: { backdrop: { from: '#cfe3c2', to: '#3f6b45', accent: '#eaf5d8' }, outfits: ['sweater', 'hoodie'] },
  park: {
    backdrop: { from: '#e4f4e8', to: '#8fc5a1', accent: '#fbfff6' },
    outfits: ['sweater', 'tshirt', 'hoodie'],
  },
  garden: { backdrop: { from: '#eaf5dc', to: '#9cc17f', accent: '#fff9e6' } },
  night: { backdrop: { from: '#1b2a4a', to: '#0a1228', accent: '#4d7fd6' } },
  sunset: { backdrop: { from: '#fdd7a8', to: '#d9606a', accent: '#ffe9c2' } },
  library: {
    backdrop: { from: '#e8d6bc', to: '#7a5538', accent: '#fff1d6' },
    outfits: ['sweater', 'blazer', 'turtleneck'],
  },
  city: { backdrop: { from: '#c9d2dc', to: '#4c5868', accent: '#f6e7c1' } },
  kitchen: {
    backdrop: { from: '#fbf3e6', to: '#e2c9a3', accent: '#ffffff' },
    outfits: ['tshirt', 'sweater', 'shirt'],
  },
  classroom: {
    backdrop: { from: '#eef4e4', to: '#a9c08b', accent: '#ffffff' },
    outfits: ['sweater', 'blazer', 'shirt'],
  },
  hospital: { backdrop: { from: '#e6f4f6', to: '#9ccfd6', accent: '#ffffff' }, outfits: ['labcoat'] },
  lab: { backdrop: { from: '#e8f1f8', to: '#a7bfd6', accent: '#ffffff' }, outfits: ['labcoat'] },
  home: {
    backdrop: { from: '#fff1dc', to: '#f3b98a', accent: '#ffe3b3' },
    outfits: ['sweater', 'tshirt', 'hoodie'],
  },
  cafe: {
    backdrop: { from: '#f4e6d4', to: '#a97c56', accent: '#fff4e2' },
    outfits: ['sweater', 'tshirt', 'shirt'],
  },
  stage: { backdrop: { from: '#3a2340', to: '#0f0a14', accent: '#e0a84a' } },
  newsroom: { backdrop: { from: '#1d2b44', to: '#0c1322', accent: '#3a8dde' }, outfits: ['blazer', 'suit'] },
  mountain: {
    backdrop: { from: '#dfe9f3', to: '#7f93a8', accent: '#ffffff' },
    outfits: ['sweater', 'hoodie'],
  },
  snow: {
    backdrop: { from: '#f4f8fc', to: '#bccddd', accent: '#ffffff' },
    outfits: ['sweater', 'turtleneck'],
  },
  desert: { backdrop: { from: '#f7e4c3', to: '#d19a5e', accent: '#fff3dc' } },
  ocean: { backdrop: { from: '#bfe3f0', to: '#2a6f97', accent: '#e6f7ff' } },
  space: { backdrop: { from: '#1a1433', to: '#05040c', accent: '#8a7fe0' } },
  tech: { backdrop: { from: '#23313f', to: '#0e1620', accent: '#3fb68b' }, outfits: ['hoodie', 'tshirt'] },
  gym: { backdrop: { from: '#d9dde3', to: '#5d6673', accent: '#ffd25a' }, outfits: ['tshirt', 'hoodie'] },
};

/** Other words for the settings. */
const SETTING_WORDS: Readonly<Record<string, string>> = {
  workplace: 'office',
  boardroom: 'office',
  meeting: 'office',
  corporate: 'office',
  coworking: 'office',
  seaside: 'beach',
  tropical: 'beach',
  woods: 'forest',
  jungle: 'forest',
  nighttime: 'night',
  evening: 'night',
  neon: 'night',
  dusk: 'sunset',
  sunrise: 'sunset',
  bookshelf: 'library',
  bookshelves: 'library',
  books: 'library',
  urban: 'city',
  downtown: 'city',
  street: 'city',
  skyline: 'city',
  restaurant: 'kitchen',
  school: 'classroom',
  university: 'classroom',
  campus: 'classroom',
  clinic: 'hospital',
  laboratory: 'lab',
  livingroom: 'home',
  house: 'home',
  cozy: 'home',
  coffee: 'cafe',
  theater: 'stage',
  theatre: 'stage',
  concert: 'stage',
  news: 'newsroom',
  broadcast: 'newsroom',
  mountains: 'mountain',
  outdoors: 'park',
  outdoor: 'park',
  winter: 'snow',
  snowy: 'snow',
  sea: 'ocean',
  underwater: 'ocean',
  galaxy: 'space',
  stars: 'space',
  startup: 'tech',
  server: 'tech',
  fitness: 'gym',
};

/** Garment styles per gender for a prompt that names none (weighted by repetition). */
export const USUAL_OUTFITS: Readonly<Record<PromptGender, readonly OutfitStyle[]>> = {
  female: ['blazer', 'blazer', 'sweater', 'turtleneck', 'blouse', 'blouse', 'tshirt', 'hoodie'],
  male: ['blazer', 'suit', 'sweater', 'turtleneck', 'hoodie', 'tshirt', 'shirt', 'shirt'],
};
const USUAL_HAIR: Readonly<Record<PromptGender, readonly HairStyle[]>> = {
  female: ['long', 'long', 'bob', 'bun', 'curly_short', 'afro', 'short'],
  male: ['short', 'short', 'side_part', 'buzz', 'curly_short', 'afro'],
};
const NATURAL_HAIR = ['#15120f', '#2a1a12', '#3b2417', '#5a3a22', '#8a6240', '#c9a063', '#8a3b1c'];
export const GARMENT_PALETTE = [
  'navy',
  'charcoal',
  'burgundy',
  'forestgreen',
  'camel',
  'teal',
  'mustard',
  'denim',
  'plum',
  'olive',
  'black',
  'cream',
  'coral',
  'lavender',
  'rust',
  'sage',
] as const;
const LIGHT_SHIRTS = ['#f2f4f7', '#f6efe4', '#e9f1f8', '#fbf5ec', '#eef3f8'];
const TIE_COLOURS = ['#2a8c8c', '#8c2a3a', '#c9a227', '#3a5f8c', '#5a3a7a'];
const BACKDROP_FALLBACK = [
  'studio',
  'office',
  'home',
  'cafe',
  'park',
  'library',
  'sunset',
  'tech',
  'night',
  'city',
];

// ---------------------------------------------------------------------------------------------------
// Words

/** Phrases that are one word to the parser (after lower-casing and before splitting). */
const PHRASES: readonly [RegExp, string][] = [
  [/\b9\s*[:x/]\s*16\b/g, ' ratio916 '],
  [/\b4\s*[:x/]\s*5\b/g, ' ratio45 '],
  [/\b16\s*[:x/]\s*9\b/g, ' ratio169 '],
  [/\b1\s*[:x/]\s*1\b/g, ' ratio11 '],
  [/\bnavy blue\b/g, 'navy'],
  [/\broyal blue\b/g, 'royalblue'],
  [/\b(?:sky|baby|light) blue\b/g, 'skyblue'],
  [/\bforest green\b/g, 'forestgreen'],
  [/\bhot pink\b/g, 'hotpink'],
  [/\bsalt[\s-]+(?:and|&|n)[\s-]+pepper\b/g, 'saltandpepper'],
  [/\bstrawberry[\s-]+blonde?\b/g, 'strawberryblonde'],
  [/\b(?:lab|white|doctor'?s?) coat\b/g, 'labcoat'],
  [/\bt[\s-]?shirt\b|\btee[\s-]shirt\b/g, 'tshirt'],
  [/\b(?:polo|roll)[\s-]?neck\b/g, 'turtleneck'],
  [/\bbutton[\s-](?:down|up)(?: shirt)?\b/g, 'buttondown'],
  [/\bside[\s-]?part(?:ed|ing)?\b/g, 'sidepart'],
  [/\b(?:buzz|crew)[\s-]?cut\b/g, 'buzzcut'],
  [/\bcomb[\s-]?over\b/g, 'combover'],
  [/\bmiddle[\s-]aged?\b/g, 'middleaged'],
  [/\bclean[\s-]shaven\b/g, 'cleanshaven'],
  [/\bfive o'?clock shadow\b/g, 'stubble'],
  [/\bliving[\s-]room\b/g, 'livingroom'],
  [/\bcoffee[\s-]shop\b/g, 'cafe'],
  [/\bvertical video\b/g, 'vertical'],
  [/\b(?:instagram|insta|ig) stor(?:y|ies)\b/g, 'instagramstory'],
  [/\btop[\s-]?knot\b/g, 'topknot'],
  [/\bup[\s-]?do\b/g, 'updo'],
  [/\bsun[\s-]?glasses\b/g, 'sunglasses'],
];

/** The phrases of `PHRASES` as people write them, for `recognised`. */
const SPELLED: Readonly<Record<string, string>> = {
  ratio916: '9:16',
  ratio45: '4:5',
  ratio169: '16:9',
  ratio11: '1:1',
  royalblue: 'royal blue',
  skyblue: 'sky blue',
  forestgreen: 'forest green',
  hotpink: 'hot pink',
  saltandpepper: 'salt and pepper',
  strawberryblonde: 'strawberry blonde',
  labcoat: 'lab coat',
  tshirt: 't-shirt',
  buttondown: 'button-down',
  sidepart: 'side part',
  buzzcut: 'buzz cut',
  combover: 'comb-over',
  middleaged: 'middle-aged',
  cleanshaven: 'clean-shaven',
  livingroom: 'living room',
  topknot: 'top knot',
  instagramstory: 'instagram story',
};
/** A phrase of parser words as people write them ("forestgreen" → "forest green"). */
export const spelled = (phrase: string) =>
  phrase
    .split(' ')
    .map((word) => entry(SPELLED, word) ?? word)
    .join(' ');

/** The prompt as the hash sees it: lower case, words and numbers only, single spaces. */
export function normalisePrompt(prompt: string): string {
  return prompt
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')
    .replace(/[^a-z0-9:]+/g, ' ')
    .trim();
}

function words(prompt: string): string[] {
  let text = ` ${prompt
    .toLowerCase()
    .normalize('NFKD')
    .replace(/[\u0300-\u036f]/g, '')} `;
  for (const [pattern, replacement] of PHRASES) text = text.replace(pattern, replacement);
  return text
    .replace(/[^a-z0-9]+/g, ' ')
    .trim()
    .split(' ')
    .filter((word) => word.length > 0);
}

/** 32-bit FNV-1a. */
function fnv1a(text: string): number {
  let hash = 0x811c9dc5;
  for (let index = 0; index < text.length; index++) {
    hash ^= text.charCodeAt(index);
    hash = Math.imul(hash, 0x01000193);
  }
  return hash >>> 0;
}

/** A deterministic choice per prompt and attribute (`salt`): the attributes vary independently. */
export function chooser(normalised: string) {
  const unit = (salt: string) => {
    // Two rounds of mixing so prompts differing in one character spread over the whole range.
    let value = fnv1a(`${salt}\u0000${normalised}`);
    value = Math.imul(value ^ (value >>> 16), 0x85ebca6b);
    value = Math.imul(value ^ (value >>> 13), 0xc2b2ae35);
    return ((value ^ (value >>> 16)) >>> 0) / 2 ** 32;
  };
  return {
    unit,
    pick: <T>(list: readonly T[], salt: string): T => list[Math.floor(unit(salt) * list.length)] as T,
  };
}

/** Words between a colour and what it colours ("long red hair", "navy wool blazer", "dark and curly hair"). */
const DESCRIPTIVE = new Set([
  'long',
  'short',
  'curly',
  'wavy',
  'straight',
  'thick',
  'thin',
  'messy',
  'neat',
  'shoulder',
  'length',
  'flowing',
  'shiny',
  'wool',
  'woolen',
  'woollen',
  'knit',
  'knitted',
  'cosy',
  'cozy',
  'fitted',
  'tailored',
  'casual',
  'formal',
  'smart',
  'oversized',
  'cotton',
  'silk',
  'linen',
  'leather',
  'velvet',
  'slim',
  'plain',
  'simple',
  'elegant',
  'classic',
  'modern',
  'stylish',
  'crisp',
  'round',
  'thick',
  'rimmed',
  'wire',
  'hoop',
  'stud',
  'small',
  'big',
  'large',
  'colored',
  'coloured',
  'dyed',
  'solid',
  'gradient',
  'and',
  'with',
  'bright',
  'deep',
  'rich',
  'vivid',
  'soft',
  'matte',
  'bold',
]);

type Target =
  | 'hair'
  | 'outfit'
  | 'inner'
  | 'tie'
  | 'eyes'
  | 'glasses'
  | 'earrings'
  | 'lips'
  | 'backdrop'
  | 'skin';

const TARGET_WORDS: Readonly<Record<string, Target>> = {
  hair: 'hair',
  haired: 'hair',
  locks: 'hair',
  eyes: 'eyes',
  eyed: 'eyes',
  glasses: 'glasses',
  spectacles: 'glasses',
  eyeglasses: 'glasses',
  specs: 'glasses',
  frames: 'glasses',
  framed: 'glasses',
  sunglasses: 'glasses',
  earrings: 'earrings',
  earring: 'earrings',
  hoops: 'earrings',
  studs: 'earrings',
  lipstick: 'lips',
  lips: 'lips',
  background: 'backdrop',
  backdrop: 'backdrop',
  wall: 'backdrop',
  walls: 'backdrop',
  room: 'backdrop',
  tie: 'tie',
  necktie: 'tie',
  skin: 'skin',
  skinned: 'skin',
  complexion: 'skin',
};

const isColourWord = (word: string) =>
  entry(NAMED_COLOURS, word) !== undefined ||
  entry(HAIR_COLOURS, word) !== undefined ||
  entry(EYE_COLOURS, word) !== undefined ||
  entry(SKIN_WORDS, word) !== undefined ||
  word === 'dark';

/** The colour `word` gives `target`, adjusted by a "dark"/"light"/"pale" before it. */
function colourFor(target: Target, word: string, modifier: string | undefined): string | undefined {
  let colour: string | undefined;
  switch (target) {
    case 'hair':
      colour =
        entry(HAIR_COLOURS, word) ??
        entry(NAMED_COLOURS, word) ??
        (word === 'dark' ? '#2a1d16' : word === 'light' || word === 'fair' ? '#b08a5a' : undefined);
      break;
    case 'eyes':
      colour =
        entry(EYE_COLOURS, word) ?? entry(NAMED_COLOURS, word) ?? (word === 'light' ? '#6f9fc8' : undefined);
      break;
    case 'skin':
      colour =
        entry(SKIN_WORDS, word) ?? (word === 'black' ? '#5a3522' : word === 'white' ? '#f3cfb3' : undefined);
      return colour;
    default:
      colour =
        entry(NAMED_COLOURS, word) ??
        (word === 'dark' ? '#2b2d33' : word === 'light' || word === 'pale' ? '#dfe3e8' : undefined);
  }
  if (colour === undefined) return undefined;
  if (modifier === 'dark' || modifier === 'deep') return darken(colour, 0.35);
  if (modifier === 'light' || modifier === 'pale' || modifier === 'pastel') return lighten(colour, 0.4);
  return colour;
}

// ---------------------------------------------------------------------------------------------------
// The parser

interface Found {
  gender?: { value: PromptGender; word: string };
  age?: { value: Age; word: string };
  hairStyle?: { value: HairStyle; word: string };
  curly?: string;
  hairColour?: { value: string; word: string };
  eyes?: { value: string; word: string };
  skin?: { value: string; word: string };
  /** `implied`: a tie named, no garment (yet): a suit. */
  garment?: { value: OutfitStyle; word: string; index: number; implied?: boolean };
  inner?: { value: OutfitStyle; word: string; index: number };
  role?: { value: OutfitStyle; word: string };
  outfitColour?: { value: string; word: string };
  innerColour?: { value: string; word: string };
  tieColour?: { value: string; word: string };
  glasses?: { value: string | null; word: string };
  earrings?: { value: string | null; word: string };
  beard?: { value: 'stubble' | 'full' | null; word: string };
  lips?: { value: string | null; word: string };
  setting?: { value: string; word: string };
  /** A dress, a skirt, a blouse: a hint of the gender when no word says it. */
  feminineGarment?: boolean;
  /** "at night", "at sunset": the light over another setting. */
  light?: { value: 'night' | 'sunset'; word: string };
  backdropColour?: { value: string; word: string };
  orientation?: { value: PromptOrientation; word: string };
}

const PERSON_WORDS = new Set([
  ...FEMALE_WORDS,
  ...MALE_WORDS,
  'person',
  'presenter',
  'people',
  'teen',
  'teenager',
  'kid',
  'child',
  'adult',
]);
const NEGATIONS = new Set(['no', 'without', 'not', 'never']);
const ORIENTATION_WORDS: Readonly<Record<string, PromptOrientation>> = {
  vertical: 'portrait',
  ratio916: 'portrait',
  ratio45: 'portrait',
  tiktok: 'portrait',
  reels: 'portrait',
  reel: 'portrait',
  instagramstory: 'portrait',
  square: 'square',
  ratio11: 'square',
  landscape: 'landscape',
  horizontal: 'landscape',
  widescreen: 'landscape',
  ratio169: 'landscape',
};
/** "portrait" is the framing only near these ("portrait orientation", "in portrait"): "a portrait of" is a picture. */
const PORTRAIT_CONTEXT = new Set([
  'orientation',
  'mode',
  'format',
  'video',
  'framing',
  'aspect',
  'ratio',
  'layout',
  'view',
  'frame',
  'crop',
]);

function scan(tokens: readonly string[]): Found {
  const found: Found = {};
  /** "no glasses", "without any earrings", "not wearing lipstick". */
  const negated = (index: number) => {
    for (let at = index - 1; at >= Math.max(0, index - 3); at--) {
      const word = tokens[at] as string;
      if (NEGATIONS.has(word)) return true;
      if (!['wearing', 'any', 'a', 'has', 'have', 'having', 'with'].includes(word)) return false;
    }
    return false;
  };
  /** The colour word before `index` (over descriptive words), with a dark/light before it. */
  const colourBefore = (index: number): { word: string; modifier?: string; at: number } | undefined => {
    for (let at = index - 1; at >= Math.max(0, index - 4); at--) {
      const word = tokens[at] as string;
      if (isColourWord(word) || word === 'light' || word === 'fair' || word === 'pale') {
        const previous = tokens[at - 1];
        // "dark red": the colour is red, darkened; "dark" alone is a colour of its own.
        if (previous && ['dark', 'deep', 'light', 'pale', 'pastel'].includes(previous))
          return { word, modifier: previous, at };
        return { word, at };
      }
      if (!DESCRIPTIVE.has(word)) return undefined;
    }
    return undefined;
  };
  /** A colour after "is"/"are"/"in" following `index` ("hair is pink", "eyes are green"). */
  const colourAfter = (index: number): string | undefined => {
    const next = tokens[index + 1];
    const after = tokens[index + 2];
    if (
      (next === 'is' || next === 'are' || next === 'colored' || next === 'coloured' || next === 'dyed') &&
      after
    )
      return isColourWord(after) ? after : undefined;
    return undefined;
  };
  const usedColours = new Set<number>();

  tokens.forEach((word, index) => {
    if (!found.gender) {
      if (FEMALE_WORDS.includes(word)) found.gender = { value: 'female', word };
      else if (MALE_WORDS.includes(word)) found.gender = { value: 'male', word };
    }
    // "years old" is no age; "35 years old", "a 70-year-old" are.
    const years =
      /^\d{1,3}$/.test(word) && ['year', 'years', 'yo', 'yr', 'yrs'].includes(tokens[index + 1] ?? '');
    if (years && !found.age) {
      const count = Number(word);
      const value: Age | undefined = count < 35 ? 'young' : count < 58 ? 'middle' : 'older';
      found.age = { value, word: `${word} ${tokens[index + 1]}` };
    }
    const age =
      word === 'old' && /^(years?|yrs?)$/.test(tokens[index - 1] ?? '') ? undefined : entry(AGE_WORDS, word);
    if (age && !found.age) found.age = { value: age, word };
    const hairStyle = entry(HAIR_STYLE_WORDS, word);
    if (hairStyle) {
      // "short" of "short sleeves" is not hair; "long" is hair unless it is clearly something else.
      const next = tokens[index + 1] ?? '';
      const aboutOther = [
        'sleeve',
        'sleeves',
        'sleeved',
        'beard',
        'skirt',
        'dress',
        'coat',
        'video',
        'time',
      ].includes(next);
      if (!aboutOther) {
        if (hairStyle === 'curly_short') found.curly ??= word;
        else if (!found.hairStyle || (found.hairStyle.value === 'short' && hairStyle !== 'short'))
          found.hairStyle = { value: hairStyle, word };
      }
    }
    const target = entry(TARGET_WORDS, word);
    if (target) {
      const before = colourBefore(index);
      const afterWord = colourAfter(index);
      const colourWord = before?.word ?? afterWord;
      const colour = colourWord ? colourFor(target, colourWord, before?.modifier) : undefined;
      const phrase = before
        ? tokens.slice(before.at - (before.modifier ? 1 : 0), index + 1).join(' ')
        : colourWord
          ? `${word} ${colourWord}`
          : word;
      if (colour && before) usedColours.add(before.at);
      const no = negated(index) || (before && negated(before.at));
      switch (target) {
        case 'hair':
          if (colour && !found.hairColour) found.hairColour = { value: colour, word: phrase };
          break;
        case 'eyes':
          if (colour && !found.eyes) found.eyes = { value: colour, word: phrase };
          break;
        case 'skin':
          if (colour && !found.skin) found.skin = { value: colour, word: phrase };
          break;
        case 'glasses':
          if (!found.glasses)
            found.glasses = no
              ? { value: null, word: `no ${word}` }
              : { value: colour ?? (word === 'sunglasses' ? '#111111' : '#1e1e1e'), word: phrase };
          break;
        case 'earrings':
          if (!found.earrings)
            found.earrings = no
              ? { value: null, word: `no ${word}` }
              : { value: colour ?? '#d4af37', word: phrase };
          break;
        case 'lips':
          if (!found.lips) {
            if (no) found.lips = { value: null, word: `no ${word}` };
            else if (colour) found.lips = { value: colour, word: phrase };
            else if (word === 'lipstick') found.lips = { value: '#b4424f', word: phrase };
          }
          break;
        case 'backdrop':
          if (colour && !found.backdropColour) found.backdropColour = { value: colour, word: phrase };
          break;
        case 'tie':
          if (colour && !found.tieColour) found.tieColour = { value: colour, word: phrase };
          if (!found.garment) found.garment = { value: 'suit', word: phrase, index, implied: true };
          break;
        default:
          break;
      }
    }
    const garment = entry(GARMENT_WORDS, word);
    if (garment) {
      const before = colourBefore(index);
      const colour = before ? colourFor('outfit', before.word, before.modifier) : undefined;
      if (before && colour) usedColours.add(before.at);
      const phrase = before ? tokens.slice(before.at - (before.modifier ? 1 : 0), index + 1).join(' ') : word;
      if (INNER_GARMENTS.includes(garment)) {
        if (!found.inner) {
          found.inner = { value: garment, word: phrase, index };
          if (colour) found.innerColour = { value: colour, word: phrase };
        }
      } else if (!found.garment || found.garment.implied) {
        found.garment = { value: garment, word: phrase, index };
        if (colour) found.outfitColour = { value: colour, word: phrase };
      }
    }
    if (['dress', 'skirt', 'blouse', 'gown', 'makeup'].includes(word)) found.feminineGarment = true;
    // "a Black woman", "a white man": the skin (a colour before a person is not their clothes).
    if (
      (word === 'black' || word === 'brown' || word === 'white') &&
      PERSON_WORDS.has(tokens[index + 1] ?? '') &&
      !found.skin
    )
      found.skin = {
        value: word === 'white' ? '#f3cfb3' : word === 'brown' ? '#a86b47' : '#6b4128',
        word: `${word} ${tokens[index + 1]}`,
      };
    const role = entry(ROLE_OUTFITS, word);
    if (role && !found.role) found.role = { value: role, word };
    // Accessories named without a target word.
    if ((word === 'bespectacled' || word === 'nerdy') && !found.glasses)
      found.glasses = { value: '#1e1e1e', word };
    if (['beard', 'bearded', 'goatee'].includes(word) && !found.beard)
      found.beard = negated(index) ? { value: null, word: `no ${word}` } : { value: 'full', word };
    if (['stubble', 'stubbly', 'unshaven', 'scruffy'].includes(word) && !found.beard)
      found.beard = { value: 'stubble', word };
    if (word === 'cleanshaven' && !found.beard) found.beard = { value: null, word: 'clean-shaven' };
    const setting = entry(SETTINGS, word) ? word : entry(SETTING_WORDS, word);
    if ((setting === 'night' || setting === 'sunset') && !found.light) found.light = { value: setting, word };
    else if (setting && !found.setting) found.setting = { value: setting, word };
    const orientation = entry(ORIENTATION_WORDS, word);
    if (orientation && !found.orientation) found.orientation = { value: orientation, word };
    if (word === 'portrait' && !found.orientation) {
      const next = tokens[index + 1];
      const previous = tokens[index - 1];
      if (
        (next && PORTRAIT_CONTEXT.has(next)) ||
        previous === 'in' ||
        previous === 'as' ||
        next === undefined
      )
        found.orientation = {
          value: 'portrait',
          word: next && PORTRAIT_CONTEXT.has(next) ? `portrait ${next}` : 'portrait',
        };
    }
  });

  // Colours that colour nothing named after them.
  tokens.forEach((word, index) => {
    if (usedColours.has(index)) return;
    const next = tokens[index + 1];
    if (HAIR_ONLY.includes(word) && !found.hairColour) {
      found.hairColour = { value: entry(HAIR_COLOURS, word) as string, word };
      return;
    }
    if (SKIN_ALONE.includes(word) && !found.skin) {
      found.skin = { value: entry(SKIN_WORDS, word) as string, word };
      return;
    }
    // "a man in red", "wearing navy", "dressed in black".
    const previous = tokens[index - 1];
    if (
      entry(NAMED_COLOURS, word) !== undefined &&
      !found.outfitColour &&
      (previous === 'in' || previous === 'wearing' || previous === 'dressed' || previous === 'all') &&
      !(next && (entry(TARGET_WORDS, next) !== undefined || entry(GARMENT_WORDS, next) !== undefined))
    )
      found.outfitColour = { value: entry(NAMED_COLOURS, word) as string, word: `${previous} ${word}` };
  });
  return found;
}

/**
 * A garment of `style` and `color`, with the second colours its style shows: the shirt under a
 * blazer or a suit (`inner`), a suit's tie (`tie`), a lab coat's scrubs, a hoodie's drawstrings.
 * What is not given is chosen from `seed`.
 */
export function dressOutfit(
  style: OutfitStyle,
  color: string,
  options: { seed: string; inner?: string | undefined; tie?: string | undefined },
): LookAppearance['outfit'] {
  const { pick } = chooser(options.seed);
  switch (style) {
    case 'suit':
      return {
        style,
        color,
        accent: options.tie ?? pick(TIE_COLOURS, 'tie'),
        shirt: options.inner ?? pick(LIGHT_SHIRTS, 'shirt'),
      };
    case 'blazer':
      return { style, color, accent: options.inner ?? pick(LIGHT_SHIRTS, 'shirt') };
    case 'labcoat':
      return {
        style,
        color,
        accent: options.inner ?? pick(['#2a9d8f', '#3a6fb0', '#8fa8c8', '#c0c8d0'], 'scrubs'),
      };
    case 'hoodie':
    case 'tshirt':
      return { style, color, accent: lighten(color, 0.55) };
    default:
      return { style, color, accent: color };
  }
}

/** The appearance a prompt describes; what it does not say is chosen from its hash. */
export function appearanceFromPrompt(prompt: string): PromptAppearance {
  const normalised = normalisePrompt(prompt);
  const { pick, unit } = chooser(normalised);
  const found = scan(words(prompt));
  const recognised: string[] = [];
  const use = (entry: { word: string } | undefined) => {
    if (entry && !recognised.includes(entry.word)) recognised.push(entry.word);
  };

  // No gender word: what the person wears may say it (a beard, a dress, lipstick), else the hash.
  const hint: PromptGender | undefined = found.beard?.value
    ? 'male'
    : found.lips?.value || found.earrings?.value || found.feminineGarment
      ? 'female'
      : undefined;
  const gender: PromptGender = found.gender?.value ?? hint ?? (unit('gender') < 0.5 ? 'female' : 'male');
  use(found.gender);
  use(found.age);
  const age = found.age?.value;

  // Hair.
  let hairStyle: HairStyle = found.hairStyle?.value ?? pick(USUAL_HAIR[gender], 'hair-style');
  if (found.curly) {
    // Curls are drawn short; long curly hair stays long.
    if (!found.hairStyle || found.hairStyle.value === 'short') hairStyle = 'curly_short';
    use({ word: found.curly });
  }
  use(found.hairStyle);
  let hairColour = found.hairColour?.value ?? pick(NATURAL_HAIR, 'hair-colour');
  use(found.hairColour);
  if (!found.hairColour && found.hairStyle?.word === 'bald')
    hairColour = pick(NATURAL_HAIR.slice(0, 4), 'bald');
  if (!found.hairColour && age === 'older')
    hairColour = pick(['#9a9a9a', '#b8b6b2', '#d6d3ce', '#7c7a78'], 'grey');
  if (!found.hairColour && age === 'middle') hairColour = mix(hairColour, '#9a9a9a', 0.3);

  // Outfit.
  const outer = found.garment;
  let style: OutfitStyle;
  if (outer) style = outer.value;
  else if (found.inner) style = found.inner.value;
  else if (found.role) style = found.role.value;
  else {
    const usual = found.setting ? SETTINGS[found.setting.value]?.outfits : undefined;
    style = pick(usual ?? USUAL_OUTFITS[gender], 'outfit-style');
  }
  if (style === 'blouse' && gender === 'male' && !outer && found.inner?.value !== 'blouse') style = 'shirt';
  // A suit and tie for a woman only when the prompt says so.
  if (style === 'suit' && gender === 'female' && !outer) style = 'blazer';
  use(outer ?? found.inner ?? (found.role ? found.role : undefined));
  if (outer && found.inner) use(found.inner);

  const garmentColour = outer
    ? found.outfitColour?.value
    : (found.innerColour?.value ?? found.outfitColour?.value);
  if (garmentColour && found.outfitColour && !outer?.word.includes(found.outfitColour.word))
    use(found.outfitColour);
  const color =
    garmentColour ??
    (style === 'labcoat' ? '#f4f6f7' : (NAMED_COLOURS[pick(GARMENT_PALETTE, 'outfit-colour')] as string));
  const innerColour = outer ? found.innerColour?.value : undefined;
  const outfit = dressOutfit(style, color, {
    seed: normalised,
    inner: innerColour,
    tie: found.tieColour?.value,
  });
  if (style === 'suit') use(found.tieColour);

  // Face.
  const skin = found.skin?.value ?? pick(SKIN_TONES, 'skin');
  use(found.skin);
  const eyes =
    found.eyes?.value ?? pick(['#6b4423', '#3e2616', '#4f7a4f', '#3b5f8a', '#5a3a22', '#6d7a86'], 'eyes');
  use(found.eyes);

  const appearance: LookAppearance = {
    skin,
    eyes,
    hair: { style: hairStyle, color: hairColour },
    outfit,
    backdrop: { from: '#eef0f4', to: '#b9c2d3', accent: '#ffffff' },
  };

  if (age === 'middle' || age === 'older') appearance.age = age;

  // Accessories: named, or now and then.
  const glasses =
    found.glasses !== undefined
      ? found.glasses.value
      : unit('glasses') < 0.2
        ? pick(['#1e1e1e', '#5a3a22', '#2b2b2b', '#b08d57'], 'frame')
        : null;
  use(found.glasses);
  if (glasses) appearance.glasses = glasses;
  const earrings =
    found.earrings !== undefined
      ? found.earrings.value
      : gender === 'female' && unit('earrings') < 0.4
        ? pick(['#d4af37', '#c0c0c0', '#e0b34a'], 'earring')
        : null;
  use(found.earrings);
  if (earrings) appearance.earrings = earrings;
  const beard =
    found.beard !== undefined
      ? found.beard.value
      : gender === 'male' && unit('beard') < 0.35
        ? pick(['stubble', 'full'] as const, 'beard-kind')
        : null;
  use(found.beard);
  if (beard) appearance.beard = beard;
  const lips =
    found.lips !== undefined
      ? found.lips.value
      : gender === 'female' && unit('lips') < 0.25
        ? pick(['#b4424f', '#b8323a', '#8c3b3b', '#c46a6a'], 'lipstick')
        : null;
  use(found.lips);
  if (lips) appearance.lips = lips;

  // Setting.
  if (found.backdropColour) {
    const base = found.backdropColour.value;
    appearance.backdrop = { from: lighten(base, 0.55), to: base, accent: lighten(base, 0.8) };
    use(found.backdropColour);
  } else {
    const setting = found.setting?.value ?? found.light?.value ?? pick(BACKDROP_FALLBACK, 'setting');
    const { backdrop } = SETTINGS[setting] as Setting;
    use(found.setting);
    const light = found.light && found.setting ? SETTINGS[found.light.value]?.backdrop : undefined;
    appearance.backdrop = light
      ? {
          from: mix(backdrop.from, light.from, 0.6),
          to: mix(backdrop.to, light.to, 0.6),
          accent: light.accent,
        }
      : { ...backdrop };
    use(found.light);
  }

  const orientation = found.orientation?.value ?? 'landscape';
  use(found.orientation);
  return { appearance, gender, orientation, recognised: recognised.map(spelled) };
}
