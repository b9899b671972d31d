import { Readable } from 'node:stream';
import {
  DescribeVoicesCommand,
  InvalidSsmlException,
  LexiconNotFoundException,
  PollyClient,
  ServiceFailureException,
  SynthesizeSpeechCommand,
  type SynthesizeSpeechCommandInput,
  TextLengthExceededException,
  ThrottlingException,
  ValidationException,
  type Voice,
} from '@aws-sdk/client-polly';
import { sdkStreamMixin } from '@smithy/core/serde';
import { mockClient } from 'aws-sdk-client-mock';
import { afterEach, beforeEach, describe, expect, it } from 'vitest';
import {
  buildPollySsml,
  createPollyEngine,
  type PollyEngineOptions,
  pollyFailureCode,
  pollyProsody,
  splitPollyText,
} from '../../../lambdas/engines/speech/polly-engine.js';
import {
  type SpeechEngine,
  SpeechEngineError,
  type SynthesisResult,
} from '../../../lambdas/engines/speech/speech-engine.js';
import { visemeAt } from '../../../lambdas/engines/speech/visemes.js';
import { decodeWavPcm16 } from '../../../lambdas/engines/speech/wav.js';

const polly = mockClient(PollyClient);

const VOICES: Voice[] = [
  {
    Id: 'Joanna',
    Name: 'Joanna',
    Gender: 'Female',
    LanguageCode: 'en-US',
    LanguageName: 'US English',
    SupportedEngines: ['neural', 'standard'],
  },
  {
    Id: 'Ruth',
    Name: 'Ruth',
    Gender: 'Female',
    LanguageCode: 'en-US',
    LanguageName: 'US English',
    SupportedEngines: ['neural', 'generative', 'long-form'],
  },
  {
    Id: 'Hans',
    Name: 'Hans',
    Gender: 'Male',
    LanguageCode: 'de-DE',
    LanguageName: 'German',
    SupportedEngines: ['standard'],
  },
  {
    Id: 'Danielle',
    Name: 'Danielle',
    Gender: 'Female',
    LanguageCode: 'en-US',
    LanguageName: 'US English',
    SupportedEngines: ['generative', 'long-form'],
  },
];

// The fake Polly: every whitespace-separated token of the SSML's text is a word. Word i starts at
// LEAD + i * STEP ms and sounds for SOUND ms (a loud square wave), then silence; the audio ends TAIL ms
// after the last word's step. Speech marks are computed from the SSML actually sent, as Polly does.
const LEAD = 50;
const STEP = 300;
const SOUND = 200;
const TAIL = 100;
const RATE = 16_000;
/** When a word's viseme marks open the mouth after its `p`. */
const VISEME_OPEN_AFTER = 60;

interface FakeWord {
  start: number;
  end: number;
  value: string;
}

/** Tokens of the SSML outside its tags, with UTF-8 byte offsets into the whole document. */
function ssmlWords(ssml: string): FakeWord[] {
  const words: FakeWord[] = [];
  const pattern = /<[^>]*>|[^\s<]+/g;
  for (const match of ssml.matchAll(pattern)) {
    if (match[0].startsWith('<')) continue;
    const start = Buffer.byteLength(ssml.slice(0, match.index));
    words.push({ start, end: start + Buffer.byteLength(match[0]), value: match[0] });
  }
  return words;
}

function fakePcm(wordCount: number, amplitude = 8000): Buffer {
  const ms = LEAD + wordCount * STEP + TAIL;
  const samples = Buffer.alloc(ms * (RATE / 1000) * 2);
  for (let word = 0; word < wordCount; word++) {
    const from = (LEAD + word * STEP) * (RATE / 1000);
    for (let i = 0; i < SOUND * (RATE / 1000); i++) {
      samples.writeInt16LE(i % 20 < 10 ? amplitude : -amplitude, (from + i) * 2);
    }
  }
  return samples;
}

