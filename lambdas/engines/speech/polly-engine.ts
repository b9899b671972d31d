/**
 * The AWS speech engine: Amazon Polly. Each request is synthesized twice with the same SSML, voice and
 * Polly engine: once as 16 kHz signed 16-bit little-endian mono PCM (wrapped into a WAV file) and once
 * as JSON `word` and `viseme` speech marks (one request), which Polly documents as aligned with the
 * audio of the same input. Viseme marks become the viseme track (visemes.ts, `POLLY_VISEMES`): each
 * lasts until the next mark of its chunk, the last until the chunk's audio ends.
 *
 * Voices: `voices()` lists Polly's voices (DescribeVoices, every page) that speak with at least one of
 * the configured Polly engines, as `polly-<VoiceId>` (`polly-Joanna`). `synthesize` takes that id or
 * the plain Polly VoiceId (`Joanna`), so catalogs can map stock voices straight to Polly voice ids;
 * an exact match wins, else the id is matched case-insensitively.
 *
 * Polly engine: each voice speaks with the first engine of the configured preference list
 * (`POLLY_ENGINES`, default `neural`, then `standard`; `long-form` may be added) that it supports.
 * `generative` is never used: Polly gives no speech marks for it. Only the standard engine can
 * change pitch: a request with a pitch offset uses the voice's standard engine when it has one (and
 * `standard` is configured); otherwise it fails with `invalid_input`.
 *
 * Settings (see speech-engine.ts for the shared units) become one `<prosody>` element around the text:
 * - speed: `rate` = round(100 * speed) percent (0.5 → `50%`, 2 → `200%`; Polly takes 20% to 200%).
 * - pitch: one step is 0.12 semitone, so ±50 is ±6 semitones (half an octave); Polly takes a relative
 *   change in percent: round((2^(pitch * 0.12 / 12) - 1) * 100), so +50 → `+41%`, -50 → `-29%`,
 *   +10 → `+7%`. Offsets that round to 0% leave the pitch alone.
 * - volume: gain → `round(20 * log10(gain))` dB (2 → `+6dB`, 0.5 → `-6dB`); gain 0 → `silent`.
 * Attributes at their neutral value are left out, and so is the element when all are.
 * - intonation: Polly's SSML has no control of the pitch range; any value but 1 fails with `invalid_input`.
 *
 * Text: sent as SSML, with `&`, `<`, `>` escaped and characters XML cannot carry (control characters,
 * lone surrogates, U+FFFE/U+FFFF) replaced by spaces. Speech marks give byte offsets into the UTF-8
 * SSML; each byte is mapped back to the request text's UTF-16 offsets, so every word is exactly
 * `text.slice(textOffset, textOffset + textLength)`.
 *
 * Long text: Polly bills and accepts at most 3,000 characters of text per request. Longer text is split
 * into chunks of at most 3,000 characters (counting escaped characters as sent, so never over the limit)
 * at sentence boundaries (`Intl.Segmenter`), a sentence longer than that at word boundaries, a word
 * longer than that anywhere. Chunks are synthesized (two at a time), their audio concatenated and their
 * word timings shifted by the audio before them. Each chunk carries Polly's own leading and trailing
 * silence, which sounds like a sentence break.
 *
 * Word ends: Polly only gives start times. A word ends where the next word of its chunk starts (or
 * its chunk's audio ends), moved back over trailing silence: to 10 ms after the last 10 ms frame before
 * that boundary whose peak reaches 2% of the chunk's peak (about -34 dB). Pauses after a word are
 * therefore not part of it.
 *
 * Errors: `InvalidSsmlException` and `TextLengthExceededException` → `invalid_input`; an unknown voice
 * (ours, or Polly's `ValidationException` about the voice) → `voice_not_found`; throttling, 5xx,
 * network, credential and access errors, and any failure to list voices → `engine_unavailable`;
 * anything else → `synthesis_failed`. The SDK's own retries run first; the Polly error is the `cause`.
 */
