/**
 * The SSML subset of `POST /v3/voices/speech` (`input_type: "ssml"`), parsed into what the speech
 * engines are asked for: runs of plain text with a speaking rate, and pauses. Every engine speaks it
 * the same way, because the service synthesizes each run itself and joins them with silence (eSpeak
 * has no SSML of its own here, and Polly's would give different timings).
 *
 * Supported, inside one `<speak>` root (an `<?xml …?>` declaration may come first):
 * - `<break time="750ms"/>`, `<break time="1.5s"/>` (at most 5 s each), or `<break strength="…"/>`
 *   (`none` 0, `x-weak` 100 ms, `weak` 250 ms, `medium` 400 ms, `strong` 750 ms, `x-strong` 1.2 s);
 *   a bare `<break/>` is `medium`;
 * - `<prosody rate="…">`: `x-slow` (0.6), `slow` (0.8), `medium` (1), `fast` (1.25), `x-fast` (1.5),
 *   `default` (1), or a percentage of the normal rate (`80%`, 20% to 200%; `+10%`, `-20%` relative).
 *   Nested rates multiply; the result times the request's and the voice's speed is kept within 0.5–2;
 * - `<p>` and `<s>`: a paragraph ends with a 500 ms pause, a sentence ends its run of text;
 * - the XML entities `&amp; &lt; &gt; &quot; &apos;` and character references (`&#233;`, `&#xE9;`).
 *
 * Anything else (other elements, other attributes, comments, CDATA, unbalanced tags) is refused with
 * a message that names it: the caller answers 400 naming the request field.
 */
import { isSpeakable } from './speakable-text.js';

export type SpeechSegment = { kind: 'text'; text: string; rate: number } | { kind: 'break'; ms: number };

/** The SSML (or text) cannot be spoken as given; the message says why, for the user. */
export class SsmlError extends Error {
  override readonly name = 'SsmlError';
}

/** Longest pause one `<break>` may ask for (the spec's limit). */
export const MAX_BREAK_MS = 5000;
/** Most pauses and runs of text one request may have. */
export const MAX_SEGMENTS = 200;
/** Most silence one request may ask for in all. */
export const MAX_TOTAL_BREAK_MS = 120_000;

const BREAK_STRENGTHS: Readonly<Record<string, number>> = {
  none: 0,
  'x-weak': 100,
  weak: 250,
  medium: 400,
  strong: 750,
  'x-strong': 1200,
};
const NAMED_RATES: Readonly<Record<string, number>> = {
  'x-slow': 0.6,
  slow: 0.8,
  medium: 1,
  default: 1,
  fast: 1.25,
  'x-fast': 1.5,
};
const PARAGRAPH_PAUSE_MS = 500;
const SUPPORTED = '<speak>, <break>, <prosody rate>, <p> and <s>';

const ENTITIES: Readonly<Record<string, string>> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };

/** Replaces XML entities and character references; refuses a bare `&` or an unknown entity. */
export function decodeXmlText(text: string): string {
  return text.replace(/&([^;\s&<]{0,12});?/g, (match, name: string) => {
    if (!match.endsWith(';')) throw new SsmlError(`"&" must be written "&amp;" in SSML (near "${match}")`);
    const named = ENTITIES[name];
    if (named !== undefined) return named;
    const numeric = /^#x([0-9a-f]{1,6})$/i.exec(name) ?? /^#([0-9]{1,7})$/.exec(name);
    if (numeric) {
      const code = Number.parseInt(
        numeric[1] as string,
        name.startsWith('#x') || name.startsWith('#X') ? 16 : 10,
      );
      const forbidden = code === 0 || (code >= 0xd800 && code <= 0xdfff) || code > 0x10ffff;
      if (!forbidden) return String.fromCodePoint(code);
    }
    throw new SsmlError(`unknown entity ${match} in SSML`);
  });
}

function parseBreakTime(value: string): number {
  const match = /^\s*(\d+(?:\.\d+)?)\s*(ms|s)\s*$/i.exec(value);
  if (!match) throw new SsmlError(`<break time="${value}"> must be a duration such as "500ms" or "1.5s"`);
  const amount = Number(match[1]);
  const ms = Math.round((match[2] as string).toLowerCase() === 's' ? amount * 1000 : amount);
  if (ms > MAX_BREAK_MS) {
    throw new SsmlError(
      `<break time="${value}"> is longer than ${MAX_BREAK_MS / 1000} seconds, the longest pause`,
    );
  }
  return ms;
}