function body(bytes: Buffer | string) {
  return sdkStreamMixin(Readable.from([Buffer.from(bytes)]));
}

const calls: SynthesizeSpeechCommandInput[] = [];

function fakeSynthesis(amplitude = 8000) {
  polly.on(SynthesizeSpeechCommand).callsFake((input: SynthesizeSpeechCommandInput) => {
    calls.push(input);
    const words = ssmlWords(input.Text ?? '');
    if (input.OutputFormat === 'json') {
      const marks = words.flatMap((word, index) => {
        const time = LEAD + index * STEP;
        const wordMark = JSON.stringify({ time, type: 'word', ...word });
        if (!input.SpeechMarkTypes?.includes('viseme')) return [wordMark];
        // Each word is seen as "ba" (Polly's `p` then `a`), then silence (`sil`).
        return [
          wordMark,
          JSON.stringify({ time, type: 'viseme', value: 'p' }),
          JSON.stringify({ time: time + VISEME_OPEN_AFTER, type: 'viseme', value: 'a' }),
          JSON.stringify({ time: time + SOUND, type: 'viseme', value: 'sil' }),
        ];
      });
      return { AudioStream: body(marks.join('\n')), ContentType: 'application/x-json-stream' };
    }
    return { AudioStream: body(fakePcm(words.length, amplitude)), ContentType: 'audio/pcm' };
  });
}

let engine: SpeechEngine;

function newEngine(options: Omit<PollyEngineOptions, 'client'> = {}): SpeechEngine {
  return createPollyEngine({ client: new PollyClient({ region: 'us-east-1' }), ...options });
}

beforeEach(() => {
  polly.reset();
  calls.length = 0;
  polly.on(DescribeVoicesCommand).resolves({ Voices: VOICES });
  engine = newEngine();
});

afterEach(async () => {
  await engine.close();
});

/** Every word is where it says it is, in order, inside the audio. */
function expectConsistent(result: SynthesisResult, text: string) {
  let previousEnd = 0;
  for (const word of result.words) {
    expect(text.slice(word.textOffset, word.textOffset + word.textLength)).toBe(word.word);
    expect(word.startMs).toBeGreaterThanOrEqual(previousEnd);
    expect(word.endMs).toBeGreaterThanOrEqual(word.startMs);
    expect(word.endMs).toBeLessThanOrEqual(result.durationMs);
    previousEnd = word.endMs;
  }
}

