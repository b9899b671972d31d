/**
 * `npm run docs:frames`: the side-by-side frames of talking presenters in the README
 * (docs/images/talking-presenters.png), cut from real renders.
 *
 * A stock look and a photo (the same look laid over a textured backdrop and flattened to a JPEG, a
 * picture with a face that the project owns) speak one sentence with the eSpeak NG engine; the ffmpeg
 * engine renders each at 1280x720 with the presenter animation the render job uses. From each video
 * the frames showing rest, open_wide, rounded, spread, closed and a blink are picked by the viseme track
 * and the blink schedule, cropped around the face and laid side by side, one row per presenter.
 */
import { mkdir, mkdtemp, readdir, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import sharp from 'sharp';
import { lookSpriteSheet } from '../lambdas/catalog/catalog-media.js';
import { renderLookPhoto, renderPortrait } from '../lambdas/catalog/render-portrait.js';
import { renderSprite } from '../lambdas/catalog/render-sprites.js';
import { findStockLook } from '../lambdas/catalog/stock-avatars.js';
import { engineVoiceOf, findStockVoice } from '../lambdas/catalog/stock-voices.js';
import { ffmpegPath, runProcess } from '../lambdas/engines/composition/ffmpeg-binaries.js';
import {
  createFfmpegCompositionEngine,
  type PresenterAnimation,
} from '../lambdas/engines/composition/index.js';
import { blinkFrames, frameVisemes } from '../lambdas/engines/composition/presenter-animation.js';
import { createEspeakEngine } from '../lambdas/engines/speech/espeak-engine.js';
import { VISEMES, type Viseme } from '../lambdas/engines/speech/visemes.js';
import { preparePhotoPresenter } from '../lambdas/engines/vision/photo-presenter.js';

const OUTPUT = new URL('../docs/images/talking-presenters.png', import.meta.url);
const WIDTH = 1280;
const HEIGHT = 720;
const FPS = 25;
const TEXT = 'Hello, I am Maya. Who are you? We will see each other at five, maybe.';
const SHAPES: (Viseme | 'blink')[] = [
  VISEMES.rest,
  VISEMES.open_wide,
  VISEMES.rounded,
  VISEMES.spread,
  VISEMES.closed,
  VISEMES.lip_teeth,
  'blink',
];
const BLINK_SEED = 3;
const TILE = 200;

const look = findStockLook('maya-office');
const voice = look && findStockVoice(look.defaultVoiceId);
const voiceId = voice && engineVoiceOf(voice, 'espeak');
if (!look || !voiceId) throw new Error('the stock look maya-office has no eSpeak voice');

const root = await mkdtemp(path.join(tmpdir(), 'presenter-frames-'));
const speaker = createEspeakEngine();
try {
  const speech = await speaker.synthesize({ text: TEXT, voiceId });
  const narration = path.join(root, 'speech.wav');
  await writeFile(narration, speech.audio);
  const portrait = path.join(root, 'portrait.png');
  await writeFile(portrait, await renderPortrait(look));

  const stockMouths: PresenterAnimation['mouths'] = {};
  let stockBlink: PresenterAnimation['blink'];
  for (const { sprite, box } of lookSpriteSheet(look).sprites) {
    const imagePath = path.join(root, `stock-${sprite}.png`);
    await writeFile(imagePath, (await renderSprite(look, sprite)).png);
    if (sprite === 'blink') stockBlink = { imagePath, box };
    else stockMouths[sprite] = { imagePath, box };
  }

  const photo = await renderLookPhoto(look);
  const prepared = await preparePhotoPresenter(photo);
  if (prepared.kind !== 'animated') throw new Error(`the photo was not animated: ${prepared.message}`);
  const photoPath = path.join(root, 'photo.png');
  await writeFile(photoPath, prepared.image);
  const photoMouths: PresenterAnimation['mouths'] = {};
  let photoBlink: PresenterAnimation['blink'];
  for (const [name, sprite] of Object.entries(prepared.sprites)) {
    const imagePath = path.join(root, `photo-${name}.png`);
    await writeFile(imagePath, sprite.png);
    if (name === 'blink') photoBlink = { imagePath, box: sprite.box };
    else photoMouths[name as Viseme] = { imagePath, box: sprite.box };
  }

  const durationMs = speech.durationMs + 3000;
  const frames = Math.round((durationMs * FPS) / 1000);
  const shown = frameVisemes(speech.visemes, frames, FPS);
  const blinks = blinkFrames(BLINK_SEED, frames, FPS);
  const frameOf = (shape: Viseme | 'blink'): number => {
    if (shape === 'blink') return (blinks[0] as [number, number])[0] + 1;
    const inBlink = (frame: number) => blinks.some(([first, last]) => frame >= first && frame <= last);
    const frame = shown.findIndex(
      (value, index) => value === shape && shown[index + 1] === shape && !inBlink(index),
    );
    if (frame < 0) throw new Error(`the sentence never shows ${shape} for two frames`);
    return frame;
  };
  const picked = SHAPES.map(frameOf);

  const rows: Buffer[] = [];
  for (const [name, imagePath, mouths, blink] of [
    ['stock', portrait, stockMouths, stockBlink],
    ['photo', photoPath, photoMouths, photoBlink],
  ] as const) {
    const workDir = path.join(root, name);
    await mkdir(workDir);
    const result = await createFfmpegCompositionEngine({ motionAmplitude: 0, x264Crf: 16 }).compose({
      workDir,
      width: WIDTH,
      height: HEIGHT,
      fps: FPS,
      format: 'mp4',
      captions: [],
      burnCaptions: true,
      scenes: [
        {
          durationMs,
          background: { type: 'color', color: '#2a4d6e' },
          avatar: {
            imagePath,
            fit: 'contain',
            animation: {
              mouths,
              ...(blink ? { blink } : {}),
              visemes: speech.visemes,
              blinkSeed: BLINK_SEED,
            },
          },
          narration: { path: narration, volume: 1 },
        },
      ],
    });
    const framesDir = path.join(root, `${name}-frames`);
    await mkdir(framesDir);
    await runProcess(
      ffmpegPath(),
      [
        '-v',
        'error',
        '-i',
        result.videoPath,
        '-vf',
        `select='${[...new Set(picked)].map((frame) => `eq(n,${frame})`).join('+')}'`,
        '-vsync',
        '0',
        path.join(framesDir, 'frame-%03d.png'),
      ],
      { timeoutMs: 60_000 },
    );
    const files = (await readdir(framesDir)).sort();
    const sortedFrames = [...new Set(picked)].sort((a, b) => a - b);
    // The face: the upper middle of the frame (the portrait fills its height, the head is centred).
    const crop = { left: WIDTH / 2 - 120, top: 190, width: 240, height: 240 };
    const tiles = await Promise.all(
      picked.map(async (frame, index) => ({
        input: await sharp(path.join(framesDir, files[sortedFrames.indexOf(frame)] as string))
          .extract(crop)
          .resize(TILE, TILE)
          .png()
          .toBuffer(),
        left: index * TILE,
        top: 0,
      })),
    );
    rows.push(
      await sharp({
        create: { width: TILE * SHAPES.length, height: TILE, channels: 3, background: '#000000' },
      })
        .composite(tiles)
        .png()
        .toBuffer(),
    );
  }
  const labels = SHAPES.map(
    (shape, index) =>
      `<text x="${index * TILE + TILE / 2}" y="22" font-family="DejaVu Sans, sans-serif" font-size="16" fill="#ffffff" text-anchor="middle">${shape}</text>`,
  ).join('');
  const header = await sharp(
    Buffer.from(
      `<svg xmlns="http://www.w3.org/2000/svg" width="${TILE * SHAPES.length}" height="32"><rect width="100%" height="100%" fill="#111111"/>${labels}</svg>`,
    ),
  )
    .png()
    .toBuffer();
  await mkdir(new URL('.', OUTPUT), { recursive: true });
  await sharp({
    create: { width: TILE * SHAPES.length, height: 32 + TILE * 2, channels: 3, background: '#000000' },
  })
    .composite([
      { input: header, left: 0, top: 0 },
      { input: rows[0] as Buffer, left: 0, top: 32 },
      { input: rows[1] as Buffer, left: 0, top: 32 + TILE },
    ])
    .png({ compressionLevel: 9 })
    .toFile(OUTPUT.pathname);
  console.log(`Wrote ${OUTPUT.pathname} (frames ${picked.join(', ')})`);
} finally {
  await speaker.close();
  await rm(root, { recursive: true, force: true });
}
