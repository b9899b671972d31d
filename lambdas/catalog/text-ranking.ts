/**
 * Ranking a set of documents against a natural-language query: BM25F over each document's weighted
 * fields, normalised to a 0–1 `score` so that a threshold means the same for any query. One ranker
 * for every catalog search (the sounds of `GET /v3/audio/sounds`, the icons, images and workspace
 * assets of `GET /v3/assets/search`); each search says which words are filler in its own domain.
 *
 * - Words: lower case, accents and common English endings removed, filler words (`a`, `for`, and the
 *   domain's own: `music`, `icon`, …) dropped; a hyphenated word also counts joined (`lo-fi` → `lo`,
 *   `fi`, `lofi`).
 * - A document's term frequency is weighted by field (e.g. name 2, tags 2, description 1), and its
 *   length is the weighted count of its words. IDF is computed within the documents ranked together,
 *   so a word every document has says little.
 * - A query word that is not in the documents' vocabulary matches the words sharing its first four
 *   letters and most of its length (`tense` ~ `tension`, `cinema` ~ `cinematic`), for 0.8 of the credit.
 * - Normalisation: each query word's BM25 term is divided by what a "full" match earns, the word found
 *   with weighted frequency 3 (e.g. in the name and the description) in a document of average length,
 *   and capped at 1. The score is the IDF-weighted mean of these over the query's words. So 1 means
 *   every word of the query is among the document's defining words; a word no document has counts 0,
 *   weighted by the highest IDF, pulling the score down; 0 means nothing matched.
 *
 * A query with no searchable word (`music`, `the`) scores every document 1: it asked for the kind only.
 */

/** Filler in any search: articles, prepositions and the like. */
export const COMMON_FILLER_WORDS: readonly string[] = [
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
  'like',
  'that',
];

/** Lower case, no accents, no common English endings: `Whooshes` → `whoosh`, `rising` → `ris`. */
function stem(word: string): string {
  if (word.length > 5 && word.endsWith('ing')) return word.slice(0, -3);
  if (word.length > 4 && word.endsWith('es')) return word.slice(0, -2);
  if (word.length > 4 && word.endsWith('ed')) return word.slice(0, -2);
  if (word.length > 3 && word.endsWith('s') && !word.endsWith('ss')) return word.slice(0, -1);
  return word;
}

/** The search words of a text, in order, repeats kept, `fillerWords` left out. */
export function searchWords(text: string, fillerWords: ReadonlySet<string>): string[] {
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
  return words.filter((word) => !fillerWords.has(word)).map(stem);
}

/** BM25 parameters: the usual term-frequency saturation and length normalisation. */
const K1 = 1.2;
const B = 0.75;
/** The weighted frequency of a "full" match: a word in two fields (name or tags, and description). */
const FULL_MATCH_FREQUENCY = 3;
/** The credit of a word matched by its prefix only (`tense` ~ `tension`). */
const NEAR_MATCH_CREDIT = 0.8;
/** A near match shares this many first letters at least, and this share of the shorter word. */
const NEAR_MATCH_PREFIX = 4;
const NEAR_MATCH_SHARE = 0.8;

/** A piece of a document's text and how much a word found there counts. */
export interface WeightedText {
  text: string;
  weight: number;
}

interface IndexedDocument<T> {
  item: T;
  /** Weighted term frequencies. */
  frequencies: Map<string, number>;
  /** Weighted count of words. */
  length: number;
}

/** Documents indexed for ranking together (build once per set with `indexDocuments`). */
export interface TextIndex<T> {
  documents: IndexedDocument<T>[];
  averageLength: number;
  /** Per word of the vocabulary: how many documents have it. */
  documentFrequency: Map<string, number>;
  fillerWords: ReadonlySet<string>;
}

/**
 * Indexes `items` for `rankDocuments`; `fieldsOf` gives each item's weighted texts (a field may
 * appear several times, e.g. once per tag).
 */