describe('Polly engine: audio and word timings', () => {
  it('wraps the PCM into a 16 kHz mono WAV whose duration comes from the PCM length', async () => {
    fakeSynthesis();
    const result = await engine.synthesize({ text: 'Hello world', voiceId: 'Joanna' });
    const wav = decodeWavPcm16(result.audio);
    expect(wav).toMatchObject({ format: 1, channels: 1, sampleRate: 16_000, bitsPerSample: 16 });
    const pcmBytes = fakePcm(2).length;
    expect(wav.samples.length).toBe(pcmBytes / 2);
    expect(result.sampleRate).toBe(16_000);
    expect(result.durationMs).toBe(pcmBytes / 32); // 32 bytes per ms at 16 kHz, 16-bit
    expect(result.durationMs).toBe(LEAD + 2 * STEP + TAIL);
    expect(wav.samples[LEAD * 16]).toBe(8000);

    // One PCM and one speech-mark call with the same SSML, voice and engine.
    expect(calls).toHaveLength(2);
    const pcm = calls.find((call) => call.OutputFormat === 'pcm');
    const json = calls.find((call) => call.OutputFormat === 'json');
    expect(pcm).toMatchObject({ SampleRate: '16000', TextType: 'ssml', VoiceId: 'Joanna', Engine: 'neural' });
    expect(json).toMatchObject({ SpeechMarkTypes: ['word', 'viseme'], TextType: 'ssml', Text: pcm?.Text });
    expect(json?.Engine).toBe('neural');
  });

  it('maps viseme speech marks to a viseme track that covers the audio', async () => {
    fakeSynthesis();
    const result = await engine.synthesize({ text: 'Hello world', voiceId: 'Joanna' });
    expect(result.visemes).toEqual([
      { startMs: 0, endMs: LEAD, viseme: 'rest' },
      { startMs: LEAD, endMs: LEAD + VISEME_OPEN_AFTER, viseme: 'closed' },
      { startMs: LEAD + VISEME_OPEN_AFTER, endMs: LEAD + SOUND, viseme: 'open_wide' },
      { startMs: LEAD + SOUND, endMs: LEAD + STEP, viseme: 'rest' },
      { startMs: LEAD + STEP, endMs: LEAD + STEP + VISEME_OPEN_AFTER, viseme: 'closed' },
      { startMs: LEAD + STEP + VISEME_OPEN_AFTER, endMs: LEAD + STEP + SOUND, viseme: 'open_wide' },
      { startMs: LEAD + STEP + SOUND, endMs: result.durationMs, viseme: 'rest' },
    ]);
  });

  it("shifts each chunk's visemes by the audio before it", async () => {
    fakeSynthesis();
    const chunked = newEngine({ maxChunkCharacters: 30 });
    const text = 'One two three four. Five six seven eight. Nine ten eleven twelve.';
    const result = await chunked.synthesize({ text, voiceId: 'Joanna' });
    await chunked.close();
    expect(calls.filter((call) => call.OutputFormat === 'json').length).toBeGreaterThan(2);
    expect(result.words).toHaveLength(12);
    for (const word of result.words) {
      expect(visemeAt(result.visemes, word.startMs)).toBe('closed');
      expect(visemeAt(result.visemes, word.startMs + VISEME_OPEN_AFTER + 10)).toBe('open_wide');
      expect(visemeAt(result.visemes, word.startMs + SOUND + 10)).toBe('rest');
    }
    expect(result.visemes[0]?.startMs).toBe(0);
    expect(result.visemes.at(-1)?.endMs).toBe(result.durationMs);
    result.visemes.slice(1).forEach((cue, index) => {
      expect(cue.startMs).toBe(result.visemes[index]?.endMs);
    });
  });

  it('gives each word its mark time and ends it where its sound ends, not at the next word', async () => {
    fakeSynthesis();
    const text = 'Hello   world again';
    const result = await engine.synthesize({ text, voiceId: 'polly-Joanna' });
    expect(result.words).toEqual([
      { word: 'Hello', startMs: LEAD, endMs: LEAD + SOUND + 10, textOffset: 0, textLength: 5 },
      { word: 'world', startMs: LEAD + STEP, endMs: LEAD + STEP + SOUND + 10, textOffset: 8, textLength: 5 },
      {
        word: 'again',
        startMs: LEAD + 2 * STEP,
        endMs: LEAD + 2 * STEP + SOUND + 10,
        textOffset: 14,
        textLength: 5,
      },
    ]);
    expectConsistent(result, text);
  });

  it('ends words at the next word (or the audio end) when the audio is silent', async () => {
    fakeSynthesis(0);
    const result = await engine.synthesize({ text: 'Hello world', voiceId: 'Joanna', volume: 0 });
    expect(result.words.map((word) => [word.startMs, word.endMs])).toEqual([
      [LEAD, LEAD + STEP],
      [LEAD + STEP, result.durationMs],
    ]);
  });

  it('maps UTF-8 byte offsets back to UTF-16 offsets of non-ASCII text', async () => {
    fakeSynthesis();
    const text = 'Grüße aus Köln — naïve café 😀 日本語テキスト Ελληνικά\u0301 end';
    const result = await engine.synthesize({ text, voiceId: 'Joanna' });
    expect(result.words.map((word) => word.word)).toEqual([
      'Grüße',
      'aus',
      'Köln',
      'naïve',
      'café',
      '😀',
      '日本語',
      'テキスト',
      'Ελληνικά\u0301',
      'end',
    ]);
    // Words are the script's (script-words.ts): the dash is no word, Japanese is cut into words.
    expect(result.words[5]).toMatchObject({ textOffset: text.indexOf('😀'), textLength: 2 });
    expect(result.words[9]).toMatchObject({ textOffset: text.length - 3, textLength: 3 });
    expectConsistent(result, text);
  });

  it('times every word of the text when Polly marks fewer, each for a while', async () => {
    polly.on(SynthesizeSpeechCommand).callsFake((input: SynthesizeSpeechCommandInput) => {
      calls.push(input);
      const words = ssmlWords(input.Text ?? '');
      if (input.OutputFormat === 'json') {
        // No marks for the short function words, as an engine that reads them with a neighbour.
        const marks = words.flatMap((word, index) =>
          /^(a|of|the)$/.test(word.value)
            ? []
            : [JSON.stringify({ time: LEAD + index * STEP, type: 'word', ...word })],
        );
        return { AudioStream: body(marks.join('\n')), ContentType: 'application/x-json-stream' };
      }
      return { AudioStream: body(fakePcm(words.length)), ContentType: 'audio/pcm' };
    });
    const text = 'I am a fan of the team.';
    const result = await engine.synthesize({ text, voiceId: 'Joanna' });
    expect(result.words.map((word) => word.word)).toEqual(['I', 'am', 'a', 'fan', 'of', 'the', 'team']);
    expectConsistent(result, text);
    for (const word of result.words) expect(word.endMs, word.word).toBeGreaterThan(word.startMs);
  });

  it('escapes markup characters and maps words with entities back to the original text', async () => {
    fakeSynthesis();
    const text = 'Tom & Jerry <3 "quotes" a>b';
    const result = await engine.synthesize({ text, voiceId: 'Joanna' });
    const ssml = calls[0]?.Text;
    expect(ssml).toBe('<speak>Tom &amp; Jerry &lt;3 "quotes" a&gt;b</speak>');
    expect(result.words.map((word) => word.word)).toEqual(['Tom', '&', 'Jerry', '3', 'quotes', 'a>b']);
    expectConsistent(result, text);
  });

  it('replaces characters XML cannot carry with spaces', () => {
    const { ssml, textSpan } = buildPollySsml('a\u0000b\uD800c\u0007', {});
    expect(ssml).toBe('<speak>a b c </speak>');
    // Byte 9 of the document is "b" (after "<speak>a "): still offset 2 of the text.
    expect(textSpan(9, 10)).toEqual({ start: 2, end: 3 });
    expect(textSpan(0, 7)).toBeUndefined(); // markup only
  });

  it('finds a word by its value when its offsets do not hold it', async () => {
    polly.on(SynthesizeSpeechCommand).callsFake((input: SynthesizeSpeechCommandInput) => {
      if (input.OutputFormat !== 'json') return { AudioStream: body(fakePcm(2)) };
      // Offsets counted from the text without the <speak> tag.
      const marks = [
        { time: LEAD, type: 'word', start: 0, end: 2, value: 'Hé' },
        { time: LEAD + STEP, type: 'word', start: 4, end: 7, value: 'you' },
      ];
      return { AudioStream: body(marks.map((mark) => JSON.stringify(mark)).join('\n')) };
    });
    const result = await engine.synthesize({ text: 'Hé, you', voiceId: 'Joanna' });
    expect(result.words.map((word) => [word.word, word.textOffset])).toEqual([
      ['Hé', 0],
      ['you', 4],
    ]);
  });
});