import {
  DescribeVoicesCommand,
  type Engine,
  PollyClient,
  SynthesizeSpeechCommand,
  type SynthesizeSpeechCommandInput,
  type Voice,
} from '@aws-sdk/client-polly';
import pLimit from 'p-limit';
import { configuredClient } from '../../core/aws-clients.js';
import { alignScriptWords } from './script-words.js';
import {
  type EngineVoice,
  type NormalizedSettings,
  type SpeechEngine,
  SpeechEngineError,
  type SpeechFailureCode,
  type SynthesisRequest,
  type SynthesisResult,
  validateSynthesisRequest,
  type WordTiming,
} from './speech-engine.js';
import { normalizeVisemeCues, pollyVisemeCues, type VisemeCue } from './visemes.js';
import { encodeWavPcm16 } from './wav.js';

export const POLLY_ENGINE_NAME = 'polly';
/** Prefix of the engine voice ids: `polly-Joanna`. */
export const POLLY_VOICE_PREFIX = 'polly-';
/** Polly's PCM output: 16 kHz (the highest PCM rate every Polly engine offers), 16-bit, mono. */
export const POLLY_SAMPLE_RATE = 16_000;
/** Polly's limit of billed text characters per SynthesizeSpeech request. */
export const POLLY_MAX_REQUEST_CHARACTERS = 3000;
/** The Polly engines this engine can use: not `generative`, for which Polly gives no speech marks. */
export type PollyEngineType = Exclude<Engine, 'generative'>;
/** Polly engines in order of preference. */
export const DEFAULT_POLLY_ENGINES: readonly PollyEngineType[] = ['neural', 'standard'];
/** Semitones of one pitch step: ±50 is ±6 semitones. */
export const POLLY_SEMITONES_PER_PITCH_STEP = 0.12;

export interface PollyEngineOptions {
  /** @default a traced `PollyClient` for the process's region, created on first use */
  client?: PollyClient;
  /**
   * Polly engines to use, in order of preference; not `generative`, which gives no speech marks.
   * @default DEFAULT_POLLY_ENGINES
   */
  engines?: readonly PollyEngineType[];
  /** Longest chunk of text per SynthesizeSpeech call, counted as sent (escaped). @default 3000 */
  maxChunkCharacters?: number;
  /** Chunks synthesized at the same time (each is two Polly calls). @default 2 */
  concurrency?: number;
}

// ---------------------------------------------------------------------------------------------------
// Settings

/** The `<prosody>` attributes of a request; an attribute at its neutral value is absent. */
export interface PollyProsody {
  rate?: string;
  pitch?: string;
  volume?: string;
}

const signed = (value: number, unit: string) => `${value > 0 ? '+' : ''}${value}${unit}`;

/** The prosody attributes for validated settings (the mapping is in the module comment). */
export function pollyProsody(settings: Omit<NormalizedSettings, 'intonation'>): PollyProsody {
  const prosody: PollyProsody = {};
  const rate = Math.round(settings.speed * 100);
  if (rate !== 100) prosody.rate = `${rate}%`;
  const pitch = Math.round((2 ** ((settings.pitch * POLLY_SEMITONES_PER_PITCH_STEP) / 12) - 1) * 100);
  if (pitch !== 0) prosody.pitch = signed(pitch, '%');
  if (settings.volume === 0) prosody.volume = 'silent';
  else {
    const decibels = Math.round(20 * Math.log10(settings.volume));
    if (decibels !== 0) prosody.volume = signed(decibels, 'dB');
  }
  return prosody;
}

// ---------------------------------------------------------------------------------------------------
// SSML

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** Characters XML 1.0 cannot carry: C0 controls other than tab and line breaks, lone surrogates, U+FFFE/F. */
function notXml(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return (
    (code < 0x20 && code !== 0x09 && code !== 0x0a && code !== 0x0d) ||
    (code >= 0xd800 && code <= 0xdfff) ||
    code === 0xfffe ||
    code === 0xffff
  );
}

