import { describe, expect, it } from 'vitest';
import { rankSounds, searchWords } from '../../../lambdas/audio/sound-search.js';
import { renderSoundSamples } from '../../../lambdas/catalog/render-sound.js';
import {
  CATALOG_SOUNDS,
  canonicalSource,
  soundKey,
  soundVersionInputs,
} from '../../../lambdas/catalog/sound-catalog.js';
import { durationOf, loudestPeakSeconds } from '../../../lambdas/catalog/synth.js';

describe('the sound catalog', () => {
  it('has unique ids and keys under catalog/sounds/, music and sound effects', () => {
    expect(new Set(CATALOG_SOUNDS.map((sound) => sound.id)).size).toBe(CATALOG_SOUNDS.length);
    for (const sound of CATALOG_SOUNDS) expect(soundKey(sound.id)).toBe(`catalog/sounds/${sound.id}.mp3`);
    expect(CATALOG_SOUNDS.filter((sound) => sound.type === 'music').length).toBeGreaterThanOrEqual(10);
    expect(CATALOG_SOUNDS.filter((sound) => sound.type === 'sound_effects').length).toBeGreaterThanOrEqual(
      15,
    );
  });

  it.each(
    CATALOG_SOUNDS.filter((sound) => sound.type === 'sound_effects').map(
      (sound) => [sound.id, sound] as const,
    ),
  )('%s renders to its stated length and loudest moment', (_id, sound) => {
    const samples = renderSoundSamples(sound);
    expect(durationOf(samples)).toBeCloseTo(sound.durationSeconds, 2);
    expect(Math.abs(loudestPeakSeconds(samples) - (sound.peakOffset ?? -1))).toBeLessThanOrEqual(0.03);
    let peak = 0;
    for (const channel of [samples.left, samples.right])
      for (const value of channel) peak = Math.max(peak, Math.abs(value));
    expect(peak).toBeGreaterThan(0.1);
    expect(peak).toBeLessThanOrEqual(1);
  });

  it('renders the same samples every time (seeded noise)', () => {
    const sound = CATALOG_SOUNDS.find((candidate) => candidate.id === 'sfx-rain-ambience');
    if (!sound) throw new Error('no rain');
    expect(renderSoundSamples(sound).left).toEqual(renderSoundSamples(sound).left);
  });

  it('versions a sound by its recipe', () => {
    const [first, second] = CATALOG_SOUNDS;
    if (!first || !second) throw new Error('empty catalog');
    expect(JSON.stringify(soundVersionInputs(first))).not.toBe(JSON.stringify(soundVersionInputs(second)));
    expect(String(soundVersionInputs(first).at(-1))).toContain('=>');
  });

  it('versions a recipe by its tokens, the same whichever transformer printed it', () => {
    // Vite's SSR transform (the test suite) and tsx's esbuild (the service, the smoke test) print it so.
    const vite = `(bars) => {
		// Two bars of a tone.
		const audio = (0,__vite_ssr_import_1__.stereo)(bars * 0.5);
		[1, 2].forEach((bar) => __vite_ssr_import_1__.tone(audio, { start: bar * 0.25, amplitude: -0.1 }));
		return audio;
	}`;
    const esbuild =
      'bars=>{const audio=stereo(bars*.5);[1,2].forEach(bar=>tone(audio,{start:bar*.25,amplitude:-.1}));return audio}';
    expect(canonicalSource(vite)).toBe(canonicalSource(esbuild));
    expect(canonicalSource(esbuild)).not.toBe(canonicalSource(esbuild.replace('.25', '.26')));
    expect(canonicalSource(esbuild)).not.toBe(canonicalSource(esbuild.replace('tone', 'pluck')));
  });
});

describe('searching sounds', () => {
  it('reduces a query to its search words', () => {
    expect(searchWords('Whooshes for a scene change!')).toEqual(['whoosh', 'scene', 'change']);
    expect(searchWords('Café música')).toEqual(['cafe', 'musica']);
  });

  it('also counts a hyphenated word joined, as people write both', () => {
    expect(searchWords('Lo-fi hip-hop')).toEqual(['lo', 'fi', 'lofi', 'hip', 'hop', 'hiphop']);
  });

  it('scores 0 to 1, best first, a query naming a sound near 1 and an unrelated one 0', () => {
    const ranked = rankSounds('sound_effects', 'click');
    expect(ranked[0]?.sound.id).toBe('sfx-ui-click');
    expect(ranked.map((entry) => entry.sound.id)).toContain('sfx-camera-shutter');
    expect(ranked.every((entry) => entry.score >= 0 && entry.score <= 1)).toBe(true);
    const scores = ranked.map((entry) => entry.score);
    expect([...scores].sort((a, b) => b - a)).toEqual(scores);
    expect(rankSounds('sound_effects', 'cash register')[0]).toMatchObject({
      sound: { id: 'sfx-cash-register' },
      score: 1,
    });
    expect(rankSounds('music', 'Night Drive')[0]?.score).toBeGreaterThanOrEqual(0.7);
    expect(rankSounds('music', 'bagpipes', 0.01)).toEqual([]);
    expect(rankSounds('sound_effects', 'helicopter landing', 0.01)).toEqual([]);
  });

  it('gives partial credit for a partial match and for words that share their stem', () => {
    // Half the query is unknown to the catalog: the best match is clearly under the default 0.7.
    const [best] = rankSounds('music', 'happy dog barking');
    expect(best?.score).toBeGreaterThan(0);
    expect(best?.score).toBeLessThan(0.5);
    // `tense` is not a word of the catalog; `tension` is.
    expect(rankSounds('sound_effects', 'tense cinematic riser', 0.7).map((entry) => entry.sound.id)).toEqual([
      'sfx-tension-riser',
    ]);
  });

  it('keeps only sounds at or above the minimum score; 0 keeps the whole type', () => {
    expect(rankSounds('music', 'calm', 0.95).map((entry) => entry.sound.id)).toEqual(['music-calm-waters']);
    expect(rankSounds('music', 'calm', 0)).toHaveLength(
      CATALOG_SOUNDS.filter((sound) => sound.type === 'music').length,
    );
    // Only filler words: the query asks for the type, every sound scores 1.
    expect(rankSounds('music', 'music').every((entry) => entry.score === 1)).toBe(true);
  });
});