function parseRate(value: string): number {
  const trimmed = value.trim().toLowerCase();
  const named = NAMED_RATES[trimmed];
  if (named !== undefined) return named;
  const match = /^([+-])?(\d+(?:\.\d+)?)%$/.exec(trimmed);
  if (match) {
    const amount = Number(match[2]);
    const rate = match[1] === '+' ? 1 + amount / 100 : match[1] === '-' ? 1 - amount / 100 : amount / 100;
    if (rate >= 0.2 && rate <= 2) return rate;
  }
  throw new SsmlError(
    `<prosody rate="${value}"> must be x-slow, slow, medium, fast, x-fast or a percentage from 20% to 200%`,
  );
}

interface Tag {
  name: string;
  attributes: Record<string, string>;
  closing: boolean;
  selfClosing: boolean;
}

const NAME = '[A-Za-z_][A-Za-z0-9_.:-]*';
const ATTRIBUTE = new RegExp(`^\\s+(${NAME})\\s*=\\s*("[^"<]*"|'[^'<]*')`);

function parseTag(source: string): Tag {
  const closing = source.startsWith('</');
  const body = source.slice(closing ? 2 : 1, source.endsWith('/>') ? -2 : -1);
  const selfClosing = !closing && source.endsWith('/>');
  const nameMatch = new RegExp(`^${NAME}`).exec(body);
  if (!nameMatch) throw new SsmlError(`malformed tag ${source.slice(0, 40)}`);
  const name = nameMatch[0];
  let rest = body.slice(name.length);
  const attributes: Record<string, string> = {};
  for (;;) {
    const attribute = ATTRIBUTE.exec(rest);
    if (!attribute) break;
    const key = attribute[1] as string;
    if (Object.hasOwn(attributes, key)) throw new SsmlError(`<${name}> repeats the attribute ${key}`);
    attributes[key] = decodeXmlText((attribute[2] as string).slice(1, -1));
    rest = rest.slice(attribute[0].length);
  }
  if (rest.trim() !== '') throw new SsmlError(`malformed tag ${source.slice(0, 40)}`);
  if (closing && Object.keys(attributes).length > 0)
    throw new SsmlError(`malformed tag ${source.slice(0, 40)}`);
  return { name, attributes, closing, selfClosing };
}

function allowOnly(tag: Tag, allowed: readonly string[]): void {
  for (const attribute of Object.keys(tag.attributes)) {
    if (!allowed.includes(attribute) && !(tag.name === 'speak' && attribute.startsWith('xmlns'))) {
      throw new SsmlError(
        `<${tag.name} ${attribute}> is not supported${allowed.length > 0 ? ` (only ${allowed.join(', ')})` : ''}`,
      );
    }
  }
}

/** A pause as collected; `soft` ones (paragraph and sentence ends) are dropped at the very end. */
type Collected = { kind: 'text'; text: string; rate: number } | { kind: 'break'; ms: number; soft: boolean };

class SegmentList {
  readonly segments: Collected[] = [];
  private totalBreakMs = 0;

  text(raw: string, rate: number): void {
    const text = raw.replace(/\s+/g, ' ');
    if (text.trim() === '') {
      // Whitespace between words of two runs still separates them.
      const last = this.segments.at(-1);
      if (last?.kind === 'text' && text !== '' && !last.text.endsWith(' ')) last.text += ' ';
      return;
    }
    const last = this.segments.at(-1);
    if (last?.kind === 'text' && last.rate === rate) last.text += text;
    else this.push({ kind: 'text', text, rate });
  }

  /** Ends the current run of text, so that the next one is spoken on its own. */
  endRun(): void {
    const last = this.segments.at(-1);
    if (last?.kind === 'text') this.push({ kind: 'break', ms: 0, soft: true });
  }

  pause(ms: number, soft = false): void {
    this.totalBreakMs += ms;
    if (this.totalBreakMs > MAX_TOTAL_BREAK_MS) {
      throw new SsmlError(`the pauses add up to more than ${MAX_TOTAL_BREAK_MS / 1000} seconds`);
    }
    const last = this.segments.at(-1);
    if (last?.kind === 'break') {
      last.ms += ms;
      last.soft &&= soft;
    } else {
      this.push({ kind: 'break', ms, soft });
    }
  }

  private push(segment: Collected): void {
    if (this.segments.length >= MAX_SEGMENTS) {
      throw new SsmlError(`the SSML has more than ${MAX_SEGMENTS} runs of text and pauses`);
    }
    this.segments.push(segment);
  }

