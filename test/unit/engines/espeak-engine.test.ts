import { readdirSync, readFileSync } from 'node:fs';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { captionCuesFromWords, wordsWithPunctuation } from '../../../lambdas/engines/composition/captions.js';
import { formatSrt } from '../../../lambdas/engines/composition/subtitle-files.js';
import { createEspeakEngine } from '../../../lambdas/engines/speech/espeak-engine.js';
import {
  type SpeechEngine,
  SpeechEngineError,
  type SynthesisResult,
} from '../../../lambdas/engines/speech/speech-engine.js';
import { decodeWavPcm16 } from '../../../lambdas/engines/speech/wav.js';

const TEXT = 'Hello world, this is a test.';
const VOICE = 'espeak-en-us-m1';

let engine: SpeechEngine;
let hello: SynthesisResult;

/** Root mean square of the samples between two times. */
function rms(samples: Int16Array, sampleRate: number, fromMs: number, toMs: number): number {
  const from = Math.floor((fromMs * sampleRate) / 1000);
  const to = Math.min(samples.length, Math.floor((toMs * sampleRate) / 1000));
  let sum = 0;
  for (let i = from; i < to; i++) sum += (samples[i] ?? 0) ** 2;
  return to > from ? Math.sqrt(sum / (to - from)) : 0;
}

/** Median fundamental frequency of the loud 40 ms frames, by autocorrelation (60 to 400 Hz). */
function medianPitchHz(samples: Int16Array, sampleRate: number): number {
  const frame = Math.floor(sampleRate * 0.04);
  const pitches: number[] = [];
  for (let start = 0; start + frame < samples.length; start += frame) {
    const chunk = samples.subarray(start, start + frame);
    if (rms(chunk, sampleRate, 0, 40) < 1000) continue;
    let bestLag = 0;
    let best = 0;
    for (let lag = Math.floor(sampleRate / 400); lag <= Math.floor(sampleRate / 60); lag++) {
      let sum = 0;
      for (let i = 0; i + lag < chunk.length; i++) sum += (chunk[i] ?? 0) * (chunk[i + lag] ?? 0);
      if (sum > best) {
        best = sum;
        bestLag = lag;
      }
    }
    if (bestLag) pitches.push(sampleRate / bestLag);
  }
  pitches.sort((a, b) => a - b);
  return pitches[Math.floor(pitches.length / 2)] ?? 0;
}

beforeAll(async () => {
  engine = createEspeakEngine();
  hello = await engine.synthesize({ text: TEXT, voiceId: VOICE });
});

afterAll(async () => {
  await engine.close();
});

