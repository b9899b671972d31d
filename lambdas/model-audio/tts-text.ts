/**
 * The `text` of `POST /v3/models/audio/tts` (and `/tts/stream`): plain text, where a professional
 * voice may also pause with `<break time="0.5s"/>` (seconds or milliseconds, at most 5 s a pause).
 * Any other markup, and a break for an instant voice, is refused with 400 naming `text` and saying
 * where. Pure: no I/O.
 *
 * Markup is recognised the way an SSML parser would see it: `<` followed by a letter, `/`, `!` or `?`
 * opens a tag. A `<` before anything else (`3 < 5`, `<3`) is plain text and is spoken.
 *
 * The text is then cut into synthesis units, the pieces the speech engine speaks one at a time (and
 * the stream sends as soon as each is ready): sentences (Unicode sentence boundaries), grouped up to
 * `maxUnitCharacters` except the first, which is always one sentence so the first audio comes early.
 * `splitClauses` (the turbo model) also cuts long sentences after commas, semicolons and colons.
 */
import { InvalidParameterError } from '../core/errors.js';
import { requireSpeakableText } from '../voices/speakable-text.js';

export const MODEL_VOICE_MODES = ['instant', 'professional'] as const;
export type ModelVoiceMode = (typeof MODEL_VOICE_MODES)[number];

/** Longest pause one break may ask for (the spec's limit), in milliseconds. */
export const MAX_BREAK_MS = 5_000;

/** Longest `text`, in UTF-16 code units (JavaScript string length), markup included. */
export const MAX_TTS_TEXT_LENGTH = 5_000;

export type TextPart =
  | {
      kind: 'speech';
      /** The words to speak, exactly as in the request. */
      text: string;
      /** Where `text` starts in the request's `text`. */
      offset: number;
    }
  | { kind: 'pause'; ms: number };

const TAG_START = /<[A-Za-z/!?]/g;
/** A whole break tag: `<break time="0.5s"/>`, `<break time='500ms' />`. */
const BREAK_TAG = /^<break\s+time\s*=\s*(["'])\s*(\d+(?:\.\d+)?|\.\d+)\s*(s|ms)\s*\1\s*\/>/;
/** The start of something meant as a break, however malformed. */
const BREAK_LIKE = /^<\s*break\b/i;

function textError(message: string): InvalidParameterError {
  return new InvalidParameterError(`\`text\` ${message}`, 'text');
}

/** A short, printable quote of the markup at `at`, for messages. */
function quoteAt(text: string, at: number): string {
  const end = text.indexOf('>', at);
  const tag = end === -1 || end - at > 40 ? `${text.slice(at, at + 40)}…` : text.slice(at, end + 1);
  return JSON.stringify(tag);
}

/**
 * The parts of `text` for a voice of `mode`: the words to speak and the pauses between them.
 * @throws InvalidParameterError (param `text`) for markup the mode does not take, a bad or too long
 *   break, or text with nothing to speak (speakable-text.ts)
 */
export function parseTtsText(text: string, mode: ModelVoiceMode): TextPart[] {
  const parts: TextPart[] = [];
  let cursor = 0;
  const pushSpeech = (end: number) => {
    const words = text.slice(cursor, end);
    if (words.trim().length > 0) parts.push({ kind: 'speech', text: words, offset: cursor });
  };
  for (const match of text.matchAll(TAG_START)) {
    const at = match.index;
    if (at < cursor) continue;
    const rest = text.slice(at);
    if (!BREAK_LIKE.test(rest)) {
      throw textError(
        `contains markup (${quoteAt(text, at)} at character ${at}); only plain text is spoken${
          mode === 'professional' ? ", with <break time='0.5s'/> pauses" : ''
        }. Other SSML is not supported.`,
      );
    }
    if (mode === 'instant') {
      throw textError(
        `contains a break tag (${quoteAt(text, at)} at character ${at}); pauses are supported for professional voices only. Use punctuation for an instant voice.`,
      );
    }
    const tag = BREAK_TAG.exec(rest);
    if (!tag) {
      throw textError(
        `has a malformed break tag (${quoteAt(text, at)} at character ${at}); write <break time='0.5s'/> (seconds or milliseconds).`,
      );
    }
    const amount = Number(tag[2]);
    const ms = Math.round(tag[3] === 's' ? amount * 1000 : amount);
    if (ms > MAX_BREAK_MS) {
      throw textError(
        `asks for a ${ms / 1000} s pause (${quoteAt(text, at)} at character ${at}); a pause is at most ${MAX_BREAK_MS / 1000} s.`,
      );
    }
    pushSpeech(at);
    if (ms > 0) parts.push({ kind: 'pause', ms });
    cursor = at + tag[0].length;
  }
  pushSpeech(text.length);
  // Before any synthesis: text that is only emoji or invisible characters would give no audio at all.
  requireSpeakableText(parts.flatMap((part) => (part.kind === 'speech' ? [part.text] : [])));
  return parts;
}

export interface SynthesisUnit {
  /** The words of this unit, exactly as in the request. */
  text: string;
  /** Where `text` starts in the request's `text`. */
  offset: number;
}

export interface UnitOptions {
  /** Sentences are grouped into units of up to this many characters (a longer sentence is one unit). */
  maxUnitCharacters: number;
  /** Also cut sentences longer than `maxUnitCharacters` after clause punctuation. */
  splitClauses: boolean;
}

const sentenceSegmenter = new Intl.Segmenter(undefined, { granularity: 'sentence' });
/** After a comma, semicolon, colon or dash, before the next word. */
const CLAUSE_END = /[,;:\u2013\u2014\u3001\uff0c\uff1b](?=\s)/g;

function clauses(sentence: SynthesisUnit, max: number): SynthesisUnit[] {
  if (sentence.text.length <= max) return [sentence];
  const pieces: SynthesisUnit[] = [];
  let start = 0;
  for (const match of sentence.text.matchAll(CLAUSE_END)) {
    const end = match.index + 1;
    if (end - start < 12) continue; // too short to stand alone: keep it with what follows
    pieces.push({ text: sentence.text.slice(start, end), offset: sentence.offset + start });
    start = end;
  }
  pieces.push({ text: sentence.text.slice(start), offset: sentence.offset + start });
  return pieces.filter((piece) => piece.text.trim().length > 0);
}

/** The synthesis units of one speech part, in order; together they cover all of its words. */
export function synthesisUnits(
  part: { text: string; offset: number },
  options: UnitOptions,
): SynthesisUnit[] {
  const sentences: SynthesisUnit[] = [];
  for (const { segment, index } of sentenceSegmenter.segment(part.text)) {
    if (segment.trim().length === 0) {
      const last = sentences.at(-1);
      if (last) last.text += segment;
      continue;
    }
    const sentence = { text: segment, offset: part.offset + index };
    sentences.push(...(options.splitClauses ? clauses(sentence, options.maxUnitCharacters) : [sentence]));
  }
  const units: SynthesisUnit[] = [];
  for (const sentence of sentences) {
    const last = units.at(-1);
    // The first unit stays one sentence: it is what the first audio waits for.
    if (last && units.length >= 2 && last.text.length + sentence.text.length <= options.maxUnitCharacters) {
      last.text += sentence.text;
    } else {
      units.push({ ...sentence });
    }
  }
  return units;
}
