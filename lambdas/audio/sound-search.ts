/**
 * How `GET /v3/audio/sounds` ranks the catalog against a query: the catalogs' shared ranker
 * (catalog/text-ranking.ts: BM25F normalised to a 0–1 `score`, so that `min_score` means the same for
 * any query) over each sound's curated words: name 2, tags 2, description 1. IDF is computed within
 * the type searched (music or sound effects), so a word every sound has says little. Besides the
 * common filler words, words that only name the kind (`music`, `sound`, `sfx`, …) are dropped.
 */
import { CATALOG_SOUNDS, type CatalogSound, type SoundType } from '../catalog/sound-catalog.js';
import {
  COMMON_FILLER_WORDS,
  indexDocuments,
  rankDocuments,
  searchWords as rankerSearchWords,
  type TextIndex,
} from '../catalog/text-ranking.js';

const FILLER_WORDS: ReadonlySet<string> = new Set([
  ...COMMON_FILLER_WORDS,
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
]);

/** The search words of a text as the sound search sees them, in order, repeats kept. */
export function searchWords(text: string): string[] {
  return rankerSearchWords(text, FILLER_WORDS);
}

/** How much a word found in each field counts. */
const FIELD_WEIGHTS = { name: 2, tags: 2, description: 1 } as const;

const INDEXES = new Map<SoundType, TextIndex<CatalogSound>>();
function indexOf(type: SoundType): TextIndex<CatalogSound> {
  let index = INDEXES.get(type);
  if (!index) {
    index = indexDocuments(
      CATALOG_SOUNDS.filter((sound) => sound.type === type),
      (sound) => [
        { text: sound.name, weight: FIELD_WEIGHTS.name },
        ...sound.tags.map((tag) => ({ text: tag, weight: FIELD_WEIGHTS.tags })),
        { text: sound.description, weight: FIELD_WEIGHTS.description },
      ],
      FILLER_WORDS,
    );
    INDEXES.set(type, index);
  }
  return index;
}

export interface RankedSound {
  sound: CatalogSound;
  /** 0 to 1, three decimals: how well the sound matches the query (see catalog/text-ranking.ts). */
  score: number;
}

/**
 * The sounds of a type scoring at least `minScore` for `query`, best first (BM25 among equal scores,
 * then catalog order).
 */
export function rankSounds(type: SoundType, query: string, minScore = 0): RankedSound[] {
  return rankDocuments(indexOf(type), query, minScore).map(({ item, score }) => ({ sound: item, score }));
}

/**
 * The catalog's music track ranked best for a mood, if any matches: the video agent's music bed (for
 * a plan's mood) and a style's preview (for the style's mood).
 */
export function musicFor(mood: string): RankedSound | undefined {
  const best = rankSounds('music', mood)[0];
  return best && best.score > 0 ? best : undefined;
}
