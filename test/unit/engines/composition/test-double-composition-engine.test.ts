import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import type { CompositionRequest } from '../../../../lambdas/engines/composition/composition-engine.js';
import { probeMedia } from '../../../../lambdas/engines/composition/probe.js';
import {
  createTestDoubleCompositionEngine,
  doubleFrameSize,
} from '../../../../lambdas/engines/composition/test-double-composition-engine.js';
import { scratchDir, toneWav } from './media-fixtures.js';

const engine = createTestDoubleCompositionEngine();
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let narrationPath: string;

function request(overrides: Partial<CompositionRequest> = {}): CompositionRequest {
  return {
    workDir: scratch.dir,
    width: 1280,
    height: 720,
    format: 'mp4',
    scenes: [
      {
        durationMs: 1200,
        background: { type: 'color', color: '#ff0000' },
        narration: { path: narrationPath, volume: 1 },
      },
      { durationMs: 1300, background: { type: 'color', color: '#0000ff' } },
    ],
    captions: [{ startMs: 0, endMs: 2000, text: 'HELLO' }],
    burnCaptions: false,
    ...overrides,
  };
}

beforeAll(async () => {
  scratch = await scratchDir('double');
  narrationPath = await toneWav(path.join(scratch.dir, 'narration.wav'), 1);
});

afterAll(() => scratch.remove());

describe('the composition test double', () => {
  it('is named test-double, so jobs record that a double made their media', () => {
    expect(engine.name).toBe('test-double');
  });

  it.each(['mp4', 'webm'] as const)(
    '%s: a video ffprobe reads, as long as the scenes, with a JPEG thumbnail and a GIF preview',
    async (format) => {
      const result = await engine.compose(request({ format }));
      expect(result).toMatchObject({ width: 64, height: 36 });
      expect(result.durationSeconds).toBeCloseTo(2.5, 1);
      const video = await probeMedia(result.videoPath);
      expect(video.durationSeconds).toBeCloseTo(2.5, 1);
      expect(video.streams.map((stream) => [stream.type, stream.codec])).toEqual(
        format === 'mp4'
          ? [
              ['video', 'h264'],
              ['audio', 'aac'],
            ]
          : [
              ['video', 'vp9'],
              ['audio', 'opus'],
            ],
      );
      // Captions not burned: a separate captioned video, which decodes too.
      expect(result.captionedVideoPath).not.toBe(result.videoPath);
      expect((await probeMedia(result.captionedVideoPath)).durationSeconds).toBeCloseTo(2.5, 1);
      const thumbnail = await probeMedia(result.thumbnailPath);
      expect(thumbnail.streams[0]).toMatchObject({ type: 'video', codec: 'mjpeg', width: 64, height: 36 });
      const gif = await probeMedia(result.gifPath);
      expect(gif.streams[0]).toMatchObject({ type: 'video', codec: 'gif', width: 64, height: 36 });
    },
  );

  it('writes one video when captions are burned, or there are none', async () => {
    const burned = await engine.compose(request({ burnCaptions: true }));
    expect(burned.captionedVideoPath).toBe(burned.videoPath);
    const uncaptioned = await engine.compose(request({ captions: [] }));
    expect(uncaptioned.captionedVideoPath).toBe(uncaptioned.videoPath);
  });

  it('keeps the frame shape, scaled down to fit 64 pixels', () => {
    expect(doubleFrameSize(1280, 720)).toEqual({ width: 64, height: 36 });
    expect(doubleFrameSize(720, 1280)).toEqual({ width: 36, height: 64 });
    expect(doubleFrameSize(1080, 1080)).toEqual({ width: 64, height: 64 });
    expect(doubleFrameSize(32, 16)).toEqual({ width: 32, height: 16 });
  });

  it('refuses what the reference engine refuses: a bad request, an unreadable input', async () => {
    await expect(engine.compose(request({ width: 641 }))).rejects.toMatchObject({
      failureCode: 'invalid_media',
    });
    const missing = path.join(scratch.dir, 'missing.wav');
    await expect(
      engine.compose(
        request({
          scenes: [
            {
              durationMs: 500,
              background: { type: 'color', color: '#000000' },
              narration: { path: missing, volume: 1 },
            },
          ],
        }),
      ),
    ).rejects.toMatchObject({ failureCode: 'invalid_media', message: expect.stringContaining(missing) });
  });
});
