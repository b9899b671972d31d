import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  captionCuesFromWords,
  layoutCaptionLines,
  type TimedWord,
  toAss,
  wordsWithPunctuation,
} from '../../../../lambdas/engines/composition/captions.js';

/** Words spoken back to back, `msPerWord` each, with an extra pause after the words at `pausesAfter`. */
function spoken(text: string, msPerWord = 300, pausesAfter: Record<number, number> = {}): TimedWord[] {
  let at = 0;
  return text.split(' ').map((word, index) => {
    const timed = { word, startMs: at, endMs: at + msPerWord };
    at += msPerWord + (pausesAfter[index] ?? 0);
    return timed;
  });
}

const joined = (cues: { text: string }[]) => cues.map((cue) => cue.text.replace(/\n/g, ' ')).join(' ');

describe('layoutCaptionLines', () => {
  it('keeps short text on one line', () => {
    expect(layoutCaptionLines(['Hello', 'world'], 42, 2)).toEqual(['Hello world']);
  });

  it('balances two lines instead of filling the first', () => {
    const words = 'one two three four five six seven eight nine ten eleven twelve'.split(' ');
    const lines = layoutCaptionLines(words, 42, 2) as string[];
    expect(lines).toHaveLength(2);
    expect(Math.abs((lines[0] as string).length - (lines[1] as string).length)).toBeLessThanOrEqual(8);
    expect(lines.join(' ')).toBe(words.join(' '));
  });

  it('reports text that does not fit', () => {
    expect(
      layoutCaptionLines(
        Array.from({ length: 30 }, () => 'word'),
        42,
        2,
      ),
    ).toBeUndefined();
  });

  it('puts a word longer than a line on a line of its own', () => {
    expect(layoutCaptionLines(['a'.repeat(50)], 42, 2)).toEqual(['a'.repeat(50)]);
  });
});

