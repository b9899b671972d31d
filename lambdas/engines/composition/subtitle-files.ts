/**
 * Subtitle files: reading and writing SubRip (SRT) and WebVTT, the formats subtitles travel in: the SRT
 * sidecar of every video, the subtitles a translation is given (`srt`) and the ones it answers
 * (`srt_caption_url`, `vtt_caption_url`), the editable subtitles of a proofread. Pure: text in, cues out.
 *
 * What is read, and why (SRT has no specification; these are the rules players such as ffmpeg and VLC
 * agree on, strict where a mistake would shift what is spoken, lenient where nothing is lost):
 * - The file is UTF-8, with or without a byte order mark, with CRLF, LF or CR line ends. Other encodings
 *   are refused, not guessed: a wrong guess puts wrong words in a voice. UTF-16 is recognized (its byte
 *   order mark, or the NUL bytes of UTF-16 without one) so the message can say what the file is.
 * - A cue is an optional number line, a time line, one or more text lines and a blank line. Cue numbers
 *   are not checked (players ignore them, and editors renumber badly); they may be left out.
 * - Times are `HH:MM:SS,mmm`; a `.` before the milliseconds and one-digit hours are tolerated, as are
 *   the position coordinates some writers put after the end time (`X1:40 X2:600 Y1:20 Y2:50`). Three
 *   millisecond digits are required: `,5` could mean 5 or 500 ms. Times end at 99:59:59,999.
 * - Refused, each naming its 1-based line: a time line that does not parse, an end not after its start,
 *   a cue that starts before the cue above it (out of order), a cue without text, a time line inside a
 *   cue's text (a missing blank line, which would glue two cues together). A file without cues is refused.
 * - Overlapping cues are legal (two speakers at once) and are kept; `cueOverlaps` lists them, because
 *   a dub speaks cues one after the other and its caller must decide what overlapping speech becomes.
 * - Cue text is plain text, lines joined by `\n`, each trimmed: the markup some SRT writers add (`<i>`,
 *   `<b>`, `<u>`, `<s>`, `<font …>`, `{\an8}`) and WebVTT's tags are removed, WebVTT's character
 *   references decoded, because the text is translated, spoken and drawn by the caption renderer, none
 *   of which reads markup.
 * - WebVTT: the `WEBVTT` line and its header, `NOTE`, `STYLE` and `REGION` blocks, optional cue
 *   identifiers, `MM:SS.mmm` or `HH:MM:SS.mmm` times, cue settings after the end time (ignored).
 *
 * The writers emit what the readers read back unchanged (cues with text, trimmed lines, whole
 * milliseconds, times below 100 hours): `parseSrt(formatSrt(cues))` is `cues`, and likewise for WebVTT.
 */
import { JobFailure } from '../../core/errors.js';
import type { CaptionCue } from './composition-engine.js';

export const SUBTITLE_FILE_LIMITS = {
  /** Bytes of a file. A two-hour film's subtitles are 100 to 150 KB. */
  maxBytes: 1_048_576,
  /** Cues of a file. A two-hour film has 1,500 to 2,000. */
  maxCues: 5000,
  /** SRT's clock has two hour digits, so the last time either format may hold is 99:59:59.999. */
  maxTimeMs: 100 * 3_600_000 - 1,
} as const;

/** What is wrong with a refused file, for callers that treat some problems apart (a 413 for `too_large`). */
export const SUBTITLE_PROBLEMS = {
  encoding: 'encoding',
  tooLarge: 'too_large',
  noCues: 'no_cues',
  unexpectedLine: 'unexpected_line',
  timeLine: 'time_line',
  timeOutOfRange: 'time_out_of_range',
  endNotAfterStart: 'end_not_after_start',
  outOfOrder: 'out_of_order',
  noText: 'no_text',
} as const;
export type SubtitleProblem = (typeof SUBTITLE_PROBLEMS)[keyof typeof SUBTITLE_PROBLEMS];

/**
 * A subtitle file that cannot be read. A job step lets it through (the job fails `invalid_subtitles`
 * with the message); a route answers it as 400 `invalid_parameter` naming its field, the message (which
 * starts with the line) included.
 */
export class SubtitleFormatError extends JobFailure<'invalid_subtitles'> {
  /** The 1-based line of the file the problem is on; `undefined` for the whole file (size, no cues). */
  readonly line: number | undefined;
  readonly problem: SubtitleProblem;
  /** What is wrong, without the line. */
  readonly reason: string;

