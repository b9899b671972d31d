import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../../support/property-seed.js';
import { JobFailure } from '../../../../lambdas/core/errors.js';
import type { CaptionCue } from '../../../../lambdas/engines/composition/composition-engine.js';
import {
  cueOverlaps,
  formatSrt,
  formatWebVtt,
  parseSrt,
  parseSubtitles,
  parseWebVtt,
  SUBTITLE_FILE_LIMITS,
  SUBTITLE_PROBLEMS,
  SubtitleFormatError,
  type SubtitleProblem,
  srtTimestamp,
} from '../../../../lambdas/engines/composition/subtitle-files.js';

const utf8 = (text: string) => new TextEncoder().encode(text);
const bytes = (...parts: (string | number[])[]) =>
  Uint8Array.from(parts.flatMap((part) => (typeof part === 'string' ? [...utf8(part)] : part)));

/** The error a parse throws; fails the test when it does not throw one. */
function refusal(parse: () => unknown): SubtitleFormatError {
  try {
    parse();
  } catch (error) {
    expect(error).toBeInstanceOf(SubtitleFormatError);
    return error as SubtitleFormatError;
  }
  throw new Error('expected the file to be refused');
}

describe('formatSrt', () => {
  it('numbers cues from 1 with HH:MM:SS,mmm times, LF line ends and a blank line between cues', () => {
    expect(
      formatSrt([
        { startMs: 0, endMs: 1500, text: 'Hello there.' },
        { startMs: 1500, endMs: 3_723_004, text: 'Two\nlines' },
      ]),
    ).toBe(
      '1\n00:00:00,000 --> 00:00:01,500\nHello there.\n\n2\n00:00:01,500 --> 01:02:03,004\nTwo\nlines\n',
    );
  });

  it('drops blank lines inside a cue and cues without text, so the file stays parseable', () => {
    expect(
      formatSrt([
        { startMs: 0, endMs: 1000, text: '  \n' },
        { startMs: 1000, endMs: 2000, text: 'First\r\n\r\nsecond' },
      ]),
    ).toBe('1\n00:00:01,000 --> 00:00:02,000\nFirst\nsecond\n');
  });

  it('formats times past 99 hours and rounds fractions of milliseconds', () => {
    expect(srtTimestamp(100 * 3_600_000 + 0.6)).toBe('100:00:00,001');
    expect(srtTimestamp(-5)).toBe('00:00:00,000');
  });
});

describe('formatWebVtt', () => {
  it('writes the WEBVTT line, HH:MM:SS.mmm times and a blank line before each cue', () => {
    expect(
      formatWebVtt([
        { startMs: 0, endMs: 1500, text: 'Hello there.' },
        { startMs: 1500, endMs: 3_723_004, text: 'Two\nlines' },
      ]),
    ).toBe(
      'WEBVTT\n\n00:00:00.000 --> 00:00:01.500\nHello there.\n\n00:00:01.500 --> 01:02:03.004\nTwo\nlines\n',
    );
  });

  it('escapes &, < and >, so text cannot open a tag or end a cue early with -->', () => {
    expect(formatWebVtt([{ startMs: 0, endMs: 1000, text: 'Fish & <chips> --> 5 &amp;' }])).toBe(
      'WEBVTT\n\n00:00:00.000 --> 00:00:01.000\nFish &amp; &lt;chips&gt; --&gt; 5 &amp;amp;\n',
    );
  });

  it('writes only the header when no cue has text', () => {
    expect(formatWebVtt([{ startMs: 0, endMs: 1000, text: ' ' }])).toBe('WEBVTT\n');
  });
});

const REAL_WORLD_SRT = [
  '1',
  '00:00:01,600 --> 00:00:04,200',
  '<i>Previously on the show...</i>',
  '',
  '2',
  '00:00:05,900 --> 00:00:07,999  X1:63 X2:223 Y1:43 Y2:58',
  '{\\an8}- Where were you?',
  '- Out.',
  '',
  '',
  '3',
  '0:00:08.000 --> 0:00:10.500',
  '<font color="#ffff00">Don\'t</font> lie to me.',
  '   ',
  '00:00:11,000 --> 00:00:13,000',
  '42 is the answer',
  '',
  '5',
  '00:00:12,500 --> 00:00:14,000',
  'Both speak at once',
].join('\r\n');

