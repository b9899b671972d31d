import { chmod, copyFile, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, afterEach, beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '../../../../lambdas/core/config.js';
import {
  type CompositionError,
  type CompositionRequest,
  isCompositionError,
} from '../../../../lambdas/engines/composition/composition-engine.js';
import {
  ensureExecutable,
  ffmpegPath,
  ffprobePath,
} from '../../../../lambdas/engines/composition/ffmpeg-binaries.js';
import { createFfmpegCompositionEngine } from '../../../../lambdas/engines/composition/ffmpeg-composition-engine.js';
import { probeMedia } from '../../../../lambdas/engines/composition/probe.js';
import { redThenBlueClip, scratchDir, solidPng, toneWav } from './media-fixtures.js';

let scratch: Awaited<ReturnType<typeof scratchDir>>;
let clip: string;
let tone: string;
let png: string;
let corrupt: string;
const engine = createFfmpegCompositionEngine();

function request(overrides: Partial<CompositionRequest> = {}): CompositionRequest {
  return {
    workDir: scratch.dir,
    width: 320,
    height: 180,
    format: 'mp4',
    scenes: [{ durationMs: 500, background: { type: 'color', color: '#102030' } }],
    captions: [],
    burnCaptions: false,
    ...overrides,
  };
}

/** The CompositionError a promise rejects with. */
async function failure(promise: Promise<unknown>): Promise<CompositionError> {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!isCompositionError(error)) throw new Error(`expected a CompositionError, got ${String(error)}`);
  return error;
}

beforeAll(async () => {
  scratch = await scratchDir('probe');
  clip = await redThenBlueClip(path.join(scratch.dir, 'clip.mp4'), 1);
  tone = await toneWav(path.join(scratch.dir, 'tone.wav'), 0.5);
  png = await solidPng(path.join(scratch.dir, 'still.png'), 64, 48, '#ffffff');
  corrupt = path.join(scratch.dir, 'corrupt.png');
  await writeFile(corrupt, 'this is not a picture at all');
});

afterAll(async () => {
  await scratch.remove();
});

describe('probeMedia', () => {
  it('describes a clip: length, codecs, picture size and audio channels', async () => {
    const info = await probeMedia(clip);
    expect(info.durationSeconds).toBeGreaterThan(0.95);
    expect(info.durationSeconds).toBeLessThan(1.1);
    expect(info.streams).toEqual(
      expect.arrayContaining([
        expect.objectContaining({ type: 'video', codec: 'h264', width: 320, height: 180 }),
        expect.objectContaining({ type: 'audio', codec: 'aac', channels: 2 }),
      ]),
    );
  });

  it('describes audio and still images', async () => {
    expect((await probeMedia(tone)).streams).toEqual([
      expect.objectContaining({ type: 'audio', codec: 'pcm_s16le', channels: 1 }),
    ]);
    expect((await probeMedia(png)).streams).toEqual([
      expect.objectContaining({ type: 'video', codec: 'png', width: 64, height: 48 }),
    ]);
  });

  it('rejects a corrupt file with invalid_media, naming the file', async () => {
    const error = await failure(probeMedia(corrupt));
    expect(error.failureCode).toBe('invalid_media');
    expect(error.message).toContain('corrupt.png');
  });

  it('rejects a missing file with invalid_media', async () => {
    const error = await failure(probeMedia(path.join(scratch.dir, 'missing.wav')));
    expect(error.failureCode).toBe('invalid_media');
    expect(error.message).toMatch(/missing\.wav.*No such file/);
  });

  it('reads paths as files, never as ffmpeg protocols', async () => {
    const error = await failure(probeMedia('concat:a.wav|b.wav'));
    expect(error.failureCode).toBe('invalid_media');
  });
});

