import { describe, expect, it } from 'vitest';
import {
  decodeBase64Strict,
  describeAccepted,
  MEDIA_INPUT_DEFAULTS,
  mediaInputSchema,
  resolveMediaInput,
} from '../../lambdas/assets/media-inputs.js';
import { InvalidParameterError } from '../../lambdas/core/errors.js';
import { parseInput } from '../../lambdas/core/validation.js';
import { invalidParameterOf } from '../support/rejection.js';
import { pdf, png } from '../support/sample-media.js';

async function rejectionOf(promise: Promise<unknown>): Promise<InvalidParameterError> {
  try {
    await promise;
  } catch (error) {
    if (error instanceof InvalidParameterError) return error;
    throw error;
  }
  throw new Error('expected an InvalidParameterError');
}

describe('mediaInputSchema', () => {
  it.each([
    { type: 'url', url: 'https://media.example.com/a.png' },
    { type: 'asset_id', asset_id: '0123456789abcdef0123456789abcdef' },
    { type: 'base64', media_type: 'image/png', data: 'iVBORw0KGgo=' },
  ])('accepts %o', (input) => {
    expect(mediaInputSchema.parse(input)).toEqual(input);
  });

  it.each([
    [{ type: 'ftp', url: 'x' }, 'background.type', /one of: url, asset_id, base64/],
    [{ url: 'https://a.example.com/' }, 'background.type', /one of: url, asset_id, base64/],
    [{ type: 'url' }, 'background.url', /required/],
    [{ type: 'url', url: '' }, 'background.url', /must not be empty/],
    [{ type: 'url', url: `https://a.example.com/${'a'.repeat(2100)}` }, 'background.url', /at most 2048/],
    [
      { type: 'url', url: 'https://a.example.com/', asset_id: 'x' },
      'background.asset_id',
      /not a recognised/,
    ],
    // Wrong types: the wording comes from parseInput (it says "is required" for any invalid_type).
    [{ type: 'asset_id', asset_id: 7 }, 'background.asset_id', /`background.asset_id`/],
    [{ type: 'base64', data: 'AAAA' }, 'background.media_type', /required/],
    [{ type: 'base64', media_type: 'image/png', data: '' }, 'background.data', /must not be empty/],
    ['https://a.example.com/x.png', 'background', /`background`/],
    [null, 'background', /`background`/],
  ])('refuses %o naming %s', (input, param, message) => {
    const error = invalidParameterOf(() => parseInput(mediaInputSchema, input, 'background'));
    expect(error.param).toBe(param);
    expect(error.message).toMatch(message);
  });

  it('names the field path when the resolver is given a bad shape', async () => {
    const error = await rejectionOf(
      resolveMediaInput('ws', { type: 'asset_id' }, { param: 'scenes[1].audio', accept: ['audio'] }),
    );
    expect(error.param).toBe('scenes[1].audio.asset_id');
  });
});