const REAL_WORLD_CUES: CaptionCue[] = [
  { startMs: 1600, endMs: 4200, text: 'Previously on the show...' },
  { startMs: 5900, endMs: 7999, text: '- Where were you?\n- Out.' },
  { startMs: 8000, endMs: 10_500, text: "Don't lie to me." },
  { startMs: 11_000, endMs: 13_000, text: '42 is the answer' },
  { startMs: 12_500, endMs: 14_000, text: 'Both speak at once' },
];

describe('parseSrt', () => {
  it('reads a file as editors write them: CRLF, markup, coordinates, "." and short hours, numbers left out', () => {
    expect(parseSrt(REAL_WORLD_SRT)).toEqual(REAL_WORLD_CUES);
  });

  it('reads UTF-8 bytes with and without a byte order mark, and LF, CRLF or CR line ends', () => {
    for (const lineEnd of ['\n', '\r\n', '\r']) {
      const text = REAL_WORLD_SRT.replace(/\r\n/g, lineEnd);
      expect(parseSrt(utf8(text))).toEqual(REAL_WORLD_CUES);
      expect(parseSrt(bytes([0xef, 0xbb, 0xbf], text))).toEqual(REAL_WORLD_CUES);
      expect(parseSrt(`\uFEFF${text}`)).toEqual(REAL_WORLD_CUES);
    }
  });

  it('reads text in any script and keeps it as written', () => {
    const srt = '1\n00:00:00,000 --> 00:00:02,000\nこんにちは、世界\nΚαλημέρα 🙂 — «ça va?»\n';
    expect(parseSrt(utf8(srt))).toEqual([
      { startMs: 0, endMs: 2000, text: 'こんにちは、世界\nΚαλημέρα 🙂 — «ça va?»' },
    ]);
  });

  it('reads the last time an SRT clock can show', () => {
    expect(parseSrt('1\n99:59:58,000 --> 99:59:59,999\nLate\n')).toEqual([
      { startMs: SUBTITLE_FILE_LIMITS.maxTimeMs - 1999, endMs: SUBTITLE_FILE_LIMITS.maxTimeMs, text: 'Late' },
    ]);
  });

  const cue = (number: number, times: string, text = 'Text') => `${number}\n${times}\n${text}\n`;
  const refusals: [string, string | Uint8Array, number | undefined, SubtitleProblem, string][] = [
    [
      'Windows-1252 text',
      bytes('1\n00:00:01,000 --> 00:00:02,000\nCaf', [0xe9], '\n'),
      3,
      SUBTITLE_PROBLEMS.encoding,
      'byte 0xE9 is not UTF-8 (the file may be in a legacy encoding such as Windows-1252); subtitle files must be UTF-8',
    ],
    [
      'UTF-16 with a little-endian byte order mark',
      bytes([0xff, 0xfe, 0x31, 0x00]),
      1,
      SUBTITLE_PROBLEMS.encoding,
      'the file is UTF-16 (it starts with a UTF-16 byte order mark); subtitle files must be UTF-8',
    ],
    [
      'UTF-16 with a big-endian byte order mark',
      bytes([0xfe, 0xff, 0x00, 0x31]),
      1,
      SUBTITLE_PROBLEMS.encoding,
      'UTF-16',
    ],
    [
      'UTF-16 without a byte order mark',
      bytes([0x31, 0x00, 0x0a, 0x00]),
      1,
      SUBTITLE_PROBLEMS.encoding,
      'the file holds NUL bytes, as UTF-16 text without a byte order mark does; subtitle files must be UTF-8',
    ],
    [
      'an overlong UTF-8 form, on a line after CR line ends',
      bytes('1\r00:00:01,000 --> 00:00:02,000\r', [0xc0, 0xaf]),
      3,
      SUBTITLE_PROBLEMS.encoding,
      'byte 0xC0',
    ],
    [
      'an encoded surrogate half',
      bytes('1\r\n00:00:01,000 --> 00:00:02,000\r\nx', [0xed, 0xa0, 0x80]),
      3,
      SUBTITLE_PROBLEMS.encoding,
      'byte 0xED',
    ],
    [
      'a truncated multi-byte character at the end',
      bytes('1\n00:00:01,000 --> 00:00:02,000\nx', [0xe6, 0x97]),
      3,
      SUBTITLE_PROBLEMS.encoding,
      'byte 0xE6',
    ],
    [
      'a time without milliseconds',
      '1\n00:00:01 --> 00:00:02,000\nHi\n',
      2,
      SUBTITLE_PROBLEMS.timeLine,
      '"00:00:01" is not a time; times are HH:MM:SS,mmm',
    ],
    [
      'minutes past 59',
      `${cue(1, '00:00:01,000 --> 00:00:02,000')}\n${cue(2, '00:60:00,000 --> 01:00:01,000')}`,
      6,
      SUBTITLE_PROBLEMS.timeLine,
      '"00:60:00,000" is not a time: minutes go from 00 to 59',
    ],
    [
      'two millisecond digits',
      '1\n00:00:01,50 --> 00:00:02,000\nHi\n',
      2,
      SUBTITLE_PROBLEMS.timeLine,
      'milliseconds need 3 digits',
    ],
    [
      'a time line without an arrow after a cue number',
      '1\n00:00:01,000 - 00:00:02,000\nHi\n',
      2,
      SUBTITLE_PROBLEMS.unexpectedLine,
      'cue 1 needs a time line (HH:MM:SS,mmm --> HH:MM:SS,mmm) here, found "00:00:01,000 - 00:00:02,000"',
    ],
    [
      'words after the end time',
      '1\n00:00:01,000 --> 00:00:02,000 centre\nHi\n',
      2,
      SUBTITLE_PROBLEMS.timeLine,
      'is not a time line; expected HH:MM:SS,mmm --> HH:MM:SS,mmm',
    ],
    [
      'a time of 100 hours',
      '1\n99:59:59,000 --> 100:00:00,000\nHi\n',
      2,
      SUBTITLE_PROBLEMS.timeOutOfRange,
      '"100:00:00,000" is 100 hours or more; times go up to 99:59:59,999',
    ],
    [
      'an end equal to the start',
      cue(1, '00:00:02,000 --> 00:00:02,000'),
      2,
      SUBTITLE_PROBLEMS.endNotAfterStart,
      'the cue ends at 00:00:02,000, not after it starts (00:00:02,000)',
    ],
    [
      'an end before the start',
      cue(1, '00:00:03,000 --> 00:00:02,000'),
      2,
      SUBTITLE_PROBLEMS.endNotAfterStart,
      'the cue ends at 00:00:02,000',
    ],
    [
      'a cue that starts before the cue above it',
      `${cue(1, '00:00:05,000 --> 00:00:06,000')}\n${cue(2, '00:00:04,000 --> 00:00:07,000')}`,
      6,
      SUBTITLE_PROBLEMS.outOfOrder,
      'the cue starts at 00:00:04,000, before the cue at line 2 (00:00:05,000); cues must be in the order they are shown',
    ],
    [
      'a cue without text',
      `1\n00:00:01,000 --> 00:00:02,000\n\n${cue(2, '00:00:03,000 --> 00:00:04,000')}`,
      2,
      SUBTITLE_PROBLEMS.noText,
      'the cue has no text',
    ],
    [
      'a cue whose only text is markup',
      cue(1, '00:00:01,000 --> 00:00:02,000', '<i></i>{\\an8}'),
      2,
      SUBTITLE_PROBLEMS.noText,
      'the cue has no text',
    ],
    [
      'a cue number at the end of the file',
      `${cue(1, '00:00:01,000 --> 00:00:02,000')}\n2`,
      5,
      SUBTITLE_PROBLEMS.unexpectedLine,
      'cue 2 needs a time line (HH:MM:SS,mmm --> HH:MM:SS,mmm) here, found the end of the file',
    ],
    [
      'a missing blank line between two cues',
      `1\n00:00:01,000 --> 00:00:02,000\nHi\n${cue(2, '00:00:03,000 --> 00:00:04,000')}`,
      5,
      SUBTITLE_PROBLEMS.unexpectedLine,
      'a time line inside the text of the cue at line 2; cues must be separated by an empty line',
    ],
    [
      'a blank line inside a cue',
      `1\n00:00:01,000 --> 00:00:02,000\nFirst half\n\nsecond half\n`,
      5,
      SUBTITLE_PROBLEMS.unexpectedLine,
      'expected a cue number or a time line (HH:MM:SS,mmm --> HH:MM:SS,mmm), found "second half"',
    ],
    ['an empty file', '', undefined, SUBTITLE_PROBLEMS.noCues, 'The file is empty'],
    [
      'a file of blank lines',
      '\uFEFF\r\n \r\n\t\r\n',
      undefined,
      SUBTITLE_PROBLEMS.noCues,
      'The file is empty',
    ],
  ];

  it.each(refusals)('refuses %s, naming the line', (_, input, line, problem, message) => {
    const error = refusal(() => parseSrt(input));
    expect(error.line).toBe(line);
    expect(error.problem).toBe(problem);
    expect(error.reason).toContain(message.replace(/^The/, 'the'));
    expect(error.message).toBe(
      line === undefined ? `T${error.reason.slice(1)}` : `Line ${line}: ${error.reason}`,
    );
  });

  it('is a job failure with its own failure code, so a job step lets it through as the item failure', () => {
    const error = refusal(() => parseSrt(''));
    expect(error).toBeInstanceOf(JobFailure);
    expect(error.failureCode).toBe('invalid_subtitles');
  });

  it('refuses a file above 1 MB before reading it', () => {
    const large = `1\n00:00:01,000 --> 00:00:02,000\n${'x'.repeat(SUBTITLE_FILE_LIMITS.maxBytes)}\n`;
    for (const input of [large, utf8(large)]) {
      const error = refusal(() => parseSrt(input));
      expect(error.problem).toBe(SUBTITLE_PROBLEMS.tooLarge);
      expect(error.line).toBeUndefined();
      expect(error.message).toBe('The file is 1.0 MB; subtitle files may be at most 1 MB (1048576 bytes)');
    }
    // Counted in UTF-8 bytes, not characters: 400,000 three-byte characters are 1.2 million bytes.
    const error = refusal(() => parseSrt(`1\n00:00:01,000 --> 00:00:02,000\n${'語'.repeat(400_000)}\n`));
    expect(error.message).toContain('The file is 1.1 MB');
  });

  it('refuses the cue after the 5,000th, naming its line', () => {
    const cues = Array.from({ length: SUBTITLE_FILE_LIMITS.maxCues + 1 }, (_, index) => ({
      startMs: index * 1000,
      endMs: index * 1000 + 500,
      text: 'x',
    }));
    expect(parseSrt(formatSrt(cues.slice(0, -1)))).toHaveLength(SUBTITLE_FILE_LIMITS.maxCues);
    const error = refusal(() => parseSrt(formatSrt(cues)));
    expect(error.problem).toBe(SUBTITLE_PROBLEMS.tooLarge);
    expect(error.line).toBe(SUBTITLE_FILE_LIMITS.maxCues * 4 + 2);
    expect(error.reason).toBe('the file has more than 5000 cues, the most a subtitle file may have');
  });
});