describe('Polly engine: settings', () => {
  it('maps speed, pitch and volume to prosody attributes', () => {
    expect(pollyProsody({ speed: 1, pitch: 0, volume: 1 })).toEqual({});
    expect(pollyProsody({ speed: 0.5, pitch: 50, volume: 2 })).toEqual({
      rate: '50%',
      pitch: '+41%',
      volume: '+6dB',
    });
    expect(pollyProsody({ speed: 2, pitch: -50, volume: 0.5 })).toEqual({
      rate: '200%',
      pitch: '-29%',
      volume: '-6dB',
    });
    expect(pollyProsody({ speed: 1.25, pitch: 10, volume: 0 })).toEqual({
      rate: '125%',
      pitch: '+7%',
      volume: 'silent',
    });
    // Offsets too small to matter leave the pitch alone.
    expect(pollyProsody({ speed: 1, pitch: 0.5, volume: 1.01 })).toEqual({});
  });

  it('wraps the text in one prosody element, and only when a setting differs', async () => {
    fakeSynthesis();
    await engine.synthesize({ text: 'Fast and quiet', voiceId: 'Joanna', speed: 1.5, volume: 0.5 });
    expect(calls[0]?.Text).toBe('<speak><prosody rate="150%" volume="-6dB">Fast and quiet</prosody></speak>');
    expect(calls[0]?.Engine).toBe('neural');
  });

  it('uses the standard engine for a pitch change, and refuses it for a voice without one', async () => {
    fakeSynthesis();
    const result = await engine.synthesize({ text: 'Higher', voiceId: 'Joanna', pitch: 20 });
    expect(calls[0]).toMatchObject({
      Engine: 'standard',
      Text: '<speak><prosody pitch="+15%">Higher</prosody></speak>',
    });
    expect(result.words.map((word) => word.word)).toEqual(['Higher']);

    const refused = await engine.synthesize({ text: 'Higher', voiceId: 'Ruth', pitch: 20 }).catch((e) => e);
    expect(refused).toBeInstanceOf(SpeechEngineError);
    expect(refused).toMatchObject({ failureCode: 'invalid_input', message: /cannot change pitch/ });
  });

  it('speaks with the first configured engine the voice supports', async () => {
    fakeSynthesis();
    await engine.synthesize({ text: 'Hallo', voiceId: 'Hans' });
    expect(calls.at(-1)?.Engine).toBe('standard');

    const preferring = newEngine({ engines: ['long-form', 'neural'] });
    await preferring.synthesize({ text: 'Hi', voiceId: 'Ruth' });
    expect(calls.at(-1)?.Engine).toBe('long-form');
    const refused = await preferring.synthesize({ text: 'Hallo', voiceId: 'Hans' }).catch((e) => e);
    expect(refused).toMatchObject({ failureCode: 'voice_not_found', message: /none of the configured/ });
  });

  it('validates the request like every engine', async () => {
    fakeSynthesis();
    for (const request of [
      { text: '  ', voiceId: 'Joanna' },
      { text: 'x', voiceId: 'Joanna', speed: 3 },
      { text: 'x', voiceId: 'Joanna', pitch: -51 },
    ]) {
      await expect(engine.synthesize(request)).rejects.toMatchObject({ failureCode: 'invalid_input' });
    }
    expect(calls).toHaveLength(0);
  });
});

