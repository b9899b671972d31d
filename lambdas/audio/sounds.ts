/**
 * `GET /v3/audio/sounds`: the sound catalog (catalog/sound-catalog.ts), filtered by `type` (`music` by
 * default, or `sound_effects`) and ranked against a natural-language `query`.
 *
 * Ranking is lexical, not a learnt embedding: the query's words (lower case, accents and common
 * endings removed, filler words dropped) are looked up in each sound's name, tags and description,
 * a word found in the name counting most; `score` is the share of the query that matched, 0 to 1,
 * and sounds that match nothing are left out. Without a query every sound of the type is listed,
 * in catalog order, with score 1.
 */
import { z } from 'zod';
import { arraySource, type Page, pageAcrossSources } from '../catalog/catalog-pages.js';
import {
  CATALOG_SOUNDS,
  type CatalogSound,
  SOUND_TYPES,
  type SoundType,
  soundKey,
} from '../catalog/sound-catalog.js';
import { limitParam, tokenParam } from '../core/validation.js';
import { presignMediaDownload } from '../media/media-store.js';

export const listSoundsQuery = z.strictObject({
  type: z.enum(SOUND_TYPES).default('music').meta({ description: '`music` (default) or `sound_effects`' }),
  query: z
    .string()
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(200, { error: 'must be at most 200 characters' })
    .optional()
    .meta({
      description: "What you are looking for, in words: 'upbeat corporate', 'whoosh for a scene change'",
    }),
  limit: limitParam(100, 20),
  token: tokenParam,
});

export interface SoundView {
  id: string;
  name: string;
  description: string;
  type: SoundType;
  /** Presigned download URL of the MP3 file; expires. */
  audio_url: string;
  duration: number;
  /** Similarity to the query, 0 to 1 (1 without a query). */
  score: number;
  /** Sound effects: seconds to the loudest moment; null for music. */
  peak_offset: number | null;
  /** Sound effects: `hit`, `riser` or `bed`; null for music. */
  placement: string | null;
  tags: readonly string[];
  /** Music: tempo in beats per minute, when it has a steady one. */
  bpm?: number;
}

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

export function searchWords(text: string): string[] {
  return text
    .normalize('NFKD')
    .replace(/\p{M}/gu, '')
    .toLowerCase()
    .split(/[^\p{L}\p{N}]+/u)
    .filter((word) => word.length > 0 && !FILLER_WORDS.has(word))
    .map(stem);
}

/** How much a word found in each field counts. */
const WEIGHTS = { name: 1, tags: 0.85, description: 0.6 } as const;

const matches = (word: string, candidates: ReadonlySet<string>) =>
  candidates.has(word) ||
  // `cinema` finds `cinematic`, `elec` does not find much: a prefix of at least four letters.
  (word.length >= 4 && [...candidates].some((candidate) => candidate.startsWith(word)));

interface IndexedSound {
  sound: CatalogSound;
  name: Set<string>;
  tags: Set<string>;
  description: Set<string>;
  phrases: string[];
}

const INDEX: readonly IndexedSound[] = CATALOG_SOUNDS.map((sound) => ({
  sound,
  name: new Set(searchWords(sound.name)),
  tags: new Set(sound.tags.flatMap(searchWords)),
  description: new Set(searchWords(sound.description)),
  phrases: [sound.name, ...sound.tags].map((phrase) => searchWords(phrase).join(' ')),
}));

/** The score of a sound for the query's words: 0 (nothing matched) to 1. */
export function scoreSound(indexed: IndexedSound, words: readonly string[]): number {
  if (words.length === 0) return 1;
  let total = 0;
  for (const word of words) {
    if (matches(word, indexed.name)) total += WEIGHTS.name;
    else if (matches(word, indexed.tags)) total += WEIGHTS.tags;
    else if (matches(word, indexed.description)) total += WEIGHTS.description;
  }
  // The whole query is the sound's name or one of its tags: as close as it gets.
  if (indexed.phrases.includes(words.join(' '))) return 1;
  return Math.round((total / words.length) * 1000) / 1000;
}

export interface RankedSound {
  sound: CatalogSound;
  score: number;
}

/** The sounds of a type, best match first (catalog order among equals); none that match nothing. */
export function rankSounds(type: SoundType, query?: string): RankedSound[] {
  const words = query ? searchWords(query) : [];
  return INDEX.filter((indexed) => indexed.sound.type === type)
    .map((indexed) => ({ sound: indexed.sound, score: scoreSound(indexed, words) }))
    .filter((ranked) => ranked.score > 0)
    .sort((a, b) => b.score - a.score);
}

async function soundView({ sound, score }: RankedSound): Promise<SoundView> {
  return {
    id: sound.id,
    name: sound.name,
    description: sound.description,
    type: sound.type,
    audio_url: await presignMediaDownload(soundKey(sound.id), {
      contentType: 'audio/mpeg',
      fileName: `${sound.id}.mp3`,
    }),
    duration: sound.durationSeconds,
    score,
    peak_offset: sound.peakOffset ?? null,
    placement: sound.placement ?? null,
    tags: sound.tags,
    ...(sound.bpm ? { bpm: sound.bpm } : {}),
  };
}

export interface ListSoundsOptions {
  type: SoundType;
  query?: string | undefined;
  limit: number;
  token?: string | undefined;
}

export function listSounds(workspaceId: string, options: ListSoundsOptions): Promise<Page<SoundView>> {
  const ranked = rankSounds(options.type, options.query);
  const binding = `${workspaceId}:AudioSoundsList:${JSON.stringify([options.type, options.query ?? null])}`;
  return pageAcrossSources(binding, [arraySource(ranked, soundView)], options.limit, options.token);
}
