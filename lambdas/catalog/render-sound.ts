/**
 * Renders a catalog sound to its published form: the recipe's samples (JavaScript, see synth.ts),
 * encoded by ffmpeg (npm build, a child process like every ffmpeg run here) as 44.1 kHz stereo MP3
 * at 96 kbit/s (constant bit rate, LAME's fast mode). Only the catalog publisher loads this module.
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import {
  ensureExecutable,
  ffmpegPath,
  lastLine,
  runProcess,
} from '../engines/composition/ffmpeg-binaries.js';
import { fileInput } from '../engines/composition/probe.js';
import type { CatalogSound } from './sound-catalog.js';
import { MUSIC_RECIPES, type Recipe, SOUND_EFFECT_RECIPES } from './sound-recipes.js';
import { SOUND_SAMPLE_RATE, type Stereo, toPcm16Stereo } from './synth.js';

/** MP3 bit rate of the catalog. */
export const SOUND_BIT_RATE = '96k';

/** The samples of a catalog sound. */
export function renderSoundSamples(sound: Pick<CatalogSound, 'type' | 'recipe'>): Stereo {
  const recipes: Readonly<Record<string, Recipe>> =
    sound.type === 'music' ? MUSIC_RECIPES : SOUND_EFFECT_RECIPES;
  const recipe = recipes[sound.recipe];
  if (!recipe) throw new Error(`No ${sound.type} recipe ${sound.recipe}`);
  return recipe();
}

/** The MP3 file of a catalog sound. */
export async function renderSoundMp3(sound: Pick<CatalogSound, 'type' | 'recipe'>): Promise<Uint8Array> {
  const ffmpeg = ffmpegPath();
  await ensureExecutable(ffmpeg);
  const directory = await mkdtemp(join(tmpdir(), 'catalog-sound-'));
  try {
    const raw = join(directory, 'sound.pcm');
    const mp3 = join(directory, 'sound.mp3');
    await writeFile(raw, toPcm16Stereo(renderSoundSamples(sound)));
    try {
      await runProcess(
        ffmpeg,
        [
          '-nostdin',
          '-v',
          'error',
          '-f',
          's16le',
          '-ar',
          String(SOUND_SAMPLE_RATE),
          '-ac',
          '2',
          '-i',
          fileInput(raw),
          '-c:a',
          'libmp3lame',
          '-b:a',
          SOUND_BIT_RATE,
          // LAME's fast mode: a third less encoding time than its default, no audible loss on these sounds.
          '-compression_level',
          '7',
          // No encoder name or date in the file: the same recipe always gives the same bytes.
          '-map_metadata',
          '-1',
          '-fflags',
          '+bitexact',
          '-flags:a',
          '+bitexact',
          '-y',
          fileInput(mp3),
        ],
        { timeoutMs: 60_000 },
      );
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr;
      throw new Error(
        `ffmpeg could not encode ${sound.recipe}: ${stderr ? lastLine(stderr) : String(error)}`,
        {
          cause: error,
        },
      );
    }
    return new Uint8Array(await readFile(mp3));
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
