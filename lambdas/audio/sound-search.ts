/**
 * How `GET /v3/audio/sounds` ranks the catalog against a query: BM25 over each sound's curated words
 * (name, tags, description), normalised to a 0–1 `score` so that `min_score` means the same for any
 * query.
 *
 * - Words: lower case, accents and common English endings removed, filler words (`a`, `for`, `music`,
 *   `sound`, …) dropped; a hyphenated word also counts joined (`lo-fi` → `lo`, `fi`, `lofi`).
 * - A sound's term frequency is weighted by field: name 2, tags 2, description 1 (BM25F), and its
 *   length is the weighted count of its words. IDF is computed within the type searched (music or
 *   sound effects), so a word every sound has says little.
 * - A query word that is not in the catalog's vocabulary matches the words sharing its first four
 *   letters and most of its length (`tense` ~ `tension`, `cinema` ~ `cinematic`), for 0.8 of the credit.
 * - Normalisation: each query word's BM25 term is divided by what a "full" match earns, the word found
 *   in two fields (weighted frequency 3, e.g. in the name and the description) of a sound of average
 *   length, and capped at 1. The score is the IDF-weighted mean of these over the query's words. So 1
 *   means every word of the query is among the sound's defining words; a word the catalog does not
 *   have at all counts 0, weighted by the highest IDF, pulling the score down; 0 means nothing matched.
 *
 * A query with no searchable word (`music`, `the`) scores every sound 1: it asked for the type only.
 */
import { CATALOG_SOUNDS, type CatalogSound, type SoundType } from '../catalog/sound-catalog.js';

const FILLER_WORDS = new Set([
  'a',
  'an',
  'and',
  'as',
  'at',
  'for',
  'from',
  'in',
  'into',
  'of',
  'on',
  'or',
  'the',
  'to',
  'with',
  'my',
  'some',
  'sound',
  'sounds',
  'music',
  'track',
  'tracks',
  'song',
  'effect',
  'effects',
  'sfx',
  'audio',
  'like',
  'that',
]);

/** Lower case, no accents, no common English endings: `Whooshes` → `whoosh`, `rising` → `ris`. */
function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('es')) return word.slice(0, -2);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** The search words of a text, in order, repeats kept. */
export function searchWords(text: string): string[] {
  const words: string[] = [];
  const chunks = text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}-]+/u);
  for (const chunk of chunks) {
    const parts = chunk.split('-').filter(Boolean);
    words.push(...parts);
    // `lo-fi` is also `lofi`, `hip-hop` also `hiphop`: people write both.
    if (parts.length > 1) words.push(parts.join(''));
  }
  return words.filter((word) => !FILLER_WORDS.has(word)).map(stem);
}

/** BM25 parameters: the usual term-frequency saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;
/** How much a word found in each field counts. */
const FIELD_WEIGHTS = { name: 2, tags: 2, description: 1 } as const;
/** The weighted frequency of a "full" match: a word in two fields (name or tags, and description). */
const FULL_MATCH_FREQUENCY = 3;
/** The credit of a word matched by its prefix only (`tense` ~ `tension`). */
const NEAR_MATCH_CREDIT = 0.8;
/** A near match shares this many first letters at least, and this share of the shorter word. */
const NEAR_MATCH_PREFIX = 4;
const NEAR_MATCH_SHARE = 0.8;

interface IndexedSound {
  sound: CatalogSound;
  /** Weighted term frequencies. */
  frequencies: Map<string, number>;
  /** Weighted count of words. */
  length: number;
}

interface TypeIndex {
  sounds: IndexedSound[];
  averageLength: number;
  /** Per word of the vocabulary: how many sounds of the type have it. */
  documentFrequency: Map<string, number>;
}

function indexSound(sound: CatalogSound): IndexedSound {
  const frequencies = new Map<string, number>();
  let length = 0;
  const add = (text: string, weight: number) => {
    for (const word of searchWords(text)) {
      frequencies.set(word, (frequencies.get(word) ?? 0) + weight);
      length += weight;
    }
  };
  add(sound.name, FIELD_WEIGHTS.name);
  for (const tag of sound.tags) add(tag, FIELD_WEIGHTS.tags);
  add(sound.description, FIELD_WEIGHTS.description);
  return { sound, frequencies, length };
}