const REAL_WORLD_VTT = [
  'WEBVTT - Episode 1',
  'Kind: captions',
  'Language: en',
  '',
  'STYLE',
  '::cue { color: yellow }',
  '',
  'NOTE This file was written',
  'by hand.',
  '',
  'intro',
  '00:01.600 --> 00:04.200 align:start position:10%',
  '<v Roger Bingham>We are in New York City</v>',
  '',
  '2',
  '00:00:05.900 --> 00:00:07.999',
  '<i>Fish &amp; chips</i> &lt;3',
  '<c.yellow>Wait</c> &nbsp;',
  '',
  '00:00:07.000 --> 00:00:09.000',
  '<00:00:07.500>Karaoke <b>time</b>',
].join('\n');

const REAL_WORLD_VTT_CUES: CaptionCue[] = [
  { startMs: 1600, endMs: 4200, text: 'We are in New York City' },
  { startMs: 5900, endMs: 7999, text: 'Fish & chips <3\nWait' },
  { startMs: 7000, endMs: 9000, text: 'Karaoke time' },
];

describe('parseWebVtt', () => {
  it('reads headers, STYLE and NOTE blocks, identifiers, short times, settings, tags and references', () => {
    expect(parseWebVtt(REAL_WORLD_VTT)).toEqual(REAL_WORLD_VTT_CUES);
    expect(parseWebVtt(bytes([0xef, 0xbb, 0xbf], REAL_WORLD_VTT.replace(/\n/g, '\r\n')))).toEqual(
      REAL_WORLD_VTT_CUES,
    );
  });

  it('reads numeric character references and a cue right after the WEBVTT line', () => {
    expect(parseWebVtt('WEBVTT\n00:00.000 --> 00:01.000\n&#233;t&#xE9; &bogus; &#0;\n')).toEqual([
      { startMs: 0, endMs: 1000, text: 'été &bogus; &#0;' },
    ]);
  });

  const refusals: [string, string, number | undefined, SubtitleProblem, string][] = [
    [
      'a file without the WEBVTT line',
      '1\n00:00:01.000 --> 00:00:02.000\nHi\n',
      1,
      SUBTITLE_PROBLEMS.unexpectedLine,
      'a WebVTT file starts with the line "WEBVTT", found "1"',
    ],
    [
      'SRT times',
      'WEBVTT\n\n00:00:01,000 --> 00:00:02,000\nHi\n',
      3,
      SUBTITLE_PROBLEMS.timeLine,
      '"00:00:01,000" is not a time; times are HH:MM:SS.mmm or MM:SS.mmm',
    ],
    [
      'an identifier without its timing line',
      'WEBVTT\n\nintro\nHello\n',
      4,
      SUBTITLE_PROBLEMS.unexpectedLine,
      'the cue "intro" needs a timing line (HH:MM:SS.mmm --> HH:MM:SS.mmm) here, found "Hello"',
    ],
    [
      'a missing blank line between two cues',
      'WEBVTT\n\n00:01.000 --> 00:02.000\nHi\n00:03.000 --> 00:04.000\nThere\n',
      5,
      SUBTITLE_PROBLEMS.unexpectedLine,
      'a timing line inside the text of the cue at line 3; cues must be separated by an empty line',
    ],
    [
      'a cue that starts before the cue above it',
      'WEBVTT\n\n00:05.000 --> 00:06.000\nA\n\n00:04.000 --> 00:07.000\nB\n',
      6,
      SUBTITLE_PROBLEMS.outOfOrder,
      'the cue starts at 00:00:04.000, before the cue at line 3 (00:00:05.000)',
    ],
    [
      'a time of 100 hours',
      'WEBVTT\n\n100:00:00.000 --> 100:00:01.000\nA\n',
      3,
      SUBTITLE_PROBLEMS.timeOutOfRange,
      'times go up to 99:59:59.999',
    ],
    [
      'an end before the start',
      'WEBVTT\n\n00:05.000 --> 00:04.000\nA\n',
      3,
      SUBTITLE_PROBLEMS.endNotAfterStart,
      'the cue ends at 00:00:04.000, not after it starts (00:00:05.000)',
    ],
    [
      'a cue whose only text is tags',
      'WEBVTT\n\n00:01.000 --> 00:02.000\n<i></i>\n',
      3,
      SUBTITLE_PROBLEMS.noText,
      'the cue has no text',
    ],
    [
      'a file with only a header and notes',
      'WEBVTT\n\nNOTE nothing yet\n',
      undefined,
      SUBTITLE_PROBLEMS.noCues,
      'the file has no cues',
    ],
  ];

  it.each(refusals)('refuses %s, naming the line', (_, input, line, problem, message) => {
    const error = refusal(() => parseWebVtt(input));
    expect(error.line).toBe(line);
    expect(error.problem).toBe(problem);
    expect(error.reason).toContain(message);
  });
});