/** What one character of the text becomes in the SSML. */
function ssmlOf(char: string): string {
  return ENTITIES[char] ?? (notXml(char) ? ' ' : char);
}

/** Bytes of one code point in UTF-8. */
function utf8Length(char: string): number {
  const code = char.codePointAt(0) ?? 0;
  return code < 0x80 ? 1 : code < 0x800 ? 2 : code < 0x10000 ? 3 : 4;
}

export interface PollySsml {
  /** The SSML document sent to Polly. */
  ssml: string;
  /**
   * The request-text span (UTF-16 offsets into the text the SSML was built from) of the SSML's UTF-8
   * bytes `[startByte, endByte)`; undefined when they hold no text (only markup).
   */
  textSpan(startByte: number, endByte: number): { start: number; end: number } | undefined;
}

/** `<speak>`, the prosody element when there is one, and the escaped text. */
export function buildPollySsml(text: string, prosody: PollyProsody): PollySsml {
  const attributes = (['rate', 'pitch', 'volume'] as const)
    .filter((key) => prosody[key] !== undefined)
    .map((key) => ` ${key}="${prosody[key]}"`)
    .join('');
  const head = attributes ? `<speak><prosody${attributes}>` : '<speak>';
  const tail = attributes ? '</prosody></speak>' : '</speak>';
  let body = '';
  // For each byte of the body: where the character it belongs to starts and ends in `text`.
  const starts: number[] = [];
  const ends: number[] = [];
  let offset = 0;
  for (const char of text) {
    const replacement = ssmlOf(char);
    body += replacement;
    for (const part of replacement) {
      for (let byte = utf8Length(part); byte > 0; byte--) {
        starts.push(offset);
        ends.push(offset + char.length);
      }
    }
    offset += char.length;
  }
  const bodyStart = head.length; // markup is ASCII: one byte per character
  const bodyEnd = bodyStart + starts.length;
  return {
    ssml: head + body + tail,
    textSpan(startByte, endByte) {
      const from = Math.max(startByte, bodyStart) - bodyStart;
      const to = Math.min(endByte, bodyEnd) - bodyStart;
      if (!(to > from)) return undefined;
      return { start: starts[from] ?? 0, end: ends[to - 1] ?? 0 };
    },
  };
}

// ---------------------------------------------------------------------------------------------------
// Long text

export interface TextChunk {
  /** UTF-16 offset of the chunk in the request text. */
  offset: number;
  text: string;
}

/** Characters `text` takes in the SSML body (escaped), in UTF-16 units: never fewer than Polly bills. */
function sentLength(text: string): number {
  let length = 0;
  for (const char of text) length += ssmlOf(char).length;
  return length;
}

const GRANULARITIES = ['sentence', 'word', 'grapheme'] as const;
const segmenters = GRANULARITIES.map((granularity) => new Intl.Segmenter(undefined, { granularity }));

/**
 * Splits text into consecutive chunks of at most `maxCharacters` characters as sent (escaped): whole
 * sentences where they fit; a sentence too long for one chunk starts a new chunk and is split into
 * whole words, a word too long into grapheme clusters. Chunks of whitespace only are dropped.
 */
export function splitPollyText(text: string, maxCharacters: number): TextChunk[] {
  if (!Number.isInteger(maxCharacters) || maxCharacters < 8) {
    throw new RangeError(`maxCharacters must be an integer of at least 8, got ${maxCharacters}`);
  }
  const chunks: TextChunk[] = [];
  let start = -1;
  let end = -1;
  let length = 0;
  const flush = () => {
    if (start >= 0) chunks.push({ offset: start, text: text.slice(start, end) });
    start = -1;
    length = 0;
  };
  const add = (offset: number, piece: string, level: number) => {
    const pieceLength = sentLength(piece);
    const finer = segmenters[level + 1];
    if (pieceLength > maxCharacters && finer) {
      // The piece starts a chunk of its own: sentence boundaries stay chunk boundaries where they can.
      flush();
      for (const part of finer.segment(piece)) add(offset + part.index, part.segment, level + 1);
      return;
    }
    if (length + pieceLength > maxCharacters) flush();
    if (start < 0) start = offset;
    end = offset + piece.length;
    length += pieceLength;
    // A grapheme cluster longer than a chunk (thousands of combining marks) becomes a chunk of its own.
    if (length > maxCharacters) flush();
  };
  for (const sentence of segmenters[0]?.segment(text) ?? []) add(sentence.index, sentence.segment, 0);
  flush();
  return chunks.filter((chunk) => chunk.text.trim() !== '');
}

