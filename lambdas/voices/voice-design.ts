/**
 * Voice design (`POST /v3/voices`): a description in words ranked against what this deployment can
 * speak. Pure and deterministic: no model, no randomness, no I/O.
 *
 * The candidates are every stock voice the deployment's engine speaks, each in every style of
 * `DESIGN_STYLES` (a style is a pitch shift in semitones and a speed: "deep and authoritative" is
 * four semitones lower and a little slower). A candidate scores points for each cue of the prompt it
 * matches:
 * - gender words (`woman`, `male`, `grandmother`, ...): +5 for the voice's gender;
 * - accent and language words (`British`, `Mexican`, `French`, `Mandarin`, ...): +4 for voices of
 *   that language and accent, +2 for its other accents; with no such cue (and no `locale`), English
 *   voices get +2, as the prompt is read as English;
 * - age words (`young`, `elderly`, `middle-aged`, ...): +2 for the styles of that age;
 * - pace words (`fast`, `slow`, `calm`, ...): +2 for the styles of that pace;
 * - pitch words (`deep`, `low`, `high`, `bright`, ...): +2 for the styles shifted that way;
 * - tone words of a style (`warm`, `authoritative`, `cheerful`, `storyteller`, ...): +1.5 each;
 * - a stock voice's own name (`like Olivia`): +3 for that voice.
 *
 * Equal scores are ordered by a hash of the prompt and the candidate, so the same prompt always gives
 * the same order and different prompts do not all favour the same voice. The ranked list is cut into
 * batches of three; each batch prefers three different voices when one scores within half a point
 * of the best left. `seed` n is batch n: 0 the top matches, 1 the next, and past the last batch, none.
 */
import { createHash } from 'node:crypto';
import { availableStockVoices, type StockVoice } from '../catalog/stock-voices.js';
import { espeakOffsetFor, espeakPitchHz, POLLY_SEMITONES_PER_STEP } from './voice-analysis.js';
import { languageMatches } from './voice-filter.js';
import type { EngineVoiceSettings } from './workspace-voices.js';

export interface DesignStyle {
  /** Part of the designed voice's id: keep stable. */
  id: string;
  /** Part of the designed voice's name. */
  label: string;
  /** Pitch shift from the stock voice's own, in semitones. */
  semitones: number;
  /** Speed multiplier. */
  speed: number;
  age: 'young' | 'adult' | 'mature';
  /** Tone words that describe it. */
  words: readonly string[];
}

