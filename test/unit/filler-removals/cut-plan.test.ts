/**
 * The filler-word removal's cut planner and silence finder (filler-removals/cut-plan.ts), and which
 * words are fillers (filler-words.ts): seeded properties over any fillers and silences.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { findSilences, planCuts, type TimeSpan } from '../../../lambdas/filler-removals/cut-plan.js';
import { fillerVocabulary, fillerWordIndexes } from '../../../lambdas/filler-removals/filler-words.js';

const spans = (maxMs: number) =>
  fc.array(
    fc
      .tuple(fc.integer({ min: 0, max: maxMs }), fc.integer({ min: 1, max: 3000 }))
      .map(([startMs, length]): TimeSpan => ({ startMs, endMs: startMs + length })),
    { maxLength: 12 },
  );

const planInput = fc
  .record({
    fps: fc.constantFrom(24, 25, 30, 29.97, 50, 100),
    durationMs: fc.integer({ min: 500, max: 60_000 }),
    silenceThresholdMs: fc.integer({ min: 300, max: 3000 }),
    silenceKeptMs: fc.constantFrom(0, 100, 300),
  })
  .chain((base) =>
    fc.record({
      base: fc.constant(base),
      fillers: spans(base.durationMs + 500),
      silences: spans(base.durationMs + 500),
    }),
  )
  .map(({ base, fillers, silences }) => ({
    fps: base.fps,
    totalFrames: Math.round((base.durationMs * base.fps) / 1000),
    fillers,
    silences,
    silenceThresholdMs: base.silenceThresholdMs,
    silenceKeptMs: base.silenceKeptMs,
  }));

describe('planCuts', () => {
  it('cuts in order on whole frames, never overlapping, the kept parts exactly the rest', () => {
    fc.assert(
      fc.property(planInput, (input) => {
        const plan = planCuts(input);
        let previousEnd = -1;
        for (const cut of plan.cuts) {
          expect(Number.isInteger(cut.startFrame) && Number.isInteger(cut.endFrame)).toBe(true);
          expect(cut.startFrame).toBeGreaterThanOrEqual(0);
          expect(cut.endFrame).toBeLessThanOrEqual(input.totalFrames);
          expect(cut.endFrame).toBeGreaterThan(cut.startFrame);
          // Never overlapping, and never a sliver of less than two frames kept between two cuts.
          expect(cut.startFrame).toBeGreaterThanOrEqual(previousEnd + (previousEnd < 0 ? 0 : 2));
          previousEnd = cut.endFrame;
        }
        const cutFrames = plan.cuts.reduce((sum, cut) => sum + cut.endFrame - cut.startFrame, 0);
        // Output length = input − cuts.
        expect(plan.keptFrames).toBe(input.totalFrames - cutFrames);
        const all = [
          ...plan.cuts.map((cut) => [cut.startFrame, cut.endFrame]),
          ...plan.kept.map((kept) => [kept.startFrame, kept.endFrame]),
        ].sort((a, b) => (a[0] as number) - (b[0] as number));
        let cursor = 0;
        for (const [start, end] of all) {
          expect(start).toBe(cursor);
          cursor = end as number;
        }
        expect(cursor).toBe(input.totalFrames);
        expect(plan.fillerCuts).toBeLessThanOrEqual(plan.cuts.length);
      }),
    );
  });

  it('cuts every filler word whole, and shortens every long silence', () => {
    fc.assert(
      fc.property(planInput, (input) => {
        const plan = planCuts(input);
        const frameMs = 1000 / input.fps;
        const isCut = (ms: number) =>
          plan.cuts.some(
            (cut) => cut.startFrame * frameMs <= ms + 1e-6 && ms <= cut.endFrame * frameMs + 1e-6,
          );
        for (const filler of input.fillers) {
          // A word past the source's end (its media ran short of the transcript) has nothing to cut.
          const start = filler.startMs;
          const end = Math.min(filler.endMs, input.totalFrames * frameMs);
          if (end <= start) continue;
          expect(isCut(start) && isCut(end) && isCut((start + end) / 2)).toBe(true);
        }
        // A silence inside the source, over the threshold by more than what is kept of it, is shortened.
        const shortened = input.silences.filter(
          (silence) =>
            silence.endMs <= input.totalFrames * frameMs &&
            silence.endMs - silence.startMs > input.silenceThresholdMs &&
            silence.endMs - silence.startMs - input.silenceKeptMs >= 2 * frameMs,
        );
        for (const silence of shortened) expect(isCut((silence.startMs + silence.endMs) / 2)).toBe(true);
      }),
    );
  });

  it('cuts a filler out to whole frames, but not into a word that touches it', () => {
    const plan = (notBeforeMs?: number, notAfterMs?: number) =>
      planCuts({
        fps: 25,
        totalFrames: 100,
        fillers: [
          {
            startMs: 1382,
            endMs: 1609,
            ...(notBeforeMs !== undefined ? { notBeforeMs } : {}),
            ...(notAfterMs !== undefined ? { notAfterMs } : {}),
          },
        ],
        silences: [],
        silenceThresholdMs: 1000,
        silenceKeptMs: 300,
      }).cuts;
    // Pauses on both sides: 1360-1640 ms, all of the word.
    expect(plan(1081, 1759)).toEqual([{ startFrame: 34, endFrame: 41, fillers: 1 }]);
    expect(plan()).toEqual([{ startFrame: 34, endFrame: 41, fillers: 1 }]);
    // Words edge to edge: the nearest boundaries, 1400-1600 ms.
    expect(plan(1382, 1609)).toEqual([{ startFrame: 35, endFrame: 40, fillers: 1 }]);
  });

  it('cuts nothing from a source without fillers or long silences', () => {
    const plan = planCuts({
      fps: 25,
      totalFrames: 100,
      fillers: [],
      silences: [{ startMs: 1000, endMs: 1800 }],
      silenceThresholdMs: 1000,
      silenceKeptMs: 300,
    });
    expect(plan).toEqual({
      cuts: [],
      kept: [{ startFrame: 0, endFrame: 100 }],
      fillerCuts: 0,
      keptFrames: 100,
    });
  });

  it('shortens a long silence to the kept pause, and counts only filler cuts', () => {
    const plan = planCuts({
      fps: 25,
      totalFrames: 100,
      fillers: [{ startMs: 400, endMs: 700 }],
      silences: [{ startMs: 1000, endMs: 3000 }],
      silenceThresholdMs: 1000,
      silenceKeptMs: 400,
    });
    expect(plan.cuts).toEqual([
      { startFrame: 10, endFrame: 18, fillers: 1 },
      { startFrame: 30, endFrame: 70, fillers: 0 },
    ]);
    expect(plan.fillerCuts).toBe(1);
    expect(plan.keptFrames).toBe(52);
  });
});

describe('findSilences', () => {
  it('finds the quiet runs between loud blocks, to the 10 ms window', () => {
    fc.assert(
      fc.property(
        fc.array(fc.record({ loud: fc.boolean(), ms: fc.integer({ min: 1, max: 80 }).map((n) => n * 10) }), {
          minLength: 1,
          maxLength: 10,
        }),
        (blocks) => {
          const rate = 16_000;
          const samples: number[] = [];
          const expected: TimeSpan[] = [];
          let at = 0;
          for (const block of blocks) {
            const count = (block.ms * rate) / 1000;
            for (let index = 0; index < count; index++) {
              samples.push(block.loud ? Math.round(8000 * Math.sin((2 * Math.PI * 440 * index) / rate)) : 0);
            }
            const last = expected.at(-1);
            if (!block.loud) {
              if (last && last.endMs === at) last.endMs = at + block.ms;
              else expected.push({ startMs: at, endMs: at + block.ms });
            }
            at += block.ms;
          }
          const found = findSilences(Int16Array.from(samples), rate, { thresholdDb: -40, minMs: 0 });
          expect(found).toEqual(expected);
        },
      ),
    );
  });

  it('leaves out silences shorter than asked', () => {
    const samples = new Int16Array(16_000);
    samples.fill(8000, 0, 4000);
    expect(findSilences(samples, 16_000, { thresholdDb: -40, minMs: 800 })).toEqual([]);
    expect(findSilences(samples, 16_000, { thresholdDb: -40, minMs: 700 })).toEqual([
      { startMs: 250, endMs: 1000 },
    ]);
  });
});

describe('filler words', () => {
  const words = (text: string, disfluent: readonly number[] = []) =>
    text.split(' ').map((word, index) => ({ word, disfluent: disfluent.includes(index) }));

  it('finds the language’s fillers whatever their case, punctuation and drawl', () => {
    const said = words('So, Umm, I was uh, like, thinking HMMM. er Ah okay');
    expect(fillerWordIndexes(said, fillerVocabulary('en-US', null))).toEqual([1, 4, 7, 8, 9]);
  });

  it('cuts "like" and "you know" only where the engine marked them disfluent', () => {
    const said = words('I like it you know it like you know', [6, 7, 8]);
    expect(fillerWordIndexes(said, fillerVocabulary('en', null))).toEqual([6, 7, 8]);
  });

  it('uses each language’s list, English when unknown, the request’s own list instead when given', () => {
    expect(fillerWordIndexes(words('Also äh ich um'), fillerVocabulary('de-DE', null))).toEqual([1]);
    expect(fillerWordIndexes(words('Alors euh oui'), fillerVocabulary('fr', null))).toEqual([1]);
    expect(fillerWordIndexes(words('well um basically'), fillerVocabulary(null, null))).toEqual([1]);
    expect(fillerWordIndexes(words('well um basically'), fillerVocabulary('en', ['Basically']))).toEqual([2]);
  });
});