describe('eSpeak engine', () => {
  it('lists its voices with the documented id scheme', async () => {
    const voices = await engine.voices();
    expect(voices.length).toBeGreaterThan(500);
    expect(new Set(voices.map((voice) => voice.id)).size).toBe(voices.length);
    for (const voice of voices) expect(voice.id).toMatch(/^espeak-[a-z0-9-]+-[mf][1-4]$/);
    expect(voices.find((voice) => voice.id === 'espeak-en-us-f1')).toEqual({
      id: 'espeak-en-us-f1',
      engine: 'espeak',
      name: 'English (America) · Female 1',
      language: 'en-US',
      languageName: 'English (America)',
      gender: 'female',
    });
    expect(voices.find((voice) => voice.id === 'espeak-en-gb-x-rp-m2')?.language).toBe('en-GB-x-rp');
  });

  it('returns a 16-bit mono WAV whose length is the reported duration', () => {
    const wav = decodeWavPcm16(hello.audio);
    expect(wav).toMatchObject({ format: 1, channels: 1, bitsPerSample: 16, sampleRate: 22050 });
    expect(hello.sampleRate).toBe(22050);
    expect(Math.abs((wav.samples.length * 1000) / wav.sampleRate - hello.durationMs)).toBeLessThan(1);
    expect(hello.durationMs).toBeGreaterThan(1000);
    expect(hello.durationMs).toBeLessThan(5000);
  });

  it('times every word, in order, inside the audio', () => {
    expect(hello.words.map((timing) => timing.word)).toEqual(['Hello', 'world', 'this', 'is', 'a', 'test']);
    let previousEnd = 0;
    for (const timing of hello.words) {
      expect(TEXT.slice(timing.textOffset, timing.textOffset + timing.textLength)).toBe(timing.word);
      expect(timing.startMs).toBeGreaterThanOrEqual(previousEnd);
      expect(timing.endMs).toBeGreaterThan(timing.startMs);
      expect(timing.endMs).toBeLessThanOrEqual(hello.durationMs);
      previousEnd = timing.endMs;
    }
  });

  it('has speech inside every word and silence in the pause at the comma', () => {
    const { samples, sampleRate } = decodeWavPcm16(hello.audio);
    for (const timing of hello.words) {
      expect(rms(samples, sampleRate, timing.startMs, timing.endMs), timing.word).toBeGreaterThan(1000);
    }
    const world = hello.words[1];
    const next = hello.words[2];
    if (!world || !next) throw new Error('missing words');
    // The clause pause after "world," is real silence that belongs to neither word.
    expect(next.startMs - world.endMs).toBeGreaterThan(50);
    expect(rms(samples, sampleRate, world.endMs + 5, next.startMs - 5)).toBeLessThan(50);
    // The speech itself starts within the first word: no long silence before it.
    expect(hello.words[0]?.startMs).toBeLessThan(50);
  });

  it('speaks faster when asked', async () => {
    const fast = await engine.synthesize({ text: TEXT, voiceId: VOICE, speed: 2 });
    expect(fast.durationMs).toBeLessThan(hello.durationMs * 0.75);
    expect(fast.words).toHaveLength(hello.words.length);
  });

  it('sounds different with another voice: a female variant is higher-pitched', async () => {
    const female = await engine.synthesize({ text: TEXT, voiceId: 'espeak-en-us-f2' });
    const male = decodeWavPcm16(hello.audio);
    const other = decodeWavPcm16(female.audio);
    expect(Buffer.from(female.audio).equals(Buffer.from(hello.audio))).toBe(false);
    expect(medianPitchHz(other.samples, other.sampleRate)).toBeGreaterThan(
      1.3 * medianPitchHz(male.samples, male.sampleRate),
    );
  });

  it('scales the volume and keeps markup characters as text', async () => {
    const quiet = await engine.synthesize({ text: 'Fish & chips <now>', voiceId: VOICE, volume: 0.25 });
    const loud = await engine.synthesize({ text: 'Fish & chips <now>', voiceId: VOICE });
    const level = (result: SynthesisResult) => {
      const { samples, sampleRate } = decodeWavPcm16(result.audio);
      return rms(samples, sampleRate, 0, result.durationMs);
    };
    expect(level(quiet) / level(loud)).toBeGreaterThan(0.2);
    expect(level(quiet) / level(loud)).toBeLessThan(0.3);
    // `<now>` is read as text, not swallowed as an SSML tag (eSpeak does not voice the brackets).
    expect(loud.words.map((timing) => timing.word)).toEqual(['Fish', '&', 'chips', 'now']);
  });

  it('fails clearly on an unknown voice and on bad input', async () => {
    const failure = (promise: Promise<unknown>) =>
      promise.then(
        () => undefined,
        (error: unknown) => (error instanceof SpeechEngineError ? error.failureCode : error),
      );
    expect(await failure(engine.synthesize({ text: TEXT, voiceId: 'espeak-xx-m1' }))).toBe('voice_not_found');
    expect(await failure(engine.synthesize({ text: '', voiceId: VOICE }))).toBe('invalid_input');
    expect(await failure(engine.synthesize({ text: ' \n ', voiceId: VOICE }))).toBe('invalid_input');
    expect(await failure(engine.synthesize({ text: TEXT, voiceId: VOICE, speed: 3 }))).toBe('invalid_input');
    expect(await failure(engine.synthesize({ text: TEXT, voiceId: VOICE, pitch: Number.NaN }))).toBe(
      'invalid_input',
    );
  });

  it('serves concurrent requests from one worker, each with its own result', async () => {
    const texts = ['One.', 'Two words.', 'Three little words.'];
    const results = await Promise.all(texts.map((text) => engine.synthesize({ text, voiceId: VOICE })));
    expect(results.map((result) => result.words.length)).toEqual([1, 2, 3]);
  });
});