// ---------------------------------------------------------------------------------------------------
// Word timings

export interface PollySpeechMark {
  time: number;
  type: string;
  start: number;
  end: number;
  value: string;
}

/**
 * Polly's line-delimited JSON speech marks. `viseme` marks carry no byte offsets: theirs are 0.
 */
export function parseSpeechMarks(json: string): PollySpeechMark[] {
  const marks: PollySpeechMark[] = [];
  for (const line of json.split('\n')) {
    if (line.trim() === '') continue;
    const mark = JSON.parse(line) as Partial<PollySpeechMark>;
    if (typeof mark.time !== 'number' || typeof mark.type !== 'string') continue;
    if (mark.type === 'viseme') {
      marks.push({ time: mark.time, type: mark.type, start: 0, end: 0, value: `${mark.value}` });
    } else if (typeof mark.start === 'number' && typeof mark.end === 'number') {
      marks.push({
        time: mark.time,
        type: mark.type,
        start: mark.start,
        end: mark.end,
        value: `${mark.value}`,
      });
    }
  }
  return marks;
}

const FRAME_MS = 10;
const SILENCE_RATIO = 0.02;
/** Below this peak a chunk is treated as silent (volume 0): nothing to trim by. */
const MIN_PEAK = 200;

/** Where sound ends before `toMs`: 10 ms after the last loud frame in `[fromMs, toMs)`, else `toMs`. */
function soundEndMs(
  samples: Int16Array,
  sampleRate: number,
  fromMs: number,
  toMs: number,
  threshold: number,
) {
  const frame = Math.max(1, Math.round((FRAME_MS * sampleRate) / 1000));
  const first = Math.max(0, Math.floor((fromMs * sampleRate) / 1000));
  let end = Math.min(samples.length, Math.ceil((toMs * sampleRate) / 1000));
  while (end > first) {
    const begin = Math.max(first, end - frame);
    for (let i = begin; i < end; i++) {
      if (Math.abs(samples[i] ?? 0) >= threshold) {
        return Math.min(toMs, ((end + frame) * 1000) / sampleRate);
      }
    }
    end = begin;
  }
  return toMs;
}

/** A word of one chunk: times in ms from the chunk's first sample (fractional), offsets in the chunk. */
interface ChunkWord {
  startMs: number;
  endMs: number;
  textOffset: number;
  textEnd: number;
}

const encoder = new TextEncoder();

const XML_ENTITIES: Record<string, string> = { amp: '&', lt: '<', gt: '>', quot: '"', apos: "'" };
const unescapeXml = (text: string) =>
  text.replace(/&(amp|lt|gt|quot|apos);/g, (_, name: string) => XML_ENTITIES[name] ?? '');

/**
 * Word timings of one synthesized chunk from its `word` speech marks, its SSML and its audio. A mark
 * whose bytes do not hold its value is looked up by value after the previous word (a guard against
 * offsets counted from elsewhere); marks inside the same text as the previous word extend it.
 */
