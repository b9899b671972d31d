import fc from 'fast-check';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import '../../support/property-seed.js';
import { createEspeakEngine } from '../../../lambdas/engines/speech/espeak-engine.js';
import type { SpeechEngine, SynthesisResult } from '../../../lambdas/engines/speech/speech-engine.js';
import { createTestDoubleSpeechEngine } from '../../../lambdas/engines/speech/test-double-speech-engine.js';
import {
  normalizeVisemeCues,
  phonemeVisemes,
  VISEMES,
  type Viseme,
  type VisemeCue,
  visemeAt,
  visemesFromAudio,
  visemesFromPhonemes,
  visemesFromWords,
} from '../../../lambdas/engines/speech/visemes.js';
import { decodeWavPcm16 } from '../../../lambdas/engines/speech/wav.js';

const VOICE = 'espeak-en-us-m1';
const OPEN = new Set<Viseme>(['open_small', 'open_wide']);
const SHUT = new Set<Viseme>(['closed', 'rest']);

/** Ordered, gap-free, non-overlapping, whole milliseconds, each ≥ 1 ms, exactly [0, durationMs]. */
function expectTrack(track: readonly VisemeCue[], durationMs: number) {
  expect(track[0]?.startMs).toBe(0);
  expect(track.at(-1)?.endMs).toBe(durationMs);
  track.forEach((cue, index) => {
    expect(Number.isInteger(cue.startMs) && Number.isInteger(cue.endMs)).toBe(true);
    expect(cue.endMs - cue.startMs).toBeGreaterThanOrEqual(1);
    expect(Object.values(VISEMES)).toContain(cue.viseme);
    const previous = track[index - 1];
    if (previous) {
      expect(cue.startMs).toBe(previous.endMs);
      expect(cue.viseme).not.toBe(previous.viseme);
    }
  });
}

/** The cues that overlap [fromMs, toMs). */
const cuesIn = (track: readonly VisemeCue[], fromMs: number, toMs: number) =>
  track.filter((cue) => cue.startMs < toMs && cue.endMs > fromMs);

describe('normalizeVisemeCues', () => {
  it('fills gaps with rest, lets the earlier of overlapping cues win, merges equal neighbours', () => {
    expect(
      normalizeVisemeCues(
        [
          { startMs: 120, endMs: 200, viseme: 'open_wide' },
          { startMs: 10.4, endMs: 50, viseme: 'closed' },
          { startMs: 40, endMs: 80, viseme: 'rounded' },
          { startMs: 80, endMs: 90, viseme: 'rounded' },
          { startMs: 150, endMs: 400, viseme: 'spread' },
          { startMs: Number.NaN, endMs: 5, viseme: 'spread' },
        ],
        300,
      ),
    ).toEqual([
      { startMs: 0, endMs: 10, viseme: 'rest' },
      { startMs: 10, endMs: 50, viseme: 'closed' },
      { startMs: 50, endMs: 90, viseme: 'rounded' },
      { startMs: 90, endMs: 120, viseme: 'rest' },
      { startMs: 120, endMs: 200, viseme: 'open_wide' },
      { startMs: 200, endMs: 300, viseme: 'spread' },
    ]);
    expect(normalizeVisemeCues([], 250)).toEqual([{ startMs: 0, endMs: 250, viseme: 'rest' }]);
    expect(normalizeVisemeCues([{ startMs: 0, endMs: 5, viseme: 'closed' }], 0)).toEqual([]);
  });

  it('always yields an ordered, gap-free, non-overlapping cover of [0, duration] (property)', () => {
    const viseme = fc.constantFrom(...Object.values(VISEMES));
    const time = fc.oneof(
      fc.double({ min: -500, max: 5_000, noNaN: false }),
      fc.integer({ min: -10, max: 3_000 }),
    );
    const cue = fc.record({ startMs: time, endMs: time, viseme });
    fc.assert(
      fc.property(fc.array(cue, { maxLength: 40 }), fc.integer({ min: 1, max: 3_000 }), (cues, duration) => {
        const track = normalizeVisemeCues(cues, duration);
        expectTrack(track, duration);
        // Every instant a valid input cue covered first shows that cue's shape... or an earlier cue's.
        for (const [index, input] of cues.entries()) {
          const from = Math.max(0, Math.round(input.startMs));
          const to = Math.min(duration, Math.round(input.endMs));
          if (!Number.isFinite(input.startMs) || !Number.isFinite(input.endMs) || to <= from) continue;
          const earlierCovers = cues.some(
            (other, otherIndex) =>
              otherIndex !== index &&
              Number.isFinite(other.startMs) &&
              Number.isFinite(other.endMs) &&
              Math.round(other.startMs) <= from &&
              Math.round(other.endMs) > from,
          );
          if (!earlierCovers) expect(visemeAt(track, from)).toBe(input.viseme);
        }
      }),
      { numRuns: 300 },
    );
  });
});

