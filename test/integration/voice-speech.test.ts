/**
 * `POST /v3/voices/speech` over HTTP: plain text and the SSML subset spoken by a stock voice, the
 * audio downloaded through its presigned URL, decoded with ffprobe, its length checked against the
 * word timings; every refusal answers 4xx naming the field.
 */
import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { probeMedia } from '../../lambdas/engines/composition/index.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

interface Speech {
  audio_url: string;
  duration: number;
  word_timestamps: { word: string; start: number; end: number }[];
  request_id: string;
  voice_id: string;
  engine: string;
}

let api: TestStack;
let scratch: string;
beforeAll(async () => {
  api = await startTestStack({
    // The subject is the speech itself (decoded audio, word timings vs duration): the real engines.
    engines: 'reference',
  });
  scratch = await mkdtemp(join(tmpdir(), 'voice-speech-test-'));
});
afterAll(async () => {
  await api.stop();
  await rm(scratch, { recursive: true, force: true });
});

async function speak(body: Record<string, unknown>) {
  return api.call<{ data: Speech }>('POST', '/v3/voices/speech', { body });
}

/** Downloads the audio, checks it decodes, and returns ffprobe's length in seconds. */
async function probedSeconds(speech: Speech): Promise<number> {
  const response = await fetch(speech.audio_url);
  expect(response.status).toBe(200);
  expect(response.headers.get('content-type')).toBe('audio/wav');
  const file = join(scratch, `${speech.request_id}.wav`);
  await writeFile(file, Buffer.from(await response.arrayBuffer()));
  const probe = await probeMedia(file);
  expect(probe.streams.map((stream) => `${stream.type}:${stream.codec}`)).toEqual(['audio:pcm_s16le']);
  return probe.durationSeconds;
}

function expectOrderedWithin(speech: Speech): void {
  let previousEnd = 0;
  for (const word of speech.word_timestamps) {
    expect(word.start).toBeGreaterThanOrEqual(previousEnd - 0.001);
    expect(word.end).toBeGreaterThanOrEqual(word.start);
    previousEnd = word.end;
  }
  expect(previousEnd).toBeLessThanOrEqual(speech.duration);
}

