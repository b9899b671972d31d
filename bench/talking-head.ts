/**
 * A 60 s 1280x720 avatar video whose presenter talks (mouth sprites per frame from the viseme track,
 * blinks), against today's render of the same video with a still presenter, in one run.
 *
 * Both render exactly the same scenes (eSpeak speech of three paragraphs, a stock look's portrait,
 * captions, clean + captioned MP4, thumbnail, GIF) through the ffmpeg composition engine; the talking
 * one adds the look's 8 sprites and the speech's visemes. The photo presenter run adds what a photo
 * costs on top: finding the face with landmarks and warping its mouth and eyes into sprites, once per
 * still (vision/photo-presenter.ts), from a 1280x720 picture of the same look on a textured backdrop.
 * Rounds alternate the variants after a warm-up, so none gets a quieter machine; the best round of each
 * counts. Target: talking ≥ 2x realtime on 2 cores.
 *
 *   npm run bench -- talking-head     (BENCH_ROUNDS to tune, BENCH_KEEP=1 keeps the files)
 */
import { mkdir, mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import path from 'node:path';
import { lookSpriteSheet } from '../lambdas/catalog/catalog-media.js';
import { renderLookPhoto, renderPortrait } from '../lambdas/catalog/render-portrait.js';
import { renderSprite } from '../lambdas/catalog/render-sprites.js';
import { findStockLook } from '../lambdas/catalog/stock-avatars.js';
import { engineVoiceOf, findStockVoice } from '../lambdas/catalog/stock-voices.js';
import {
  type CaptionCue,
  type CompositionRequest,
  type CompositionScene,
  captionCuesFromWords,
  createFfmpegCompositionEngine,
  type PresenterAnimation,
  wordsWithPunctuation,
} from '../lambdas/engines/composition/index.js';
import { createEspeakEngine } from '../lambdas/engines/speech/espeak-engine.js';
import type { SynthesisResult } from '../lambdas/engines/speech/speech-engine.js';
import type { Viseme } from '../lambdas/engines/speech/visemes.js';
import { preparePhotoPresenter } from '../lambdas/engines/vision/photo-presenter.js';
import { SCENE_COLORS, SCENE_SCRIPTS } from './support/quarterly-update.js';

const WIDTH = 1280;
const HEIGHT = 720;
const VIDEO_MS = 60_000;
const rounds = Number(process.env.BENCH_ROUNDS ?? '2');
const LOOK_ID = 'maya-office';

interface Narration {
  path: string;
  text: string;
  speech: SynthesisResult;
}

type Presenter = {
  imagePath: string;
  animation?: (visemes: SynthesisResult['visemes'], scene: number) => PresenterAnimation;
};

/** A variant: what it does once per render before composing (a photo's landmarks and sprites), and its presenter. */
type Variant = (workDir: string) => Promise<Presenter>;

function request(workDir: string, narrations: Narration[], presenter: Presenter): CompositionRequest {
  const scenes: CompositionScene[] = [];
  const captions: CaptionCue[] = [];
  let offsetMs = 0;
  narrations.forEach(({ path: narration, text, speech }, index) => {
    for (const cue of captionCuesFromWords(wordsWithPunctuation(text, speech.words)))
      captions.push({ ...cue, startMs: cue.startMs + offsetMs, endMs: cue.endMs + offsetMs });
    const last = index === narrations.length - 1;
    const durationMs = Math.max(speech.durationMs + 400, last ? VIDEO_MS - offsetMs : 0);
    const animation = presenter.animation?.(speech.visemes, index);
    scenes.push({
      durationMs,
      background: { type: 'color', color: SCENE_COLORS[index % SCENE_COLORS.length] as string },
      avatar: { imagePath: presenter.imagePath, fit: 'contain', ...(animation ? { animation } : {}) },
      narration: { path: narration, volume: 1 },
    });
    offsetMs += durationMs;
  });
  return { workDir, width: WIDTH, height: HEIGHT, format: 'mp4', scenes, captions, burnCaptions: false };
}

const root = await mkdtemp(path.join(tmpdir(), 'bench-talking-head-'));
const speechEngine = createEspeakEngine();
try {
  const look = findStockLook(LOOK_ID);
  const voice = look && findStockVoice(look.defaultVoiceId);
  const voiceId = voice && engineVoiceOf(voice, 'espeak');
  if (!look || !voiceId) throw new Error(`no stock look ${LOOK_ID} with an eSpeak voice`);
  const narrations: Narration[] = [];
  for (const [index, text] of SCENE_SCRIPTS.entries()) {
    const speech = await speechEngine.synthesize({ text, voiceId });
    const file = path.join(root, `scene-${index + 1}.wav`);
    await writeFile(file, speech.audio);
    narrations.push({ path: file, text, speech });
  }
  const portrait = path.join(root, 'portrait.png');
  await writeFile(portrait, await renderPortrait(look));
  const mouths: PresenterAnimation['mouths'] = {};
  let blink: PresenterAnimation['blink'];
  for (const { sprite, box } of lookSpriteSheet(look).sprites) {
    const imagePath = path.join(root, `sprite-${sprite}.png`);
    await writeFile(imagePath, (await renderSprite(look, sprite)).png);
    if (sprite === 'blink') blink = { imagePath, box };
    else mouths[sprite] = { imagePath, box };
  }
  const stock: Presenter = {
    imagePath: portrait,
    animation: (visemes, scene) => ({ mouths, ...(blink ? { blink } : {}), visemes, blinkSeed: scene + 1 }),
  };
  const photo = await renderLookPhoto(look);
  const variants: Record<string, Variant> = {
    'still presenter (before)': async () => ({ imagePath: portrait }),
    'talking stock presenter': async () => stock,
    'talking photo presenter': async (workDir) => {
      // What the render job does per photo: landmarks, warped sprites, the upright picture written out.
      const prepared = await preparePhotoPresenter(photo);
      if (prepared.kind !== 'animated') throw new Error(`the photo was not animated: ${prepared.message}`);
      const imagePath = path.join(workDir, 'photo.png');
      await writeFile(imagePath, prepared.image);
      const photoMouths: PresenterAnimation['mouths'] = {};
      let photoBlink: PresenterAnimation['blink'];
      for (const [name, sprite] of Object.entries(prepared.sprites)) {
        const spritePath = path.join(workDir, `sprite-${name}.png`);
        await writeFile(spritePath, sprite.png);
        if (name === 'blink') photoBlink = { imagePath: spritePath, box: sprite.box };
        else photoMouths[name as Viseme] = { imagePath: spritePath, box: sprite.box };
      }
      return {
        imagePath,
        animation: (visemes, scene) => ({
          mouths: photoMouths,
          ...(photoBlink ? { blink: photoBlink } : {}),
          visemes,
          blinkSeed: scene + 1,
        }),
      };
    },
  };

  const engine = createFfmpegCompositionEngine();
  const times = new Map<string, number[]>();
  let videoSeconds = 0;
  for (let round = 0; round <= rounds; round++) {
    for (const [name, variant] of Object.entries(variants)) {
      const workDir = path.join(root, `${name.replace(/\W+/g, '-')}-${round}`);
      await mkdir(workDir);
      const started = performance.now();
      const result = await engine.compose(request(workDir, narrations, await variant(workDir)));
      const seconds = (performance.now() - started) / 1000;
      videoSeconds = result.durationSeconds;
      // Round 0 warms the disk cache and the page cache of ffmpeg itself.
      if (round > 0) times.set(name, [...(times.get(name) ?? []), seconds]);
    }
  }
  console.log(
    `${videoSeconds.toFixed(1)} s ${WIDTH}x${HEIGHT} MP4, 3 scenes, narration, captions (clean + captioned), thumbnail, GIF; best of ${rounds} rounds after a warm-up, ${(await import('node:os')).availableParallelism()} cores`,
  );
  const before = Math.min(...(times.get('still presenter (before)') ?? [Number.NaN]));
  for (const [name, list] of times) {
    const best = Math.min(...list);
    console.log(
      `  ${name.padEnd(28)} ${best.toFixed(2)} s wall, ${(videoSeconds / best).toFixed(2)}x realtime, ${(best / before).toFixed(2)}x the still render  (rounds: ${list.map((value) => value.toFixed(2)).join(', ')})`,
    );
  }
} finally {
  await speechEngine.close();
  if (process.env.BENCH_KEEP === '1') console.log(`  files kept in ${root}`);
  else await rm(root, { recursive: true, force: true });
}
