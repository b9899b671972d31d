/**
 * `known_transcript`: media this service produced (a narration it synthesized, a render it made) has
 * its script and word timings stored; hearing it again could only lose words. The job code hands those
 * words over (`knownTranscript` of the request) and this engine returns them as a recognition result,
 * so what follows (captions, translation, clipping) reads one shape whatever heard the words.
 */
import {
  orderedWords,
  type RecognitionRequest,
  type RecognitionResult,
  type SpeechRecognitionEngine,
  SpeechRecognitionError,
} from './speech-recognition-engine.js';

export const KNOWN_TRANSCRIPT_ENGINE = 'known_transcript';

class KnownTranscriptEngine implements SpeechRecognitionEngine {
  readonly name = KNOWN_TRANSCRIPT_ENGINE;

  async recognize(request: RecognitionRequest): Promise<RecognitionResult> {
    const known = request.knownTranscript;
    if (!known || known.words.length === 0) {
      throw new SpeechRecognitionError(
        'invalid_input',
        'The known transcript engine needs the words this service stored for the media; none were given.',
      );
    }
    const words = orderedWords(known.words);
    return {
      engine: this.name,
      language: known.language,
      text: words.map(({ word }) => word).join(' '),
      words,
    };
  }
}

/** The engine that returns the stored words of media this service made. */
export function createKnownTranscriptEngine(): SpeechRecognitionEngine {
  return new KnownTranscriptEngine();
}