describe('POST /v3/voices/speech', () => {
  it('speaks plain text: a WAV whose length matches the word timings', async () => {
    const result = await speak({ text: 'Hello world, this is a short test.', voice_id: 'en-us-olivia' });
    expect(result.status).toBe(200);
    const speech = result.body.data;
    expect(speech).toMatchObject({
      voice_id: 'en-us-olivia',
      engine: 'espeak',
      request_id: expect.any(String),
    });
    expect(speech.word_timestamps.map((word) => word.word)).toEqual([
      'Hello',
      'world',
      'this',
      'is',
      'a',
      'short',
      'test',
    ]);
    expectOrderedWithin(speech);
    const seconds = await probedSeconds(speech);
    expect(seconds).toBeCloseTo(speech.duration, 2);
    // The words fill the audio: speech starts near the start and ends near the end.
    expect(speech.word_timestamps[0]?.start).toBeLessThan(0.3);
    expect(speech.duration - (speech.word_timestamps.at(-1)?.end ?? 0)).toBeLessThan(0.5);
  });

  it('times every word, the short ones eSpeak says with their neighbour too', async () => {
    const text = "I am Daniel. It's shown for the second scene, in the web m format: 3.5 times in 2026.";
    const result = await speak({ text, voice_id: 'en-us-olivia' });
    expect(result.status).toBe(200);
    const speech = result.body.data;
    expect(speech.word_timestamps.map((word) => word.word)).toEqual(
      "I am Daniel It's shown for the second scene in the web m format 3.5 times in 2026".split(' '),
    );
    expectOrderedWithin(speech);
    for (const word of speech.word_timestamps) expect(word.end, word.word).toBeGreaterThan(word.start);
  });

  it('speaks faster at a higher speed', async () => {
    const text = 'Speed changes how long this sentence takes to say.';
    const [normal, fast] = await Promise.all([
      speak({ text, voice_id: 'en-us-ethan' }),
      speak({ text, voice_id: 'en-us-ethan', speed: 1.8 }),
    ]);
    expect(fast.body.data.duration).toBeLessThan(normal.body.data.duration * 0.75);
  });

  it('speaks the SSML subset: breaks are silence, prosody changes the rate', async () => {
    const ssml =
      '<?xml version="1.0"?><speak>One <break time="1s"/> two. <prosody rate="x-slow">Slow words &amp; more.</prosody><break strength="strong"/></speak>';
    const result = await speak({ text: ssml, input_type: 'ssml', voice_id: 'en-gb-oliver' });
    expect(result.status).toBe(200);
    const speech = result.body.data;
    expect(speech.word_timestamps.map((word) => word.word)).toEqual([
      'One',
      'two',
      'Slow',
      'words',
      '&',
      'more',
    ]);
    const [one, two] = speech.word_timestamps;
    expect((two?.start ?? 0) - (one?.end ?? 0)).toBeGreaterThanOrEqual(0.99);
    expectOrderedWithin(speech);
    // The closing break is silence after the last word.
    expect(speech.duration - (speech.word_timestamps.at(-1)?.end ?? 0)).toBeGreaterThanOrEqual(0.75);
    expect(await probedSeconds(speech)).toBeCloseTo(speech.duration, 2);

    const plain = await speak({ text: 'Slow words and more.', voice_id: 'en-gb-oliver' });
    const slowPart = (speech.word_timestamps.at(-1)?.end ?? 0) - (speech.word_timestamps[2]?.start ?? 0);
    const plainPart =
      (plain.body.data.word_timestamps.at(-1)?.end ?? 0) - (plain.body.data.word_timestamps[0]?.start ?? 0);
    expect(slowPart).toBeGreaterThan(plainPart * 1.3);
  });

  it('accepts the deprecated engine value with a Deprecation header, and matching language and locale', async () => {
    const result = await speak({
      text: 'Bonjour.',
      voice_id: 'fr-fr-camille',
      engine: 'starfish',
      language: 'fr',
      locale: 'fr-FR',
    });
    expect(result.status).toBe(200);
    expect(result.headers.get('deprecation')).toBe('true');
    const current = await speak({
      text: 'Bonjour.',
      voice_id: 'fr-fr-camille',
      engine: 'espeak',
      settings: null,
    });
    expect(current.status).toBe(200);
    expect(current.headers.get('deprecation')).toBeNull();
  });

  it.each(
    (
      [
        [{ text: 'Hi.', voice_id: 'xx-nobody' }, 404, 'voice_not_found', 'voice_id'],
        [{ text: '', voice_id: 'en-us-olivia' }, 400, 'invalid_parameter', 'text'],
        [{ text: 'x'.repeat(5001), voice_id: 'en-us-olivia' }, 400, 'invalid_parameter', 'text'],
        [{ text: '... !!!', voice_id: 'en-us-olivia' }, 400, 'invalid_parameter', 'text'],
        [{ voice_id: 'en-us-olivia' }, 400, 'invalid_parameter', 'text'],
        [{ text: 'Hi.' }, 400, 'invalid_parameter', 'voice_id'],
        [{ text: 'Hi.', voice_id: 'en-us-olivia', speed: 2.5 }, 400, 'invalid_parameter', 'speed'],
        [
          { text: 'Hi.', voice_id: 'en-us-olivia', input_type: 'html' },
          400,
          'invalid_parameter',
          'input_type',
        ],
        [{ text: 'Hi.', voice_id: 'en-us-olivia', locale: 'fr-FR' }, 400, 'invalid_parameter', 'locale'],
        [{ text: 'Hi.', voice_id: 'en-us-olivia', locale: 'not a tag' }, 400, 'invalid_parameter', 'locale'],
        [{ text: 'Hi.', voice_id: 'en-us-olivia', language: 'de' }, 400, 'invalid_parameter', 'language'],
        [{ text: 'Hi.', voice_id: 'en-us-olivia', engine: 'polly' }, 400, 'invalid_parameter', 'engine'],
        [{ text: 'Hi.', voice_id: 'en-us-olivia', engine: 'elevenlabs' }, 400, 'invalid_parameter', 'engine'],
        [
          { text: 'Hi.', voice_id: 'en-us-olivia', settings: { model_id: 'neural' } },
          400,
          'invalid_parameter',
          'settings.model_id',
        ],
        [
          { text: 'Hi.', voice_id: 'en-us-olivia', settings: { stability: 1 } },
          400,
          'invalid_parameter',
          'settings.stability',
        ],
        [{ text: 'Hi.', voice_id: 'en-us-olivia', pitch: 3 }, 400, 'invalid_parameter', 'pitch'],
      ] as const
    ).map(([body, ...expected]) => [JSON.stringify(body).slice(0, 70), body, ...expected] as const),
  )('refuses %s with %i %s naming %s', async (_label, body, status, code, param) => {
    const result = await speak(body);
    expect(result.status).toBe(status);
    expect(errorOf(result)).toMatchObject({ code, param });
  });

  it.each([
    ['<speak>Hi <emphasis>there</emphasis></speak>', /<emphasis> is not supported/],
    ['Hi <break time="1s"/>', /one <speak> element/],
    ['<speak>Hi <break time="6s"/></speak>', /longer than 5 seconds/],
    ['<speak>Hi <prosody pitch="high">there</prosody></speak>', /<prosody pitch> is not supported/],
    ['<speak>Hi & bye</speak>', /&amp;/],
    ['<speak>Hi <prosody rate="slow">there</speak>', /does not close/],
    ['<speak><break time="1s"/></speak>', /no words/],
  ])('refuses the SSML %s naming text', async (text, message) => {
    const result = await speak({ text, input_type: 'ssml', voice_id: 'en-us-olivia' });
    expect(result.status).toBe(400);
    expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param: 'text' });
    expect(errorOf(result).message).toMatch(message);
  });
});