describe('phoneme and letter mapping', () => {
  it('maps eSpeak IPA phonemes (and its ASCII mnemonics) to mouth shapes', () => {
    expect(phonemeVisemes('m')).toEqual(['closed']);
    expect(phonemeVisemes('b')).toEqual(['closed']);
    expect(phonemeVisemes('f')).toEqual(['lip_teeth']);
    expect(phonemeVisemes('ˈɑː')).toEqual(['open_wide']);
    expect(phonemeVisemes('uː')).toEqual(['rounded']);
    expect(phonemeVisemes('w')).toEqual(['rounded']);
    expect(phonemeVisemes('ˈiː')).toEqual(['spread']);
    expect(phonemeVisemes('ə')).toEqual(['open_small']);
    expect(phonemeVisemes('aɪ')).toEqual(['open_wide', 'spread']);
    expect(phonemeVisemes('tʃ')).toEqual(['rounded']);
    expect(phonemeVisemes('pf')).toEqual(['closed']);
    expect(phonemeVisemes('A:')).toEqual(['open_wide']);
    expect(phonemeVisemes('O:')).toEqual(['rounded']);
    expect(phonemeVisemes('')).toEqual([]);
    expect(phonemeVisemes('ʘ')).toEqual(['open_small']);
  });

  it('times phonemes until the next one and splits a diphthong', () => {
    expect(
      visemesFromPhonemes(
        [
          { phoneme: 'm', startMs: 10 },
          { phoneme: 'aɪ', startMs: 50 },
          { phoneme: '', startMs: 150 },
        ],
        200,
      ),
    ).toEqual([
      { startMs: 0, endMs: 10, viseme: 'rest' },
      { startMs: 10, endMs: 50, viseme: 'closed' },
      { startMs: 50, endMs: 100, viseme: 'open_wide' },
      { startMs: 100, endMs: 150, viseme: 'spread' },
      { startMs: 150, endMs: 200, viseme: 'rest' },
    ]);
  });

  it('spreads a word’s letters over its span', () => {
    const words = [{ word: 'Mama', startMs: 100, endMs: 300, textOffset: 0, textLength: 4 }];
    expect(visemesFromWords(words, 400)).toEqual([
      { startMs: 0, endMs: 100, viseme: 'rest' },
      { startMs: 100, endMs: 150, viseme: 'closed' },
      { startMs: 150, endMs: 200, viseme: 'open_wide' },
      { startMs: 200, endMs: 250, viseme: 'closed' },
      { startMs: 250, endMs: 300, viseme: 'open_wide' },
      { startMs: 300, endMs: 400, viseme: 'rest' },
    ]);
  });
});