describe('captionCuesFromWords', () => {
  it('ends cues at sentence ends', () => {
    const cues = captionCuesFromWords(spoken('This is the first sentence. And here comes the second one.'));
    expect(cues.map((cue) => cue.text)).toEqual([
      'This is the first sentence.',
      'And here comes the second one.',
    ]);
  });

  it('ends cues at long pauses', () => {
    const cues = captionCuesFromWords(spoken('before the pause after the pause', 300, { 2: 800 }));
    expect(cues.map((cue) => cue.text)).toEqual(['before the pause', 'after the pause']);
  });

  it('keeps a very short sentence with the next one', () => {
    const cues = captionCuesFromWords(spoken('Hi. Welcome to the show.', 200));
    expect(cues.map((cue) => cue.text)).toEqual(['Hi. Welcome to the show.']);
  });

  it('splits long speech into cues of at most two lines of 42 characters', () => {
    const text = Array.from({ length: 60 }, (_, index) => `word${index}`).join(' ');
    const cues = captionCuesFromWords(spoken(text, 200));
    expect(cues.length).toBeGreaterThan(2);
    for (const cue of cues) {
      const lines = cue.text.split('\n');
      expect(lines.length).toBeLessThanOrEqual(2);
      for (const line of lines) expect(line.length).toBeLessThanOrEqual(42);
    }
    expect(joined(cues)).toBe(text);
  });

  it('prefers to break a long sentence after a comma', () => {
    const cues = captionCuesFromWords(
      spoken(
        'The new flow takes less than two minutes, and early numbers show a large increase in sign ups.',
      ),
    );
    expect(cues[0]?.text).toBe('The new flow takes less than two minutes,');
  });

  it('breaks a cue before it stays up longer than the limit', () => {
    const cues = captionCuesFromWords(spoken('slow words spoken one by one', 2000), { maxCueMs: 5000 });
    for (const cue of cues) expect(cue.endMs - cue.startMs).toBeLessThanOrEqual(5000);
  });

  it('keeps short cues up at least 0.7 s when the next cue leaves room, never over it', () => {
    const cues = captionCuesFromWords([
      { word: 'Yes.', startMs: 0, endMs: 200 },
      { word: 'Go', startMs: 2000, endMs: 2100 },
      { word: 'now.', startMs: 2600, endMs: 2700 },
    ]);
    expect(cues).toEqual([
      { startMs: 0, endMs: 700, text: 'Yes.' },
      // Ended by the pause; 0.7 s would reach into "now.", so it stops where "now." starts.
      { startMs: 2000, endMs: 2600, text: 'Go' },
      { startMs: 2600, endMs: 3300, text: 'now.' },
    ]);
  });

  it('keeps a short last cue inside its audio, so the next scene’s first cue does not overlap it', () => {
    // A scene whose speech ends 7 ms before its audio: 0.7 s minimum display would run into the next scene.
    const words = [{ word: 'Thanks.', startMs: 100, endMs: 493 }];
    expect(captionCuesFromWords(words, { untilMs: 500 })).toEqual([
      { startMs: 100, endMs: 500, text: 'Thanks.' },
    ]);
    expect(captionCuesFromWords(words)).toEqual([{ startMs: 100, endMs: 800, text: 'Thanks.' }]);
  });

  it('closes tiny gaps so captions do not flicker', () => {
    const cues = captionCuesFromWords(spoken('First sentence is here. Second one follows.', 300, { 3: 150 }));
    expect(cues).toHaveLength(2);
    expect(cues[0]?.endMs).toBe(cues[1]?.startMs);
  });

  it('ignores empty words and surrounding whitespace', () => {
    const cues = captionCuesFromWords([
      { word: ' Hello ', startMs: 0, endMs: 300 },
      { word: '', startMs: 300, endMs: 300 },
      { word: 'world', startMs: 300, endMs: 600 },
    ]);
    expect(cues).toEqual([{ startMs: 0, endMs: 700, text: 'Hello world' }]);
  });

  it('gives ordered, non-overlapping cues whose text is the words in order', () => {
    const word = fc.stringMatching(/^[A-Za-z'’,.!?;:-]{1,15}$/);
    const words = fc.array(
      fc.record({
        word,
        gapMs: fc.integer({ min: 0, max: 1500 }),
        lengthMs: fc.integer({ min: 0, max: 900 }),
      }),
      { minLength: 1, maxLength: 120 },
    );
    const options = fc.record(
      {
        maxCharsPerLine: fc.integer({ min: 5, max: 60 }),
        maxLines: fc.integer({ min: 1, max: 3 }),
        maxCueMs: fc.integer({ min: 500, max: 10_000 }),
        minCueMs: fc.integer({ min: 0, max: 2000 }),
        pauseMs: fc.integer({ min: 100, max: 2000 }),
        closeGapMs: fc.integer({ min: 0, max: 500 }),
      },
      { requiredKeys: [] },
    );
    fc.assert(
      fc.property(words, options, (entries, settings) => {
        let at = 0;
        const timed = entries.map(({ word: text, gapMs, lengthMs }) => {
          at += gapMs;
          const timedWord = { word: text, startMs: at, endMs: at + lengthMs };
          at += lengthMs;
          return timedWord;
        });
        const cues = captionCuesFromWords(timed, settings);
        expect(joined(cues)).toBe(timed.map((entry) => entry.word).join(' '));
        cues.forEach((cue, index) => {
          expect(cue.endMs).toBeGreaterThan(cue.startMs);
          const next = cues[index + 1];
          if (next) expect(next.startMs).toBeGreaterThanOrEqual(cue.endMs);
        });
      }),
    );
  });
});

describe('wordsWithPunctuation', () => {
  it('gives words back their punctuation from the spoken text', () => {
    const text = 'Hello, world. (Let’s go!)';
    const words = [
      { word: 'Hello', startMs: 0, endMs: 100, textOffset: 0, textLength: 5 },
      { word: 'world', startMs: 100, endMs: 200, textOffset: 7, textLength: 5 },
      { word: 'Let', startMs: 200, endMs: 300, textOffset: 15, textLength: 3 },
      { word: 'go', startMs: 300, endMs: 400, textOffset: 21, textLength: 2 },
    ];
    expect(wordsWithPunctuation(text, words).map((word) => word.word)).toEqual([
      'Hello,',
      'world.',
      '(Let’s',
      'go!)',
    ]);
  });

  it('shows a word the engine spoke as two once, over both times', () => {
    const text = 'co-op';
    const words = [
      { word: 'co', startMs: 0, endMs: 100, textOffset: 0, textLength: 2 },
      { word: 'op', startMs: 100, endMs: 200, textOffset: 3, textLength: 2 },
    ];
    expect(wordsWithPunctuation(text, words)).toEqual([{ word: 'co-op', startMs: 0, endMs: 200 }]);
  });

  it('never widens a word into its neighbour', () => {
    const text = '日本語テキスト。';
    const words = [
      { word: '日本語', startMs: 0, endMs: 100, textOffset: 0, textLength: 3 },
      { word: 'テキスト', startMs: 100, endMs: 200, textOffset: 3, textLength: 4 },
    ];
    expect(wordsWithPunctuation(text, words).map((word) => word.word)).toEqual(['日本語', 'テキスト。']);
  });
});

describe('toAss', () => {
  it('scales the font to the frame and positions captions bottom-centre', () => {
    const script = toAss([{ startMs: 1234, endMs: 5678, text: 'Hi' }], {
      width: 1280,
      height: 720,
      fontName: 'DejaVu Sans',
    });
    expect(script).toContain('PlayResX: 1280\nPlayResY: 720');
    // Alignment 2 is bottom-centre; the font is 5% of the frame height.
    expect(script).toMatch(/Style: Caption,DejaVu Sans,36,.*,2,64,64,36,1\n/);
    expect(script).toContain('Dialogue: 0,0:00:01.23,0:00:05.68,Caption,,0,0,0,,Hi\n');
  });

  it('turns line breaks into \\N and neutralizes ASS markup in the text', () => {
    const script = toAss([{ startMs: 0, endMs: 1000, text: 'a {\\b1} b\nc \\N d' }], {
      width: 320,
      height: 180,
      fontName: 'DejaVu Sans',
    });
    expect(script).toContain(',,a (∖b1) b\\Nc ∖N d\n');
  });
});
