import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { captionCuesFromWords, wordsWithPunctuation } from '../../../lambdas/engines/composition/captions.js';
import { formatSrt, parseSrt } from '../../../lambdas/engines/composition/subtitle-files.js';
import {
  alignScriptWords,
  type EngineWordTime,
  scriptWords,
} from '../../../lambdas/engines/speech/script-words.js';
import type { WordTiming } from '../../../lambdas/engines/speech/speech-engine.js';
import { createTestDoubleSpeechEngine } from '../../../lambdas/engines/speech/test-double-speech-engine.js';

const words = (text: string) => scriptWords(text).map((word) => word.word);

/** In order, each at least 1 ms long, none overlapping the next, all inside `[0, durationMs]`. */
function expectWellTimed(timings: readonly WordTiming[], text: string, durationMs: number) {
  let previousEnd = 0;
  for (const timing of timings) {
    expect(text.slice(timing.textOffset, timing.textOffset + timing.textLength)).toBe(timing.word);
    expect(timing.startMs, timing.word).toBeGreaterThanOrEqual(previousEnd);
    expect(timing.endMs, timing.word).toBeGreaterThan(timing.startMs);
    expect(timing.endMs, timing.word).toBeLessThanOrEqual(durationMs);
    previousEnd = timing.endMs;
  }
}

describe('script words', () => {
  it('are the tokens between spaces without the punctuation around them', () => {
    expect(words('Hello, world. (Let’s go!) — ok...')).toEqual(['Hello', 'world', 'Let’s', 'go', 'ok']);
    expect(words("I don't pay 3.5 or $5 in 2026: 50%, co-op & e-mail.")).toEqual([
      'I',
      "don't",
      'pay',
      '3.5',
      'or',
      '5',
      'in',
      '2026',
      '50',
      'co-op',
      '&',
      'e-mail',
    ]);
    expect(words('¿Dónde está el niño? Über die Straße.')).toEqual([
      'Dónde',
      'está',
      'el',
      'niño',
      'Über',
      'die',
      'Straße',
    ]);
    // A combining accent after the last letter stays with the word; format characters do not.
    expect(words('Ελληνικά\u0301 \u200bhi\u200b 😀 ?!')).toEqual(['Ελληνικά\u0301', 'hi', '😀']);
    expect(words('日本語テキストです。')).toEqual(['日本語', 'テキスト', 'です']);
  });
});

describe('aligning engine times with the script', () => {
  it('shares a word event among the words the engine spoke under it, by length', () => {
    // eSpeak's events for "I am Daniel.": one at "I" (whose phonemes are "I am"), one at "Daniel".
    const times: EngineWordTime[] = [
      { textOffset: 0, startMs: 0, endMs: 212 },
      { textOffset: 5, startMs: 212, endMs: 684 },
    ];
    expect(alignScriptWords('I am Daniel.', times, 691)).toEqual([
      { word: 'I', startMs: 0, endMs: 71, textOffset: 0, textLength: 1 },
      { word: 'am', startMs: 71, endMs: 212, textOffset: 2, textLength: 2 },
      { word: 'Daniel', startMs: 212, endMs: 684, textOffset: 5, textLength: 6 },
    ]);
  });

  it('joins a word the engine spoke as several, and times words before the first event', () => {
    const text = 'Oh, in 2026.';
    const times: EngineWordTime[] = [
      { textOffset: 7, startMs: 100, endMs: 300 }, // "two thousand"
      { textOffset: 8, startMs: 300, endMs: 500 }, // "twenty"
      { textOffset: 8, startMs: 500, endMs: 650 }, // "six"
    ];
    expect(
      alignScriptWords(text, times, 700).map(({ word, startMs, endMs }) => [word, startMs, endMs]),
    ).toEqual([
      ['Oh', 0, 50],
      ['in', 50, 100],
      ['2026', 100, 650],
    ]);
  });

  it('spreads the words over the audio when the engine timed none, and cuts overlapping spans', () => {
    expect(alignScriptWords('one two', [], 700).map((word) => [word.startMs, word.endMs])).toEqual([
      [0, 350],
      [350, 700],
    ]);
    const overlapping = alignScriptWords(
      'one two',
      [
        { textOffset: 0, startMs: 0, endMs: 500 },
        { textOffset: 4, startMs: 300, endMs: 600 },
      ],
      600,
    );
    // The next word starts where the engine says; the sound before it that fades under it is cut.
    expect(overlapping.map((word) => [word.startMs, word.endMs])).toEqual([
      [0, 300],
      [300, 600],
    ]);
  });

  it('gives a zero-length engine time at least a millisecond', () => {
    const timings = alignScriptWords(
      'a b',
      [
        { textOffset: 0, startMs: 100, endMs: 100 },
        { textOffset: 2, startMs: 200, endMs: 200 },
      ],
      300,
    );
    expectWellTimed(timings, 'a b', 300);
  });
});

