import { describe, expect, it } from 'vitest';
import { availableStockVoices, findStockVoice } from '../../../lambdas/catalog/stock-voices.js';
import { espeakPitchHz } from '../../../lambdas/voices/voice-analysis.js';
import {
  DESIGN_BATCH_SIZE,
  DESIGN_STYLES,
  designBatch,
  promptWords,
  rankDesignCandidates,
  styledEngineVoices,
} from '../../../lambdas/voices/voice-design.js';

const ids = (query: Parameters<typeof designBatch>[0]) =>
  designBatch(query).map((candidate) => candidate.voiceId);

describe('voice design ranking', () => {
  it('is deterministic: the same prompt and seed give the same voices', () => {
    const query = { prompt: 'Warm, confident female narrator', engine: 'espeak' };
    const first = ids(query);
    expect(first).toHaveLength(DESIGN_BATCH_SIZE);
    for (let run = 0; run < 5; run++) expect(ids(query)).toEqual(first);
    // Case and spacing do not change the description.
    expect(ids({ ...query, prompt: '  warm,   CONFIDENT female narrator ' })).toEqual(first);
  });

  it('pages with the seed: seed 1 is the next batch, and batches never repeat a voice', () => {
    const prompt = 'deep authoritative British man for documentaries';
    const ranked = rankDesignCandidates({ prompt, engine: 'espeak' }).map((candidate) => candidate.voiceId);
    expect(new Set(ranked).size).toBe(ranked.length);
    expect(ranked).toHaveLength(availableStockVoices('espeak').length * DESIGN_STYLES.length);
    for (const seed of [0, 1, 2, 7]) {
      expect(ids({ prompt, seed, engine: 'espeak' })).toEqual(ranked.slice(seed * 3, seed * 3 + 3));
    }
    expect(ids({ prompt, seed: 1, engine: 'espeak' })).not.toEqual(
      ids({ prompt, seed: 0, engine: 'espeak' }),
    );
    expect(ids({ prompt, seed: 1000, engine: 'espeak' })).toEqual([]);
  });

  it('ranks the voices the description names first', () => {
    const [best] = designBatch({ prompt: 'deep authoritative British man', engine: 'espeak' });
    expect(best?.voice.voiceId).toBe('en-gb-oliver');
    expect(best?.style.id).toBe('deep');

    const spanish = designBatch({ prompt: 'cheerful young Mexican woman', engine: 'espeak' });
    expect(spanish[0]?.voice.voiceId).toBe('es-mx-valentina');
    expect(['bright', 'youthful']).toContain(spanish[0]?.style.id);

    const slow = designBatch({ prompt: 'slow calm storyteller grandfather', engine: 'espeak' });
    expect(slow[0]?.voice.gender).toBe('male');
    expect(slow[0]?.style.speed).toBeLessThan(1);
  });

  it('keeps English first when the prompt names no language, and offers different voices in a batch', () => {
    const batch = designBatch({ prompt: 'friendly female voice', engine: 'espeak' });
    expect(batch.every((candidate) => candidate.voice.language.startsWith('en-'))).toBe(true);
    expect(new Set(batch.map((candidate) => candidate.voice.voiceId)).size).toBeGreaterThan(1);
  });

  it('applies the gender and locale filters to every batch', () => {
    for (const seed of [0, 1, 3]) {
      const female = designBatch({ prompt: 'deep man', gender: 'female', seed, engine: 'espeak' });
      expect(female.every((candidate) => candidate.voice.gender === 'female')).toBe(true);
      const french = designBatch({ prompt: 'British narrator', locale: 'fr-FR', seed, engine: 'espeak' });
      expect(french.length).toBeGreaterThan(0);
      expect(french.every((candidate) => candidate.voice.language === 'fr-FR')).toBe(true);
    }
    expect(designBatch({ prompt: 'anyone', locale: 'pt', engine: 'espeak' })[0]?.voice.language).toBe(
      'pt-BR',
    );
    expect(designBatch({ prompt: 'anyone', locale: 'sv-SE', engine: 'espeak' })).toEqual([]);
  });

  it('offers only voices the engine speaks', () => {
    const ranked = rankDesignCandidates({ prompt: 'Hindi man', engine: 'polly' });
    expect(ranked.some((candidate) => candidate.voice.voiceId === 'hi-in-arjun')).toBe(false);
    expect(rankDesignCandidates({ prompt: 'Hindi man', engine: 'espeak' })[0]?.voice.voiceId).toBe(
      'hi-in-arjun',
    );
  });

  it('normalizes prompt words: accents, plurals, adverbs', () => {
    expect(promptWords('Élégante, calmly spoken narrators')).toEqual(
      new Set(['elegante', 'calmly', 'calm', 'spoken', 'narrators', 'narrator']),
    );
  });

  it('turns a style into engine settings that shift the pitch by its semitones', () => {
    const olivia = findStockVoice('en-us-olivia');
    if (!olivia) throw new Error('no Olivia');
    const deep = styledEngineVoices(olivia, -4, 0.94);
    expect(deep.espeak).toMatchObject({ voice_id: 'espeak-en-us-f1', speed: 0.94 });
    const hz = espeakPitchHz('f1', deep.espeak?.pitch ?? 0);
    expect(12 * Math.log2(hz / espeakPitchHz('f1', 0))).toBeCloseTo(-4, 0);
    expect(deep.polly).toEqual({ voice_id: 'Joanna', speed: 0.94, pitch: -33 });
    expect(styledEngineVoices(olivia, 0, 1).espeak?.pitch).toBe(0);
  });
});
