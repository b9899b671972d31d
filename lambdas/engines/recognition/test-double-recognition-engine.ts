/**
 * The speech recognition test double (`SPEECH_RECOGNITION_ENGINE=test-double`, tests only: see
 * `TEST_DOUBLE_ENGINE` in core/config.ts). It hears nothing: it returns the known transcript when one is
 * given, else the words of the media's key name (`hello-world.wav` → "hello world") at 400 ms each, in
 * the requested language or `en`. Deterministic, instant, and recognisably not speech recognition.
 */
import { TEST_DOUBLE_ENGINE } from '../../core/config.js';
import {
  orderedWords,
  type RecognitionRequest,
  type RecognitionResult,
  type SpeechRecognitionEngine,
} from './speech-recognition-engine.js';

const WORD_MS = 400;

class TestDoubleRecognitionEngine implements SpeechRecognitionEngine {
  readonly name = TEST_DOUBLE_ENGINE;

  async recognize(request: RecognitionRequest): Promise<RecognitionResult> {
    if (request.knownTranscript) {
      const words = orderedWords(request.knownTranscript.words);
      return {
        engine: this.name,
        language: request.knownTranscript.language,
        text: words.map((w) => w.word).join(' '),
        words,
      };
    }
    const stem = (request.media.key.split('/').pop() ?? '').replace(/\.[^.]*$/, '');
    const words = stem
      .split(/[^\p{L}\p{N}']+/u)
      .filter(Boolean)
      .map((word, index) => ({ word, startMs: index * WORD_MS, endMs: index * WORD_MS + WORD_MS - 50 }));
    return {
      engine: this.name,
      language: request.language ?? 'en',
      text: words.map((w) => w.word).join(' '),
      words,
    };
  }
}

export function createTestDoubleRecognitionEngine(): SpeechRecognitionEngine {
  return new TestDoubleRecognitionEngine();
}
