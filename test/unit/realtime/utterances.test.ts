import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import { livePlaylist } from '../../../lambdas/realtime/hls-playlist.js';
import { takeSentences } from '../../../lambdas/realtime/utterances.js';
import '../../support/property-seed.js';

describe('takeSentences', () => {
  it('speaks complete sentences at once and keeps the unfinished rest', () => {
    expect(takeSentences('Hello there. How are', false)).toEqual({
      utterances: ['Hello there.'],
      rest: 'How are',
    });
    expect(takeSentences('Wait! Really?\nYes', false)).toEqual({
      utterances: ['Wait!', 'Really?'],
      rest: 'Yes',
    });
  });

  it('does not cut a number whose point arrives at the end of a delta', () => {
    expect(takeSentences('It costs 3.', false)).toEqual({ utterances: [], rest: 'It costs 3.' });
    expect(takeSentences('It costs 3.5 euros. ', false).utterances).toEqual(['It costs 3.5 euros.']);
  });

  it('says the rest on final', () => {
    expect(takeSentences('and the end', true)).toEqual({ utterances: ['and the end'], rest: '' });
    expect(takeSentences('   ', true)).toEqual({ utterances: [], rest: '' });
  });

  it('loses and reorders no text, however it is cut into deltas', () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom('Hello', ' ', 'there', '.', '!', '?', '\n', '3', 'é', '…'), {
          maxLength: 40,
        }),
        fc.array(fc.nat(), { maxLength: 6 }),
        (pieces, cuts) => {
          const text = pieces.join('');
          const points = [...new Set(cuts.map((cut) => cut % (text.length + 1)))].sort((a, b) => a - b);
          const spoken: string[] = [];
          let buffer = '';
          let start = 0;
          for (const [index, point] of [...points, text.length].entries()) {
            const final = index === points.length;
            const result = takeSentences(buffer + text.slice(start, point), final);
            spoken.push(...result.utterances);
            buffer = result.rest;
            start = point;
          }
          expect(spoken.join('').replace(/\s+/g, '')).toBe(text.replace(/\s+/g, ''));
          expect(spoken.every((utterance) => utterance.trim() === utterance && utterance.length > 0)).toBe(
            true,
          );
        },
      ),
    );
  });
});

describe('livePlaylist', () => {
  it('is an EVENT playlist that ends with ENDLIST only once the stream has ended', () => {
    const segments = [
      { uri: 'https://media/segment-00000.ts?sig=1', durationMs: 1000 },
      { uri: 'https://media/segment-00001.ts?sig=2', durationMs: 1000 },
    ];
    const live = livePlaylist(segments, 1000, false);
    expect(live.split('\n')).toEqual([
      '#EXTM3U',
      '#EXT-X-VERSION:3',
      '#EXT-X-PLAYLIST-TYPE:EVENT',
      '#EXT-X-TARGETDURATION:1',
      '#EXT-X-MEDIA-SEQUENCE:0',
      '#EXTINF:1.000,',
      'https://media/segment-00000.ts?sig=1',
      '#EXTINF:1.000,',
      'https://media/segment-00001.ts?sig=2',
      '',
    ]);
    expect(livePlaylist(segments, 1000, true)).toBe(`${live}#EXT-X-ENDLIST\n`);
    expect(livePlaylist([], 1500, false)).toContain('#EXT-X-TARGETDURATION:2');
  });
});