export function indexDocuments<T>(
  items: readonly T[],
  fieldsOf: (item: T) => readonly WeightedText[],
  fillerWords: ReadonlySet<string>,
): TextIndex<T> {
  const documents = items.map((item) => {
    const frequencies = new Map<string, number>();
    let length = 0;
    for (const { text, weight } of fieldsOf(item)) {
      for (const word of searchWords(text, fillerWords)) {
        frequencies.set(word, (frequencies.get(word) ?? 0) + weight);
        length += weight;
      }
    }
    return { item, frequencies, length };
  });
  const documentFrequency = new Map<string, number>();
  for (const document of documents) {
    for (const word of document.frequencies.keys())
      documentFrequency.set(word, (documentFrequency.get(word) ?? 0) + 1);
  }
  const averageLength =
    documents.reduce((sum, document) => sum + document.length, 0) / Math.max(documents.length, 1);
  return { documents, averageLength, documentFrequency, fillerWords };
}

/** BM25's IDF, never negative: a word in every document still counts a little. */
const idf = (total: number, withWord: number) => Math.log(1 + (total - withWord + 0.5) / (withWord + 0.5));

/** BM25's saturated term frequency for a document of `length` words. */
const saturation = (frequency: number, length: number, averageLength: number) =>
  (frequency * (K1 + 1)) / (frequency + K1 * (1 - B + (B * length) / averageLength));

function nearMatch(word: string, candidate: string): boolean {
  let shared = 0;
  while (shared < word.length && shared < candidate.length && word[shared] === candidate[shared]) shared++;
  return shared >= NEAR_MATCH_PREFIX && shared >= NEAR_MATCH_SHARE * Math.min(word.length, candidate.length);
}

/** A query word as the index knows it: the vocabulary words it stands for, and how much a match is worth. */
interface QueryTerm {
  words: string[];
  credit: number;
  idf: number;
}

function queryTerms<T>(index: TextIndex<T>, query: string): QueryTerm[] {
  const total = index.documents.length;
  return [...new Set(searchWords(query, index.fillerWords))].map((word) => {
    const exact = index.documentFrequency.has(word);
    const words = exact
      ? [word]
      : [...index.documentFrequency.keys()].filter((known) => nearMatch(word, known));
    const withAny = index.documents.filter((document) =>
      words.some((known) => document.frequencies.has(known)),
    );
    return { words, credit: exact ? 1 : NEAR_MATCH_CREDIT, idf: idf(total, withAny.length) };
  });
}

export interface Ranked<T> {
  item: T;
  /** 0 to 1, three decimals: how well the item matches the query (see the module comment). */
  score: number;
}

/**
 * The documents scoring at least `minScore` for `query`, best first: BM25 among equal scores, then
 * index order.
 */
export function rankDocuments<T>(index: TextIndex<T>, query: string, minScore = 0): Ranked<T>[] {
  const terms = queryTerms(index, query);
  const fullMatch = saturation(FULL_MATCH_FREQUENCY, index.averageLength, index.averageLength);
  const totalIdf = terms.reduce((sum, term) => sum + term.idf, 0);
  const scored = index.documents.map((document, order) => {
    let matched = 0;
    let bm25 = 0;
    for (const term of terms) {
      const frequency = term.words.reduce((sum, word) => sum + (document.frequencies.get(word) ?? 0), 0);
      if (frequency === 0) continue;
      const termScore = saturation(frequency, document.length, index.averageLength) * term.credit;
      bm25 += term.idf * termScore;
      matched += term.idf * Math.min(1, termScore / fullMatch);
    }
    const score = terms.length === 0 ? 1 : Math.round((matched / totalIdf) * 1000) / 1000;
    return { item: document.item, score, bm25, order };
  });
  return scored
    .filter((entry) => entry.score >= minScore)
    .sort((a, b) => b.score - a.score || b.bm25 - a.bm25 || a.order - b.order)
    .map(({ item, score }) => ({ item, score }));
}