export const DESIGN_STYLES: readonly DesignStyle[] = [
  {
    id: 'natural',
    label: 'natural',
    semitones: 0,
    speed: 1,
    age: 'adult',
    words: [
      'natural',
      'neutral',
      'clear',
      'balanced',
      'professional',
      'standard',
      'conversational',
      'friendly',
    ],
  },
  {
    id: 'warm',
    label: 'warm and calm',
    semitones: -1.5,
    speed: 0.92,
    age: 'adult',
    words: [
      'warm',
      'calm',
      'soothing',
      'gentle',
      'kind',
      'reassuring',
      'relaxed',
      'caring',
      'empathetic',
      'friendly',
    ],
  },
  {
    id: 'deep',
    label: 'deep and authoritative',
    semitones: -4,
    speed: 0.94,
    age: 'adult',
    words: [
      'deep',
      'authoritative',
      'serious',
      'commanding',
      'confident',
      'strong',
      'resonant',
      'rich',
      'powerful',
      'bold',
      'trailer',
      'cinematic',
      'dramatic',
    ],
  },
  {
    id: 'bright',
    label: 'bright and upbeat',
    semitones: 2.5,
    speed: 1.1,
    age: 'adult',
    words: [
      'bright',
      'upbeat',
      'cheerful',
      'energetic',
      'happy',
      'lively',
      'enthusiastic',
      'excited',
      'bubbly',
      'playful',
      'fun',
      'positive',
      'sunny',
      'commercial',
      'advert',
    ],
  },
  {
    id: 'youthful',
    label: 'youthful',
    semitones: 4,
    speed: 1.06,
    age: 'young',
    words: ['youthful', 'light', 'fresh', 'casual', 'playful', 'innocent', 'sweet'],
  },
  {
    id: 'mature',
    label: 'mature and measured',
    semitones: -2.5,
    speed: 0.86,
    age: 'mature',
    words: [
      'mature',
      'wise',
      'measured',
      'experienced',
      'distinguished',
      'dignified',
      'thoughtful',
      'grounded',
      'trustworthy',
    ],
  },
  {
    id: 'brisk',
    label: 'brisk newsreader',
    semitones: 0.5,
    speed: 1.2,
    age: 'adult',
    words: [
      'brisk',
      'news',
      'newsreader',
      'anchor',
      'reporter',
      'broadcast',
      'crisp',
      'punchy',
      'dynamic',
      'efficient',
      'announcer',
      'sports',
    ],
  },
  {
    id: 'storyteller',
    label: 'slow storyteller',
    semitones: -1,
    speed: 0.8,
    age: 'adult',
    words: [
      'storyteller',
      'storytelling',
      'story',
      'narrator',
      'narration',
      'audiobook',
      'documentary',
      'bedtime',
      'meditation',
      'meditative',
      'deliberate',
      'expressive',
    ],
  },
  {
    id: 'soft',
    label: 'soft and gentle',
    semitones: 1,
    speed: 0.9,
    age: 'adult',
    words: [
      'soft',
      'gentle',
      'quiet',
      'whisper',
      'whispery',
      'tender',
      'intimate',
      'asmr',
      'breathy',
      'delicate',
      'smooth',
    ],
  },
];

const GENDER_WORDS: Readonly<Record<'male' | 'female', readonly string[]>> = {
  female: [
    'woman',
    'women',
    'female',
    'feminine',
    'girl',
    'lady',
    'ladies',
    'she',
    'her',
    'mother',
    'mom',
    'mum',
    'grandmother',
    'grandma',
    'granny',
    'actress',
    'businesswoman',
    'aunt',
    'sister',
    'daughter',
    'queen',
    'princess',
    'wife',
  ],
  male: [
    'man',
    'men',
    'male',
    'masculine',
    'boy',
    'guy',
    'gentleman',
    'he',
    'his',
    'him',
    'father',
    'dad',
    'grandfather',
    'grandpa',
    'actor',
    'businessman',
    'uncle',
    'brother',
    'son',
    'king',
    'prince',
    'husband',
    'dude',
  ],
};

/** Accent and language words → BCP-47 tags (or primary languages) they point at. */
const LANGUAGE_WORDS: readonly [readonly string[], readonly string[]][] = [
  [['american', 'usa', 'america', 'yankee', 'californian', 'texan'], ['en-US']],
  [['british', 'uk', 'england', 'london', 'londoner', 'posh', 'rp', 'oxford', 'cockney'], ['en-GB']],
  [['english'], ['en']],
  [['spain', 'castilian', 'madrid', 'iberian'], ['es-ES']],
  [['mexican', 'mexico', 'latino', 'latina', 'latin'], ['es-MX']],
  [['spanish', 'hispanic'], ['es']],
  [['french', 'france', 'parisian', 'paris'], ['fr-FR']],
  [['german', 'germany', 'berlin', 'bavarian', 'deutsch'], ['de-DE']],
  [['italian', 'italy', 'rome', 'roman', 'milan'], ['it-IT']],
  [['brazilian', 'brazil', 'portuguese'], ['pt-BR']],
  [['dutch', 'netherlands', 'holland', 'amsterdam'], ['nl-NL']],
  [['polish', 'poland', 'warsaw'], ['pl-PL']],
  [['indian', 'india', 'hindi'], ['hi-IN']],
  [['japanese', 'japan', 'tokyo'], ['ja-JP']],
  [['chinese', 'china', 'mandarin', 'beijing'], ['zh-CN']],
];

