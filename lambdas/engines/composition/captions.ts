/**
 * Captions: grouping timed words into readable cues, and writing cues as an ASS script (for burning
 * into the picture with libass). Subtitle files (SRT and WebVTT, to download or upload) are
 * subtitle-files.ts.
 *
 * Readability rules (after common broadcast guidelines): at most 2 lines of at most 42 characters, lines
 * balanced in length; a cue ends at a sentence end, at a clear pause, or when it would grow too long or
 * stay up too long; when a cue must break mid-sentence it prefers a clause boundary (after `,` `;` `:`).
 * Cues stay up at least 0.7 s when the next cue leaves room, and tiny gaps between cues are closed so
 * captions do not flicker.
 */
import { alignScriptWords } from '../speech/script-words.js';
import type { CaptionCue, CaptionPosition, CaptionStyle } from './composition-engine.js';
import { clockParts, cueLines } from './subtitle-files.js';

export interface TimedWord {
  /** The word as written, punctuation included (`Hello,`). Surrounding whitespace is ignored. */
  word: string;
  startMs: number;
  endMs: number;
}

export interface CaptionGroupingOptions {
  /** Longest line, in characters; a single longer word gets a line of its own. @default 42 */
  maxCharsPerLine?: number;
  /** Most lines per cue. @default 2 */
  maxLines?: number;
  /** A cue is broken before it would stay up longer than this. @default 7000 */
  maxCueMs?: number;
  /**
   * Shortest time a cue stays up; shorter ones are extended into the silence after them, never over the
   * next cue's first word. A sentence shorter than this does not end its cue by itself. @default 700
   */
  minCueMs?: number;
  /** A silence at least this long between two words ends the cue. @default 500 */
  pauseMs?: number;
  /** A gap between two cues shorter than this is closed (the earlier cue stays up). @default 250 */
  closeGapMs?: number;
  /**
   * The end of the audio the words are from: no cue stays up past it (a scene's cues must not run into
   * the next scene's). @default no limit
   */
  untilMs?: number;
}