export function chunkWordTimings(
  marks: readonly PollySpeechMark[],
  text: string,
  ssml: PollySsml,
  samples: Int16Array,
  sampleRate: number,
): ChunkWord[] {
  const bytes = Buffer.from(encoder.encode(ssml.ssml));
  const durationMs = (samples.length * 1000) / sampleRate;
  const words: ChunkWord[] = [];
  let cursor = 0;
  for (const mark of [...marks].filter((m) => m.type === 'word').sort((a, b) => a.time - b.time)) {
    let { start, end } = mark;
    const marked = unescapeXml(bytes.subarray(start, end).toString('utf8'));
    if (marked !== mark.value && unescapeXml(mark.value) !== marked && mark.value !== '') {
      const found = bytes.indexOf(mark.value, cursor, 'utf8');
      if (found >= 0) {
        start = found;
        end = found + Buffer.byteLength(mark.value);
      }
    }
    const span = ssml.textSpan(start, end);
    if (!span) continue;
    // Trim whitespace that the span may include.
    let from = span.start;
    let to = span.end;
    while (from < to && /\s/.test(text[from] ?? '')) from++;
    while (to > from && /\s/.test(text[to - 1] ?? '')) to--;
    if (to <= from) continue;
    cursor = Math.max(cursor, end);
    const previous = words.at(-1);
    if (previous && from < previous.textEnd) {
      previous.textEnd = Math.max(previous.textEnd, to);
      continue;
    }
    words.push({
      startMs: Math.max(0, Math.min(mark.time, durationMs)),
      endMs: 0,
      textOffset: from,
      textEnd: to,
    });
  }
  let peak = 0;
  for (const sample of samples) peak = Math.max(peak, Math.abs(sample));
  const threshold = Math.max(1, peak * SILENCE_RATIO);
  words.forEach((word, index) => {
    const boundary = Math.max(word.startMs, words[index + 1]?.startMs ?? durationMs);
    word.endMs =
      peak < MIN_PEAK ? boundary : soundEndMs(samples, sampleRate, word.startMs, boundary, threshold);
  });
  return words;
}

// ---------------------------------------------------------------------------------------------------
// Errors

const INVALID_INPUT_ERRORS = new Set(['InvalidSsmlException', 'TextLengthExceededException']);
const UNAVAILABLE_ERRORS = new Set([
  'ServiceFailureException',
  'ServiceQuotaExceededException',
  'ThrottlingException',
  'TooManyRequestsException',
  'RequestLimitExceeded',
  'ServiceUnavailable',
  'ServiceUnavailableException',
  'InternalFailure',
  'AccessDeniedException',
  'UnrecognizedClientException',
  'InvalidSignatureException',
  'InvalidClientTokenId',
  'ExpiredTokenException',
  'CredentialsProviderError',
  'TimeoutError',
  'RequestTimeout',
  'RequestTimeoutException',
]);
const NETWORK_CODES = new Set([
  'ECONNREFUSED',
  'ECONNRESET',
  'ENOTFOUND',
  'ETIMEDOUT',
  'EAI_AGAIN',
  'EPIPE',
  'EHOSTUNREACH',
  'ENETUNREACH',
]);

interface AwsErrorShape {
  name?: unknown;
  message?: unknown;
  code?: unknown;
  $retryable?: unknown;
  $metadata?: { httpStatusCode?: number };
}

/** The failure code of an error from a Polly call (see the module comment). */
export function pollyFailureCode(error: unknown): SpeechFailureCode {
  if (error instanceof SpeechEngineError) return error.failureCode;
  const shape: AwsErrorShape = typeof error === 'object' && error !== null ? error : {};
  const name = typeof shape.name === 'string' ? shape.name : '';
  const message = typeof shape.message === 'string' ? shape.message : '';
  const status = shape.$metadata?.httpStatusCode;
  if (INVALID_INPUT_ERRORS.has(name)) return 'invalid_input';
  if (name === 'ValidationException' && /voice/i.test(message)) return 'voice_not_found';
  if (
    UNAVAILABLE_ERRORS.has(name) ||
    (typeof shape.code === 'string' && NETWORK_CODES.has(shape.code)) ||
    shape.$retryable ||
    status === 429 ||
    (status !== undefined && status >= 500)
  ) {
    return 'engine_unavailable';
  }
  return 'synthesis_failed';
}

