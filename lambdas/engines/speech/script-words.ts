/**
 * The words of a script, and every engine's word timings mapped onto them. Pure: no engine, no I/O.
 *
 * Why this exists: engines do not time every word they speak. eSpeak NG folds short function words
 * into the word before them ("I am" is one word event at "I", "for the" one at "for": the phonemes of
 * "am" and "the" come under it) and spells numbers as several words ("2026" is four events); Polly may
 * skip symbols. Captions and `word_timestamps` that list the engine's words therefore lost words
 * ("I am Daniel" → "I Daniel."). Here the script decides what the words are, and the engine only says
 * when they are spoken: every script word gets exactly one timing, in order, non-overlapping.
 *
 * A script word is a whitespace-delimited token from its first to its last letter or digit
 * (`world,` → `world`, `(Let’s` → `Let’s`, `$5` → `5`), kept whole inside (`don't`, `3.5`, `co-op`).
 * A token without letters or digits is a word when engines speak it (`&`, `%`, `😀`), and no word when
 * it is only punctuation read as a pause (`—`, `...`, `?!`). Scripts written without spaces (Chinese, Japanese, Thai, Lao, Khmer, Myanmar) are cut into
 * words by `Intl.Segmenter`.
 */
import type { WordTiming } from './speech-engine.js';

