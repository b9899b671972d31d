/**
 * Where a chunked render cuts (chunks.ts, pure): the chunks cover every frame once, in order, each
 * starting on a multiple of the GOP, none longer than asked (but at least a GOP), and a video no
 * longer than one chunk is one chunk.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import '../../../support/property-seed.js';
import {
  compositionFiles,
  frameChunks,
  withFilePaths,
} from '../../../../lambdas/engines/composition/chunks.js';
import type { CompositionRequest } from '../../../../lambdas/engines/composition/composition-engine.js';

describe('frame chunks', () => {
  it('cover every frame once, on GOP boundaries, within the chunk length', () => {
    fc.assert(
      fc.property(
        fc.integer({ min: 1, max: 100_000 }),
        fc.integer({ min: 1, max: 60 }),
        fc.integer({ min: 1, max: 300 }),
        fc.double({ min: 0.1, max: 120, noNaN: true }),
        (totalFrames, fps, gopFrames, chunkSeconds) => {
          const chunks = frameChunks({ totalFrames, fps, gopFrames, chunkSeconds });
          expect(chunks[0]?.startFrame).toBe(0);
          expect(chunks.at(-1)?.endFrame).toBe(totalFrames);
          const longest = Math.max(gopFrames, chunkSeconds * fps);
          // Checked per chunk without an assertion each: a short chunk length makes thousands.
          const wrong = chunks.filter(
            (chunk, index) =>
              chunk.index !== index ||
              chunk.startFrame % gopFrames !== 0 ||
              chunk.endFrame <= chunk.startFrame ||
              chunk.endFrame - chunk.startFrame > longest ||
              (index > 0 && chunk.startFrame !== chunks[index - 1]?.endFrame),
          );
          expect(wrong).toEqual([]);
          if (totalFrames <= Math.max(gopFrames, Math.floor((chunkSeconds * fps) / gopFrames) * gopFrames))
            expect(chunks).toHaveLength(1);
        },
      ),
    );
  });
});

describe('a request moved to another machine', () => {
  it('names every file it reads once, and takes new paths for all of them and nothing else', () => {
    const sprite = { imagePath: '/w/mouth.png', box: { x: 0, y: 0, width: 2, height: 2 } };
    const request: CompositionRequest = {
      workDir: '/w',
      width: 320,
      height: 180,
      format: 'mp4',
      scenes: [
        {
          durationMs: 1000,
          background: { type: 'image', path: '/w/bg.png', fit: 'cover' },
          avatar: {
            imagePath: '/w/face.png',
            fit: 'contain',
            animation: { mouths: { open_wide: sprite, rounded: sprite }, visemes: [], blinkSeed: 1 },
          },
          narration: { path: '/w/speech.wav', volume: 1 },
        },
      ],
      captions: [{ startMs: 0, endMs: 500, text: '/w/bg.png is a caption' }],
      burnCaptions: true,
      watermark: {
        imagePath: '/w/mark.png',
        opacity: 1,
        scale: 1,
        position: 'top_left',
        offsetX: 0,
        offsetY: 0,
      },
      captionStyle: { font: { path: '/w/font.ttf', family: 'Brand' } },
    };
    const files = compositionFiles(request);
    expect(files.sort()).toEqual(
      ['/w/bg.png', '/w/face.png', '/w/font.ttf', '/w/mark.png', '/w/mouth.png', '/w/speech.wav'].sort(),
    );
    const moved = withFilePaths(request, new Map(files.map((file) => [file, `key/${file.slice(3)}`])));
    expect(compositionFiles(moved).sort()).toEqual(files.map((file) => `key/${file.slice(3)}`).sort());
    expect(moved.workDir).toBe('/w');
    expect(moved.captions[0]?.text).toBe('/w/bg.png is a caption');
  });
});