  constructor(problem: SubtitleProblem, reason: string, line?: number) {
    super('invalid_subtitles', line === undefined ? capitalized(reason) : `Line ${line}: ${reason}`);
    this.line = line;
    this.problem = problem;
    this.reason = reason;
  }
}

export function isSubtitleFormatError(error: unknown): error is SubtitleFormatError {
  return error instanceof SubtitleFormatError;
}

export const SUBTITLE_FORMATS = { srt: 'srt', webVtt: 'webvtt' } as const;
export type SubtitleFormat = (typeof SUBTITLE_FORMATS)[keyof typeof SUBTITLE_FORMATS];

export interface ParsedSubtitles {
  format: SubtitleFormat;
  cues: CaptionCue[];
}

/** Two cues on screen at once: the cue at 1-based position `cue` starts before `overlapsCue` ends. */
export interface CueOverlap {
  cue: number;
  overlapsCue: number;
  overlapMs: number;
}

function capitalized(text: string): string {
  return text.charAt(0).toUpperCase() + text.slice(1);
}

function pad(value: number, digits: number): string {
  return String(value).padStart(digits, '0');
}

/** A time's clock fields, rounded to whole milliseconds; negative times are 0. */
export function clockParts(ms: number): { hours: number; minutes: number; seconds: number; millis: number } {
  const total = Math.max(0, Math.round(ms));
  return {
    hours: Math.floor(total / 3_600_000),
    minutes: Math.floor(total / 60_000) % 60,
    seconds: Math.floor(total / 1000) % 60,
    millis: total % 1000,
  };
}

/** A cue's lines: trimmed, without blank lines (a blank line ends a cue in SRT and WebVTT). */
export function cueLines(text: string): string[] {
  return text
    .split(/\r\n|\r|\n/)
    .map((line) => line.trim())
    .filter(Boolean);
}

/** `HH:MM:SS,mmm`, as SRT writes times. */
export function srtTimestamp(ms: number): string {
  const { hours, minutes, seconds, millis } = clockParts(ms);
  return `${pad(hours, 2)}:${pad(minutes, 2)}:${pad(seconds, 2)},${pad(millis, 3)}`;
}

/** `HH:MM:SS.mmm`, as WebVTT writes times. */
export function webVttTimestamp(ms: number): string {
  return srtTimestamp(ms).replace(',', '.');
}

/** The cues that have text, with their lines. */
function writableCues(cues: readonly CaptionCue[]): { cue: CaptionCue; lines: string[] }[] {
  return cues.map((cue) => ({ cue, lines: cueLines(cue.text) })).filter(({ lines }) => lines.length > 0);
}

/**
 * SubRip text: cues numbered from 1, `HH:MM:SS,mmm --> HH:MM:SS,mmm`, LF line ends, a blank line between
 * cues. Cues without text are left out (SRT cannot express them). No byte order mark.
 */
export function formatSrt(cues: readonly CaptionCue[]): string {
  return writableCues(cues)
    .map(
      ({ cue, lines }, index) =>
        `${index + 1}\n${srtTimestamp(cue.startMs)} --> ${srtTimestamp(cue.endMs)}\n${lines.join('\n')}\n`,
    )
    .join('\n');
}

/** Cue text as WebVTT requires it: `&` and `<` would start a reference or a tag, `>` ends `-->` early. */
function webVttText(line: string): string {
  return line.replace(/&/g, '&amp;').replace(/</g, '&lt;').replace(/>/g, '&gt;');
}

/**
 * WebVTT text: the `WEBVTT` line, then each cue as `HH:MM:SS.mmm --> HH:MM:SS.mmm` and its escaped text,
 * a blank line before each cue, LF line ends. Cues without text are left out.
 */
export function formatWebVtt(cues: readonly CaptionCue[]): string {
  const blocks = writableCues(cues).map(
    ({ cue, lines }) =>
      `${webVttTimestamp(cue.startMs)} --> ${webVttTimestamp(cue.endMs)}\n${lines.map(webVttText).join('\n')}\n`,
  );
  return ['WEBVTT\n', ...blocks].join('\n');
}

/** The cues of an SRT file; see the module comment for what is accepted. @throws SubtitleFormatError */
export function parseSrt(input: string | Uint8Array): CaptionCue[] {
  return readSrt(fileLines(input));
}

