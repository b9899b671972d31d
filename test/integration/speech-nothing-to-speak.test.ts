/**
 * Text with nothing to speak (an emoji, a zero-width space, a bidirectional control) on the three
 * speech routes over HTTP: each answers 400 `invalid_parameter` naming `text` before any synthesis;
 * the stream route used to fail with a 500 when the engine had no audio to start it with.
 */
import { afterAll, afterEach, beforeAll, describe, expect, it, vi } from 'vitest';
import { createEspeakEngine } from '../../lambdas/engines/speech/espeak-engine.js';
import { speechEngine } from '../../lambdas/engines/speech/index.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

let api: TestStack;
let modelVoiceId: string;

beforeAll(async () => {
  // The subject is the request check, not the speech: the engines' test doubles.
  api = await startTestStack();
  const engine = createEspeakEngine();
  const recording = await engine.synthesize({
    text: 'This is a short recording of my voice, read slowly and clearly.',
    voiceId: 'espeak-en-us-m2',
  });
  await engine.close();
  const created = await api.call<{ data: { voice_id: string } }>('POST', '/v3/models/audio/voices', {
    body: {
      mode: 'instant',
      name: 'Speaker',
      audio: [
        { type: 'base64', media_type: 'audio/wav', data: Buffer.from(recording.audio).toString('base64') },
      ],
    },
  });
  expect(created.status, JSON.stringify(created.body)).toBe(202);
  modelVoiceId = created.body.data.voice_id;
  for (let attempt = 0; attempt < 400; attempt++) {
    const voice = await api.call<{ data: { status: string } }>(
      'GET',
      `/v3/models/audio/voices/${modelVoiceId}`,
    );
    if (voice.body.data.status !== 'PENDING') {
      expect(voice.body.data.status).toBe('ACTIVE');
      return;
    }
    await new Promise((resolve) => setTimeout(resolve, 50));
  }
  throw new Error('the voice stayed PENDING');
});
afterAll(async () => {
  await api?.stop();
});
afterEach(() => {
  vi.restoreAllMocks();
});

const UNSPEAKABLE = [
  ['an emoji', '😀'],
  ['a zero-width space', '\u200b'],
  ['a right-to-left override', '\u202e'],
] as const;

const ROUTES = [
  { path: '/v3/voices/speech', body: (text: string) => ({ text, voice_id: 'en-us-olivia' }) },
  { path: '/v3/models/audio/tts', body: (text: string) => ({ text, voice_id: modelVoiceId }) },
  { path: '/v3/models/audio/tts/stream', body: (text: string) => ({ text, voice_id: modelVoiceId }) },
] as const;

describe('text with nothing to speak', () => {
  for (const route of ROUTES) {
    for (const [label, text] of UNSPEAKABLE) {
      it(`POST ${route.path} refuses ${label} with 400 invalid_parameter on text, before any synthesis`, async () => {
        const synthesize = vi.spyOn(speechEngine(), 'synthesize');
        const result = await api.call('POST', route.path, { body: route.body(text) });
        expect(result.status, JSON.stringify(result.body)).toBe(400);
        expect(result.headers.get('content-type')).toMatch(/^application\/json/);
        const error = errorOf(result);
        expect(error).toMatchObject({ code: 'invalid_parameter', param: 'text' });
        expect(error.message).toMatch(/nothing to speak: it needs at least one letter or digit/);
        expect(synthesize).not.toHaveBeenCalled();
      });
    }
  }

  it('still speaks text that has a word among emoji and invisible characters', async () => {
    for (const route of ROUTES) {
      const result = await api.call('POST', route.path, { body: route.body('😀 \u200bhello\u202e') });
      expect(result.status, `${route.path}: ${JSON.stringify(result.body)}`).toBe(200);
    }
  });
});
