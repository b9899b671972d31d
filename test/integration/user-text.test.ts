import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { png } from '../support/sample-media.js';
import { errorOf, startTestStack, type TestStack } from '../support/test-stack.js';

// Names and titles are shown back (lists, downloads, dashboards): control characters in them break
// what shows them, and bidi controls make them read as something else. Every such field refuses them.
let api: TestStack;
beforeAll(async () => {
  api = await startTestStack();
});
afterAll(() => api.stop());

const NUL = '\u0000';
const BELL = '\u0007';
const RIGHT_TO_LEFT_OVERRIDE = '\u202E';
const LEFT_TO_RIGHT_ISOLATE = '\u2066';
const RIGHT_TO_LEFT_MARK = '\u200F';
const C1_NEXT_LINE = '\u0085';

const file = { content_type: 'image/png', size_bytes: png().length };

describe('control characters in names and titles', () => {
  it.each([
    ['a folder name', '/v3/folders', (text: string) => ({ name: `Q3${text}` }), 'name'],
    [
      'a direct upload file name',
      '/v3/assets/direct-uploads',
      (text: string) => ({ filename: `invoice${text}gnp.exe`, ...file }),
      'filename',
    ],
    [
      'an asset batch title',
      '/v3/assets/direct-uploads/batches',
      (text: string) => ({ title: `Launch${text}`, files: [{ filename: 'a.png', ...file }] }),
      'title',
    ],
    [
      'an asset batch file name',
      '/v3/assets/direct-uploads/batches',
      (text: string) => ({ files: [{ filename: `a${text}.png`, ...file }] }),
      'files[0].filename',
    ],
    [
      'a video title',
      '/v3/videos',
      (text: string) => ({ type: 'avatar', avatar_id: 'a', voice_id: 'v', script: 'Hi', title: `T${text}` }),
      'title',
    ],
  ])(
    'refuses %s holding any control character with 400 naming the field',
    async (_label, path, body, param) => {
      for (const text of [
        NUL,
        BELL,
        RIGHT_TO_LEFT_OVERRIDE,
        LEFT_TO_RIGHT_ISOLATE,
        RIGHT_TO_LEFT_MARK,
        C1_NEXT_LINE,
      ]) {
        const result = await api.call('POST', path, { body: body(text) });
        expect(result.status, JSON.stringify(text)).toBe(400);
        expect(errorOf(result)).toMatchObject({ code: 'invalid_parameter', param });
        expect(errorOf(result).message).toContain('control characters');
      }
    },
  );

  it('accepts names in any script, with emoji and joiners', async () => {
    const created = await api.call<{ data: { name: string } }>('POST', '/v3/folders', {
      body: { name: 'Résumés 日本語 עברית 👩‍💻' },
    });
    expect(created.status).toBe(201);
    expect(created.body.data.name).toBe('Résumés 日本語 עברית 👩‍💻');
  });
});