describe('parseSubtitles', () => {
  it('tells WebVTT from SRT by the WEBVTT line, after a byte order mark', () => {
    expect(parseSubtitles(bytes([0xef, 0xbb, 0xbf], REAL_WORLD_VTT))).toEqual({
      format: 'webvtt',
      cues: REAL_WORLD_VTT_CUES,
    });
    expect(parseSubtitles(REAL_WORLD_SRT)).toEqual({ format: 'srt', cues: REAL_WORLD_CUES });
    // A WEBVTT that is not the whole first word leaves the file to the SRT reader, which refuses it.
    expect(refusal(() => parseSubtitles('WEBVTTX\n\n00:01.000 --> 00:02.000\nA\n')).line).toBe(1);
  });

  it('answers any input with cues or a SubtitleFormatError naming a line of the file (seeded)', () => {
    const fragments = fc.constantFrom(
      '1',
      '\n',
      '\r\n',
      '\r',
      ' ',
      'WEBVTT',
      'NOTE',
      '00:00:01,000',
      '00:02.000',
      '99:59:59,999',
      '100:00:00.000',
      ' --> ',
      '-->',
      'X1:10',
      'Hello',
      '<i>',
      '&amp;',
      '{\\an8}',
      'é',
    );
    fc.assert(
      fc.property(
        fc.oneof(
          fc.array(fragments, { maxLength: 40 }).map((parts) => parts.join('')),
          fc.uint8Array({ maxLength: 200 }),
        ),
        (input) => {
          const lineCount = new TextDecoder()
            .decode(typeof input === 'string' ? utf8(input) : input)
            .split(/\r\n|\r|\n/).length;
          try {
            const { cues } = parseSubtitles(input);
            expect(cues.length).toBeGreaterThan(0);
            for (const [index, cue] of cues.entries()) {
              expect(cue.endMs).toBeGreaterThan(cue.startMs);
              expect(cue.startMs).toBeGreaterThanOrEqual(cues[index - 1]?.startMs ?? 0);
              expect(cue.text.trim()).not.toBe('');
            }
          } catch (error) {
            if (!(error instanceof SubtitleFormatError)) throw error;
            if (error.line !== undefined) {
              expect(error.line).toBeGreaterThanOrEqual(1);
              expect(error.line).toBeLessThanOrEqual(lineCount);
            }
          }
        },
      ),
      { numRuns: 500 },
    );
  });
});

