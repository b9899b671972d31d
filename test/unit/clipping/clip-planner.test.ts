/** The clip planner: candidates on sentence boundaries within the requested durations, scored and chosen. */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../support/property-seed.js';
import {
  candidateClips,
  DURATION_RANGES,
  DURATION_TYPES,
  hookStrength,
  type PlannerWord,
  selectClips,
  sentencesOf,
} from '../../../lambdas/clipping/clip-planner.js';

const VOCABULARY = [
  'robot',
  'wheels',
  'battery',
  'you',
  'why',
  'great',
  'terrible',
  'build',
  'the',
  'motor',
  '42',
];

/** Words with gaps, some ending sentences, on a timeline. */
const transcript = fc
  .array(
    fc.record({
      word: fc.constantFrom(...VOCABULARY),
      end: fc.constantFrom('', '', '', '.', '?', '!', ','),
      durationMs: fc.integer({ min: 80, max: 900 }),
      gapMs: fc.oneof(fc.integer({ min: 0, max: 300 }), fc.integer({ min: 300, max: 3000 })),
    }),
    { minLength: 1, maxLength: 160 },
  )
  .map((items) => {
    let at = 0;
    const words: PlannerWord[] = items.map((item) => {
      const startMs = at + item.gapMs;
      at = startMs + item.durationMs;
      return { word: `${item.word}${item.end}`, startMs, endMs: at };
    });
    return { words, sourceMs: at + 500 };
  });

const durationTypes = fc.uniqueArray(fc.constantFrom(...DURATION_TYPES), { minLength: 1, maxLength: 4 });

describe('the clip planner', () => {
  it('makes clips of whole sentences, within their durations, between words, never overlapping, scored and ordered', () => {
    fc.assert(
      fc.property(
        transcript,
        durationTypes,
        fc.option(fc.constantFrom('robot battery', 'why motor')),
        (source, types, prompt) => {
          const { words } = source;
          const sentences = sentencesOf(words);
          const chosen = selectClips(candidateClips({ ...source, durationTypes: types, prompt }));
          for (const clip of chosen) {
            const range = DURATION_RANGES[clip.durationType];
            expect(types).toContain(clip.durationType);
            expect(clip.endMs - clip.startMs).toBeGreaterThanOrEqual(range.minMs);
            expect(clip.endMs - clip.startMs).toBeLessThanOrEqual(range.maxMs);
            const first = sentences[clip.firstSentence];
            const last = sentences[clip.lastSentence];
            if (!first || !last) throw new Error('a clip names a sentence that does not exist');
            // On word boundaries: the first word and the last one whole, their neighbours outside.
            expect(clip.startMs).toBeLessThanOrEqual((words[first.first] as PlannerWord).startMs);
            expect(clip.startMs).toBeGreaterThanOrEqual(words[first.first - 1]?.endMs ?? 0);
            expect(clip.endMs).toBeGreaterThanOrEqual((words[last.last] as PlannerWord).endMs);
            expect(clip.endMs).toBeLessThanOrEqual(words[last.last + 1]?.startMs ?? source.sourceMs);
            expect(Number.isInteger(clip.score)).toBe(true);
            expect(clip.score).toBeGreaterThanOrEqual(0);
            expect(clip.score).toBeLessThanOrEqual(100);
            for (const value of Object.values(clip.features)) {
              expect(value).toBeGreaterThanOrEqual(0);
              expect(value).toBeLessThanOrEqual(1);
            }
            for (const other of chosen) {
              if (other === clip || other.durationType !== clip.durationType) continue;
              expect(other.startMs >= clip.endMs || other.endMs <= clip.startMs).toBe(true);
            }
          }
          for (let index = 1; index < chosen.length; index++)
            expect((chosen[index - 1]?.score ?? 0) >= (chosen[index]?.score ?? 0)).toBe(true);
        },
      ),
    );
  });

  it('prefers the clip that opens with a hook and is about the prompt', () => {
    const text =
      'Our company was founded in a small town many years ago by two people. It grew slowly over the decades. ' +
      'Why do batteries die in the cold? You lose power because the battery chemistry slows down. Keep your battery warm!';
    let at = 0;
    const words = text.split(' ').map((word) => {
      const startMs = at;
      at += 350;
      return { word, startMs, endMs: at - 50 };
    });
    const [best] = selectClips(
      candidateClips({ words, sourceMs: at, durationTypes: ['30'], prompt: 'battery cold' }),
    );
    expect(best?.text.startsWith('Why do batteries die in the cold?')).toBe(true);
    expect(hookStrength('Why do batteries die in the cold?')).toBeGreaterThan(
      hookStrength('Our company was founded in a small town many years ago by two people.'),
    );
  });

  it('finds nothing when no run of whole sentences fits a requested duration', () => {
    const words = [{ word: 'Hi.', startMs: 0, endMs: 300 }];
    expect(candidateClips({ words, sourceMs: 1000, durationTypes: ['30', '60'] })).toEqual([]);
  });
});
