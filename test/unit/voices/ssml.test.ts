import { describe, expect, it } from 'vitest';
import { decodeXmlText, MAX_SEGMENTS, parseSsml, SsmlError } from '../../../lambdas/voices/ssml.js';

describe('parseSsml', () => {
  it('turns text, breaks and prosody into runs and pauses', () => {
    expect(
      parseSsml(
        '<speak>Hello <break time="750ms"/>world. <prosody rate="slow">Slowly <prosody rate="50%">very slowly</prosody></prosody> done</speak>',
      ),
    ).toEqual([
      { kind: 'text', text: 'Hello', rate: 1 },
      { kind: 'break', ms: 750 },
      { kind: 'text', text: 'world.', rate: 1 },
      { kind: 'text', text: 'Slowly', rate: 0.8 },
      { kind: 'text', text: 'very slowly', rate: 0.4 },
      { kind: 'text', text: 'done', rate: 1 },
    ]);
  });

  it('reads break strengths and seconds, merges adjacent pauses, keeps a leading and trailing pause', () => {
    expect(
      parseSsml(
        '<speak><break time="1.5s"/>Hi<break strength="weak"/><break/>there<break strength="x-strong"/></speak>',
      ),
    ).toEqual([
      { kind: 'break', ms: 1500 },
      { kind: 'text', text: 'Hi', rate: 1 },
      { kind: 'break', ms: 650 },
      { kind: 'text', text: 'there', rate: 1 },
      { kind: 'break', ms: 1200 },
    ]);
  });

  it('accepts an XML declaration, speak attributes, namespaces, p and s, and relative rates', () => {
    expect(
      parseSsml(
        '<?xml version="1.0" encoding="UTF-8"?>\n<speak version="1.1" xmlns="http://www.w3.org/2001/10/synthesis" xml:lang="en-US"><p><s>One.</s><s>Two.</s></p><p><prosody rate="+25%">Three</prosody></p></speak>',
      ),
    ).toEqual([
      { kind: 'text', text: 'One.', rate: 1 },
      { kind: 'break', ms: 0 },
      { kind: 'text', text: 'Two.', rate: 1 },
      { kind: 'break', ms: 500 },
      { kind: 'text', text: 'Three', rate: 1.25 },
    ]);
  });

  it('decodes entities and character references', () => {
    expect(parseSsml('<speak>Fish &amp; chips &lt;3 &#233;t&#xE9; &quot;ok&quot;</speak>')).toEqual([
      { kind: 'text', text: 'Fish & chips <3 été "ok"', rate: 1 },
    ]);
    expect(decodeXmlText('a &apos;b&apos;')).toBe("a 'b'");
  });

  it.each([
    ['Hello', /one <speak> element/],
    ['<speak>Hi</speak> trailing', /outside the <speak> element|after the closing/],
    ['<speak>Hi <emphasis level="strong">there</emphasis></speak>', /<emphasis> is not supported/],
    ['<speak>Hi <audio src="https://x.example/a.mp3"/></speak>', /<audio> is not supported/],
    ['<speak>Hi <break time="5001ms"/></speak>', /longer than 5 seconds/],
    ['<speak>Hi <break time="soon"/></speak>', /must be a duration/],
    ['<speak>Hi <break strength="huge"/></speak>', /must be one of/],
    ['<speak>Hi <break>x</break></speak>', /must be empty/],
    ['<speak>Hi <prosody volume="loud">x</prosody></speak>', /<prosody volume> is not supported/],
    ['<speak>Hi <prosody rate="900%">x</prosody></speak>', /percentage from 20% to 200%/],
    ['<speak>Hi <prosody>x</prosody></speak>', /needs a rate/],
    ['<speak>Hi <p class="a">x</p></speak>', /<p class> is not supported/],
    ['<speak>Hi <s>x</p></speak>', /does not close/],
    ['<speak>Hi <s>x</speak>', /does not close/],
    ['<speak>Hi', /is not closed/],
    ['<speak>Hi <break time="1s"</speak>', /malformed tag/],
    ['<speak>Hi <!-- note --></speak>', /comments are not supported/],
    ['<speak><![CDATA[x]]></speak>', /is not supported/],
    ['<speak>AT&T</speak>', /&amp;/],
    ['<speak>&nbsp;x</speak>', /unknown entity/],
    ['<speak>&#0;x</speak>', /unknown entity/],
    ['<speak><speak>x</speak></speak>', /cannot be nested/],
    ['<speak>   </speak>', /no words/],
    ['<speak><break time="1s"/>...</speak>', /no words/],
    ['<speak>Hi <break time="1s" time="2s"/></speak>', /repeats the attribute/],
  ])('refuses %s', (ssml, message) => {
    expect(() => parseSsml(ssml)).toThrow(SsmlError);
    expect(() => parseSsml(ssml)).toThrow(message);
  });

  it('caps the number of runs and the total silence', () => {
    const many = `<speak>${'a <break time="10ms"/>'.repeat(MAX_SEGMENTS)}</speak>`;
    expect(() => parseSsml(many)).toThrow(/more than 200 runs/);
    const long = `<speak>a${'<break time="5s"/>'.repeat(25)}</speak>`;
    expect(() => parseSsml(long)).toThrow(/more than 120 seconds/);
  });
});
