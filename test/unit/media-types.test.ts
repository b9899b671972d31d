import { describe, expect, it } from 'vitest';
import { detectMediaType } from '../../lambdas/media/media-types.js';

describe('subtitle detection', () => {
  it('recognises a non-ASCII SRT wherever the sample cuts a multibyte character', async () => {
    const cue = (index: number) =>
      `${index}\n00:00:${String(index % 60).padStart(2, '0')},000 --> 00:00:${String((index % 60) + 1).padStart(2, '0')},000\nこんにちは、世界。字幕のテストです。\n\n`;
    const srt = Buffer.from(Array.from({ length: 40 }, (_, index) => cue(index + 1)).join(''));
    for (let shift = 0; shift < 3; shift++) {
      // Every alignment of the 1024-byte sample against the three-byte characters.
      const padded = Buffer.concat([Buffer.from(' '.repeat(shift)), srt]);
      expect((await detectMediaType(padded))?.mimeType, `shift ${shift}`).toBe('application/x-subrip');
    }
  });

  it('does not take arbitrary text or binary for a subtitle', async () => {
    expect(await detectMediaType(Buffer.from('hello, world'))).toBeUndefined();
    expect(await detectMediaType(Buffer.from([0x00, 0x01, 0x02, 0x03, 0x04]))).toBeUndefined();
  });
});