describe('decodeBase64Strict', () => {
  const bytes = png();

  it('decodes padded standard base64', () => {
    expect(decodeBase64Strict(bytes.toString('base64'), 1024, 'f.data')).toEqual(bytes);
    expect(decodeBase64Strict('YQ==', 10, 'f.data')).toEqual(Buffer.from('a'));
    expect(decodeBase64Strict('YWI=', 10, 'f.data')).toEqual(Buffer.from('ab'));
    expect(decodeBase64Strict('YWJj', 10, 'f.data')).toEqual(Buffer.from('abc'));
  });

  it.each([
    ['missing padding', 'YQ'],
    ['line breaks', `${bytes.toString('base64').slice(0, 20)}\n${bytes.toString('base64').slice(20)}`],
    ['spaces', 'YWJj YWJj'],
    ['base64url alphabet', 'a-_b'],
    ['padding in the middle', 'YQ==YWJj'],
    ['three padding characters', 'Y==='],
    ['non-canonical trailing bits', 'YR=='],
    ['non-ASCII', 'YWJé'],
  ])('refuses %s', (_name, data) => {
    const error = invalidParameterOf(() => decodeBase64Strict(data, 1024, 'avatar.data'));
    expect(error.param).toBe('avatar.data');
    expect(error.message).toMatch(/not valid base64/);
  });

  it('refuses a data: URL with a message that says so', () => {
    const error = invalidParameterOf(() =>
      decodeBase64Strict(`data:image/png;base64,${bytes.toString('base64')}`, 1024, 'avatar.data'),
    );
    expect(error.message).toMatch(/without a `data:` URL prefix/);
  });

  it('caps the decoded size before decoding', () => {
    expect(decodeBase64Strict('A'.repeat(400), 300, 'f.data')).toHaveLength(300);
    const error = invalidParameterOf(() => decodeBase64Strict('A'.repeat(404), 300, 'f.data'));
    expect(error.message).toMatch(/decodes to 303 bytes; at most 300 bytes are accepted/);
    // The size is judged from the length alone: even an invalid string of that length is "too large".
    expect(invalidParameterOf(() => decodeBase64Strict('!'.repeat(404), 300, 'f.data')).message).toMatch(
      /at most 300 bytes/,
    );
  });

  it('defaults to 20 MiB inline and 200 MiB by URL', () => {
    expect(MEDIA_INPUT_DEFAULTS.maxBase64Bytes).toBe(20 * 1024 * 1024);
    expect(MEDIA_INPUT_DEFAULTS.maxUrlBytes).toBe(200 * 1024 * 1024);
    expect(MEDIA_INPUT_DEFAULTS.timeoutMs).toBe(15_000);
  });
});

describe('base64 inputs refused before anything is stored', () => {
  const options = { param: 'avatar', accept: ['image'] as const };
  const input = (mediaType: string, data: Buffer | string) => ({
    type: 'base64',
    media_type: mediaType,
    data: typeof data === 'string' ? data : data.toString('base64'),
  });

  it('refuses an unsupported declared type', async () => {
    const error = await rejectionOf(resolveMediaInput('ws', input('image/gif', png()), options));
    expect(error.param).toBe('avatar.media_type');
    expect(error.message).toMatch(/"image\/gif" is not a supported media type; expected an image/);
  });

  it('refuses bytes of no supported type', async () => {
    const error = await rejectionOf(
      resolveMediaInput('ws', input('image/png', Buffer.from('just some text')), options),
    );
    expect(error.param).toBe('avatar.data');
    expect(error.message).toMatch(/not a file of a supported type; expected an image \(png, jpg, webp\)/);
  });

  it('refuses a kind the field does not take, saying what arrived', async () => {
    const error = await rejectionOf(resolveMediaInput('ws', input('application/pdf', pdf()), options));
    expect(error.param).toBe('avatar.data');
    expect(error.message).toBe(
      '`avatar.data` is a document (application/pdf); expected an image (png, jpg, webp).',
    );
  });

  it('refuses a declared type the bytes contradict', async () => {
    const error = await rejectionOf(resolveMediaInput('ws', input('image/jpeg', png()), options));
    expect(error.param).toBe('avatar.media_type');
    expect(error.message).toBe('`avatar.media_type` says image/jpeg, but `avatar.data` is image/png.');
  });

  it('applies the field maxBytes', async () => {
    const error = await rejectionOf(
      resolveMediaInput('ws', input('image/png', png(64, 64)), { ...options, maxBytes: 16 }),
    );
    expect(error.param).toBe('avatar.data');
    expect(error.message).toMatch(/at most 16 bytes/);
  });

  it('refuses invalid base64', async () => {
    const error = await rejectionOf(resolveMediaInput('ws', input('image/png', 'not base64!'), options));
    expect(error.param).toBe('avatar.data');
  });
});

describe('describeAccepted', () => {
  it('lists kinds with their extensions', () => {
    expect(describeAccepted(['image', 'video'])).toBe(
      'an image (png, jpg, webp) or a video (mp4, mov, webm)',
    );
    expect(describeAccepted(['archive', 'subtitle', 'audio'])).toBe(
      'a zip archive (zip), subtitles (srt, vtt) or audio (mp3, wav, m4a)',
    );
  });
});
