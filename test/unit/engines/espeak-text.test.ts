import { describe, expect, it } from 'vitest';
import type { EspeakEvent } from '../../../lambdas/engines/speech/espeak-protocol.js';
import {
  espeakVoiceCatalog,
  espeakWordTimings,
  prepareEspeakText,
  toBcp47,
} from '../../../lambdas/engines/speech/espeak-text.js';

const word = (position: number, length: number, at: number): EspeakEvent => ({
  type: 'word',
  text_position: position,
  word_length: length,
  audio_position: at,
});
const phoneme = (id: string, at: number): EspeakEvent => ({
  type: 'phoneme',
  text_position: 0,
  word_length: 0,
  audio_position: at,
  id,
});

describe('eSpeak text preparation', () => {
  it('escapes markup and maps every code point back to the original text', () => {
    const original = 'A & 😀<b>\u0000';
    const prepared = prepareEspeakText(original);
    expect(prepared.text).toBe('A &amp; 😀&lt;b&gt; ');
    expect([...prepared.text].length + 1).toBe(prepared.originalOffsets.length);
    // 'b' is code point 13 of the escaped text; it is UTF-16 offset 7 of the original.
    expect(prepared.originalOffsets[13]).toBe(7);
    expect(prepared.originalOffsets.at(-1)).toBe(original.length);
  });
});

describe('eSpeak word timings', () => {
  it('ends words at the pause after them, merges repeated tokens, and maps offsets', () => {
    const original = 'Hi 😀 there & you.';
    const prepared = prepareEspeakText(original);
    // Escaped: "Hi 😀 there &amp; you." — code points: H1 i2 _3 😀4 _5 there6-10 _11 &amp;12-16 _17 you18-20 .21
    const events: EspeakEvent[] = [
      word(1, 2, 0),
      phoneme('h', 5),
      phoneme('', 200),
      word(4, 1, 250),
      phoneme('s', 250),
      word(4, 1, 400), // the emoji spoken as two words
      phoneme('m', 400),
      word(6, 5, 600),
      phoneme('ð', 600),
      { type: 'end', text_position: 11, word_length: 0, audio_position: 900 },
      word(12, 5, 1000),
      phoneme('æ', 1000),
      word(18, 3, 1200),
      phoneme('j', 1200),
      phoneme('', 1400),
    ];
    const words = espeakWordTimings(events, original, prepared, 1500);
    expect(words).toEqual([
      { word: 'Hi', startMs: 0, endMs: 200, textOffset: 0, textLength: 2 },
      { word: '😀', startMs: 250, endMs: 600, textOffset: 3, textLength: 2 },
      { word: 'there', startMs: 600, endMs: 900, textOffset: 6, textLength: 5 },
      { word: '&', startMs: 1000, endMs: 1200, textOffset: 12, textLength: 1 },
      { word: 'you', startMs: 1200, endMs: 1400, textOffset: 14, textLength: 3 },
    ]);
    for (const timing of words) {
      expect(original.slice(timing.textOffset, timing.textOffset + timing.textLength)).toBe(timing.word);
    }
  });

  it('closes the last word at the end of the audio', () => {
    const prepared = prepareEspeakText('go');
    expect(espeakWordTimings([word(1, 2, 10), phoneme('g', 10)], 'go', prepared, 300)).toEqual([
      { word: 'go', startMs: 10, endMs: 300, textOffset: 0, textLength: 2 },
    ]);
  });
});

describe('eSpeak voices', () => {
  it('formats language codes as BCP-47', () => {
    expect(toBcp47('en-us')).toBe('en-US');
    expect(toBcp47('en-gb-x-rp')).toBe('en-GB-x-rp');
    expect(toBcp47('en-029')).toBe('en-029');
    expect(toBcp47('sr-latn')).toBe('sr-Latn');
  });

  it('gives every language and variant a stable unique id', () => {
    const catalog = espeakVoiceCatalog(
      [
        { name: 'English (America)', identifier: 'gmw/en-US', languages: [{ priority: 5, name: 'en-us' }] },
        { name: 'Chinese (Cantonese)', identifier: 'sit/yue', languages: [{ priority: 5, name: 'yue' }] },
        {
          name: 'Chinese (Cantonese, latin as Jyutping)',
          identifier: 'sit/yue-Latn-jyutping',
          languages: [{ priority: 5, name: 'yue' }],
        },
      ],
      [
        { file: 'm1', name: 'male1', gender: 'male' },
        { file: 'f2', name: 'female2', gender: 'female' },
      ],
    );
    expect(catalog.map((entry) => entry.voice.id)).toEqual([
      'espeak-en-us-m1',
      'espeak-en-us-f2',
      'espeak-yue-m1',
      'espeak-yue-f2',
      'espeak-yue-latn-jyutping-m1',
      'espeak-yue-latn-jyutping-f2',
    ]);
    expect(catalog[1]).toEqual({
      voice: {
        id: 'espeak-en-us-f2',
        engine: 'espeak',
        name: 'English (America) · Female 2',
        language: 'en-US',
        languageName: 'English (America)',
        gender: 'female',
      },
      espeakVoice: 'gmw/en-US+f2',
    });
  });
});