describe('Polly engine: long text', () => {
  it('splits at sentence boundaries, then words, then anywhere, within the limit as sent', () => {
    const text = 'One two three. Four five six seven. Eight.';
    const chunks = splitPollyText(text, 20);
    expect(chunks).toEqual([
      { offset: 0, text: 'One two three. ' },
      { offset: 15, text: 'Four five six seven.' },
      { offset: 35, text: ' Eight.' },
    ]);
    // A sentence too long for one chunk splits at word boundaries.
    const long = splitPollyText('alpha beta gamma delta epsilon zeta eta theta.', 12);
    expect(long.map((chunk) => chunk.text)).toEqual([
      'alpha beta ',
      'gamma delta ',
      'epsilon zeta',
      ' eta theta.',
    ]);
    // A word too long splits anywhere; escaped characters count as sent.
    expect(splitPollyText('abcdefghijklmnopqrstuvwxyz', 10).map((chunk) => chunk.text)).toEqual([
      'abcdefghij',
      'klmnopqrst',
      'uvwxyz',
    ]);
    expect(splitPollyText('&&&&&', 10).map((chunk) => chunk.text)).toEqual(['&&', '&&', '&']);
    for (const chunk of splitPollyText(text.repeat(50), 100)) {
      expect(text.repeat(50).slice(chunk.offset, chunk.offset + chunk.text.length)).toBe(chunk.text);
      expect(chunk.text.length).toBeLessThanOrEqual(100);
    }
  });

  it('synthesizes each chunk, concatenates the audio and shifts the word timings', async () => {
    fakeSynthesis();
    const chunked = newEngine({ maxChunkCharacters: 30 });
    const text = 'First sentence here. Second one is longer. Third.';
    const result = await chunked.synthesize({ text, voiceId: 'Joanna' });

    const pcmCalls = calls.filter((call) => call.OutputFormat === 'pcm');
    expect(pcmCalls.map((call) => call.Text)).toEqual([
      '<speak>First sentence here. </speak>',
      '<speak>Second one is longer. Third.</speak>',
    ]);
    const firstMs = LEAD + 3 * STEP + TAIL;
    const secondMs = LEAD + 5 * STEP + TAIL;
    expect(result.durationMs).toBe(firstMs + secondMs);
    expect(decodeWavPcm16(result.audio).samples.length).toBe((firstMs + secondMs) * 16);
    expect(result.words.map((word) => word.word)).toEqual([
      'First',
      'sentence',
      'here',
      'Second',
      'one',
      'is',
      'longer',
      'Third',
    ]);
    expect(result.words[2]).toMatchObject({ startMs: LEAD + 2 * STEP, endMs: LEAD + 2 * STEP + SOUND + 10 });
    expect(result.words[3]).toMatchObject({ startMs: firstMs + LEAD, textOffset: 21 });
    expect(result.words[7]).toMatchObject({
      startMs: firstMs + LEAD + 4 * STEP,
      endMs: firstMs + LEAD + 4 * STEP + SOUND + 10,
    });
    expectConsistent(result, text);
    await chunked.close();
  });

  it('keeps every Polly request within 3000 characters for the longest text', async () => {
    fakeSynthesis();
    const sentence = 'This sentence & that one <are> joined by ampersands and tags. ';
    const text = sentence.repeat(Math.floor(20_000 / sentence.length));
    const result = await engine.synthesize({ text, voiceId: 'Joanna' });
    const pcmCalls = calls.filter((call) => call.OutputFormat === 'pcm');
    expect(pcmCalls.length).toBeGreaterThan(7);
    for (const call of pcmCalls) {
      const textPart = (call.Text ?? '').replace(/<[^>]*>/g, '');
      expect(textPart.length).toBeLessThanOrEqual(3000);
      expect(call.Text?.endsWith('. </speak>')).toBe(true); // split at sentence ends
    }
    expect(result.words).toHaveLength(text.trim().split(/\s+/).length);
    expectConsistent(result, text);
  });
});

