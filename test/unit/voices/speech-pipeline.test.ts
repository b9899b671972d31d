/** `speakSteps` at the engine's own sample rate (the voices route); the fixed rate is covered by `speak`. */
import { describe, expect, it } from 'vitest';
import type { SpeechEngine } from '../../../lambdas/engines/speech/speech-engine.js';
import { encodeWavPcm16 } from '../../../lambdas/engines/speech/wav.js';
import { collectSpeech, type SpeechStep, speakSteps } from '../../../lambdas/voices/speech-pipeline.js';

/** 100 ms of audio per text at `rates[n]` for the n-th call, with one word at 10–60 ms. */
function engineAt(...rates: number[]): SpeechEngine {
  let calls = 0;
  return {
    name: 'fake',
    voices: async () => [],
    close: async () => undefined,
    synthesize: async (request) => {
      const sampleRate = rates[Math.min(calls++, rates.length - 1)] ?? 16_000;
      return {
        audio: encodeWavPcm16(new Int16Array(sampleRate / 10).fill(100), sampleRate),
        sampleRate,
        durationMs: 100,
        visemes: [{ startMs: 0, endMs: 100, viseme: 'rest' }],
        words: [
          { word: request.text, startMs: 10, endMs: 60, textOffset: 0, textLength: request.text.length },
        ],
      };
    },
  };
}

const speech = (text: string): SpeechStep => ({
  kind: 'speech',
  request: { text, voiceId: 'v' },
  textOffset: 0,
});
const pause = (ms: number): SpeechStep => ({ kind: 'pause', ms });
const options = {
  sampleRate: 'engine',
  inFlight: 1,
  engineError: (error: unknown): never => {
    throw error;
  },
} as const;

describe('speakSteps at the engine’s rate', () => {
  it('places pauses (those in a row as one) before the speech after them, and keeps a trailing one', async () => {
    const audio = await collectSpeech(
      speakSteps(
        engineAt(16_000),
        [pause(250), speech('a'), pause(125), pause(125), speech('b'), pause(500)],
        options,
      ),
    );
    expect(audio.sampleRate).toBe(16_000);
    // 250 ms + 100 ms + 250 ms + 100 ms + 500 ms.
    expect(audio.samples).toHaveLength(16 * 1200);
    expect(audio.words).toEqual([
      { word: 'a', start: 0.26, end: 0.31 },
      { word: 'b', start: 0.61, end: 0.66 },
    ]);
  });

  it('yields nothing, not even silence, when nothing is spoken', async () => {
    const audio = await collectSpeech(speakSteps(engineAt(16_000), [pause(250)], options));
    expect(audio).toEqual({ samples: new Int16Array(0), sampleRate: undefined, words: [] });
  });

  it('refuses an engine that changes its sample rate mid-request', async () => {
    await expect(
      collectSpeech(speakSteps(engineAt(16_000, 22_050), [speech('a'), speech('b')], options)),
    ).rejects.toThrow('changed its sample rate');
  });
});