  finish(): SpeechSegment[] {
    const kept: Collected[] = [];
    for (const segment of this.segments) {
      if (segment.kind === 'text') {
        const text = segment.text.trim();
        if (text !== '') kept.push({ ...segment, text });
      } else if (segment.ms > 0 || kept.at(-1)?.kind === 'text') {
        kept.push(segment);
      }
    }
    // Runs split by zero-length breaks stay apart; a paragraph's or sentence's pause at the end goes.
    const last = kept.at(-1);
    if (last?.kind === 'break' && (last.soft || last.ms === 0)) kept.pop();
    return kept.map((segment) => (segment.kind === 'break' ? { kind: 'break', ms: segment.ms } : segment));
  }
}

/**
 * Parses the supported SSML subset into runs of text (rate multipliers) and pauses (ms), in order.
 * Zero-length breaks separate runs that are spoken on their own (sentence ends). Throws `SsmlError`.
 */
export function parseSsml(ssml: string): SpeechSegment[] {
  let source = ssml.replace(/^\uFEFF/, '').trim();
  const declaration = /^<\?xml\s[^?]*\?>/.exec(source);
  if (declaration) source = source.slice(declaration[0].length).trim();
  if (!source.startsWith('<speak')) throw new SsmlError('SSML must be one <speak> element');

  const list = new SegmentList();
  const stack: { name: string; rate: number }[] = [];
  let closedRoot = false;
  let index = 0;
  while (index < source.length) {
    const open = source.indexOf('<', index);
    const textEnd = open < 0 ? source.length : open;
    if (textEnd > index) {
      const text = source.slice(index, textEnd);
      if (stack.length === 0) {
        if (text.trim() !== '') throw new SsmlError('text outside the <speak> element');
      } else {
        list.text(decodeXmlText(text), stack.at(-1)?.rate ?? 1);
      }
    }
    if (open < 0) break;
    if (source.startsWith('<!--', open)) throw new SsmlError('comments are not supported in SSML');
    if (source.startsWith('<!', open) || source.startsWith('<?', open)) {
      throw new SsmlError(`${source.slice(open, open + 9)}… is not supported in SSML`);
    }
    const close = source.indexOf('>', open);
    if (close < 0) throw new SsmlError('a tag is not closed with ">"');
    const tag = parseTag(source.slice(open, close + 1));
    index = close + 1;

    if (closedRoot) throw new SsmlError('content after the closing </speak>');
    if (tag.closing) {
      const top = stack.pop();
      if (top?.name !== tag.name) {
        throw new SsmlError(`</${tag.name}> does not close ${top ? `<${top.name}>` : 'any element'}`);
      }
      if (tag.name === 'p') list.pause(PARAGRAPH_PAUSE_MS, true);
      if (tag.name === 's') list.endRun();
      if (stack.length === 0) closedRoot = true;
      continue;
    }
    if (stack.length === 0 && tag.name !== 'speak') throw new SsmlError('SSML must be one <speak> element');
    if (stack.length > 0 && tag.name === 'speak') throw new SsmlError('<speak> cannot be nested');
    const rate = stack.at(-1)?.rate ?? 1;
    switch (tag.name) {
      case 'speak':
        allowOnly(tag, ['version', 'xml:lang']);
        break;
      case 'break': {
        allowOnly(tag, ['time', 'strength']);
        if (!tag.selfClosing) throw new SsmlError('<break> must be empty: write <break time="500ms"/>');
        let ms = BREAK_STRENGTHS.medium as number;
        if (tag.attributes.strength !== undefined) {
          const strength = BREAK_STRENGTHS[tag.attributes.strength];
          if (strength === undefined) {
            throw new SsmlError(
              `<break strength="${tag.attributes.strength}"> must be one of ${Object.keys(BREAK_STRENGTHS).join(', ')}`,
            );
          }
          ms = strength;
        }
        if (tag.attributes.time !== undefined) ms = parseBreakTime(tag.attributes.time);
        list.pause(ms);
        continue;
      }
      case 'prosody': {
        allowOnly(tag, ['rate']);
        if (tag.attributes.rate === undefined) throw new SsmlError('<prosody> needs a rate attribute');
        const nested = rate * parseRate(tag.attributes.rate);
        if (!tag.selfClosing) stack.push({ name: 'prosody', rate: nested });
        continue;
      }
      case 'p':
      case 's':
        allowOnly(tag, []);
        list.endRun();
        break;
      default:
        throw new SsmlError(`<${tag.name}> is not supported; the supported SSML is ${SUPPORTED}`);
    }
    if (tag.selfClosing) {
      if (tag.name === 'speak') closedRoot = true;
      continue;
    }
    stack.push({ name: tag.name, rate });
  }
  if (stack.length > 0) throw new SsmlError(`<${stack.at(-1)?.name}> is not closed`);
  const segments = list.finish();
  if (!segments.some((segment) => segment.kind === 'text' && isSpeakable(segment.text))) {
    throw new SsmlError('the SSML has no words to speak');
  }
  return segments;
}
