import { describe, expect, it } from 'vitest';
import { InvalidParameterError } from '../../../lambdas/core/errors.js';
import { MAX_BREAK_MS, parseTtsText, synthesisUnits } from '../../../lambdas/model-audio/tts-text.js';

function refusal(run: () => unknown): InvalidParameterError {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(InvalidParameterError);
    return error as InvalidParameterError;
  }
  throw new Error('expected a refusal');
}

describe('parseTtsText', () => {
  it('keeps plain text as one speech part, with its offset', () => {
    expect(parseTtsText('Hello there.', 'instant')).toEqual([
      { kind: 'speech', text: 'Hello there.', offset: 0 },
    ]);
  });

  it('reads break tags of professional voices as pauses, in seconds or milliseconds', () => {
    const text = "One. <break time='0.5s'/>Two.<break time=\"1500ms\" />Three<break time='5s'/>";
    expect(parseTtsText(text, 'professional')).toEqual([
      { kind: 'speech', text: 'One. ', offset: 0 },
      { kind: 'pause', ms: 500 },
      { kind: 'speech', text: 'Two.', offset: 25 },
      { kind: 'pause', ms: 1500 },
      { kind: 'speech', text: 'Three', offset: 52 },
      { kind: 'pause', ms: 5000 },
    ]);
  });

  it('refuses a break tag for an instant voice, saying where', () => {
    const error = refusal(() => parseTtsText("Hi <break time='1s'/> there", 'instant'));
    expect(error.param).toBe('text');
    expect(error.message).toMatch(/professional voices only/);
    expect(error.message).toMatch(/character 3/);
  });

  it.each([
    ['<speak>Hi</speak>', /markup/],
    ['Say <emphasis level="strong">this</emphasis>', /markup/],
    ['<prosody rate="slow">Hi</prosody>', /markup/],
    ['Hi <!-- comment -->', /markup/],
    ['<?xml version="1.0"?>Hi', /markup/],
    ['Hi </break>', /markup/],
    ["Hi <break time='1s'>", /malformed/],
    ['Hi <break strength="strong"/>', /malformed/],
    ["Hi <break time='fast'/>", /malformed/],
    ["Hi <break time='6s'/>", /at most 5 s/],
    ["Hi <break time='5001ms'/>", /at most 5 s/],
    ["<break time='1s'/>", /nothing to speak/],
    ['   ', /nothing to speak/],
  ])('refuses %j for a professional voice', (text, reason) => {
    const error = refusal(() => parseTtsText(text, 'professional'));
    expect(error.param).toBe('text');
    expect(error.message).toMatch(reason);
  });

  it('speaks a < that opens no tag', () => {
    expect(parseTtsText('3 < 5 and 7 <3', 'instant')).toEqual([
      { kind: 'speech', text: '3 < 5 and 7 <3', offset: 0 },
    ]);
  });

  it('limits a pause to the spec maximum', () => {
    expect(MAX_BREAK_MS).toBe(5000);
  });
});

describe('synthesisUnits', () => {
  const text = 'First sentence here. Second one. Third one is a bit longer, with a clause. Fourth.';
  const part = { text, offset: 10 };

  it('covers every word in order, with offsets into the request text', () => {
    const units = synthesisUnits(part, { maxUnitCharacters: 300, splitClauses: false });
    expect(units.map((unit) => unit.text).join('')).toBe(text);
    for (const unit of units)
      expect(text.slice(unit.offset - 10, unit.offset - 10 + unit.text.length)).toBe(unit.text);
  });

  it('keeps the first sentence alone and groups the rest up to the limit', () => {
    const units = synthesisUnits(part, { maxUnitCharacters: 300, splitClauses: false });
    expect(units.map((unit) => unit.text.trim())).toEqual([
      'First sentence here.',
      'Second one. Third one is a bit longer, with a clause. Fourth.',
    ]);
    const small = synthesisUnits(part, { maxUnitCharacters: 20, splitClauses: false });
    expect(small).toHaveLength(4);
  });

  it('cuts long sentences after clauses for the turbo model', () => {
    const long = {
      text: 'This sentence is long enough, and it has several clauses; each one can stand alone.',
      offset: 0,
    };
    const units = synthesisUnits(long, { maxUnitCharacters: 30, splitClauses: true });
    expect(units.map((unit) => unit.text.trim())).toEqual([
      'This sentence is long enough,',
      'and it has several clauses;',
      'each one can stand alone.',
    ]);
    expect(units.map((unit) => unit.text).join('')).toBe(long.text);
  });
});
