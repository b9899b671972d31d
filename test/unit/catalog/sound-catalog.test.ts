import { describe, expect, it } from 'vitest';
import { rankSounds, searchWords } from '../../../lambdas/audio/sounds.js';
import { renderSoundSamples } from '../../../lambdas/catalog/render-sound.js';
import { CATALOG_SOUNDS, soundKey, soundVersionInputs } from '../../../lambdas/catalog/sound-catalog.js';
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
});

describe('searching sounds', () => {
  it('reduces a query to its search words', () => {
    expect(searchWords('Whooshes for a scene change!')).toEqual(['whoosh', 'scene', 'change']);
    expect(searchWords('Café música')).toEqual(['cafe', 'musica']);
  });

  it('ranks by how much of the query matches, name first, and leaves out what matches nothing', () => {
    const ranked = rankSounds('sound_effects', 'click');
    expect(ranked[0]?.sound.id).toBe('sfx-ui-click');
    expect(ranked.map((entry) => entry.sound.id)).toContain('sfx-camera-shutter');
    expect(ranked.every((entry) => entry.score > 0 && entry.score <= 1)).toBe(true);
    expect(rankSounds('music', 'bagpipes')).toEqual([]);
    expect(rankSounds('music').every((entry) => entry.score === 1)).toBe(true);
    expect(rankSounds('sound_effects', 'cash register')[0]).toMatchObject({ score: 1 });
  });
});
