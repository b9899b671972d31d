/** `speak`: units in order, the engine working ahead, word timings placed in the whole audio. */
import { describe, expect, it } from 'vitest';
import {
  type SpeechEngine,
  SpeechEngineError,
  type SynthesisRequest,
} from '../../../lambdas/engines/speech/speech-engine.js';
import { encodeWavPcm16 } from '../../../lambdas/engines/speech/wav.js';
import { speak } from '../../../lambdas/model-audio/text-to-speech.js';
import { planTtsRequest, ttsBody } from '../../../lambdas/model-audio/tts-request.js';

/** An engine that answers 100 ms of audio per unit, with one word, when the test lets it. */
function fakeEngine() {
  const requests: SynthesisRequest[] = [];
  const waiting: (() => void)[] = [];
  const engine: SpeechEngine = {
    name: 'fake',
    voices: async () => [],
    close: async () => undefined,
    synthesize: (request) => {
      requests.push(request);
      return new Promise((resolve) =>
        waiting.push(() =>
          resolve({
            audio: encodeWavPcm16(new Int16Array(2205).fill(100), 22_050),
            sampleRate: 22_050,
            durationMs: 100,
            visemes: [{ startMs: 0, endMs: 100, viseme: 'rest' }],
            words: [
              {
                word: request.text.trim().split(/\s/)[0] ?? '',
                startMs: 10,
                endMs: 60,
                textOffset: 0,
                textLength: 3,
              },
            ],
          }),
        ),
      );
    },
  };
  return { engine, requests, release: () => waiting.shift()?.() };
}

const settings = { engineVoiceId: 'v', speed: 1, pitch: 0, intonation: 1, language: 'en' };

describe('speak', () => {
  it('queues two units ahead and hands each on as soon as it and those before it are ready', async () => {
    const { engine, requests, release } = fakeEngine();
    const plan = planTtsRequest(
      ttsBody.parse({ voice_id: 'x', text: "One. Two. <break time='0.5s'/>Three. Four." }),
      'professional',
    );
    const chunks = speak(engine, { ...plan, model: 'service-voice-1' }, settings);
    const first = chunks.next();
    await new Promise((resolve) => setImmediate(resolve));
    expect(requests.map((request) => request.text)).toEqual(['One. ', 'Two. ']);
    release();
    const one = await first;
    expect(one.value?.samples).toHaveLength(4410);
    expect(one.value?.words).toEqual([{ word: 'One.', startMs: 10, endMs: 60, textOffset: 0 }]);
    const second = chunks.next();
    release();
    expect((await second).value?.words[0]).toMatchObject({ startMs: 110, textOffset: 5 });
    // The pause is silence, with no words; the engine already has the two units after it.
    expect((await chunks.next()).value).toMatchObject({ words: [] });
    expect(requests.map((request) => request.text)).toEqual(['One. ', 'Two. ', 'Three. ', 'Four.']);
    release();
    const three = await chunks.next();
    expect(three.value?.words[0]).toMatchObject({ word: 'Three.', startMs: 710 });
    release();
    await chunks.next();
    expect((await chunks.next()).done).toBe(true);
    expect(requests.every((request) => request.voiceId === 'v' && request.intonation === 1)).toBe(true);
  });
});

describe('engine refusals', () => {
  const refusing = (message: string): SpeechEngine => ({
    name: 'refusing',
    voices: async () => [],
    close: async () => undefined,
    synthesize: async () => {
      throw new SpeechEngineError('invalid_input', message);
    },
  });
  const professional = (extra: Record<string, unknown>) =>
    planTtsRequest(ttsBody.parse({ voice_id: 'x', text: 'Hello.', ...extra }), 'professional');

  it.each([
    [
      'Amazon Polly cannot change the intonation (pitch range) of a voice',
      { pitch_variance: 1.5 },
      'pitch_variance',
    ],
    [
      'Amazon Polly voice Lea speaks with the neural engine, which cannot change pitch',
      { pitch_shift: 2 },
      'pitch_shift',
    ],
  ])('turns %j into a 400 naming the request field', async (message, extra, param) => {
    const plan = professional(extra);
    const chunks = speak(refusing(message), plan, { ...settings, intonation: plan.intonation });
    await expect(chunks.next()).rejects.toMatchObject({ status: 400, param });
  });

  it('passes other failures on as they are', async () => {
    const chunks = speak(refusing('text is empty'), professional({}), settings);
    await expect(chunks.next()).rejects.toBeInstanceOf(SpeechEngineError);
  });
});