describe('the test double', () => {
  it('times every word of the script, as the real engines do', async () => {
    const engine = createTestDoubleSpeechEngine();
    const text = "I am a fan of the team, in 2026 — it's 3.5 times über cool.";
    const result = await engine.synthesize({ text, voiceId: 'espeak-en-us-m1' });
    expect(result.words.map((word) => word.word)).toEqual(words(text));
    expect(result.words.map((word) => word.word)).toEqual([
      'I',
      'am',
      'a',
      'fan',
      'of',
      'the',
      'team',
      'in',
      '2026',
      "it's",
      '3.5',
      'times',
      'über',
      'cool',
    ]);
    expectWellTimed(result.words, text, result.durationMs);
  });
});

describe('captions from engine times with gaps and missing words', () => {
  const VOCABULARY = [
    'I',
    'am',
    'a',
    'an',
    'of',
    'the',
    'in',
    'to',
    'it',
    'm',
    'web',
    'Daniel',
    'second',
    'scene',
    'format',
    "don't",
    "it's",
    '3.5',
    '2026',
    '42',
    'café',
    'über',
    'Straße',
    'niño',
    'co-op',
    '&',
  ];
  const token = fc.record({
    word: fc.constantFrom(...VOCABULARY),
    before: fc.constantFrom('', '', '', '(', '"', '¿'),
    after: fc.constantFrom('', '', '', ',', '.', '!', '?', ';', ')', '."', '…'),
    space: fc.constantFrom(' ', ' ', ' ', '  ', '\n'),
    /** What the engine says about the word: nothing, one time, or two (a word spoken as two). */
    engine: fc.constantFrom('time', 'time', 'none', 'two'),
    /** From the word's start to the next word's start; the sound may run past it. */
    stepMs: fc.integer({ min: 20, max: 900 }),
    soundMs: fc.integer({ min: 0, max: 1000 }),
  });

  it('show every word of the script, in order, once, in ordered cues inside the audio', () => {
    fc.assert(
      fc.property(
        fc.array(token, { minLength: 1, maxLength: 80 }),
        fc.integer({ min: 0, max: 800 }),
        (tokens, tailMs) => {
          let text = '';
          let atMs = 0;
          const times: EngineWordTime[] = [];
          for (const entry of tokens) {
            const offset = text.length + entry.before.length;
            text += `${entry.before}${entry.word}${entry.after}${entry.space}`;
            const endMs = atMs + entry.soundMs;
            if (entry.engine !== 'none') times.push({ textOffset: offset, startMs: atMs, endMs });
            if (entry.engine === 'two') times.push({ textOffset: offset + 1, startMs: atMs + 10, endMs });
            atMs += entry.stepMs;
          }
          const durationMs = atMs + tailMs;

          const aligned = alignScriptWords(text, times, durationMs);
          expect(aligned.map((word) => word.word)).toEqual(tokens.map((entry) => entry.word));
          expectWellTimed(aligned, text, durationMs);

          const spoken = times.map((time) => ({ word: '', textLength: 1, ...time }));
          const captionWords = wordsWithPunctuation(text, spoken, durationMs);
          const cues = captionCuesFromWords(captionWords, { untilMs: durationMs });
          const srt = parseSrt(formatSrt(cues));
          expect(srt.map((cue) => cue.text.replace(/\n/g, ' ')).join(' ')).toBe(
            text.trim().split(/\s+/).join(' '),
          );
          let previousEnd = 0;
          for (const cue of srt) {
            expect(cue.startMs).toBeGreaterThanOrEqual(previousEnd);
            expect(cue.endMs).toBeGreaterThan(cue.startMs);
            expect(cue.endMs).toBeLessThanOrEqual(durationMs);
            previousEnd = cue.endMs;
          }
        },
      ),
    );
  });
});