describe('the engines’ viseme tracks', () => {
  let espeak: SpeechEngine;

  beforeAll(() => {
    espeak = createEspeakEngine();
  });

  afterAll(async () => {
    await espeak.close();
  });

  it('eSpeak: lips close on every m, b and p of "Bob, mama, papa." and open on the vowels', async () => {
    const result = await espeak.synthesize({ text: 'Bob, mama, papa.', voiceId: VOICE });
    expectTrack(result.visemes, result.durationMs);
    expect(result.words.map((word) => word.word)).toEqual(['Bob', 'mama', 'papa']);
    for (const word of result.words) {
      const inside = cuesIn(result.visemes, word.startMs, word.endMs);
      const shapes = inside.map((cue) => cue.viseme);
      // Two closures per word (B-o-b, m-a-m-a, p-a-p-a), each a separate cue between open vowels.
      expect(shapes.filter((shape) => shape === 'closed').length, word.word).toBe(2);
      const vowels = word.word === 'Bob' ? 1 : 2;
      expect(shapes.filter((shape) => OPEN.has(shape)).length, word.word).toBe(vowels);
      expect(shapes, word.word).toContain('open_wide');
      expect(shapes.indexOf('closed'), word.word).toBeLessThan(shapes.indexOf('open_wide'));
      // A closure lasts as long as a bilabial takes to see: at least 20 ms.
      for (const cue of inside.filter((cue) => cue.viseme === 'closed')) {
        expect(cue.endMs - cue.startMs).toBeGreaterThanOrEqual(20);
      }
    }
    // The commas are pauses: the mouth is at rest between the words.
    for (let index = 1; index < result.words.length; index++) {
      const before = result.words[index - 1] as SynthesisResult['words'][number];
      const after = result.words[index] as SynthesisResult['words'][number];
      for (const cue of cuesIn(result.visemes, before.endMs, after.startMs)) {
        if (cue.startMs >= before.endMs && cue.endMs <= after.startMs) expect(SHUT).toContain(cue.viseme);
      }
    }
  });

  it('eSpeak: a pause between sentences is rest or closed all the way through', async () => {
    const text = 'I see you. ... Look at that!';
    const result = await espeak.synthesize({ text, voiceId: VOICE });
    expectTrack(result.visemes, result.durationMs);
    const you = result.words.find((word) => word.word === 'you');
    const look = result.words.find((word) => word.word === 'Look');
    if (!you || !look) throw new Error('words missing');
    expect(look.startMs - you.endMs).toBeGreaterThanOrEqual(200);
    for (let time = you.endMs; time < look.startMs; time += 5) {
      expect(SHUT).toContain(visemeAt(result.visemes, time));
    }
    // "I see you": open, spread, rounded; "Look at that": rounded, open.
    const shapesOf = (fromMs: number, toMs: number) =>
      cuesIn(result.visemes, fromMs, toMs).map((c) => c.viseme);
    expect(shapesOf(0, you.endMs)).toEqual(expect.arrayContaining(['open_wide', 'spread', 'rounded']));
    expect(shapesOf(look.startMs, result.durationMs)).toEqual(
      expect.arrayContaining(['rounded', 'open_wide']),
    );
  });

  it('the test double: a deterministic track from its words, closed on m/b/p, rest between words', async () => {
    const double = createTestDoubleSpeechEngine();
    const request = { text: 'Bob, mama, papa.', voiceId: VOICE };
    const result = await double.synthesize(request);
    expect((await double.synthesize(request)).visemes).toEqual(result.visemes);
    expectTrack(result.visemes, result.durationMs);
    for (const word of result.words) {
      expect(visemeAt(result.visemes, word.startMs)).toBe('closed');
      const shapes = cuesIn(result.visemes, word.startMs, word.endMs).map((cue) => cue.viseme);
      expect(shapes).toContain(word.word === 'Bob' ? 'rounded' : 'open_wide');
    }
    expect(visemeAt(result.visemes, (result.words[0]?.endMs ?? 0) + 1)).toBe('rest');
  });
});