export interface ScriptWord {
  word: string;
  /** UTF-16 offset of the word in the script. */
  textOffset: number;
  textLength: number;
}

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;
const MARK = /\p{M}/u;
/** Punctuation that is only read as a pause or intonation, never as a word. */
const SILENT = /[\p{Pd}\p{Ps}\p{Pe}\p{Pi}\p{Pf}\p{Cf}\p{Cc}.,;:!?¡¿…·'"、。，．！？；：]/u;
const UNSPACED_SCRIPT =
  /[\p{Script=Han}\p{Script=Hiragana}\p{Script=Katakana}\p{Script=Thai}\p{Script=Lao}\p{Script=Khmer}\p{Script=Myanmar}]/u;
const wordSegmenter = new Intl.Segmenter(undefined, { granularity: 'word' });

/**
 * The word of the token `text.slice(start, end)`: from its first to its last letter or digit (with the
 * accents after it); a token without any is a word when something in it is spoken (`&`, `%`, `😀`),
 * without the silent punctuation around it.
 */
function tokenWord(text: string, start: number, end: number): ScriptWord | undefined {
  const chars = [...text.slice(start, end)];
  const spoken = chars.some((char) => LETTER_OR_DIGIT.test(char));
  const isEdge = spoken ? (char: string) => LETTER_OR_DIGIT.test(char) : (char: string) => !SILENT.test(char);
  const first = chars.findIndex(isEdge);
  if (first === -1) return undefined;
  let last = chars.length - 1;
  while (!isEdge(chars[last] as string)) last--;
  while (last + 1 < chars.length && MARK.test(chars[last + 1] as string)) last++;
  const textOffset = start + chars.slice(0, first).join('').length;
  const word = chars.slice(first, last + 1).join('');
  return { word, textOffset, textLength: word.length };
}

/** The words of `text`, in order; see the module comment for what a word is. */
export function scriptWords(text: string): ScriptWord[] {
  const words: ScriptWord[] = [];
  for (const token of text.matchAll(/\S+/gu)) {
    const start = token.index;
    if (UNSPACED_SCRIPT.test(token[0])) {
      for (const segment of wordSegmenter.segment(token[0])) {
        if (!segment.isWordLike) continue;
        const word = tokenWord(text, start + segment.index, start + segment.index + segment.segment.length);
        if (word) words.push(word);
      }
      continue;
    }
    const word = tokenWord(text, start, start + token[0].length);
    if (word) words.push(word);
  }
  return words;
}

/** A time an engine gave for something it spoke at `textOffset` of the script. */
export interface EngineWordTime {
  textOffset: number;
  startMs: number;
  endMs: number;
}

/**
 * The index of the word an engine time at `offset` belongs to: the word holding it; before a word
 * in the same token (`(` of `(Let’s`), that word; else (punctuation or space after a word) the word
 * before it.
 */
function wordAt(text: string, words: readonly ScriptWord[], offset: number): number {
  let low = 0;
  let high = words.length;
  // The first word that ends after `offset`.
  while (low < high) {
    const middle = (low + high) >> 1;
    const word = words[middle] as ScriptWord;
    if (word.textOffset + word.textLength <= offset) low = middle + 1;
    else high = middle;
  }
  const next = words[low];
  if (!next) return words.length - 1;
  if (offset >= next.textOffset || low === 0) return low;
  return /\s/u.test(text.slice(offset, next.textOffset)) ? low - 1 : low;
}

/** Lengths in code points: how much of a shared span each word gets. */
const weight = (word: ScriptWord) => Math.max(1, [...word.word].length);

/**
 * Every word of `text` with a time span inside `[0, durationMs]`, from the engine's times.
 *
 * An engine time belongs to the script word at its offset (before a word in the same token, that
 * word; after a word's token, that word; the first word when before all). A word with several times (a
 * number spoken as several words) spans them all. A word with none was spoken with a neighbour (the
 * engine folded it into the word before it): the words after a timed word share its span, in
 * proportion to their lengths; words before the first timed word share the time before it (or, when
 * there is none, that word's span). A span too short to give each of its words 1 ms takes in what
 * they need after it.
 *
 * Spans are in order and never overlap (an engine span that runs past the next timed word's start is
 * cut there); each is at least 1 ms long when the audio leaves room for it.
 */
export function alignScriptWords(
  text: string,
  times: readonly EngineWordTime[],
  durationMs: number,
): WordTiming[] {
  const words = scriptWords(text);
  if (words.length === 0) return [];
  const duration = Math.max(0, Math.round(durationMs));
  const clamp = (ms: number) => Math.max(0, Math.min(Math.round(ms), duration));

  // Each word's engine span, if any. A time never moves back to an earlier word: engines report in
  // the order they speak, and an offset that jumps back is a token spelled again (eSpeak's numbers).
  const spans: ({ startMs: number; endMs: number } | undefined)[] = words.map(() => undefined);
  let wordIndex = 0;
  for (const time of times) {
    wordIndex = Math.max(wordIndex, wordAt(text, words, time.textOffset));
    const span = spans[wordIndex];
    const startMs = clamp(time.startMs);
    const endMs = Math.max(startMs, clamp(time.endMs));
    if (span) {
      span.startMs = Math.min(span.startMs, startMs);
      span.endMs = Math.max(span.endMs, endMs);
    } else spans[wordIndex] = { startMs, endMs };
  }

  // In order and non-overlapping. Where the engine says the next word starts is what counts: a span
  // that runs past it (a sound that fades under the next word) is cut there.
  const timedIndexes = spans.flatMap((span, index) => (span ? [index] : []));
  const timed = timedIndexes.map((index) => spans[index] as { startMs: number; endMs: number });
  timed.forEach((span, position) => {
    const previous = timed[position - 1];
    if (previous) span.startMs = Math.max(span.startMs, previous.startMs);
  });
  timed.forEach((span, position) => {
    const next = timed[position + 1];
    if (next) span.endMs = Math.min(span.endMs, next.startMs);
    span.endMs = Math.max(span.endMs, span.startMs);
  });

  // Groups: a timed word and the untimed words after it. Untimed words before the first timed word
  // take the time before it when there is some, else join its group in front of it. With no timed
  // word at all, the whole audio is one group.
  const groups: { from: number; to: number; startMs: number; endMs: number }[] = [];
  if (timed.length === 0) groups.push({ from: 0, to: words.length, startMs: 0, endMs: duration });
  timedIndexes.forEach((index, position) => {
    const span = timed[position] as { startMs: number; endMs: number };
    const to = timedIndexes[position + 1] ?? words.length;
    if (position === 0 && index > 0) {
      if (span.startMs >= index) groups.push({ from: 0, to: index, startMs: 0, endMs: span.startMs });
      else {
        groups.push({ from: 0, to, startMs: 0, endMs: span.endMs });
        return;
      }
    }
    groups.push({ from: index, to, startMs: span.startMs, endMs: span.endMs });
  });

  const timings: WordTiming[] = [];
  let previousEnd = 0;
  for (const group of groups) {
    const count = group.to - group.from;
    const startMs = Math.max(group.startMs, previousEnd);
    // A span too short for its words takes what they need from the silence (or the word) after it.
    const endMs =
      Math.max(group.endMs, startMs) - startMs >= count ? group.endMs : Math.min(duration, startMs + count);
    const members = words.slice(group.from, group.to);
    const total = members.reduce((sum, word) => sum + weight(word), 0);
    // Boundaries in proportion to length, then nudged so that each word gets at least 1 ms when the
    // span has room for it.
    const bounds = [startMs];
    let cumulative = 0;
    for (const word of members) {
      cumulative += weight(word);
      bounds.push(Math.round(startMs + ((endMs - startMs) * cumulative) / total));
    }
    if (endMs - startMs >= count) {
      for (let i = 1; i < bounds.length; i++)
        bounds[i] = Math.max(bounds[i] as number, (bounds[i - 1] as number) + 1);
      for (let i = bounds.length - 2; i > 0; i--)
        bounds[i] = Math.min(bounds[i] as number, (bounds[i + 1] as number) - 1);
    }
    members.forEach((word, offset) => {
      timings.push({
        word: word.word,
        startMs: bounds[offset] as number,
        endMs: bounds[offset + 1] as number,
        textOffset: word.textOffset,
        textLength: word.textLength,
      });
    });
    previousEnd = Math.max(previousEnd, endMs);
  }
  return timings;
}
