/**
 * A "recording" of a person talking, made from our own pixels: a stock look as a photo
 * (`renderLookPhoto`), cropped by ffmpeg at a moving offset (camera shake, then a gentle sway) with its
 * drawn open mouth pasted on and off (open 0.25 s in every 0.6 s), scaled to 480×270 at 25 fps.
 */
import { writeFile } from 'node:fs/promises';
import path from 'node:path';
import { renderLookPhoto } from '../../../../lambdas/catalog/render-portrait.js';
import { renderSprite } from '../../../../lambdas/catalog/render-sprites.js';
import { findStockLook } from '../../../../lambdas/catalog/stock-avatars.js';
import { ffmpeg } from '../composition/media-fixtures.js';

export interface TalkingClipOptions {
  seconds: number;
  /** The camera shakes (sine offsets of up to 40 px of the 1920 px photo) until this many seconds. */
  shakeUntil: number;
  /** After that, a slow sway of this many photo pixels (0: perfectly still). @default 0 */
  sway?: number;
}

/** Renders the look once into `dir` and returns a maker of clips. */
export async function talkingClipMaker(
  dir: string,
  lookId = 'maya-office',
): Promise<(file: string, options: TalkingClipOptions) => Promise<string>> {
  const look = findStockLook(lookId);
  if (!look) throw new Error(`no stock look ${lookId}`);
  const photoPath = path.join(dir, `${lookId}-photo.jpg`);
  await writeFile(photoPath, await renderLookPhoto(look));
  const mouth = await renderSprite(look, 'open_wide');
  const mouthPath = path.join(dir, `${lookId}-open.png`);
  await writeFile(mouthPath, mouth.png);
  return async (file, { seconds, shakeUntil, sway = 0 }) => {
    const motion = (amplitude: number, hertz: number, swayHertz: number) =>
      `if(lt(t,${shakeUntil}),${amplitude}*sin(2*PI*t*${hertz}),${sway}*sin(2*PI*t*${swayHertz}))`;
    await ffmpeg([
      ...['-loop', '1', '-framerate', '25', '-t', String(seconds), '-i', photoPath, '-i', mouthPath],
      '-filter_complex',
      `[1]format=rgba[m];[0][m]overlay=x=${mouth.box.x}:y=${mouth.box.y}:enable='lt(mod(t,0.6),0.25)'[o];` +
        `[o]crop=960:540:x='475+${motion(40, 2.3, 0.4)}':y='213+${motion(30, 3.1, 0.3)}',scale=480:270,format=yuv420p[v]`,
      ...['-map', '[v]', '-c:v', 'libx264', '-preset', 'veryfast', '-crf', '20', file],
    ]);
    return file;
  };
}