describe('visemesFromAudio', () => {
  const SILENCE_MS = 500;
  let samples: Int16Array;
  let sampleRate: number;
  let silenceFromMs: number;
  let original: SynthesisResult;

  /** RMS of 20 ms frames, measured directly on the waveform (no filter). */
  function frameRms(frameMs: number): number[] {
    const frame = Math.round((frameMs * sampleRate) / 1000);
    const levels: number[] = [];
    for (let start = 0; start + frame <= samples.length; start += frame) {
      let sum = 0;
      for (let i = start; i < start + frame; i++) sum += (samples[i] ?? 0) ** 2;
      levels.push(Math.sqrt(sum / frame));
    }
    return levels;
  }

  beforeAll(async () => {
    const espeak = createEspeakEngine();
    original = await espeak.synthesize({ text: 'Father saw a large castle far away', voiceId: VOICE });
    await espeak.close();
    const wav = decodeWavPcm16(original.audio);
    sampleRate = wav.sampleRate;
    // Insert 500 ms of digital silence at the start of "castle" (mid-sentence, no pause there).
    const castle = original.words.find((word) => word.word === 'castle');
    if (!castle) throw new Error('no castle');
    silenceFromMs = castle.startMs;
    const at = Math.round((silenceFromMs * sampleRate) / 1000);
    const gap = Math.round((SILENCE_MS * sampleRate) / 1000);
    samples = new Int16Array(wav.samples.length + gap);
    samples.set(wav.samples.subarray(0, at), 0);
    samples.set(wav.samples.subarray(at), at + gap);
  });

  it('covers the audio exactly', () => {
    const track = visemesFromAudio(samples, sampleRate);
    expectTrack(track, Math.round((samples.length * 1000) / sampleRate));
  });

  it('closes the mouth across an inserted 500 ms silence and opens it on the loud vowels', () => {
    const track = visemesFromAudio(samples, sampleRate);
    // The whole silence (allowing one 20 ms frame at each edge) is rest: long enough to be a pause.
    for (let time = silenceFromMs + 20; time < silenceFromMs + SILENCE_MS - 20; time += 5) {
      expect(visemeAt(track, time), `${time} ms`).toBe('rest');
    }
    // The loudest fifth of 20 ms frames (measured on the waveform) are nearly all open, mostly wide.
    const levels = frameRms(20);
    const sorted = [...levels].sort((a, b) => b - a);
    const loud = sorted[Math.floor(sorted.length / 5)] as number;
    const loudFrames = levels.flatMap((level, index) => (level >= loud ? [index * 20 + 10] : []));
    const shapes = loudFrames.map((time) => visemeAt(track, time));
    const open = shapes.filter((shape) => OPEN.has(shape)).length;
    const wide = shapes.filter((shape) => shape === 'open_wide').length;
    expect(open / shapes.length).toBeGreaterThanOrEqual(0.9);
    expect(wide / shapes.length).toBeGreaterThanOrEqual(0.5);
    // And the quietest frames outside the silence are never wide open.
    const quiet = sorted[Math.floor((sorted.length * 9) / 10)] as number;
    levels.forEach((level, index) => {
      if (level <= quiet) expect(visemeAt(track, index * 20 + 10)).not.toBe('open_wide');
    });
  });

  it('keeps its thresholds configurable and shuts short silences as closures', () => {
    // 300 ms tone, 100 ms silence, 300 ms tone: the short silence is a closure, not a pause.
    const rate = 16_000;
    const tone = (ms: number) =>
      Int16Array.from({ length: (ms * rate) / 1000 }, (_, i) =>
        Math.round(12_000 * Math.sin((2 * Math.PI * 800 * i) / rate)),
      );
    const audio = new Int16Array([...tone(300), ...new Int16Array((100 * rate) / 1000), ...tone(300)]);
    const track = visemesFromAudio(audio, rate, { frameMs: 20 });
    expectTrack(track, 700);
    expect(visemeAt(track, 150)).toBe('open_wide');
    expect(visemeAt(track, 350)).toBe('closed');
    expect(visemeAt(track, 550)).toBe('open_wide');
    // With a pause length under 100 ms, the same silence is rest.
    expect(visemeAt(visemesFromAudio(audio, rate, { pauseMs: 60 }), 350)).toBe('rest');
    // A wide threshold above the tone's level keeps the mouth only slightly open.
    expect(visemeAt(visemesFromAudio(audio, rate, { wideDb: 3, narrowDb: 1 }), 150)).toBe('open_small');
    // Outside the speech band (a 50 Hz hum), nothing opens the mouth.
    const hum = Int16Array.from({ length: rate }, (_, i) =>
      Math.round(3_000 * Math.sin((2 * Math.PI * 50 * i) / rate)),
    );
    const humTrack = visemesFromAudio(new Int16Array([...hum, ...tone(300)]), rate);
    expect(visemeAt(humTrack, 500)).toBe('rest');
    expect(visemeAt(humTrack, 1_150)).toBe('open_wide');
    // Silence is rest throughout.
    expect(visemesFromAudio(new Int16Array(rate), rate)).toEqual([
      { startMs: 0, endMs: 1_000, viseme: 'rest' },
    ]);
  });
});
