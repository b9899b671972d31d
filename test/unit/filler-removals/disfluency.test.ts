/**
 * Which `like`, `you know` and `I mean` filler-word removal marks disfluent (filler-removals/disfluency.ts),
 * on transcripts written as a recogniser would give them: words with times, commas where it heard them.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import type { RecognizedWord } from '../../../lambdas/engines/recognition/index.js';
import { DISFLUENCY_PAUSE_MS, markDisfluencies } from '../../../lambdas/filler-removals/disfluency.js';
import { fillerVocabulary, fillerWordIndexes } from '../../../lambdas/filler-removals/filler-words.js';

const sounds = fillerVocabulary('en', null).always;

/**
 * A transcript from a line where `|` is a pause of 400 ms and words otherwise follow each other with
 * 40 ms between them, each word 250 ms long: "it was, | like | huge".
 */
function spoken(line: string): RecognizedWord[] {
  const words: RecognizedWord[] = [];
  let at = 0;
  let gap = 0;
  for (const token of line.split(/\s+/)) {
    if (token === '|') {
      gap = 400;
      continue;
    }
    const startMs = at + (words.length === 0 ? 0 : Math.max(gap, 40));
    words.push({ word: token, startMs, endMs: startMs + 250 });
    at = startMs + 250;
    gap = 0;
  }
  return words;
}

/** The words marked disfluent, in order. */
const markedIn = (line: string, language: string | null = 'en') =>
  markDisfluencies(spoken(line), language, sounds)
    .filter((word) => word.disfluent === true)
    .map((word) => word.word);

describe('disfluency marks', () => {
  it.each([
    ['it was, like, huge', ['like,']],
    ['it was | like | huge', ['like']],
    ['um like | we tried', ['like']],
    ['so, you know, it works', ['you', 'know,']],
    ['I mean, it is late', ['I', 'mean,']],
    ['we went there, I mean | yesterday', ['I', 'mean']],
    ['I, like, love it', ['like,']],
    ['like, that was it', ['like,']],
  ])('marks the marker in "%s"', (line, expected) => {
    expect(markedIn(line)).toEqual(expected);
  });

  it.each([
    'I like it',
    'it looks like rain',
    'something like that, yes',
    'I | like | it',
    'you know the answer',
    'you know | what matters is this',
    'I mean it',
    'I mean | that one',
    'we would like, to go',
    'things like, you know what',
  ])('keeps every word of "%s"', (line) => {
    expect(markedIn(line)).toEqual([]);
  });

  it('keeps what the engine said, either way', () => {
    const words = spoken('it was, like, huge and I like it');
    const judged = words.map((word, index) =>
      index === 2 ? { ...word, disfluent: false } : index === 6 ? { ...word, disfluent: true } : word,
    );
    const marked = markDisfluencies(judged, 'en', sounds);
    expect(marked[2]?.disfluent).toBe(false);
    expect(marked[6]?.disfluent).toBe(true);
  });

  it('marks nothing in languages without such phrases', () => {
    expect(markedIn('es war, like, groß', 'de')).toEqual([]);
  });

  it('needs a pause of the configured length', () => {
    const words = spoken('it was like huge');
    const pausedWords = words.map((word, index) =>
      index >= 2
        ? { ...word, startMs: word.startMs + 100 * (index - 1), endMs: word.endMs + 100 * (index - 1) }
        : word,
    );
    // 140 ms on each side of "like": below the default, above 120 ms.
    expect(markDisfluencies(pausedWords, 'en', sounds).some((word) => word.disfluent)).toBe(false);
    expect(
      markDisfluencies(pausedWords, 'en', sounds, { pauseMs: 120 })
        .filter((word) => word.disfluent)
        .map((word) => word.word),
    ).toEqual(['like']);
    expect(DISFLUENCY_PAUSE_MS).toBeGreaterThan(140);
  });

  it('makes a marked phrase a filler, and only marked ones', () => {
    const words = markDisfluencies(spoken('so, you know, I like it, like, a lot'), 'en', sounds);
    const indexes = fillerWordIndexes(words, fillerVocabulary('en', null));
    expect(indexes.map((index) => words[index]?.word)).toEqual(['you', 'know,', 'like,']);
  });

  const vocabulary = ['like', 'you', 'know', 'I', 'mean', 'it', 'was', 'huge', 'um', 'so', 'the', 'looks'];
  const transcript = fc
    .array(
      fc.record({
        word: fc.constantFrom(...vocabulary, ...vocabulary.map((word) => `${word},`)),
        gapMs: fc.integer({ min: 0, max: 600 }),
        lengthMs: fc.integer({ min: 50, max: 500 }),
        judged: fc.constantFrom(undefined, undefined, undefined, true, false),
      }),
      { maxLength: 30 },
    )
    .map((items) => {
      let at = 0;
      return items.map(({ word, gapMs, lengthMs, judged }): RecognizedWord => {
        const startMs = at + gapMs;
        at = startMs + lengthMs;
        return { word, startMs, endMs: at, ...(judged === undefined ? {} : { disfluent: judged }) };
      });
    });

  it('only ever marks like, you know and I mean, set apart, and changes nothing else', () => {
    fc.assert(
      fc.property(transcript, (words) => {
        const marked = markDisfluencies(words, 'en', sounds);
        expect(marked).toHaveLength(words.length);
        marked.forEach((word, index) => {
          const before = words[index] as RecognizedWord;
          expect({ ...word, disfluent: undefined }).toEqual({ ...before, disfluent: undefined });
          if (before.disfluent !== undefined) expect(word.disfluent).toBe(before.disfluent);
          if (word.disfluent === true && before.disfluent === undefined) {
            expect(['like', 'you', 'know', 'i', 'mean']).toContain(word.word.replace(',', '').toLowerCase());
          }
        });
        // A "like" run on into both neighbours (no pause, no comma, no filler sound) is never marked.
        marked.forEach((word, index) => {
          const previous = words[index - 1];
          const next = words[index + 1];
          if (word.word !== 'like' || !previous || !next || words[index]?.disfluent !== undefined) return;
          const runsOn =
            word.startMs - previous.endMs < DISFLUENCY_PAUSE_MS &&
            !previous.word.endsWith(',') &&
            previous.word !== 'um' &&
            next.startMs - word.endMs < DISFLUENCY_PAUSE_MS &&
            next.word !== 'um' &&
            next.word !== 'um,';
          if (runsOn) expect(word.disfluent).toBeUndefined();
        });
      }),
    );
  });
});