/** The cues of a WebVTT file; see the module comment for what is accepted. @throws SubtitleFormatError */
export function parseWebVtt(input: string | Uint8Array): CaptionCue[] {
  return readWebVtt(fileLines(input));
}

/**
 * The cues of an SRT or a WebVTT file, told apart by WebVTT's mandatory first line (clients upload
 * either under a field named `srt`). @throws SubtitleFormatError
 */
export function parseSubtitles(input: string | Uint8Array): ParsedSubtitles {
  const lines = fileLines(input);
  return WEBVTT_SIGNATURE.test(lines[0] ?? '')
    ? { format: SUBTITLE_FORMATS.webVtt, cues: readWebVtt(lines) }
    : { format: SUBTITLE_FORMATS.srt, cues: readSrt(lines) };
}

/**
 * Every cue that starts before an earlier cue has ended, paired with the earlier cue that ends last.
 * Cues are taken in their order, which the parsers guarantee is by start time.
 */
export function cueOverlaps(cues: readonly CaptionCue[]): CueOverlap[] {
  const overlaps: CueOverlap[] = [];
  let latestEnding: { cue: CaptionCue; position: number } | undefined;
  cues.forEach((cue, index) => {
    if (latestEnding && cue.startMs < latestEnding.cue.endMs) {
      overlaps.push({
        cue: index + 1,
        overlapsCue: latestEnding.position,
        overlapMs: Math.min(latestEnding.cue.endMs, cue.endMs) - cue.startMs,
      });
    }
    if (!latestEnding || cue.endMs > latestEnding.cue.endMs) latestEnding = { cue, position: index + 1 };
  });
  return overlaps;
}

// --- Reading: bytes to lines --------------------------------------------------------------------------

function megabytes(bytes: number): string {
  return `${(bytes / 1_048_576).toFixed(1)} MB`;
}

function checkSize(bytes: number): void {
  if (bytes > SUBTITLE_FILE_LIMITS.maxBytes) {
    throw new SubtitleFormatError(
      SUBTITLE_PROBLEMS.tooLarge,
      `the file is ${megabytes(bytes)}; subtitle files may be at most 1 MB (${SUBTITLE_FILE_LIMITS.maxBytes} bytes)`,
    );
  }
}

/** The 1-based line a byte is on, counting CRLF, LF and CR line ends as the line splitter does. */
function lineOfByte(bytes: Uint8Array, offset: number): number {
  let line = 1;
  for (let index = 0; index < offset; index++) {
    if (bytes[index] === 0x0a || (bytes[index] === 0x0d && bytes[index + 1] !== 0x0a)) line++;
  }
  return line;
}

/** Where the first byte that breaks UTF-8 is (overlong forms and surrogates included), or -1. */
function firstInvalidUtf8(bytes: Uint8Array): number {
  const continuation = (at: number, low = 0x80, high = 0xbf) => {
    const byte = bytes[at];
    return byte !== undefined && byte >= low && byte <= high;
  };
  let index = 0;
  while (index < bytes.length) {
    const lead = bytes[index] as number;
    let length: number;
    if (lead < 0x80) length = 1;
    else if (lead >= 0xc2 && lead <= 0xdf) length = continuation(index + 1) ? 2 : 0;
    else if (lead >= 0xe0 && lead <= 0xef) {
      const [low, high] = lead === 0xe0 ? [0xa0, 0xbf] : lead === 0xed ? [0x80, 0x9f] : [0x80, 0xbf];
      length = continuation(index + 1, low, high) && continuation(index + 2) ? 3 : 0;
    } else if (lead >= 0xf0 && lead <= 0xf4) {
      const [low, high] = lead === 0xf0 ? [0x90, 0xbf] : lead === 0xf4 ? [0x80, 0x8f] : [0x80, 0xbf];
      length =
        continuation(index + 1, low, high) && continuation(index + 2) && continuation(index + 3) ? 4 : 0;
    } else length = 0;
    if (length === 0) return index;
    index += length;
  }
  return -1;
}

