import fc from 'fast-check';
import { afterAll, describe, expect, it } from 'vitest';
import { createEspeakEngine } from '../../../lambdas/engines/speech/espeak-engine.js';
import { respell, withPronunciations } from '../../../lambdas/engines/speech/pronunciations.js';
import { scriptWords } from '../../../lambdas/engines/speech/script-words.js';
import { createTestDoubleSpeechEngine } from '../../../lambdas/engines/speech/test-double-speech-engine.js';

const VOICE = 'espeak-en-us-m1';
const espeak = withPronunciations(createEspeakEngine());
afterAll(() => espeak.close());

describe('respell', () => {
  it('says whole terms as written to sound, ignoring case, and maps offsets back to the script', () => {
    const text = 'Ask NGUYEN, not Nguyens, about nguyen.';
    const respelled = respell(text, [{ term: 'Nguyen', pronunciation: 'win' }]);
    expect(respelled.spoken).toBe('Ask win, not Nguyens, about win.');
    expect(respelled.replacements).toBe(2);
    // "win" (spoken 4-6) comes from "NGUYEN" (script 4); text after it keeps its offsets shifted back.
    expect(respelled.scriptOffset(4)).toBe(4);
    expect(respelled.scriptOffset(6)).toBe(4);
    expect(respelled.scriptOffset(respelled.spoken.indexOf('not'))).toBe(text.indexOf('not'));
    expect(respelled.scriptOffset(respelled.spoken.lastIndexOf('win'))).toBe(text.lastIndexOf('nguyen'));
  });

  it('prefers the longer term and never respells inside another replacement', () => {
    const respelled = respell('Acme Cloud beats Acme.', [
      { term: 'Acme', pronunciation: 'ak mee' },
      { term: 'Acme Cloud', pronunciation: 'ak mee klowd' },
    ]);
    expect(respelled.spoken).toBe('ak mee klowd beats ak mee.');
  });

  it('leaves a text without its terms untouched', () => {
    const respelled = respell('Nothing to see.', [{ term: 'Acme', pronunciation: 'ak mee' }]);
    expect(respelled).toMatchObject({ spoken: 'Nothing to see.', replacements: 0 });
    expect(respelled.scriptOffset(8)).toBe(8);
  });
});

describe('withPronunciations', () => {
  it('makes eSpeak say the pronunciation while the words stay the script’s', async () => {
    const text = 'Welcome to XQ today.';
    const plain = await espeak.synthesize({ text, voiceId: VOICE });
    const said = await espeak.synthesize({
      text,
      voiceId: VOICE,
      pronunciations: [{ term: 'xq', pronunciation: 'the extraordinary quantum company' }],
    });
    // Four more words are spoken: the audio is clearly longer.
    expect(said.durationMs).toBeGreaterThan(plain.durationMs + 600);
    expect(said.words.map((word) => word.word)).toEqual(['Welcome', 'to', 'XQ', 'today']);
    // The term's span holds the whole pronunciation: it is the longest word by far.
    const spans = said.words.map((word) => word.endMs - word.startMs);
    expect(spans[2]).toBeGreaterThan(2 * Math.max(spans[0] ?? 0, spans[3] ?? 0));
    expect(said.words[3]?.endMs).toBeLessThanOrEqual(said.durationMs);
  });

  it('times every script word once, in order, whatever the terms (seeded)', async () => {
    const engine = withPronunciations(createTestDoubleSpeechEngine());
    const word = fc.stringMatching(/^[A-Za-z]{1,8}$/);
    await fc.assert(
      fc.asyncProperty(
        fc.array(word, { minLength: 1, maxLength: 12 }),
        fc.array(fc.record({ term: word, pronunciation: fc.array(word, { minLength: 1, maxLength: 4 }) }), {
          maxLength: 4,
        }),
        async (words, terms) => {
          const text = `${words.join(' ')}.`;
          const result = await engine.synthesize({
            text,
            voiceId: VOICE,
            pronunciations: terms.map(({ term, pronunciation }) => ({
              term,
              pronunciation: pronunciation.join(' '),
            })),
          });
          expect(result.words.map(({ word: spoken, textOffset }) => ({ spoken, textOffset }))).toEqual(
            scriptWords(text).map(({ word: spoken, textOffset }) => ({ spoken, textOffset })),
          );
          result.words.forEach((timing, index) => {
            expect(timing.endMs).toBeGreaterThan(timing.startMs);
            expect(timing.startMs).toBeGreaterThanOrEqual(result.words[index - 1]?.endMs ?? 0);
          });
          expect(result.words.at(-1)?.endMs).toBeLessThanOrEqual(result.durationMs);
        },
      ),
      { seed: 20261124, numRuns: 100 },
    );
  });
});
