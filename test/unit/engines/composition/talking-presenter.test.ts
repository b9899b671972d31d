/**
 * A stock presenter talks: the real eSpeak NG engine speaks a sentence, the real ffmpeg engine composes
 * the look's portrait with its mouth and blink sprites driven by the speech's viseme track, and the
 * frames of the written video are compared where the mouth and the eyes are.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { renderPortrait } from '../../../../lambdas/catalog/render-portrait.js';
import { renderSprite } from '../../../../lambdas/catalog/render-sprites.js';
import { SPRITES } from '../../../../lambdas/catalog/sprite-art.js';
import { findStockLook } from '../../../../lambdas/catalog/stock-avatars.js';
import { engineVoiceOf, findStockVoice } from '../../../../lambdas/catalog/stock-voices.js';
import type {
  PresenterAnimation,
  PresenterSprite,
} from '../../../../lambdas/engines/composition/composition-engine.js';
import { portraitFit } from '../../../../lambdas/engines/composition/ffmpeg-arguments.js';
import { createFfmpegCompositionEngine } from '../../../../lambdas/engines/composition/ffmpeg-composition-engine.js';
import { scaledSpritePlacement } from '../../../../lambdas/engines/composition/presenter-animation.js';
import { createEspeakEngine } from '../../../../lambdas/engines/speech/espeak-engine.js';
import type { SynthesisResult } from '../../../../lambdas/engines/speech/speech-engine.js';
import { VISEMES } from '../../../../lambdas/engines/speech/visemes.js';
import { bufferDifference, type Region, regionFrames, scratchDir } from './media-fixtures.js';

const WIDTH = 640;
const HEIGHT = 360;
const FPS = 25;
/** Silence after the speech, long enough to hold at least one blink (every 2 to 6 s). */
const SILENCE_MS = 6500;
const look = findStockLook('maya-office');
if (!look) throw new Error('the stock look maya-office is missing');

let scratch: Awaited<ReturnType<typeof scratchDir>>;
let speech: SynthesisResult;
let animation: PresenterAnimation;
let portraitPath: string;
let speechPath: string;

/** Where a sprite of the portrait lands in a WIDTH x HEIGHT frame, presenter still and bottom-centred. */
function regionOf(sprite: PresenterSprite): Region {
  if (!look) throw new Error('no look');
  const portrait = { width: look.imageWidth, height: look.imageHeight };
  const fit = portraitFit('contain', portrait, WIDTH, HEIGHT, 0);
  const place = scaledSpritePlacement(sprite.box, portrait, fit);
  return {
    left: (WIDTH - fit.width) / 2 + place.offsetX + place.padX,
    top: HEIGHT - fit.height + place.offsetY + place.padY,
    width: place.width,
    height: place.height,
  };
}

beforeAll(async () => {
  scratch = await scratchDir('talking');
  const voice = findStockVoice(look.defaultVoiceId);
  const engineVoiceId = voice && engineVoiceOf(voice, 'espeak');
  if (!engineVoiceId) throw new Error(`no eSpeak voice for ${look.defaultVoiceId}`);
  const speaker = createEspeakEngine();
  try {
    speech = await speaker.synthesize({
      text: 'Hello there. My name is Maya, and today I will show you how a video is made.',
      voiceId: engineVoiceId,
    });
  } finally {
    await speaker.close();
  }
  speechPath = path.join(scratch.dir, 'speech.wav');
  await writeFile(speechPath, speech.audio);
  portraitPath = path.join(scratch.dir, 'portrait.png');
  await writeFile(portraitPath, await renderPortrait(look));
  const sprites: Partial<Record<(typeof SPRITES)[number], PresenterSprite>> = {};
  for (const name of SPRITES) {
    const rendered = await renderSprite(look, name);
    const imagePath = path.join(scratch.dir, `${name}.png`);
    await writeFile(imagePath, rendered.png);
    sprites[name] = { imagePath, box: rendered.box };
  }
  const { blink, ...mouths } = sprites;
  animation = { mouths, ...(blink ? { blink } : {}), visemes: speech.visemes, blinkSeed: 42 };
}, 60_000);

