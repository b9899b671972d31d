/**
 * `GET /v3/audio/sounds`: the sound catalog (catalog/sound-catalog.ts) of one `type` (`music` by
 * default, or `sound_effects`), searched with a natural-language `query` (required, as in the hosted
 * API) and ranked by a 0–1 `score` (BM25, normalised: see sound-search.ts); sounds scoring under
 * `min_score` (0.7 by default) are left out. `min_score=0` lists every sound of the type, ranked.
 */
import { z } from 'zod';
import { arraySource, type Page, pageAcrossSources } from '../catalog/catalog-pages.js';
import { SOUND_TYPES, type SoundType, soundKey } from '../catalog/sound-catalog.js';
import { limitParam, tokenParam } from '../core/validation.js';
import { presignMediaDownload } from '../media/media-store.js';
import { type RankedSound, rankSounds } from './sound-search.js';

export const DEFAULT_MIN_SCORE = 0.7;

export const listSoundsQuery = z.strictObject({
  query: z
    .string()
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(200, { error: 'must be at most 200 characters' })
    .meta({
      description: "What you are looking for, in words: 'upbeat corporate', 'whoosh for a scene change'",
    }),
  type: z.enum(SOUND_TYPES).default('music').meta({ description: '`music` (default) or `sound_effects`' }),
  limit: limitParam(50, 10),
  min_score: z.coerce
    .number({ error: 'must be a number from 0 to 1' })
    .min(0, { error: 'must be a number from 0 to 1' })
    .max(1, { error: 'must be a number from 0 to 1' })
    .default(DEFAULT_MIN_SCORE)
    .meta({ description: 'Leave out sounds scoring under this (0 to 1, default 0.7)' }),
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
  /** Relevance to the query, 0 to 1, higher is closer (sound-search.ts). */
  score: number;
  /** Sound effects: seconds to the loudest moment; null for music. */
  peak_offset: number | null;
  /** Sound effects: `hit`, `riser` or `bed`; null for music. */
  placement: string | null;
  tags: readonly string[];
  /** Music: tempo in beats per minute, when it has a steady one. */
  bpm?: number;
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
  query: string;
  minScore: number;
  limit: number;
  token?: string | undefined;
}

export function listSounds(workspaceId: string, options: ListSoundsOptions): Promise<Page<SoundView>> {
  const ranked = rankSounds(options.type, options.query, options.minScore);
  const binding = `${workspaceId}:AudioSoundsList:${JSON.stringify([options.type, options.query, options.minScore])}`;
  return pageAcrossSources(binding, [arraySource(ranked, soundView)], options.limit, options.token);
}
