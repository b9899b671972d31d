/**
 * Renders a video agent style's preview video (`STYLE_PREVIEW`): the style's scene cards (drawn by
 * scene-cards.ts, as an agent's scenes are) one after the other, joined by the style's transition,
 * over the opening of the style's music (synthesized from its recipe, as the sound catalog makes it),
 * faded in and out; encoded by ffmpeg (a child process, like every ffmpeg run here) as H.264 + AAC MP4.
 * Only the catalog publisher loads this module (it needs sharp and the bundled fonts).
 */
import { mkdtemp, readFile, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { sceneFrameCounts } from '../engines/composition/ffmpeg-arguments.js';
import {
  ensureExecutable,
  ffmpegPath,
  lastLine,
  runProcess,
} from '../engines/composition/ffmpeg-binaries.js';
import { joinPictureFilters } from '../engines/composition/ffmpeg-transitions.js';
import { fileInput } from '../engines/composition/probe.js';
import type { AgentStyle } from '../video-agents/agent-styles.js';
import { renderSceneCard } from '../video-agents/scene-cards.js';
import { STYLE_PREVIEW, type StylePreviewLayout } from './catalog-media.js';
import { renderSoundSamples } from './render-sound.js';
import type { CatalogSound } from './sound-catalog.js';
import { SOUND_SAMPLE_RATE, toPcm16Stereo } from './synth.js';

export interface StylePreviewOptions {
  /** Size, timing and encoding. @default STYLE_PREVIEW */
  layout?: StylePreviewLayout;
  /** ffmpeg is killed after this long. @default 60 s */
  timeoutMs?: number;
}

/** The cards' text: the style's name, then what it looks like. */
export const stylePreviewHeadlines = (style: AgentStyle): string[] => [style.name, style.description];

/**
 * The filter joining the cards (inputs 0…n-1) as the style joins scenes (the composition engine's
 * transition filters, on each card's exact frame count) and fading the music (input n).
 */
function previewFilter(style: AgentStyle, layout: StylePreviewLayout, seconds: number): string {
  const frames = sceneFrameCounts(
    layout.cardSeconds.map((cardSeconds) => cardSeconds * 1000),
    layout.frameRate,
  );
  const cards = frames.map(
    (count, index) =>
      `[${index}:v]format=yuv420p,tpad=stop_mode=clone:stop=-1,trim=end_frame=${count},setpts=round(N/${layout.frameRate}/TB)[card${index}]`,
  );
  const join = joinPictureFilters({
    pictures: frames.map((_, index) => `card${index}`),
    frames,
    fps: layout.frameRate,
    width: layout.width,
    height: layout.height,
    transition: { kind: style.transition.kind, durationMs: style.transition.duration_ms },
    label: 'join',
    output: 'joined',
  });
  const fadeOutStart = Math.max(0, seconds - layout.musicFadeOutSeconds);
  return [
    ...cards,
    ...join,
    '[joined]format=yuv420p[video]',
    `[${layout.cardSeconds.length}:a]atrim=0:${seconds},` +
      `afade=t=in:st=0:d=${layout.musicFadeInSeconds},` +
      `afade=t=out:st=${fadeOutStart}:d=${layout.musicFadeOutSeconds},apad[audio]`,
  ].join(';');
}

/** The MP4 of a style's preview, with `music` under its cards. */
export async function renderStylePreview(
  style: AgentStyle,
  music: Pick<CatalogSound, 'type' | 'recipe'>,
  options: StylePreviewOptions = {},
): Promise<Uint8Array> {
  const layout = options.layout ?? STYLE_PREVIEW;
  const seconds = layout.cardSeconds.reduce((total, cardSeconds) => total + cardSeconds, 0);
  const ffmpeg = ffmpegPath();
  await ensureExecutable(ffmpeg);
  const directory = await mkdtemp(join(tmpdir(), 'style-preview-'));
  try {
    const headlines = stylePreviewHeadlines(style);
    const cardInputs: string[] = [];
    for (const [index, cardSeconds] of layout.cardSeconds.entries()) {
      const card = join(directory, `card-${index}.png`);
      const png = await renderSceneCard({
        style,
        width: layout.width,
        height: layout.height,
        text: headlines[index] ?? '',
        presenter: false,
        // As consecutive scenes do: each card turns its gradient, so the change shows.
        variant: index,
      });
      await writeFile(card, png);
      cardInputs.push('-loop', '1', '-framerate', String(layout.frameRate), '-t', String(cardSeconds));
      cardInputs.push('-i', fileInput(card));
    }
    // Only the opening the preview plays: the rest of the track is never encoded.
    const samples = renderSoundSamples(music);
    const opening = Math.min(samples.left.length, Math.ceil(seconds * SOUND_SAMPLE_RATE));
    const pcm = join(directory, 'music.pcm');
    await writeFile(
      pcm,
      toPcm16Stereo({ left: samples.left.subarray(0, opening), right: samples.right.subarray(0, opening) }),
    );
    const mp4 = join(directory, 'preview.mp4');
    try {
      await runProcess(
        ffmpeg,
        [
          ...['-nostdin', '-v', 'error'],
          ...cardInputs,
          ...['-f', 's16le', '-ar', String(SOUND_SAMPLE_RATE), '-ac', '2', '-i', fileInput(pcm)],
          ...['-filter_complex', previewFilter(style, layout, seconds), '-map', '[video]', '-map', '[audio]'],
          ...[
            '-c:v',
            'libx264',
            '-preset',
            layout.x264Preset,
            '-tune',
            'stillimage',
            '-crf',
            String(layout.crf),
          ],
          ...['-r', String(layout.frameRate), '-c:a', 'aac', '-b:a', layout.audioBitRate],
          // Music shorter than the cards is padded with silence (apad): the cards set the length.
          ...['-t', String(seconds), '-movflags', '+faststart'],
          // No encoder name or date in the file: the same style always gives the same bytes.
          ...['-map_metadata', '-1', '-fflags', '+bitexact', '-flags', '+bitexact'],
          ...['-y', fileInput(mp4)],
        ],
        { timeoutMs: options.timeoutMs ?? 60_000 },
      );
    } catch (error) {
      const stderr = (error as { stderr?: string }).stderr;
      throw new Error(
        `ffmpeg could not encode the preview of ${style.style_id}: ${stderr ? lastLine(stderr) : String(error)}`,
        { cause: error },
      );
    }
    return new Uint8Array(await readFile(mp4));
  } finally {
    await rm(directory, { recursive: true, force: true });
  }
}