function indexType(type: SoundType): TypeIndex {
  const sounds = CATALOG_SOUNDS.filter((sound) => sound.type === type).map(indexSound);
  const documentFrequency = new Map<string, number>();
  for (const indexed of sounds) {
    for (const word of indexed.frequencies.keys())
      documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1);
  }
  const averageLength = sounds.reduce((sum, indexed) => sum + indexed.length, 0) / Math.max(sounds.length, 1);
  return { sounds, averageLength, documentFrequency };
}

const INDEXES = new Map<SoundType, TypeIndex>();
function indexOf(type: SoundType): TypeIndex {
  let index = INDEXES.get(type);
  if (!index) {
    index = indexType(type);
    INDEXES.set(type, index);
  }
  return index;
}

/** BM25's IDF, never negative: a word in every sound still counts a little. */
const idf = (total: number, withWord: number) => Math.log(1 + (total - withWord + 0.5) / (withWord + 0.5));

/** BM25's saturated term frequency for a sound of `length` words. */
const saturation = (frequency: number, length: number, averageLength: number) =>
  (frequency * (K1 + 1)) / (frequency + K1 * (1 - B + (B * length) / averageLength));

function nearMatch(word: string, candidate: string): boolean {
  let shared = 0;
  while (shared < word.length && shared < candidate.length && word[shared] === candidate[shared]) shared++;
  return shared >= NEAR_MATCH_PREFIX && shared >= NEAR_MATCH_SHARE * Math.min(word.length, candidate.length);
}

/** A query word as the index knows it: the catalog words it stands for, and how much a match is worth. */
interface QueryTerm {
  words: string[];
  credit: number;
  idf: number;
}

function queryTerms(index: TypeIndex, query: string): QueryTerm[] {
  const total = index.sounds.length;
  return [...new Set(searchWords(query))].map((word) => {
    const exact = index.documentFrequency.has(word);
    const words = exact
      ? [word]
      : [...index.documentFrequency.keys()].filter((known) => nearMatch(word, known));
    const withAny = index.sounds.filter((indexed) => words.some((known) => indexed.frequencies.has(known)));
    return { words, credit: exact ? 1 : NEAR_MATCH_CREDIT, idf: idf(total, withAny.length) };
  });
}

export interface RankedSound {
  sound: CatalogSound;
  /** 0 to 1, three decimals: how well the sound matches the query (see the module comment). */
  score: number;
}

/**
 * The sounds of a type scoring at least `minScore` for `query`, best first (BM25 among equal scores,
 * then catalog order).
 */
export function rankSounds(type: SoundType, query: string, minScore = 0): RankedSound[] {
  const index = indexOf(type);
  const terms = queryTerms(index, query);
  const fullMatch = saturation(FULL_MATCH_FREQUENCY, index.averageLength, index.averageLength);
  const totalIdf = terms.reduce((sum, term) => sum + term.idf, 0);
  const scored = index.sounds.map((indexed, order) => {
    let matched = 0;
    let bm25 = 0;
    for (const term of terms) {
      const frequency = term.words.reduce((sum, word) => sum + (indexed.frequencies.get(word) ?? 0), 0);
      if (frequency === 0) continue;
      const termScore = saturation(frequency, indexed.length, index.averageLength) * term.credit;
      bm25 += term.idf * termScore;
      matched += term.idf * Math.min(1, termScore / fullMatch);
    }
    const score = terms.length === 0 ? 1 : Math.round((matched / totalIdf) * 1000) / 1000;
    return { sound: indexed.sound, score, bm25, order };
  });
  return scored
    .filter((entry) => entry.score >= minScore)
    .sort((a, b) => b.score - a.score || b.bm25 - a.bm25 || a.order - b.order)
    .map(({ sound, score }) => ({ sound, score }));
}