const SENTENCE_END = /[.!?…]["'”’)\]]*$/;
const CLAUSE_END = /[,;:—–]["'”’)\]]*$/;

/**
 * Splits words into at most `maxLines` lines of at most `maxChars` characters (a longer word alone on a
 * line), as balanced as possible; `undefined` when they do not fit.
 */
export function layoutCaptionLines(
  words: readonly string[],
  maxChars: number,
  maxLines: number,
): string[] | undefined {
  const wrap = (width: number): string[] => {
    const lines: string[] = [];
    let line = '';
    for (const word of words) {
      if (line && line.length + 1 + word.length > width) {
        lines.push(line);
        line = word;
      } else line = line ? `${line} ${word}` : word;
    }
    if (line) lines.push(line);
    return lines;
  };
  const widest = wrap(maxChars);
  if (widest.length > maxLines) return undefined;
  // The narrowest width that needs no more lines than the widest wrap balances the lines' lengths.
  const longestWord = Math.max(0, ...words.map((word) => word.length));
  let low = Math.min(longestWord, maxChars);
  let high = maxChars;
  while (low < high) {
    const middle = Math.floor((low + high) / 2);
    if (wrap(middle).length <= widest.length) high = middle;
    else low = middle + 1;
  }
  return wrap(low);
}

/** A word timing that also says where the word is in the spoken text (as speech engines return). */
export interface SpokenWord extends TimedWord {
  textOffset: number;
  textLength: number;
}

/**
 * The caption words of `text`: every word of it (script-words.ts), in order, exactly once, timed from
 * the engine's `words`, with its punctuation. Engines time words without their punctuation (`update`,
 * not `update.`), but captions need it, and the grouping rules use it to end cues at sentence ends; and
 * an engine may time fewer words than the text has (folded into a neighbour) or one word several times,
 * which must not drop or repeat a word on screen. Each word is widened to the whole
 * whitespace-delimited token around it (never into a neighbouring word). Times stay inside
 * `[0, durationMs]` (default: the end of the last timed word).
 */
export function wordsWithPunctuation(
  text: string,
  words: readonly SpokenWord[],
  durationMs: number = Math.max(0, ...words.map((word) => word.endMs)),
): TimedWord[] {
  const aligned = alignScriptWords(text, words, durationMs);
  let previousEnd = 0;
  return aligned.map((word, index) => {
    const next = aligned[index + 1];
    const ceiling = next ? next.textOffset : text.length;
    let start = Math.max(word.textOffset, previousEnd);
    let end = Math.max(start, word.textOffset + word.textLength);
    // Characters between two words of one token (Chinese, Japanese) trail the first word.
    while (start > previousEnd && /\S/.test(text.charAt(start - 1))) start--;
    while (end < ceiling && /\S/.test(text.charAt(end))) end++;
    previousEnd = end;
    return { word: text.slice(start, end), startMs: word.startMs, endMs: word.endMs };
  });
}

/** Groups timed words into caption cues; see the module comment for the rules. */
export function captionCuesFromWords(
  words: readonly TimedWord[],
  options: CaptionGroupingOptions = {},
): CaptionCue[] {
  const maxChars = options.maxCharsPerLine ?? 42;
  const maxLines = options.maxLines ?? 2;
  const maxCueMs = options.maxCueMs ?? 7000;
  const minCueMs = options.minCueMs ?? 700;
  const pauseMs = options.pauseMs ?? 500;
  const closeGapMs = options.closeGapMs ?? 250;
  const untilMs = options.untilMs ?? Number.POSITIVE_INFINITY;
  const limit = (ms: number) => Math.min(Math.round(ms), untilMs);

  const timed = words
    .map((word) => ({
      word: word.word.trim(),
      startMs: limit(word.startMs),
      endMs: limit(Math.max(word.startMs, word.endMs)),
    }))
    .filter((word) => word.word.length > 0);

  const fits = (group: readonly TimedWord[]) =>
    layoutCaptionLines(
      group.map((word) => word.word),
      maxChars,
      maxLines,
    ) !== undefined;

  /** Where to cut a cue that grew too big: after its last clause end past its first third, else at its end. */
  const cutPoint = (group: readonly TimedWord[]): number => {
    const total = group.reduce((sum, word) => sum + word.word.length + 1, 0);
    let chars = 0;
    let best = group.length;
    for (let index = 0; index < group.length - 1; index++) {
      const word = group[index] as TimedWord;
      chars += word.word.length + 1;
      if (chars >= total / 3 && (CLAUSE_END.test(word.word) || SENTENCE_END.test(word.word)))
        best = index + 1;
    }
    return best;
  };

  const groups: TimedWord[][] = [];
  let current: TimedWord[] = [];
  for (const word of timed) {
    while (current.length > 0) {
      const first = current[0] as TimedWord;
      const previous = current.at(-1) as TimedWord;
      const pause = word.startMs - previous.endMs >= pauseMs;
      const sentenceDone = SENTENCE_END.test(previous.word) && previous.endMs - first.startMs >= minCueMs;
      const tooBig = !fits([...current, word]) || word.endMs - first.startMs > maxCueMs;
      if (!pause && !sentenceDone && !tooBig) break;
      const cut = tooBig && !pause && !sentenceDone ? cutPoint(current) : current.length;
      groups.push(current.slice(0, cut));
      current = current.slice(cut);
    }
    current.push(word);
  }
  if (current.length > 0) groups.push(current);

  const cues: CaptionCue[] = [];
  let previousEnd = Number.NEGATIVE_INFINITY;
  groups.forEach((group, index) => {
    const first = group[0] as TimedWord;
    const last = group.at(-1) as TimedWord;
    const startMs = Math.max(first.startMs, previousEnd);
    const spokenEnd = Math.max(last.endMs, startMs + 1);
    // The last cue may stay up until the audio ends, not beyond.
    const nextStart = groups[index + 1]?.[0]?.startMs ?? untilMs;
    let endMs = Math.min(Math.max(spokenEnd, startMs + minCueMs), Math.max(spokenEnd, nextStart));
    if (nextStart > endMs && nextStart - endMs < closeGapMs) endMs = nextStart;
    const lines = layoutCaptionLines(
      group.map((word) => word.word),
      maxChars,
      maxLines,
    ) ?? [group.map((word) => word.word).join(' ')];
    cues.push({ startMs, endMs, text: lines.join('\n') });
    previousEnd = endMs;
  });
  return cues;
}

export interface AssStyleOptions extends Omit<CaptionStyle, 'font'> {
  /** The frame size: the script's coordinate space, so every size below is in frame pixels. */
  width: number;
  height: number;
  /** Font family name; the renderer falls back to its only font when this one is not installed. */
  fontName: string;
}

/** `#rrggbb` as ASS writes an opaque colour: `&H00BBGGRR`. */
function assColor(hex: string): string {
  const [r, g, b] = [1, 3, 5].map((at) => hex.slice(at, at + 2).toUpperCase());
  return `&H00${b}${g}${r}`;
}

/** `H:MM:SS.cc`, as ASS writes times. */
function assTimestamp(ms: number): string {
  const { hours, minutes, seconds, millis } = clockParts(Math.round(ms / 10) * 10);
  const twoDigits = (value: number) => String(value).padStart(2, '0');
  return `${hours}:${twoDigits(minutes)}:${twoDigits(seconds)}.${twoDigits(Math.floor(millis / 10))}`;
}

/** Text with ASS's markup characters neutralized: `{}` start override tags, `\N` `\n` `\h` are escapes. */
function assText(lines: readonly string[]): string {
  return lines
    .map((line) => line.replace(/\\/g, '\u2216').replace(/\{/g, '(').replace(/\}/g, ')'))
    .join('\\N');
}

/** ASS alignment (numpad: 2 bottom-centre, 5 middle-centre) and vertical margin, as a fraction of the height. */
const POSITIONS: Readonly<Record<CaptionPosition, { alignment: number; margin: number }>> = {
  bottom: { alignment: 2, margin: 0.05 },
  lower_third: { alignment: 2, margin: 0.22 },
  middle: { alignment: 5, margin: 0 },
};

/**
 * An ASS script that burns the cues in: by default white text with a dark outline and soft shadow,
 * bottom-centred, the font scaled to the frame (5% of the height, less on narrow portrait frames); or
 * the style's colours, outline, shadow, weight, slant, capitals, size and position, or its opaque
 * `boxColor` box. Lines wider than the frame wrap. In the picture `{` `}` show as `(` `)` and `\` as `∖`
 * (ASS markup cannot show them).
 */
export function toAss(cues: readonly CaptionCue[], style: AssStyleOptions): string {
  const baseSize = 0.05 * Math.min(style.height, style.width * 0.9);
  const fontSize = Math.max(8, Math.round(baseSize * (style.sizeScale ?? 1)));
  const boxed = style.boxColor !== undefined;
  // In a box (BorderStyle 3) the outline width is the box's padding around the text.
  const outline = boxed
    ? Math.max(1, Math.round(fontSize * 0.25))
    : style.outlineWidth !== undefined
      ? Math.round(fontSize * style.outlineWidth)
      : Math.max(1, Math.round(fontSize * 0.08));
  const shadow = boxed
    ? 0
    : style.shadowDepth !== undefined
      ? Math.round(fontSize * style.shadowDepth)
      : Math.max(1, Math.round(fontSize * 0.04));
  const marginSide = Math.round(style.width * 0.05);
  const position = POSITIONS[style.position ?? 'bottom'];
  const marginVertical = Math.round(style.height * position.margin);
  const text = style.textColor ? assColor(style.textColor) : '&H00FFFFFF';
  // libass fills the box of BorderStyle 3 with the outline colour.
  const outlineColour = style.boxColor
    ? assColor(style.boxColor)
    : style.outlineColor
      ? assColor(style.outlineColor)
      : '&H00000000';
  // Fields of a style line are comma-separated: a family name cannot carry one.
  const fontName = style.fontName.replace(/,/g, ' ');
  const flag = (on: boolean | undefined) => (on ? -1 : 0);
  // Colours are &HAABBGGRR with AA = transparency: opaque text and outline, half-black shadow.
  const header = [
    '[Script Info]',
    'ScriptType: v4.00+',
    `PlayResX: ${style.width}`,
    `PlayResY: ${style.height}`,
    'WrapStyle: 0',
    'ScaledBorderAndShadow: yes',
    '',
    '[V4+ Styles]',
    'Format: Name, Fontname, Fontsize, PrimaryColour, SecondaryColour, OutlineColour, BackColour, Bold, Italic, Underline, StrikeOut, ScaleX, ScaleY, Spacing, Angle, BorderStyle, Outline, Shadow, Alignment, MarginL, MarginR, MarginV, Encoding',
    `Style: Caption,${fontName},${fontSize},${text},${text},${outlineColour},&H80000000,${flag(style.bold)},${flag(style.italic)},0,0,100,100,0,0,${boxed ? 3 : 1},${outline},${shadow},${position.alignment},${marginSide},${marginSide},${marginVertical},1`,
    '',
    '[Events]',
    'Format: Layer, Start, End, Style, Name, MarginL, MarginR, MarginV, Effect, Text',
  ];
  const events = cues
    .map((cue) => ({ cue, lines: cueLines(style.uppercase ? cue.text.toUpperCase() : cue.text) }))
    .filter(({ lines }) => lines.length > 0)
    .map(
      ({ cue, lines }) =>
        `Dialogue: 0,${assTimestamp(cue.startMs)},${assTimestamp(cue.endMs)},Caption,,0,0,0,,${assText(lines)}`,
    );
  return `${[...header, ...events].join('\n')}\n`;
}
