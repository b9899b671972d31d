/**
 * The speech engine's test double (`SPEECH_ENGINE=test-double`, tests only: see `TEST_DOUBLE_ENGINE` in
 * core/config.ts). For tests whose subject is not the speech (authorization, webhooks, billing,
 * restarts...): it keeps the engine's contract in plain JavaScript, with no worker and no WebAssembly, so
 * callers never special-case it, and says nothing a listener would recognise.
 *
 * Kept from the contract: requests are validated like any engine's; the audio is a complete 16-bit mono
 * WAV whose length is `durationMs`; every word of the text (as script-words.ts defines words, the
 * same for every engine) gets a timing, in order, non-overlapping, inside the audio, where a tone
 * sounds (silence between words). Words take longer the longer they are and the slower the `speed`;
 * `volume` scales the tone and `pitch` moves it. The viseme track is the words' letters spread over their
 * spans (`visemesFromWords`), `rest` between them.
 * Voices: it speaks with eSpeak's voice ids (`espeak-<language>-<variant>`, see espeak-text.ts), so stock,
 * designed and cloned voices resolve for it as for the reference engine (see `voiceCatalogEngine`);
 * any other id is `voice_not_found`. It lists no voices of its own.
 */
import { TEST_DOUBLE_ENGINE } from '../../core/config.js';
import { scriptWords } from './script-words.js';
import {
  type EngineVoice,
  type SpeechEngine,
  SpeechEngineError,
  type SynthesisRequest,
  type SynthesisResult,
  validateSynthesisRequest,
  type WordTiming,
} from './speech-engine.js';
import { visemesFromWords } from './visemes.js';
import { encodeWavPcm16 } from './wav.js';

/** The same rate as the reference engine's audio, so consumers see what they see in production. */
export const DOUBLE_SAMPLE_RATE = 22_050;
const LEADING_SILENCE_MS = 40;
const TRAILING_SILENCE_MS = 80;
/** A word's sound at speed 1: a base plus a share per character. */
const WORD_BASE_MS = 60;
const WORD_MS_PER_CHARACTER = 30;
const GAP_MS = 40;
const TONE_HZ = 220;
const TONE_AMPLITUDE = 0.2 * 32_767;

const ESPEAK_VOICE_ID = /^espeak-[a-z0-9-]+-[a-z0-9]+$/;

class TestDoubleSpeechEngine implements SpeechEngine {
  readonly name = TEST_DOUBLE_ENGINE;

  async voices(): Promise<EngineVoice[]> {
    return [];
  }

  async synthesize(request: SynthesisRequest): Promise<SynthesisResult> {
    const settings = validateSynthesisRequest(request);
    if (!ESPEAK_VOICE_ID.test(request.voiceId)) {
      throw new SpeechEngineError(
        'voice_not_found',
        `the test double speaks eSpeak voice ids, not ${request.voiceId}`,
      );
    }
    const words: WordTiming[] = [];
    let cursorMs = LEADING_SILENCE_MS;
    for (const word of scriptWords(request.text)) {
      const lengthMs = Math.round((WORD_BASE_MS + WORD_MS_PER_CHARACTER * word.textLength) / settings.speed);
      if (words.length > 0) cursorMs += Math.round(GAP_MS / settings.speed);
      words.push({ ...word, startMs: cursorMs, endMs: cursorMs + lengthMs });
      cursorMs += lengthMs;
    }
    const sampleCount = Math.round(((cursorMs + TRAILING_SILENCE_MS) * DOUBLE_SAMPLE_RATE) / 1000);
    const samples = new Int16Array(sampleCount);
    const hz = TONE_HZ * 2 ** (settings.pitch / 50);
    const amplitude = Math.min(32_767, TONE_AMPLITUDE * settings.volume);
    for (const word of words) {
      const end = Math.min(sampleCount, Math.round((word.endMs * DOUBLE_SAMPLE_RATE) / 1000));
      for (let index = Math.round((word.startMs * DOUBLE_SAMPLE_RATE) / 1000); index < end; index++) {
        samples[index] = Math.round(amplitude * Math.sin((2 * Math.PI * hz * index) / DOUBLE_SAMPLE_RATE));
      }
    }
    const durationMs = Math.round((sampleCount * 1000) / DOUBLE_SAMPLE_RATE);
    return {
      audio: encodeWavPcm16(samples, DOUBLE_SAMPLE_RATE),
      sampleRate: DOUBLE_SAMPLE_RATE,
      durationMs,
      words,
      visemes: visemesFromWords(words, durationMs),
    };
  }

  async close(): Promise<void> {
    // Nothing held: no worker, no client.
  }
}

/** A new speech test double. */
export function createTestDoubleSpeechEngine(): SpeechEngine {
  return new TestDoubleSpeechEngine();
}
