/**
 * Renders a stretch of a realtime stream (one utterance, or idle time between utterances) as HLS
 * segments: the presenter of a look (its portrait and the mouth and blink sprites of its sprite sheet,
 * the same sprites and overlay filters a rendered video uses: engines/composition/ffmpeg-arguments.ts)
 * over a plain backdrop, speaking the block's audio, cut into MPEG-TS segments of `segmentMs` each
 * (H.264 + AAC, a key frame at every segment's start).
 *
 * Blocks are rendered one after the other by separate ffmpeg runs and played back to back: each run
 * starts its timestamps (`-output_ts_offset`) and its sway (the motion expressions take the block's
 * start) where the previous block ended, so the joined stream has no jump. A block is always a whole
 * number of segments long; its audio is padded with silence up to that.
 */
import { mkdir, readdir } from 'node:fs/promises';
import { join } from 'node:path';
import { JobFailure } from '../core/errors.js';
import type { PresenterAnimation } from '../engines/composition/composition-engine.js';
import {
  AUDIO_SAMPLE_RATE,
  animationOverlays,
  evenPixels,
  portraitFit,
} from '../engines/composition/ffmpeg-arguments.js';
import { ffmpegPath, ProcessError, runProcess } from '../engines/composition/ffmpeg-binaries.js';
import type { VisemeCue } from '../engines/speech/visemes.js';

/** Frames per second of every realtime stream. */
export const REALTIME_FPS = 25;

/** A look ready to be drawn: its portrait file and sprites, and the portrait's size. */
export interface StreamPresenter {
  portraitPath: string;
  portraitSize: { width: number; height: number };
  sprites: Pick<PresenterAnimation, 'mouths' | 'blink'>;
}

export interface StreamFrame {
  width: number;
  height: number;
  /** `#rrggbb` behind the presenter. */
  backdrop: string;
}

export interface PresenterBlock {
  presenter: StreamPresenter;
  frame: StreamFrame;
  /** Where the block starts on the stream's timeline, in ms (a multiple of `segmentMs`). */
  startMs: number;
  /** Segments of the block (its length is `segments × segmentMs`). */
  segments: number;
  segmentMs: number;
  /** Speech of the block (a WAV), from its start; none: silence (idle). */
  audioPath?: string;
  visemes: readonly VisemeCue[];
  blinkSeed: number;
  /** An empty directory the segments are written to. */
  outDir: string;
  timeoutMs: number;
}

/** The failure codes of a stream that could not be rendered (the stream's `error_message` says more). */
export const STREAM_RENDER_FAILURE = 'stream_render_failed';

/** Presenter sway, as a fraction of the frame's height (the rendered videos' gentle motion). */
const MOTION_AMPLITUDE = 0.006;

/** Renders the block; the segment files in play order. */
export async function renderPresenterBlock(block: PresenterBlock): Promise<string[]> {
  const { frame, presenter, segmentMs } = block;
  const fps = REALTIME_FPS;
  const frames = Math.round((block.segments * segmentMs * fps) / 1000);
  const samples = Math.round((block.segments * segmentMs * AUDIO_SAMPLE_RATE) / 1000);
  const offset = (block.startMs / 1000).toFixed(3);
  const amplitude = Math.max(2, 2 * Math.round((frame.height * MOTION_AMPLITUDE) / 2));
  const fit = portraitFit('contain', presenter.portraitSize, frame.width, frame.height, amplitude);
  // The rendered videos' motion (a slow sway and a breathing rise and fall), on the stream's clock.
  const x = evenPixels(`${(frame.width - fit.width) / 2}+${amplitude}*sin(2*PI*(t+${offset})/7)`);
  const y = evenPixels(`${frame.height - fit.height + amplitude}+${amplitude}*sin(2*PI*(t+${offset})/4)`);

  const inputs: string[] = [];
  let inputCount = 0;
  const known = new Map<string, number>();
  const inputOf = (file: string): number => {
    const existing = known.get(file);
    if (existing !== undefined) return existing;
    inputs.push('-i', file);
    known.set(file, inputCount);
    return inputCount++;
  };
  const portrait = inputOf(presenter.portraitPath);
  const graph = [
    `color=c=0x${frame.backdrop.slice(1)}:s=${frame.width}x${frame.height}:r=${fps},format=yuv420p,trim=end_frame=${frames}[bg]`,
    `[${portrait}:v:0]trim=end_frame=1,scale=w=${fit.width}:h=${fit.height}:flags=lanczos,format=rgba,setsar=1[av]`,
    `[bg][av]overlay=x='${x}':y='${y}':eval=frame:format=yuv420[vp]`,
    ...animationOverlays({
      animation: { ...presenter.sprites, visemes: block.visemes, blinkSeed: block.blinkSeed },
      portrait: presenter.portraitSize,
      fit,
      frames,
      fps,
      position: { x, y },
      from: 'vp',
      to: 'v',
      label: 's',
      inputOf,
    }),
  ];
  const audioFormat = `aformat=sample_fmts=fltp:sample_rates=${AUDIO_SAMPLE_RATE}:channel_layouts=mono`;
  if (block.audioPath) {
    const speech = inputOf(block.audioPath);
    graph.push(
      `[${speech}:a:0]aresample=${AUDIO_SAMPLE_RATE},${audioFormat},apad,atrim=end_sample=${samples},asetpts=N/SR/TB[a]`,
    );
  } else {
    graph.push(`anullsrc=r=${AUDIO_SAMPLE_RATE}:cl=mono,${audioFormat},atrim=end_sample=${samples}[a]`);
  }
  const segmentSeconds = (segmentMs / 1000).toFixed(3);
  await mkdir(block.outDir, { recursive: true });
  const args = [
    '-hide_banner',
    '-nostdin',
    '-nostats',
    '-loglevel',
    'error',
    '-y',
    ...inputs,
    '-filter_complex',
    graph.join(';'),
    '-map',
    '[v]',
    '-map',
    '[a]',
    '-c:v',
    'libx264',
    // The fastest preset: a live stream must render faster than it plays, on two cores.
    '-preset',
    'ultrafast',
    '-tune',
    'zerolatency',
    '-pix_fmt',
    'yuv420p',
    '-force_key_frames',
    `expr:gte(t,n_forced*${segmentSeconds})`,
    '-c:a',
    'aac',
    '-b:a',
    '96k',
    '-output_ts_offset',
    offset,
    '-f',
    'segment',
    '-segment_time',
    segmentSeconds,
    '-segment_format',
    'mpegts',
    join(block.outDir, 'segment-%05d.ts'),
  ];
  try {
    await runProcess(ffmpegPath(), args, { timeoutMs: block.timeoutMs });
  } catch (error) {
    const detail = error instanceof ProcessError ? `${error.message}: ${error.stderr}` : String(error);
    throw new JobFailure(STREAM_RENDER_FAILURE, `The presenter could not be rendered (${detail}).`, {
      cause: error,
    });
  }
  const files = (await readdir(block.outDir)).filter((name) => name.endsWith('.ts')).sort();
  return files.map((name) => join(block.outDir, name));
}