/** Words spoken in order, inside the audio, each for a while, none overlapping the next. */
function expectWellTimed(result: SynthesisResult, text: string) {
  let previousEnd = 0;
  for (const timing of result.words) {
    expect(text.slice(timing.textOffset, timing.textOffset + timing.textLength), timing.word).toBe(
      timing.word,
    );
    expect(timing.startMs, timing.word).toBeGreaterThanOrEqual(previousEnd);
    expect(timing.endMs, timing.word).toBeGreaterThan(timing.startMs);
    expect(timing.endMs, timing.word).toBeLessThanOrEqual(result.durationMs);
    previousEnd = timing.endMs;
  }
}

describe('eSpeak engine: every word of the script, once', () => {
  // eSpeak folds short function words into the word before them ("I am" is one word event at "I") and
  // spells numbers as several words; none of that may lose, add or reorder a word.
  const scripts: [string, string, string[]][] = [
    ['I am Daniel.', VOICE, ['I', 'am', 'Daniel']],
    ['This is shown for the second scene.', VOICE, ['This', 'is', 'shown', 'for', 'the', 'second', 'scene']],
    ['Export it in the web m format.', VOICE, ['Export', 'it', 'in', 'the', 'web', 'm', 'format']],
    [
      'I am a fan of the team, and I am in a band.',
      VOICE,
      ['I', 'am', 'a', 'fan', 'of', 'the', 'team', 'and', 'I', 'am', 'in', 'a', 'band'],
    ],
    [
      "It costs 3.5 dollars in 2026 — don't worry, it's fine!",
      VOICE,
      ['It', 'costs', '3.5', 'dollars', 'in', '2026', "don't", 'worry', "it's", 'fine'],
    ],
    [
      'Él está en la ciudad, ¿verdad? Sí, a las 3.',
      'espeak-es-m1',
      ['Él', 'está', 'en', 'la', 'ciudad', 'verdad', 'Sí', 'a', 'las', '3'],
    ],
    [
      'Ich bin müde, aber über die Straße geht es.',
      'espeak-de-f1',
      ['Ich', 'bin', 'müde', 'aber', 'über', 'die', 'Straße', 'geht', 'es'],
    ],
  ];

  for (const [text, voiceId, expected] of scripts) {
    it(`times every word of ${JSON.stringify(text)}`, async () => {
      const result = await engine.synthesize({ text, voiceId });
      expect(result.words.map((timing) => timing.word)).toEqual(expected);
      expectWellTimed(result, text);
    });
  }

  it('gives the SRT and the burned captions every word, in order, with ordered cues', async () => {
    const text = 'I am Daniel. This is shown for the second scene, in the web m format.';
    const result = await engine.synthesize({ text, voiceId: VOICE });
    const cues = captionCuesFromWords(wordsWithPunctuation(text, result.words, result.durationMs), {
      untilMs: result.durationMs,
    });
    const srt = formatSrt(cues);
    const srtText = srt
      .trim()
      .split('\n\n')
      .map((block) => block.split('\n').slice(2).join(' '))
      .join(' ');
    expect(srtText).toBe(text);
    expect(srt).toMatch(/^1\n00:00:00,000 --> /);
    let previousEnd = 0;
    for (const cue of cues) {
      expect(cue.startMs).toBeGreaterThanOrEqual(previousEnd);
      expect(cue.endMs).toBeGreaterThan(cue.startMs);
      expect(cue.endMs).toBeLessThanOrEqual(result.durationMs);
      previousEnd = cue.endMs;
    }
  });
});

describe('GPL isolation', () => {
  it('imports the eSpeak package only from the worker module', () => {
    const directory = path.resolve(import.meta.dirname, '../../../lambdas');
    const importers: string[] = [];
    for (const entry of readdirSync(directory, { recursive: true, withFileTypes: true })) {
      if (!entry.isFile() || !/\.[cm]?[jt]s$/.test(entry.name) || entry.name.endsWith('.d.ts')) continue;
      const file = path.join(entry.parentPath, entry.name);
      const source = readFileSync(file, 'utf8');
      if (/(from\s+|import\s*\(\s*|require\s*\(\s*)['"]@echogarden\/espeak-ng-emscripten/.test(source)) {
        importers.push(path.relative(directory, file));
      }
    }
    expect(importers).toEqual(['engines/speech/espeak-worker.ts']);
    // The engine reaches the worker by file URL only, never through an import.
    const engineSource = readFileSync(path.join(directory, 'engines/speech/espeak-engine.ts'), 'utf8');
    expect(engineSource).not.toMatch(/import[^;]*espeak-worker/);
  });
});
