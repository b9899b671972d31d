/**
 * A video rendered in chunks (the sound once, the pictures of each 2 s chunk on its own, joined by the
 * concat demuxer without re-encoding) against the same video rendered in one pass: a stock presenter
 * (swaying, blinking, lips on eSpeak NG's visemes) speaks in two scenes joined by a fade (the second
 * over a looped clip with its own sound), with burned captions and a watermark. Encoded losslessly (x264 CRF 0), every decoded frame must be the single
 * pass's, bit for bit; at the default CRF, the joined picture is measured against the single pass (PSNR).
 */
import { mkdir, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPortrait } from '../../../../lambdas/catalog/render-portrait.js';
import { renderSprite } from '../../../../lambdas/catalog/render-sprites.js';
import { SPRITES } from '../../../../lambdas/catalog/sprite-art.js';
import { findStockLook } from '../../../../lambdas/catalog/stock-avatars.js';
import { engineVoiceOf, findStockVoice } from '../../../../lambdas/catalog/stock-voices.js';
import { captionCuesFromWords } from '../../../../lambdas/engines/composition/captions.js';
import { frameChunks } from '../../../../lambdas/engines/composition/chunks.js';
import type {
  CompositionRequest,
  CompositionScene,
  PresenterAnimation,
  PresenterSprite,
} from '../../../../lambdas/engines/composition/composition-engine.js';
import { ffmpegPath, runProcess } from '../../../../lambdas/engines/composition/ffmpeg-binaries.js';
import {
  createFfmpegCompositionEngine,
  type FfmpegCompositionEngineOptions,
} from '../../../../lambdas/engines/composition/ffmpeg-composition-engine.js';
import { probeMedia } from '../../../../lambdas/engines/composition/probe.js';
import { createEspeakEngine } from '../../../../lambdas/engines/speech/espeak-engine.js';
import { redThenBlueClip, scratchDir, solidPng } from './media-fixtures.js';

const FPS = 25;
const CHUNK_SECONDS = 2;
const look = findStockLook('maya-office');
if (!look) throw new Error('the stock look maya-office is missing');

let scratch: Awaited<ReturnType<typeof scratchDir>>;
let scenes: CompositionScene[];
let captions: CompositionRequest['captions'];
let watermarkPath: string;

beforeAll(async () => {
  scratch = await scratchDir('chunked');
  const voice = findStockVoice(look.defaultVoiceId);
  const engineVoiceId = voice && engineVoiceOf(voice, 'espeak');
  if (!engineVoiceId) throw new Error(`no eSpeak voice for ${look.defaultVoiceId}`);
  const portraitPath = path.join(scratch.dir, 'portrait.png');
  await writeFile(portraitPath, await renderPortrait(look));
  const sprites: Partial<Record<(typeof SPRITES)[number], PresenterSprite>> = {};
  for (const name of SPRITES) {
    const rendered = await renderSprite(look, name);
    const imagePath = path.join(scratch.dir, `${name}.png`);
    await writeFile(imagePath, rendered.png);
    sprites[name] = { imagePath, box: rendered.box };
  }
  const { blink, ...mouths } = sprites;
  watermarkPath = await solidPng(path.join(scratch.dir, 'mark.png'), 24, 24, '#ffcc00');
  const clipPath = await redThenBlueClip(path.join(scratch.dir, 'clip.mp4'), 2);
  const speaker = createEspeakEngine();
  const lines = [
    'Hello there. My name is Maya, and this video is rendered in pieces.',
    'Every piece shows exactly the frames one pass would show.',
  ];
  scenes = [];
  captions = [];
  let offsetMs = 0;
  try {
    for (const [index, text] of lines.entries()) {
      const speech = await speaker.synthesize({ text, voiceId: engineVoiceId });
      const speechPath = path.join(scratch.dir, `speech-${index}.wav`);
      await writeFile(speechPath, speech.audio);
      const animation: PresenterAnimation = {
        mouths,
        ...(blink ? { blink } : {}),
        visemes: speech.visemes,
        blinkSeed: 7 + index,
      };
      scenes.push({
        durationMs: speech.durationMs,
        background:
          index === 0
            ? { type: 'color', color: '#2a4d6e' }
            : { type: 'video', path: clipPath, mode: 'loop', volume: 0.3 },
        avatar: { imagePath: portraitPath, fit: 'contain', animation },
        narration: { path: speechPath, volume: 1 },
      });
      for (const cue of captionCuesFromWords(speech.words, { untilMs: speech.durationMs }))
        captions.push({ ...cue, startMs: cue.startMs + offsetMs, endMs: cue.endMs + offsetMs });
      offsetMs += speech.durationMs;
    }
  } finally {
    await speaker.close();
  }
}, 60_000);

afterAll(async () => {
  if (!process.env.KEEP_SCRATCH) await scratch?.remove();
});

function requestIn(workDir: string): CompositionRequest {
  return {
    workDir,
    width: 320,
    height: 180,
    fps: FPS,
    format: 'mp4',
    scenes,
    captions,
    burnCaptions: true,
    transition: { kind: 'fade', durationMs: 600 },
    watermark: {
      imagePath: watermarkPath,
      opacity: 0.8,
      scale: 1,
      position: 'top_right',
      offsetX: 0,
      offsetY: 0,
    },
  };
}