/** A SpeechEngineError for an error of a Polly call, keeping it as the cause. */
export function pollyError(error: unknown, voiceId: string): SpeechEngineError {
  if (error instanceof SpeechEngineError) return error;
  const failureCode = pollyFailureCode(error);
  const detail =
    error instanceof Error ? `${error.name}: ${error.message}` : `${String(error) || 'unknown error'}`;
  const message = {
    invalid_input: `Amazon Polly rejected the text (${detail})`,
    voice_not_found: `Amazon Polly has no voice ${voiceId} (${detail})`,
    engine_unavailable: `Amazon Polly is unavailable (${detail})`,
    synthesis_failed: `Amazon Polly could not synthesize the text (${detail})`,
  }[failureCode];
  return new SpeechEngineError(failureCode, message, { cause: error });
}

// ---------------------------------------------------------------------------------------------------
// The engine

interface PollyVoiceEntry {
  voice: EngineVoice;
  pollyId: string;
  /** The configured engines the voice supports, in order of preference. */
  engines: PollyEngineType[];
}

function engineVoice(voice: Voice & { Id: string }): EngineVoice {
  return {
    id: `${POLLY_VOICE_PREFIX}${voice.Id}`,
    engine: POLLY_ENGINE_NAME,
    name: voice.Name ?? voice.Id,
    language: voice.LanguageCode ?? 'und',
    languageName: voice.LanguageName ?? voice.LanguageCode ?? 'Unknown',
    gender: voice.Gender === 'Female' ? 'female' : voice.Gender === 'Male' ? 'male' : 'unknown',
  };
}

async function bytesOf(body: unknown): Promise<Uint8Array> {
  if (body === undefined || body === null) return new Uint8Array();
  if (body instanceof Uint8Array) return body;
  const stream = body as { transformToByteArray?: () => Promise<Uint8Array> };
  if (typeof stream.transformToByteArray === 'function') return stream.transformToByteArray();
  if (typeof body === 'object' && Symbol.asyncIterator in body) {
    const parts: Uint8Array[] = [];
    for await (const part of body as AsyncIterable<Uint8Array | string>) {
      parts.push(typeof part === 'string' ? encoder.encode(part) : part);
    }
    return Buffer.concat(parts);
  }
  throw new TypeError('unexpected Polly response body');
}

/** Little-endian 16-bit PCM bytes as samples (a trailing odd byte is dropped). */
function pcmSamples(bytes: Uint8Array): Int16Array {
  const view = new DataView(bytes.buffer, bytes.byteOffset, bytes.byteLength);
  const samples = new Int16Array(Math.floor(bytes.byteLength / 2));
  for (let i = 0; i < samples.length; i++) samples[i] = view.getInt16(i * 2, true);
  return samples;
}

interface ChunkResult {
  samples: Int16Array;
  words: ChunkWord[];
  /** From the chunk's viseme marks: ms from the chunk's first sample (not normalised). */
  visemes: VisemeCue[];
}

class PollyEngine implements SpeechEngine {
  readonly name = POLLY_ENGINE_NAME;
  private client: PollyClient | undefined;
  private catalog: Promise<Map<string, PollyVoiceEntry>> | undefined;
  private readonly engines: readonly PollyEngineType[];
  private readonly maxChunkCharacters: number;
  private readonly concurrency: number;

  constructor(private readonly options: PollyEngineOptions = {}) {
    this.client = options.client;
    this.engines = options.engines?.length ? options.engines : DEFAULT_POLLY_ENGINES;
    this.maxChunkCharacters = options.maxChunkCharacters ?? POLLY_MAX_REQUEST_CHARACTERS;
    this.concurrency = Math.max(1, options.concurrency ?? 2);
  }

  async voices(): Promise<EngineVoice[]> {
    return [...(await this.voiceMap()).values()]
      .filter((entry) => entry.engines.length > 0)
      .map((entry) => ({ ...entry.voice }));
  }