const AGE_WORDS: Readonly<Record<DesignStyle['age'], readonly string[]>> = {
  young: [
    'young',
    'youthful',
    'teen',
    'teenage',
    'teenager',
    'kid',
    'child',
    'childlike',
    'student',
    'girl',
    'boy',
    'junior',
    'twenties',
  ],
  adult: ['adult', 'middle', 'midlife', 'thirties', 'forties', 'professional', 'corporate', 'business'],
  mature: [
    'old',
    'older',
    'elderly',
    'senior',
    'aged',
    'mature',
    'grandfather',
    'grandmother',
    'grandpa',
    'grandma',
    'granny',
    'wise',
    'veteran',
    'retired',
    'sixties',
    'seventies',
  ],
};

const FAST_WORDS = [
  'fast',
  'quick',
  'quickly',
  'rapid',
  'brisk',
  'energetic',
  'snappy',
  'urgent',
  'excited',
  'hurried',
  'pacy',
  'speedy',
];
const SLOW_WORDS = [
  'slow',
  'slowly',
  'calm',
  'relaxed',
  'leisurely',
  'deliberate',
  'measured',
  'unhurried',
  'meditative',
  'soothing',
  'sleepy',
  'patient',
];
const LOW_WORDS = [
  'deep',
  'low',
  'bass',
  'baritone',
  'husky',
  'gravelly',
  'booming',
  'resonant',
  'dark',
  'gruff',
  'raspy',
];
const HIGH_WORDS = [
  'high',
  'bright',
  'squeaky',
  'light',
  'soprano',
  'childlike',
  'airy',
  'chirpy',
  'shrill',
  'thin',
];

export const DESIGN_BATCH_SIZE = 3;
/** A batch prefers another voice over the best candidate when it scores within this much of it. */
const DIVERSITY_MARGIN = 0.5;

export interface DesignQuery {
  /** The description, 1 to 1000 characters. */
  prompt: string;
  gender?: 'male' | 'female' | undefined;
  /** Only voices of this BCP-47 tag (or primary language). */
  locale?: string | undefined;
  /** Which batch: 0 the top matches. @default 0 */
  seed?: number | undefined;
  /** Speech engine whose voices are candidates. @default this deployment's */
  engine?: string | undefined;
}

export interface DesignCandidate {
  /** The designed voice's id: `dv-<stock voice id>-<style id>`. */
  voiceId: string;
  name: string;
  voice: StockVoice;
  style: DesignStyle;
  score: number;
}

export const designedVoiceId = (voice: StockVoice, style: DesignStyle) => `dv-${voice.voiceId}-${style.id}`;

/** Lower-case words without accents: `Élégante, middle-aged` → `elegante`, `middle`, `aged`. */
export function promptWords(prompt: string): Set<string> {
  const words = prompt
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter(Boolean);
  const variants = new Set<string>();
  for (const word of words) {
    variants.add(word);
    if (word.length > 3 && word.endsWith('s')) variants.add(word.slice(0, -1));
    if (word.length > 4 && word.endsWith('ly')) variants.add(word.slice(0, -2));
  }
  return variants;
}

const anyOf = (words: Set<string>, list: readonly string[]) => list.some((word) => words.has(word));
const countOf = (words: Set<string>, list: readonly string[]) =>
  list.filter((word) => words.has(word)).length;

function tieBreak(prompt: string, candidateId: string): string {
  return createHash('sha256').update(`${prompt}\u0000${candidateId}`).digest('hex').slice(0, 12);
}

function scoreCandidate(
  words: Set<string>,
  voice: StockVoice,
  style: DesignStyle,
  languageCues: string[][],
): number {
  let score = 0;
  if (anyOf(words, GENDER_WORDS[voice.gender])) score += 5;
  if (languageCues.length === 0) {
    if (voice.language.startsWith('en-')) score += 2;
  } else {
    const tags = languageCues.flat();
    if (tags.some((tag) => languageMatches(tag, voice.language, voice.languageName))) score += 4;
    // The language asked for, with another accent.
    else if (
      tags.some((tag) => languageMatches(tag.split('-')[0] ?? tag, voice.language, voice.languageName))
    )
      score += 2;
  }
  if (anyOf(words, AGE_WORDS[style.age])) score += 2;
  if (style.speed >= 1.05 && anyOf(words, FAST_WORDS)) score += 2;
  if (style.speed <= 0.92 && anyOf(words, SLOW_WORDS)) score += 2;
  if (style.semitones <= -1.5 && anyOf(words, LOW_WORDS)) score += 2;
  if (style.semitones >= 1 && anyOf(words, HIGH_WORDS)) score += 2;
  score += 1.5 * countOf(words, style.words);
  if (words.has(voice.name.toLowerCase())) score += 3;
  return score;
}

