/**
 * What text to speak must hold, the same for every speech route (`POST /v3/voices/speech`,
 * `POST /v3/models/audio/tts` and `/tts/stream`): at least one letter or digit, in any script
 * (`\p{L}`, `\p{N}`). Emoji, punctuation, symbols and invisible format or control characters alone
 * (zero-width space U+200B, bidirectional controls such as U+202E, neither letters nor digits) are
 * not: engines give no audio or no words for them, and a stream without audio has nothing to answer
 * with once it has started. Routes check this before any synthesis, so such text is always a 400.
 * Pure: no I/O.
 */
import { InvalidParameterError } from '../core/errors.js';

const LETTER_OR_DIGIT = /[\p{L}\p{N}]/u;

/** Whether `text` has something an engine speaks as words: a letter or a digit of any script. */
export function isSpeakable(text: string): boolean {
  return LETTER_OR_DIGIT.test(text);
}

/**
 * @param texts the pieces of the request's text that are spoken (markup and pauses left out)
 * @throws InvalidParameterError naming `param` when none of them is speakable
 */
export function requireSpeakableText(texts: string | readonly string[], param = 'text'): void {
  const pieces = typeof texts === 'string' ? [texts] : texts;
  if (pieces.some(isSpeakable)) return;
  throw new InvalidParameterError(
    `\`${param}\` has nothing to speak: it needs at least one letter or digit (emoji, punctuation and invisible characters alone are not spoken).`,
    param,
  );
}