  async synthesize(request: SynthesisRequest): Promise<SynthesisResult> {
    const settings = validateSynthesisRequest(request);
    if (settings.intonation !== 1) {
      throw new SpeechEngineError(
        'invalid_input',
        'Amazon Polly cannot change the intonation (pitch range) of a voice: use intonation 1',
      );
    }
    const entry = await this.findVoice(request.voiceId);
    const prosody = pollyProsody(settings);
    const engine = this.engineFor(entry, prosody.pitch !== undefined);
    const chunks = splitPollyText(request.text, this.maxChunkCharacters);
    const results = await pLimit(this.concurrency).map(chunks, (chunk) =>
      this.synthesizeChunk(chunk.text, entry.pollyId, engine, prosody),
    );

    const total = results.reduce((sum, result) => sum + result.samples.length, 0);
    if (total === 0)
      throw new SpeechEngineError('synthesis_failed', 'Amazon Polly produced no audio for this text');
    const samples = new Int16Array(total);
    const durationMs = Math.round((total * 1000) / POLLY_SAMPLE_RATE);
    const words: WordTiming[] = [];
    const visemes: VisemeCue[] = [];
    let at = 0;
    results.forEach((result, index) => {
      samples.set(result.samples, at);
      const shiftMs = (at * 1000) / POLLY_SAMPLE_RATE;
      const offset = chunks[index]?.offset ?? 0;
      for (const word of result.words) {
        const previousEnd = words.at(-1)?.endMs ?? 0;
        const startMs = Math.max(previousEnd, Math.min(durationMs, Math.round(shiftMs + word.startMs)));
        const endMs = Math.max(startMs, Math.min(durationMs, Math.round(shiftMs + word.endMs)));
        const textOffset = offset + word.textOffset;
        const textLength = word.textEnd - word.textOffset;
        words.push({
          word: request.text.slice(textOffset, textOffset + textLength),
          startMs,
          endMs,
          textOffset,
          textLength,
        });
      }
      for (const cue of result.visemes) {
        visemes.push({ ...cue, startMs: shiftMs + cue.startMs, endMs: shiftMs + cue.endMs });
      }
      at += result.samples.length;
    });
    return {
      audio: encodeWavPcm16(samples, POLLY_SAMPLE_RATE),
      sampleRate: POLLY_SAMPLE_RATE,
      durationMs,
      // Polly marks what it speaks, which is not always every word of the text (symbols it skips,
      // tokens it reads as one): the script's words are what callers caption.
      words: alignScriptWords(request.text, words, durationMs),
      visemes: normalizeVisemeCues(visemes, durationMs),
    };
  }

  async close(): Promise<void> {
    if (this.client && !this.options.client) this.client.destroy();
    this.client = this.options.client;
  }

  private polly(): PollyClient {
    if (!this.client) {
      this.client = configuredClient(new PollyClient({}));
    }
    return this.client;
  }

  private async synthesizeChunk(
    text: string,
    voiceId: string,
    engine: PollyEngineType,
    prosody: PollyProsody,
  ): Promise<ChunkResult> {
    const ssml = buildPollySsml(text, prosody);
    const common: SynthesizeSpeechCommandInput = {
      Engine: engine,
      VoiceId: voiceId as SynthesizeSpeechCommandInput['VoiceId'],
      Text: ssml.ssml,
      TextType: 'ssml',
      OutputFormat: 'pcm',
    };
    const client = this.polly();
    const fetch = async (input: SynthesizeSpeechCommandInput) =>
      bytesOf((await client.send(new SynthesizeSpeechCommand(input))).AudioStream);
    try {
      const [audio, marks] = await Promise.all([
        fetch({ ...common, SampleRate: String(POLLY_SAMPLE_RATE) }),
        fetch({ ...common, OutputFormat: 'json', SpeechMarkTypes: ['word', 'viseme'] }),
      ]);
      const samples = pcmSamples(audio);
      let parsed: PollySpeechMark[];
      try {
        parsed = parseSpeechMarks(new TextDecoder().decode(marks));
      } catch (error) {
        throw new SpeechEngineError('synthesis_failed', 'Amazon Polly returned unreadable speech marks', {
          cause: error,
        });
      }
      const chunkMs = (samples.length * 1000) / POLLY_SAMPLE_RATE;
      return {
        samples,
        words: chunkWordTimings(parsed, text, ssml, samples, POLLY_SAMPLE_RATE),
        visemes: pollyVisemeCues(
          parsed.filter((mark) => mark.type === 'viseme'),
          chunkMs,
        ),
      };
    } catch (error) {
      throw pollyError(error, voiceId);
    }
  }