/** Every candidate for the query, best first, in batches of `DESIGN_BATCH_SIZE` (see the module doc). */
export function rankDesignCandidates(query: DesignQuery): DesignCandidate[] {
  const prompt = query.prompt.trim().replace(/\s+/g, ' ').toLowerCase();
  const words = promptWords(prompt);
  // With a locale filter, the filter alone decides the language.
  const languageCues =
    query.locale !== undefined
      ? []
      : LANGUAGE_WORDS.filter(([cue]) => anyOf(words, cue)).map(([, tags]) => [...tags]);
  const scored = availableStockVoices(query.engine)
    .filter(
      (voice) =>
        (query.gender === undefined || voice.gender === query.gender) &&
        (query.locale === undefined || languageMatches(query.locale, voice.language, voice.languageName)),
    )
    .flatMap((voice) =>
      DESIGN_STYLES.map((style) => {
        const voiceId = designedVoiceId(voice, style);
        return {
          candidate: {
            voiceId,
            name: `${voice.name} (${style.label})`,
            voice,
            style,
            score: scoreCandidate(words, voice, style, languageCues),
          },
          tie: tieBreak(prompt, voiceId),
        };
      }),
    )
    .sort((a, b) => b.candidate.score - a.candidate.score || (a.tie < b.tie ? -1 : a.tie > b.tie ? 1 : 0))
    .map((entry) => entry.candidate);

  const ordered: DesignCandidate[] = [];
  const remaining = [...scored];
  while (remaining.length > 0) {
    const batchVoices = new Set<string>();
    for (let slot = 0; slot < DESIGN_BATCH_SIZE && remaining.length > 0; slot++) {
      const best = remaining[0] as DesignCandidate;
      let index = remaining.findIndex(
        (candidate) =>
          !batchVoices.has(candidate.voice.voiceId) && candidate.score >= best.score - DIVERSITY_MARGIN,
      );
      if (index < 0) index = 0;
      const [picked] = remaining.splice(index, 1) as [DesignCandidate];
      batchVoices.add(picked.voice.voiceId);
      ordered.push(picked);
    }
  }
  return ordered;
}

/** The query's batch: `seed` 0 the top matches, 1 the next three, ...; empty past the last. */
export function designBatch(query: DesignQuery): DesignCandidate[] {
  const seed = query.seed ?? 0;
  return rankDesignCandidates(query).slice(seed * DESIGN_BATCH_SIZE, (seed + 1) * DESIGN_BATCH_SIZE);
}

/** How each speech engine speaks a stock voice shifted by `semitones` at `speed`. */
export function styledEngineVoices(
  voice: StockVoice,
  semitones: number,
  speed: number,
): Record<string, EngineVoiceSettings> {
  const settings: Record<string, EngineVoiceSettings> = {};
  for (const [engine, engineVoiceId] of Object.entries(voice.engineVoices)) {
    let pitch: number;
    if (engine === 'espeak') {
      const variant = /-([mf]\d+)$/.exec(engineVoiceId)?.[1] ?? (voice.gender === 'male' ? 'm1' : 'f1');
      pitch = espeakOffsetFor(variant, espeakPitchHz(variant, 0) * 2 ** (semitones / 12));
    } else {
      pitch = Math.max(-50, Math.min(50, Math.round(semitones / POLLY_SEMITONES_PER_STEP)));
    }
    settings[engine] = { voice_id: engineVoiceId, speed, pitch };
  }
  return settings;
}