function decodedText(input: string | Uint8Array): string {
  if (typeof input === 'string') {
    checkSize(Buffer.byteLength(input, 'utf8'));
    return input.startsWith('\uFEFF') ? input.slice(1) : input;
  }
  checkSize(input.byteLength);
  const notUtf8 = (line: number, what: string) =>
    new SubtitleFormatError(SUBTITLE_PROBLEMS.encoding, `${what}; subtitle files must be UTF-8`, line);
  if ((input[0] === 0xff && input[1] === 0xfe) || (input[0] === 0xfe && input[1] === 0xff)) {
    throw notUtf8(1, 'the file is UTF-16 (it starts with a UTF-16 byte order mark)');
  }
  const nul = input.indexOf(0);
  if (nul >= 0) {
    throw notUtf8(
      lineOfByte(input, nul),
      'the file holds NUL bytes, as UTF-16 text without a byte order mark does',
    );
  }
  const invalid = firstInvalidUtf8(input);
  if (invalid >= 0) {
    const byte = (input[invalid] as number).toString(16).toUpperCase().padStart(2, '0');
    throw notUtf8(
      lineOfByte(input, invalid),
      `byte 0x${byte} is not UTF-8 (the file may be in a legacy encoding such as Windows-1252)`,
    );
  }
  // Validated above, so this cannot throw; TextDecoder drops a leading byte order mark.
  return new TextDecoder('utf-8', { fatal: true }).decode(input);
}

function fileLines(input: string | Uint8Array): string[] {
  return decodedText(input).split(/\r\n|\r|\n/);
}

const isBlank = (line: string | undefined) => line === undefined || line.trim() === '';

/** A line as quoted in a message: its start, when it is long. */
function quoted(line: string): string {
  const trimmed = line.trim();
  return trimmed.length > 40 ? `"${trimmed.slice(0, 40)}…"` : `"${trimmed}"`;
}

// --- Reading: lines to cues ---------------------------------------------------------------------------

/** The checks every cue passes, whatever its format; `clock` writes times in the file's notation. */
class CueList {
  readonly cues: CaptionCue[] = [];
  private previous: { startMs: number; line: number } | undefined;

  constructor(private readonly clock: (ms: number) => string) {}

  add(startMs: number, endMs: number, textLines: readonly string[], timeLine: number): void {
    if (endMs <= startMs) {
      throw new SubtitleFormatError(
        SUBTITLE_PROBLEMS.endNotAfterStart,
        `the cue ends at ${this.clock(endMs)}, not after it starts (${this.clock(startMs)})`,
        timeLine,
      );
    }
    if (this.previous && startMs < this.previous.startMs) {
      throw new SubtitleFormatError(
        SUBTITLE_PROBLEMS.outOfOrder,
        `the cue starts at ${this.clock(startMs)}, before the cue at line ${this.previous.line} ` +
          `(${this.clock(this.previous.startMs)}); cues must be in the order they are shown`,
        timeLine,
      );
    }
    const text = textLines.filter(Boolean).join('\n');
    if (!text) {
      throw new SubtitleFormatError(SUBTITLE_PROBLEMS.noText, 'the cue has no text', timeLine);
    }
    if (this.cues.length === SUBTITLE_FILE_LIMITS.maxCues) {
      throw new SubtitleFormatError(
        SUBTITLE_PROBLEMS.tooLarge,
        `the file has more than ${SUBTITLE_FILE_LIMITS.maxCues} cues, the most a subtitle file may have`,
        timeLine,
      );
    }
    this.cues.push({ startMs, endMs, text });
    this.previous = { startMs, line: timeLine };
  }

  finished(lines: readonly string[]): CaptionCue[] {
    if (this.cues.length === 0) {
      throw new SubtitleFormatError(
        SUBTITLE_PROBLEMS.noCues,
        lines.every((line) => isBlank(line)) ? 'the file is empty' : 'the file has no cues',
      );
    }
    return this.cues;
  }
}

/**
 * The time a clock token stands for, its fields matched by `fields` (`null`: the token is no time);
 * `notation` and `lastTime` say in the message how the file's format writes times.
 */
function clockTime(
  token: string,
  fields: RegExpExecArray | null,
  line: number,
  notation: { time: string; lastTime: string },
): number {
  const refuse = (problem: SubtitleProblem, reason: string) => new SubtitleFormatError(problem, reason, line);
  if (!fields)
    throw refuse(SUBTITLE_PROBLEMS.timeLine, `"${token}" is not a time; times are ${notation.time}`);
  const [, hours = '0', minutes = '', seconds = '', millis = ''] = fields;
  const field = (reason: string) => refuse(SUBTITLE_PROBLEMS.timeLine, `"${token}" is not a time: ${reason}`);
  if (minutes.length !== 2 || Number(minutes) > 59) throw field('minutes go from 00 to 59');
  if (seconds.length !== 2 || Number(seconds) > 59) throw field('seconds go from 00 to 59');
  if (millis.length !== 3) throw field('milliseconds need 3 digits');
  if (Number(hours) > 99) {
    throw refuse(
      SUBTITLE_PROBLEMS.timeOutOfRange,
      `"${token}" is 100 hours or more; times go up to ${notation.lastTime}`,
    );
  }
  return ((Number(hours) * 60 + Number(minutes)) * 60 + Number(seconds)) * 1000 + Number(millis);
}