describe('ffmpeg and ffprobe locations', () => {
  const saved = { ffmpeg: process.env.FFMPEG_PATH, ffprobe: process.env.FFPROBE_PATH };
  afterEach(() => {
    for (const [name, value] of [
      ['FFMPEG_PATH', saved.ffmpeg],
      ['FFPROBE_PATH', saved.ffprobe],
    ] as const) {
      if (value === undefined) delete process.env[name];
      else process.env[name] = value;
    }
    resetConfig();
  });

  it('come from the npm packages unless FFMPEG_PATH / FFPROBE_PATH say otherwise', () => {
    delete process.env.FFMPEG_PATH;
    delete process.env.FFPROBE_PATH;
    resetConfig();
    expect(ffmpegPath()).toMatch(/@ffmpeg-installer.*ffmpeg$/);
    expect(ffprobePath()).toMatch(/@ffprobe-installer.*ffprobe$/);
    process.env.FFMPEG_PATH = '/opt/bin/ffmpeg';
    process.env.FFPROBE_PATH = '/opt/bin/ffprobe';
    resetConfig();
    expect(ffmpegPath()).toBe('/opt/bin/ffmpeg');
    expect(ffprobePath()).toBe('/opt/bin/ffprobe');
  });

  it('gives a binary without its run bit the bit at first use', async () => {
    const copy = path.join(scratch.dir, 'tool');
    await copyFile(process.execPath, copy);
    await chmod(copy, 0o644);
    await ensureExecutable(copy);
    expect((await stat(copy)).mode & 0o100).toBe(0o100);
  });

  it('reports a missing ffmpeg as engine_unavailable', async () => {
    process.env.FFMPEG_PATH = path.join(scratch.dir, 'no-ffmpeg-here');
    resetConfig();
    const error = await failure(engine.compose(request()));
    expect(error.failureCode).toBe('engine_unavailable');
  });
});

describe('composition errors', () => {
  it('fails with invalid_media when an input is corrupt, naming it', async () => {
    const error = await failure(
      engine.compose(
        request({
          scenes: [
            {
              durationMs: 500,
              background: { type: 'color', color: '#102030' },
              avatar: { imagePath: corrupt, fit: 'contain' },
            },
          ],
        }),
      ),
    );
    expect(error.failureCode).toBe('invalid_media');
    expect(error.message).toContain('corrupt.png');
  });

  it('fails with invalid_media when narration has no sound or a clip has no picture', async () => {
    const noSound = await failure(
      engine.compose(
        request({
          scenes: [
            {
              durationMs: 500,
              background: { type: 'color', color: '#102030' },
              narration: { path: png, volume: 1 },
            },
          ],
        }),
      ),
    );
    expect(noSound.failureCode).toBe('invalid_media');
    expect(noSound.message).toMatch(/scene 1 narration .* has no audio/);
    const noPicture = await failure(
      engine.compose(
        request({
          scenes: [{ durationMs: 500, background: { type: 'video', path: tone, mode: 'loop', volume: 1 } }],
        }),
      ),
    );
    expect(noPicture.failureCode).toBe('invalid_media');
    expect(noPicture.message).toMatch(/scene 1 background .* has no picture/);
  });

  it('fails with composition_failed when ffmpeg does not finish in time', async () => {
    const impatient = createFfmpegCompositionEngine({ timeoutMs: 1 });
    const error = await failure(impatient.compose(request()));
    expect(error.failureCode).toBe('composition_failed');
    expect(error.message).toMatch(/did not finish within 1 ms/);
  });

  it('fails with composition_failed when workDir is not a directory', async () => {
    const error = await failure(engine.compose(request({ workDir: tone })));
    expect(error.failureCode).toBe('composition_failed');
    expect(error.message).toMatch(/not a writable directory/);
  });

  it.each([
    ['an odd width', { width: 321 }, /width must be an even/],
    ['a huge frame', { height: 8192 }, /height must be/],
    ['no scenes', { scenes: [] }, /1 to 50 scenes/],
    ['a fractional frame rate', { fps: 29.97 }, /fps must be a whole number/],
    [
      'a scene shorter than a frame',
      { scenes: [{ durationMs: 10, background: { type: 'color', color: '#000000' } }] },
      /scene 1 durationMs must be at least one frame/,
    ],
    [
      'a bad colour',
      { scenes: [{ durationMs: 500, background: { type: 'color', color: 'red' } }] },
      /#rrggbb/,
    ],
    [
      'a volume above 1',
      {
        scenes: [
          { durationMs: 500, background: { type: 'video', path: 'clip.mp4', mode: 'loop', volume: 2 } },
        ],
      },
      /volume must be a number from 0 to 1/,
    ],
    ['a cue ending before it starts', { captions: [{ startMs: 500, endMs: 100, text: 'x' }] }, /caption 1/],
  ] as [string, Partial<CompositionRequest>, RegExp][])(
    'rejects %s with invalid_media',
    async (_name, overrides, message) => {
      const error = await failure(engine.compose(request(overrides)));
      expect(error.failureCode).toBe('invalid_media');
      expect(error.message).toMatch(message);
    },
  );
});