describe('Polly engine: errors', () => {
  const meta = { $metadata: {} };
  const cases: [string, unknown, string][] = [
    ['InvalidSsml', new InvalidSsmlException({ message: 'bad ssml', ...meta }), 'invalid_input'],
    [
      'TextLengthExceeded',
      new TextLengthExceededException({ message: 'too long', ...meta }),
      'invalid_input',
    ],
    [
      'ValidationException about the voice',
      new ValidationException({
        message: "1 validation error detected: Value 'Nobody' at 'voiceId' failed to satisfy constraint",
        Reason: 'x',
        Fields: [],
        ...meta,
      } as never),
      'voice_not_found',
    ],
    ['ServiceFailure', new ServiceFailureException({ message: 'oops', ...meta }), 'engine_unavailable'],
    ['Throttling', new ThrottlingException({ message: 'slow down', ...meta }), 'engine_unavailable'],
    [
      'network',
      Object.assign(new Error('connect ECONNREFUSED'), { code: 'ECONNREFUSED' }),
      'engine_unavailable',
    ],
    ['LexiconNotFound', new LexiconNotFoundException({ message: 'no lexicon', ...meta }), 'synthesis_failed'],
  ];

  it.each(cases)('maps %s to its failure code and keeps the cause', async (_, error, failureCode) => {
    polly.on(SynthesizeSpeechCommand).rejects(error as Error);
    const failure = await engine.synthesize({ text: 'Hello', voiceId: 'Joanna' }).catch((e) => e);
    expect(failure).toBeInstanceOf(SpeechEngineError);
    expect(failure.failureCode).toBe(failureCode);
    expect(failure.cause).toBe(error);
    expect(pollyFailureCode(error)).toBe(failureCode);
  });

  it('refuses an unknown voice without calling SynthesizeSpeech', async () => {
    fakeSynthesis();
    await expect(engine.synthesize({ text: 'Hello', voiceId: 'polly-Nobody' })).rejects.toMatchObject({
      failureCode: 'voice_not_found',
    });
    expect(calls).toHaveLength(0);
  });

  it('reports a failed voice listing as engine_unavailable and retries it on the next call', async () => {
    fakeSynthesis();
    const denied = Object.assign(new Error('not authorized'), { name: 'AccessDeniedException' });
    polly.on(DescribeVoicesCommand).rejectsOnce(denied).resolves({ Voices: VOICES });
    const failure = await engine.voices().catch((e) => e);
    expect(failure).toMatchObject({ failureCode: 'engine_unavailable', cause: denied });
    expect(await engine.voices()).toHaveLength(3);
  });

  it('fails when Polly returns no audio', async () => {
    polly.on(SynthesizeSpeechCommand).callsFake(() => ({ AudioStream: body('') }));
    await expect(engine.synthesize({ text: 'Hello', voiceId: 'Joanna' })).rejects.toMatchObject({
      failureCode: 'synthesis_failed',
    });
  });
});