const SRT_TIME = /^(\d+):(\d+):(\d+)[,.](\d+)$/;
/** Two times (checked field by field after), and the position coordinates some writers append. */
const SRT_TIME_LINE = /^([\d:.,]+)[ \t]*-->[ \t]*([\d:.,]+)((?:[ \t]+[XY][12]:[ \t]*-?\d+)*)[ \t]*$/i;
const SRT_TIME_NOTATION = 'HH:MM:SS,mmm --> HH:MM:SS,mmm';
/** Markup of SRT writers: HTML-like style tags and ASS override blocks (`{\an8}`). */
const SRT_MARKUP = /<\/?(?:b|i|u|s|font)(?:[ \t][^>]*)?>|\{\\[^}]*\}/gi;

function srtTime(token: string, line: number): number {
  return clockTime(token, SRT_TIME.exec(token), line, { time: 'HH:MM:SS,mmm', lastTime: '99:59:59,999' });
}

/** Whether a line is a well-formed SRT time line (inside a cue's text, it means a missing blank line). */
function isSrtTimeLine(line: string): boolean {
  const match = SRT_TIME_LINE.exec(line.trim());
  return !!match && SRT_TIME.test(match[1] ?? '') && SRT_TIME.test(match[2] ?? '');
}

function readSrt(lines: readonly string[]): CaptionCue[] {
  const cues = new CueList(srtTimestamp);
  let index = 0;
  for (;;) {
    while (index < lines.length && isBlank(lines[index])) index++;
    const first = lines[index];
    if (first === undefined) break;
    let timeIndex = index;
    if (/^\d+$/.test(first.trim())) {
      timeIndex = index + 1;
      const next = lines[timeIndex];
      if (next === undefined || !next.includes('-->')) {
        throw new SubtitleFormatError(
          SUBTITLE_PROBLEMS.unexpectedLine,
          `cue ${first.trim()} needs a time line (${SRT_TIME_NOTATION}) here, found ${next === undefined ? 'the end of the file' : isBlank(next) ? 'an empty line' : quoted(next)}`,
          Math.min(timeIndex, lines.length - 1) + 1,
        );
      }
    } else if (!first.includes('-->')) {
      throw new SubtitleFormatError(
        SUBTITLE_PROBLEMS.unexpectedLine,
        `expected a cue number or a time line (${SRT_TIME_NOTATION}), found ${quoted(first)}`,
        index + 1,
      );
    }
    const timeLine = (lines[timeIndex] as string).trim();
    const times = SRT_TIME_LINE.exec(timeLine);
    if (!times) {
      throw new SubtitleFormatError(
        SUBTITLE_PROBLEMS.timeLine,
        `${quoted(timeLine)} is not a time line; expected ${SRT_TIME_NOTATION}`,
        timeIndex + 1,
      );
    }
    const startMs = srtTime(times[1] ?? '', timeIndex + 1);
    const endMs = srtTime(times[2] ?? '', timeIndex + 1);
    const text: string[] = [];
    index = timeIndex + 1;
    while (!isBlank(lines[index])) {
      const line = lines[index] as string;
      if (isSrtTimeLine(line)) {
        throw new SubtitleFormatError(
          SUBTITLE_PROBLEMS.unexpectedLine,
          `a time line inside the text of the cue at line ${timeIndex + 1}; cues must be separated by an empty line`,
          index + 1,
        );
      }
      text.push(line.replace(SRT_MARKUP, '').trim());
      index++;
    }
    cues.add(startMs, endMs, text, timeIndex + 1);
  }
  return cues.finished(lines);
}