describe('cueOverlaps', () => {
  it('lists each cue that starts before an earlier one ends, with the earlier cue that ends last', () => {
    expect(cueOverlaps(REAL_WORLD_CUES)).toEqual([{ cue: 5, overlapsCue: 4, overlapMs: 500 }]);
    expect(
      cueOverlaps([
        { startMs: 0, endMs: 10_000, text: 'long' },
        { startMs: 1000, endMs: 2000, text: 'inside' },
        { startMs: 3000, endMs: 12_000, text: 'tail' },
        { startMs: 12_000, endMs: 13_000, text: 'after' },
      ]),
    ).toEqual([
      { cue: 2, overlapsCue: 1, overlapMs: 1000 },
      { cue: 3, overlapsCue: 1, overlapMs: 7000 },
    ]);
    expect(cueOverlaps([])).toEqual([]);
  });
});

describe('round trips (seeded)', () => {
  const TEXT_UNITS = [...'abcfinsuxyzABC 0123456789.,;:!?-\'"&<>/{}\\é日本', 'Ω', '🙂', ' ', ' '];
  /** Markup the SRT reader removes: text that holds it is not expected back unchanged. */
  const SRT_MARKUP = /<\/?(?:b|i|u|s|font)\b[^>]*>|\{\\/i;
  const textLine = fc
    .string({ unit: fc.constantFrom(...TEXT_UNITS), minLength: 1, maxLength: 30 })
    .map((line) => line.trim())
    .filter((line) => line.length > 0);
  const cueList = fc
    .record({
      firstStartMs: fc.integer({ min: 0, max: 200_000_000 }),
      cues: fc.array(
        fc.record({
          // From the previous cue's start: 0 shows two cues at once, as for two speakers.
          gapMs: fc.integer({ min: 0, max: 5_000_000 }),
          lengthMs: fc.integer({ min: 1, max: 10_000 }),
          lines: fc.array(textLine, { minLength: 1, maxLength: 3 }),
        }),
        { minLength: 1, maxLength: 30 },
      ),
    })
    .map(({ firstStartMs, cues }) => {
      let startMs = firstStartMs;
      return cues.map((cue, index): CaptionCue => {
        if (index > 0) startMs += cue.gapMs;
        return { startMs, endMs: startMs + cue.lengthMs, text: cue.lines.join('\n') };
      });
    });

  it('formatSrt then parseSrt gives the cues back, as text, as UTF-8 with a BOM and CRLF, and sniffed', () => {
    fc.assert(
      fc.property(
        cueList.filter((cues) => !cues.some((cue) => SRT_MARKUP.test(cue.text))),
        (cues) => {
          const srt = formatSrt(cues);
          expect(parseSrt(srt)).toEqual(cues);
          expect(parseSrt(bytes([0xef, 0xbb, 0xbf], srt.replace(/\n/g, '\r\n')))).toEqual(cues);
          expect(parseSubtitles(utf8(srt))).toEqual({ format: 'srt', cues });
        },
      ),
    );
  });

  it('formatWebVtt then parseWebVtt gives the cues back, whatever characters the text holds', () => {
    fc.assert(
      fc.property(cueList, (cues) => {
        const vtt = formatWebVtt(cues);
        expect(parseWebVtt(vtt)).toEqual(cues);
        expect(parseSubtitles(utf8(vtt.replace(/\n/g, '\r')))).toEqual({ format: 'webvtt', cues });
      }),
    );
  });
});