describe('Polly engine: voices', () => {
  it('lists every page of DescribeVoices as engine voices with the configured engines', async () => {
    polly.reset();
    polly
      .on(DescribeVoicesCommand, { NextToken: undefined })
      .resolves({ Voices: VOICES.slice(0, 2), NextToken: 'page-2' })
      .on(DescribeVoicesCommand, { NextToken: 'page-2' })
      .resolves({ Voices: VOICES.slice(2) });
    const voices = await engine.voices();
    expect(polly.commandCalls(DescribeVoicesCommand)).toHaveLength(2);
    // Danielle speaks only with the generative and long-form engines, not configured by default.
    expect(voices).toEqual([
      {
        id: 'polly-Hans',
        engine: 'polly',
        name: 'Hans',
        language: 'de-DE',
        languageName: 'German',
        gender: 'male',
      },
      {
        id: 'polly-Joanna',
        engine: 'polly',
        name: 'Joanna',
        language: 'en-US',
        languageName: 'US English',
        gender: 'female',
      },
      {
        id: 'polly-Ruth',
        engine: 'polly',
        name: 'Ruth',
        language: 'en-US',
        languageName: 'US English',
        gender: 'female',
      },
    ]);
    // The catalog is loaded once per engine.
    await engine.voices();
    expect(polly.commandCalls(DescribeVoicesCommand)).toHaveLength(2);
  });

  it('accepts the engine voice id, the plain Polly VoiceId, and any case of it', async () => {
    fakeSynthesis();
    for (const voiceId of ['polly-Joanna', 'Joanna', 'joanna']) {
      await engine.synthesize({ text: 'Hi', voiceId });
      expect(calls.at(-1)?.VoiceId).toBe('Joanna');
    }
  });
});