  private engineFor(entry: PollyVoiceEntry, needsPitch: boolean): PollyEngineType {
    const preferred = entry.engines[0];
    if (!preferred) {
      throw new SpeechEngineError(
        'voice_not_found',
        `Amazon Polly voice ${entry.pollyId} speaks with none of the configured Polly engines (${this.engines.join(', ')})`,
      );
    }
    if (!needsPitch || preferred === 'standard') return preferred;
    if (entry.engines.includes('standard')) return 'standard';
    throw new SpeechEngineError(
      'invalid_input',
      `Amazon Polly voice ${entry.pollyId} speaks with the ${preferred} engine, which cannot change pitch: use pitch 0 or a voice with a standard engine`,
    );
  }

  private async findVoice(voiceId: string): Promise<PollyVoiceEntry> {
    const catalog = await this.voiceMap();
    const id = voiceId.startsWith(POLLY_VOICE_PREFIX) ? voiceId.slice(POLLY_VOICE_PREFIX.length) : voiceId;
    const lower = id.toLowerCase();
    const entry =
      catalog.get(id) ?? [...catalog.values()].find((candidate) => candidate.pollyId.toLowerCase() === lower);
    if (!entry) {
      throw new SpeechEngineError('voice_not_found', `the ${this.name} engine has no voice ${voiceId}`);
    }
    return entry;
  }

  private voiceMap(): Promise<Map<string, PollyVoiceEntry>> {
    if (!this.catalog) {
      this.catalog = this.describeVoices().then((voices) => {
        const entries = voices.map((voice): PollyVoiceEntry => {
          const supported = new Set<string>(voice.SupportedEngines ?? []);
          return {
            voice: engineVoice(voice),
            pollyId: voice.Id,
            engines: this.engines.filter((engine) => supported.has(engine)),
          };
        });
        entries.sort((a, b) => (a.voice.id < b.voice.id ? -1 : a.voice.id > b.voice.id ? 1 : 0));
        return new Map(entries.map((entry) => [entry.pollyId, entry]));
      });
      // A failed load is retried by the next call.
      this.catalog.catch(() => {
        this.catalog = undefined;
      });
    }
    return this.catalog;
  }

  private async describeVoices(): Promise<(Voice & { Id: string })[]> {
    const voices: (Voice & { Id: string })[] = [];
    const seen = new Set<string>();
    let token: string | undefined;
    try {
      do {
        const page = await this.polly().send(new DescribeVoicesCommand({ NextToken: token }));
        for (const voice of page.Voices ?? []) {
          if (voice.Id) voices.push({ ...voice, Id: voice.Id });
        }
        token = page.NextToken || undefined;
        if (token && seen.has(token)) break;
        if (token) seen.add(token);
      } while (token);
    } catch (error) {
      const detail = error instanceof Error ? `${error.name}: ${error.message}` : String(error);
      throw new SpeechEngineError('engine_unavailable', `cannot list Amazon Polly voices (${detail})`, {
        cause: error,
      });
    }
    return voices;
  }
}

/** A new Amazon Polly engine; its client is created on first use. */
export function createPollyEngine(options?: PollyEngineOptions): SpeechEngine {
  return new PollyEngine(options);
}