afterAll(async () => {
  if (!process.env.KEEP_SCRATCH) await scratch?.remove();
});

describe('a stock presenter speaking a sentence', () => {
  let mouthFrames: Buffer[];
  let eyeFrames: Buffer[];

  beforeAll(async () => {
    // Still presenter, and a near-lossless encode: frames differ only where the picture does.
    const engine = createFfmpegCompositionEngine({ motionAmplitude: 0, x264Crf: 8 });
    const workDir = path.join(scratch.dir, 'video');
    await import('node:fs/promises').then((fs) => fs.mkdir(workDir));
    const result = await engine.compose({
      workDir,
      width: WIDTH,
      height: HEIGHT,
      fps: FPS,
      format: 'mp4',
      captions: [],
      burnCaptions: true,
      scenes: [
        {
          durationMs: speech.durationMs + SILENCE_MS,
          background: { type: 'color', color: '#2a4d6e' },
          avatar: { imagePath: portraitPath, fit: 'contain', animation },
          narration: { path: speechPath, volume: 1 },
        },
      ],
    });
    const mouth = animation.mouths.open_wide;
    if (!mouth || !animation.blink) throw new Error('sprites missing');
    mouthFrames = await regionFrames(result.videoPath, regionOf(mouth), scratch.dir);
    eyeFrames = await regionFrames(result.videoPath, regionOf(animation.blink), scratch.dir);
  }, 60_000);

  /** Frames 80 ms apart (two frames at 25 fps) inside `[fromMs, toMs)`, and how much the region changed. */
  function changes(frames: Buffer[], fromMs: number, toMs: number): number[] {
    const step = Math.round((80 * FPS) / 1000);
    const result: number[] = [];
    for (let frame = Math.ceil((fromMs * FPS) / 1000); (frame + step) * (1000 / FPS) < toMs; frame++) {
      const a = frames[frame];
      const b = frames[frame + step];
      if (a && b) result.push(bufferDifference(a, b));
    }
    return result;
  }

  it('moves its mouth while it speaks', () => {
    const first = speech.words[0];
    const last = speech.words.at(-1);
    if (!first || !last) throw new Error('no words');
    const during = changes(mouthFrames, first.startMs, last.endMs);
    const moving = during.filter((difference) => difference > 2).length / during.length;
    console.log(
      `mouth: ${during.length} pairs 80 ms apart in speech, ${(moving * 100).toFixed(0)}% changed (mean difference ${(during.reduce((a, b) => a + b, 0) / during.length).toFixed(1)})`,
    );
    expect(during.length).toBeGreaterThan(40);
    expect(moving).toBeGreaterThan(0.5);
  });

  it('keeps its mouth still in the silence after the speech', () => {
    const silence = changes(mouthFrames, speech.durationMs + 100, speech.durationMs + SILENCE_MS);
    console.log(
      `mouth: ${silence.length} pairs in silence, largest difference ${Math.max(...silence).toFixed(2)}`,
    );
    expect(silence.length).toBeGreaterThan(100);
    expect(Math.max(...silence)).toBeLessThan(1);
  });

  it('blinks every few seconds, briefly, whether it speaks or not', () => {
    const open = eyeFrames[Math.round(((speech.durationMs + 300) * FPS) / 1000)];
    if (!open) throw new Error('no frame');
    // A frame is a blink when its eyes differ clearly from the ones at some frame with open eyes:
    // take the most common state as open (blinks are short).
    const closed = eyeFrames.map((frame) => bufferDifference(frame, open) > 6);
    const openFraction = closed.filter((isClosed) => !isClosed).length / closed.length;
    const blinks: number[] = [];
    closed.forEach((isClosed, frame) => {
      if (isClosed && !closed[frame - 1]) blinks.push(frame);
    });
    const seconds = eyeFrames.length / FPS;
    console.log(`eyes: ${blinks.length} blinks in ${seconds.toFixed(1)} s at frames ${blinks.join(', ')}`);
    expect(openFraction).toBeGreaterThan(0.9);
    expect(blinks.length).toBeGreaterThanOrEqual(Math.floor(seconds / 6));
    expect(blinks.length).toBeLessThanOrEqual(Math.ceil(seconds / 2) + 1);
    for (let index = 1; index < blinks.length; index++) {
      const gapMs = (((blinks[index] as number) - (blinks[index - 1] as number)) * 1000) / FPS;
      expect(gapMs).toBeGreaterThanOrEqual(2000 - 1000 / FPS);
      expect(gapMs).toBeLessThanOrEqual(6000 + 1000 / FPS);
    }
  });

  it('shows the viseme sprites the speech names (the open mouth is darker inside)', () => {
    const wide = speech.visemes.find(
      (cue) => cue.viseme === VISEMES.open_wide && cue.endMs - cue.startMs >= 60,
    );
    if (!wide) throw new Error('the sentence has no open vowel');
    const frame = Math.floor((((wide.startMs + wide.endMs) / 2) * FPS) / 1000);
    const restFrame = Math.round(((speech.durationMs + 300) * FPS) / 1000);
    const luminance = (buffer: Buffer | undefined) => {
      if (!buffer) throw new Error('no frame');
      let sum = 0;
      for (let index = 0; index < buffer.length; index++) sum += buffer[index] ?? 0;
      return sum / buffer.length;
    };
    expect(luminance(mouthFrames[frame])).toBeLessThan(luminance(mouthFrames[restFrame]) - 3);
  });
});