/** WebVTT's first line: the word, alone or followed by a space or tab and anything. */
const WEBVTT_SIGNATURE = /^WEBVTT(?:[ \t].*)?$/;
const WEBVTT_TIME = /^(?:(\d+):)?(\d+):(\d+)\.(\d+)$/;
/** Two times (checked field by field after), then cue settings (`align:start position:10%`). */
const WEBVTT_TIME_LINE = /^([\d:.,]+)[ \t]*-->[ \t]*([\d:.,]+)(?:[ \t]+.*)?$/;
const WEBVTT_TIME_NOTATION = 'HH:MM:SS.mmm --> HH:MM:SS.mmm';
const WEBVTT_SKIPPED_BLOCK = /^(?:NOTE(?:[ \t].*)?|STYLE[ \t]*|REGION[ \t]*)$/;
const WEBVTT_REFERENCES: Record<string, string> = {
  amp: '&',
  lt: '<',
  gt: '>',
  quot: '"',
  apos: "'",
  nbsp: '\u00a0',
  lrm: '\u200e',
  rlm: '\u200f',
};

function webVttTime(token: string, line: number): number {
  return clockTime(token, WEBVTT_TIME.exec(token), line, {
    time: 'HH:MM:SS.mmm or MM:SS.mmm',
    lastTime: '99:59:59.999',
  });
}

/** A WebVTT text line as plain text: tags removed (an unclosed one runs to the line's end), references decoded. */
function webVttPlainText(line: string): string {
  return line
    .replace(/<[^>]*(?:>|$)/g, '')
    .replace(/&(?:#(\d+)|#[xX]([0-9a-fA-F]+)|([a-zA-Z]+));/g, (reference, decimal, hex, name) => {
      const codePoint = decimal ? Number(decimal) : hex ? Number.parseInt(hex, 16) : undefined;
      if (codePoint !== undefined) {
        return codePoint > 0 && codePoint <= 0x10ffff ? String.fromCodePoint(codePoint) : reference;
      }
      return WEBVTT_REFERENCES[name as string] ?? reference;
    })
    .trim();
}

function readWebVtt(lines: readonly string[]): CaptionCue[] {
  if (!WEBVTT_SIGNATURE.test(lines[0] ?? '')) {
    throw new SubtitleFormatError(
      SUBTITLE_PROBLEMS.unexpectedLine,
      `a WebVTT file starts with the line "WEBVTT", found ${quoted(lines[0] ?? '')}`,
      1,
    );
  }
  const cues = new CueList(webVttTimestamp);
  // The header runs to the first empty line; a timing line ends it early (a file without the empty line).
  let index = 1;
  while (!isBlank(lines[index]) && !(lines[index] as string).includes('-->')) index++;
  for (;;) {
    while (index < lines.length && isBlank(lines[index])) index++;
    const first = lines[index];
    if (first === undefined) break;
    if (WEBVTT_SKIPPED_BLOCK.test(first.trim())) {
      while (!isBlank(lines[index])) index++;
      continue;
    }
    // A cue's first line is its timing line, or an identifier followed by it.
    const timeIndex = first.includes('-->') ? index : index + 1;
    const timeLine = lines[timeIndex];
    if (timeLine === undefined || !timeLine.includes('-->')) {
      throw new SubtitleFormatError(
        SUBTITLE_PROBLEMS.unexpectedLine,
        `the cue ${quoted(first)} needs a timing line (${WEBVTT_TIME_NOTATION}) here, found ${timeLine === undefined ? 'the end of the file' : isBlank(timeLine) ? 'an empty line' : quoted(timeLine)}`,
        Math.min(timeIndex, lines.length - 1) + 1,
      );
    }
    const times = WEBVTT_TIME_LINE.exec(timeLine.trim());
    if (!times) {
      throw new SubtitleFormatError(
        SUBTITLE_PROBLEMS.timeLine,
        `${quoted(timeLine)} is not a timing line; expected ${WEBVTT_TIME_NOTATION}`,
        timeIndex + 1,
      );
    }
    const startMs = webVttTime(times[1] ?? '', timeIndex + 1);
    const endMs = webVttTime(times[2] ?? '', timeIndex + 1);
    const text: string[] = [];
    index = timeIndex + 1;
    while (!isBlank(lines[index])) {
      const line = lines[index] as string;
      // WebVTT forbids `-->` in cue text: a second timing line means a missing empty line.
      if (line.includes('-->')) {
        throw new SubtitleFormatError(
          SUBTITLE_PROBLEMS.unexpectedLine,
          `a timing line inside the text of the cue at line ${timeIndex + 1}; cues must be separated by an empty line`,
          index + 1,
        );
      }
      text.push(webVttPlainText(line));
      index++;
    }
    cues.add(startMs, endMs, text, timeIndex + 1);
  }
  return cues.finished(lines);
}
