/** The arithmetic of dubbing, without ffmpeg: duck envelopes, lanes, retime schedules. */
import { describe, expect, it } from 'vitest';
import {
  duckDepthPieces,
  duckGainExpression,
  expressionNumber,
  mergeIntervals,
  piecewiseExpression,
  retimePtsExpression,
  retimeSchedule,
  speechLanes,
} from '../../../../lambdas/engines/composition/dub-timeline.js';

/** Evaluates the small subset of ffmpeg's expression language the builders emit. */
function evaluate(expression: string, variables: Record<string, number>): number {
  const js = expression
    .replace(/if\(/g, 'iff(')
    .replace(/\bPI\b/g, 'Math.PI')
    .replace(/\bcos\(/g, 'Math.cos(')
    .replace(/\blt\(/g, 'lt(');
  const names = Object.keys(variables);
  return new Function('iff', 'lt', ...names, `return ${js};`)(
    (condition: number, yes: number, no: number) => (condition ? yes : no),
    (a: number, b: number) => (a < b ? 1 : 0),
    ...names.map((name) => variables[name]),
  ) as number;
}

describe('dub timeline', () => {
  it('writes numbers as ffmpeg reads them', () => {
    expect(expressionNumber(1.5)).toBe('1.5');
    expect(expressionNumber(2)).toBe('2');
    expect(expressionNumber(1e-7)).toBe('0');
    expect(expressionNumber(-0.25)).toBe('-0.25');
    expect(() => expressionNumber(Number.NaN)).toThrow();
  });

  it('builds a balanced tree: 1000 pieces need about 10 comparisons', () => {
    const pieces = Array.from({ length: 1000 }, (_, index) => ({
      fromSeconds: index,
      expression: String(index),
    }));
    const expression = piecewiseExpression(pieces, 't');
    for (const t of [0, 0.5, 1, 499.99, 500, 998.5, 999, 5000]) {
      expect(evaluate(expression, { t })).toBe(Math.min(999, Math.floor(t)));
    }
    let depth = 0;
    let deepest = 0;
    for (const character of expression) {
      if (character === '(') deepest = Math.max(deepest, ++depth);
      if (character === ')') depth--;
    }
    expect(deepest).toBeLessThanOrEqual(2 * Math.ceil(Math.log2(1000)) + 2);
  });

  it('bridges short pauses between lines and keeps long ones', () => {
    expect(
      mergeIntervals(
        [
          { startMs: 3000, endMs: 4000 },
          { startMs: 0, endMs: 1000 },
          { startMs: 1300, endMs: 2000 },
        ],
        600,
      ),
    ).toEqual([
      { startMs: 0, endMs: 2000 },
      { startMs: 3000, endMs: 4000 },
    ]);
  });

  it('ducks fully from the line start to its end, easing over the fade before and after', () => {
    const gain = duckGainExpression(duckDepthPieces([{ startMs: 1000, endMs: 2000 }], 100), 0.1);
    const at = (t: number) => evaluate(gain, { t });
    expect(at(0.5)).toBe(1);
    expect(at(0.9)).toBeCloseTo(1, 6);
    expect(at(0.95)).toBeCloseTo(0.55, 6);
    expect(at(1)).toBeCloseTo(0.1, 6);
    expect(at(1.999)).toBeCloseTo(0.1, 6);
    expect(at(2.05)).toBeCloseTo(0.55, 6);
    expect(at(2.1)).toBe(1);
    // A line at the very start: the ease is cut, not shifted.
    const early = duckGainExpression(duckDepthPieces([{ startMs: 50, endMs: 500 }], 100), 0.1);
    expect(evaluate(early, { t: 0 })).toBeCloseTo(1 - 0.9 * (0.5 - 0.5 * Math.cos(Math.PI * 0.5)), 6);
    expect(evaluate(early, { t: 0.05 })).toBeCloseTo(0.1, 6);
  });

  it('puts overlapping clips in separate lanes and the rest in one', () => {
    const lanes = speechLanes([
      { index: 0, startSample: 0, samples: 100 },
      { index: 1, startSample: 100, samples: 50 },
      { index: 2, startSample: 120, samples: 10 },
      { index: 3, startSample: 150, samples: 10 },
    ]);
    expect(lanes.map((lane) => lane.map((clip) => clip.index))).toEqual([[0, 1, 3], [2]]);
  });

  it('schedules slowed and held spans and maps frame times through them', () => {
    const schedule = retimeSchedule(
      [
        { sourceStartMs: 0, sourceEndMs: 1000, outputMs: 1000 },
        { sourceStartMs: 1000, sourceEndMs: 2000, outputMs: 1200 },
        { sourceStartMs: 2000, sourceEndMs: 3000, outputMs: 2000 },
      ],
      1.5,
    );
    expect(schedule.map(({ outputStartMs, factor, holdMs }) => ({ outputStartMs, factor, holdMs }))).toEqual([
      { outputStartMs: 0, factor: 1, holdMs: 0 },
      { outputStartMs: 1000, factor: 1.2, holdMs: 0 },
      { outputStartMs: 2200, factor: 1.5, holdMs: 500 },
    ]);
    const pts = retimePtsExpression(schedule);
    const outputTime = (T: number) => evaluate(pts, { T, TB: 1 });
    expect(outputTime(0.5)).toBeCloseTo(0.5, 6);
    expect(outputTime(1.5)).toBeCloseTo(1.6, 6);
    expect(outputTime(2.96)).toBeCloseTo(2.2 + 1.5 * 0.96, 6);
    expect(() =>
      retimeSchedule(
        [
          { sourceStartMs: 0, sourceEndMs: 1000, outputMs: 1000 },
          { sourceStartMs: 1100, sourceEndMs: 2000, outputMs: 900 },
        ],
        1.5,
      ),
    ).toThrow(/span 2 must start/);
  });
});