describe('a talking presenter that sways', () => {
  it('keeps each sprite on its feature wherever the motion puts the portrait', async () => {
    // The rest mouth pasted on every frame must be invisible: any frame where it lands even 2 pixels
    // off shows a doubled lip edge. Cover-fit portraits move through negative positions, contain-fit
    // ones through positive: both are rendered with and without the pasted mouth and compared.
    const rest = animation.mouths.rest;
    if (!rest) throw new Error('no rest sprite');
    const engine = createFfmpegCompositionEngine({ motionAmplitude: 0.04, x264Crf: 8 });
    const durationMs = 4000;
    const pasted: PresenterAnimation = {
      mouths: { open_wide: rest },
      visemes: [{ startMs: 0, endMs: durationMs, viseme: VISEMES.open_wide }],
      blinkSeed: 1,
    };
    for (const fit of ['cover', 'contain'] as const) {
      const frames: Buffer[][] = [];
      for (const [index, withSprite] of [false, true].entries()) {
        const workDir = path.join(scratch.dir, `sway-${fit}-${index}`);
        await import('node:fs/promises').then((fs) => fs.mkdir(workDir));
        const result = await engine.compose({
          workDir,
          width: 320,
          height: 180,
          fps: FPS,
          format: 'mp4',
          captions: [],
          burnCaptions: true,
          scenes: [
            {
              durationMs,
              background: { type: 'color', color: '#2a4d6e' },
              avatar: { imagePath: portraitPath, fit, ...(withSprite ? { animation: pasted } : {}) },
            },
          ],
        });
        frames.push(
          await regionFrames(result.videoPath, { left: 0, top: 0, width: 320, height: 180 }, scratch.dir),
        );
      }
      const [plain = [], withMouth = []] = frames;
      expect(withMouth.length).toBe(plain.length);
      const worst = Math.max(
        ...plain.map((frame, index) => {
          const other = withMouth[index] as Buffer;
          let off = 0;
          for (let byte = 0; byte < frame.length; byte++)
            if (Math.abs((frame[byte] ?? 0) - (other[byte] ?? 0)) > 48) off++;
          return off;
        }),
      );
      console.log(`${fit}: at most ${worst} channel values differ clearly in a frame`);
      expect(worst).toBeLessThan(6);
    }
  }, 60_000);
});
