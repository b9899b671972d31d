import { describe, expect, it } from 'vitest';
import { InvalidParameterError } from '../../../lambdas/core/errors.js';
import { isSpeakable, requireSpeakableText } from '../../../lambdas/voices/speakable-text.js';

describe('speakable text', () => {
  it('is text with a letter or digit of any script', () => {
    for (const text of ['a', 'ñ', '3', '٣', '日本', 'Ω', '😀 hi', '\u200bok\u202e', '&5']) {
      expect(isSpeakable(text), JSON.stringify(text)).toBe(true);
    }
  });

  it('is not emoji, punctuation, symbols or invisible characters alone', () => {
    for (const text of ['😀', '\u200b', '\u202e', '\u00ad\u2060\ufeff', '...?!', '— & %', ' \n\t', '']) {
      expect(isSpeakable(text), JSON.stringify(text)).toBe(false);
    }
  });

  it('is refused with 400 invalid_parameter naming the field', () => {
    expect(() => requireSpeakableText(['😀', '\u200b'])).toThrowError(InvalidParameterError);
    const error = (() => {
      try {
        requireSpeakableText('\u202e');
      } catch (caught) {
        return caught as Error;
      }
    })();
    expect(error).toMatchObject({ status: 400, code: 'invalid_parameter', param: 'text' });
    expect(error?.message).toMatch(/nothing to speak.*letter or digit/);
    expect(() => requireSpeakableText(['😀', 'ok'])).not.toThrow();
  });
});