async function freshDir(name: string): Promise<string> {
  const dir = path.join(scratch.dir, name);
  await mkdir(dir, { recursive: true });
  return dir;
}

/** The single pass and the chunked render of the same request with the same engine settings. */
async function renderBothWays(name: string, options: FfmpegCompositionEngineOptions) {
  const engine = createFfmpegCompositionEngine({ ...options });
  const single = await engine.compose(requestIn(await freshDir(`${name}-single`)));
  const totalFrames = Math.round(single.durationSeconds * FPS);
  const chunks = frameChunks({
    totalFrames,
    fps: FPS,
    gopFrames: engine.chunked.gopFrames(FPS),
    chunkSeconds: CHUNK_SECONDS,
  });
  const { soundPath } = await engine.chunked.composeSound(requestIn(await freshDir(`${name}-sound`)));
  const pictures = [];
  for (const chunk of chunks)
    pictures.push(
      await engine.chunked.composePictures(requestIn(await freshDir(`${name}-chunk-${chunk.index}`)), chunk),
    );
  const chunked = await engine.chunked.joinChunks({
    workDir: await freshDir(`${name}-joined`),
    format: 'mp4',
    width: 320,
    height: 180,
    fps: FPS,
    chunks: pictures,
    soundPath,
  });
  return { single, chunked, chunks };
}

async function ffmpegOutput(args: string[]): Promise<string> {
  const result = await runProcess(ffmpegPath(), ['-hide_banner', '-nostdin', ...args], { timeoutMs: 60_000 });
  return `${result.stdout}${result.stderr}`;
}

/** Per decoded frame of the video stream: its pts (in frames) and the MD5 of its pixels. */
async function videoFrames(file: string): Promise<{ pts: number; md5: string }[]> {
  const out = await ffmpegOutput(['-loglevel', 'error', '-i', file, '-map', '0:v', '-f', 'framemd5', '-']);
  return out
    .split('\n')
    .filter((line) => /^\d/.test(line))
    .map((line) => {
      const [, , pts = '', , , md5 = ''] = line.split(',').map((field) => field.trim());
      return { pts: Number(pts), md5 };
    });
}

async function audioMd5(file: string): Promise<string> {
  return ffmpegOutput(['-loglevel', 'error', '-i', file, '-map', '0:a', '-f', 'md5', '-']);
}

describe('a chunked render against the single pass', () => {
  let lossless: Awaited<ReturnType<typeof renderBothWays>>;

  beforeAll(async () => {
    lossless = await renderBothWays('lossless', { x264Crf: 0 });
  }, 90_000);

  it('has the same frames, every one bit for bit, none repeated or missing at the joins', async () => {
    expect(lossless.chunks.length).toBeGreaterThanOrEqual(3);
    const single = await videoFrames(lossless.single.videoPath);
    const chunked = await videoFrames(lossless.chunked.videoPath);
    expect(chunked.length).toBe(single.length);
    // Timestamps one frame apart from 0: a frame repeated or lost at a join would break the run.
    expect(chunked.map((frame) => frame.pts)).toEqual(chunked.map((_, index) => index));
    const differing = chunked.flatMap((frame, index) => (frame.md5 === single[index]?.md5 ? [] : [index]));
    expect(differing).toEqual([]);
    // Not a still picture compared with itself: the presenter sways, blinks and talks.
    expect(new Set(chunked.map((frame) => frame.md5)).size).toBeGreaterThan(chunked.length / 6);
  });

  it('plays the single pass sound, as long as the picture (within a frame)', async () => {
    expect(await audioMd5(lossless.chunked.videoPath)).toBe(await audioMd5(lossless.single.videoPath));
    const probe = await probeMedia(lossless.chunked.videoPath);
    const video = probe.streams.find((stream) => stream.type === 'video');
    const audio = probe.streams.find((stream) => stream.type === 'audio');
    expect(Math.abs((video?.durationSeconds ?? 0) - (audio?.durationSeconds ?? 0))).toBeLessThanOrEqual(
      1 / FPS,
    );
    expect(lossless.chunked.durationSeconds).toBeCloseTo(lossless.single.durationSeconds, 2);
  });

  it('makes a thumbnail and a GIF of the joined video', async () => {
    const thumbnail = await probeMedia(lossless.chunked.thumbnailPath);
    expect(thumbnail.streams[0]).toMatchObject({ width: 320, height: 180 });
    const gif = await probeMedia(lossless.chunked.gifPath);
    expect(gif.streams[0]?.width).toBe(320);
  });

  it('at the default quality, differs from the single pass by less than the encoder does (PSNR ≥ 40 dB)', async () => {
    const lossy = await renderBothWays('lossy', {});
    const out = await ffmpegOutput([
      '-i',
      lossy.chunked.videoPath,
      '-i',
      lossy.single.videoPath,
      '-lavfi',
      '[0:v][1:v]psnr',
      '-f',
      'null',
      '-',
    ]);
    const psnr = Number(/PSNR .* average:([\d.]+|inf)/.exec(out)?.[1]?.replace('inf', 'Infinity'));
    console.info(`chunked vs single pass at CRF 23: PSNR ${psnr} dB`);
    expect(psnr).toBeGreaterThanOrEqual(40);
  }, 90_000);
});
