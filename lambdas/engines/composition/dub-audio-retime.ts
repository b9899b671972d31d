/**
 * The original soundtrack retimed like the picture (`retimeVideo`), so that what is kept of it (music,
 * effects between the new lines) stays in step with the slowed picture: a door slammed on screen is
 * still heard when it shuts.
 *
 * A span copied through in the picture is copied sample for sample. A slowed span is slowed by the same
 * factor with ffmpeg's `atempo` (a time stretch: the pitch stays, the tempo drops; under a new line the
 * original is ducked, so the slower music is barely heard). A held span's picture stands still for the
 * rest of its time: its sound fades out over a few milliseconds at the end of the stretch and the rest
 * is silence, and the next span fades in, so nothing clicks. Works in JavaScript on the 16-bit PCM WAV
 * that prepareSource writes, streaming: one ffmpeg run per slowed span, memory of one span at a time.
 */
import { open, readFile, rm, stat } from 'node:fs/promises';
import path from 'node:path';
import { CompositionError } from './composition-engine.js';
import { type RetimeSpan, retimeSchedule } from './dub-timeline.js';
import { compositionFailureOf, ensureExecutable, ffmpegPath, runProcess } from './ffmpeg-binaries.js';
import { fileInput } from './probe.js';

export const AUDIO_RETIME_DEFAULTS = {
  /** Fade at the edges of a hold's silence. */
  holdFadeMs: 15,
  /** Each span's stretch is killed after this long. */
  stretchTimeoutMs: 5 * 60_000,
  /** As DUBBING_DEFAULTS.maxSlowdown (the picture's); one `atempo` slows by at most 2× (ffmpeg 4.1). */
  maxSlowdown: 1.5,
  /**
   * A stretched span reads this much more of the source than it needs and is cut to length: `atempo`'s
   * output can fall a few samples short, and a gap of zeros in the middle of music clicks.
   */
  stretchOverreadMs: 50,
} as const;

interface WavLayout {
  sampleRate: number;
  channels: number;
  dataOffset: number;
  dataBytes: number;
}

function invalid(message: string): CompositionError {
  return new CompositionError('invalid_media', message);
}

/** Where the samples of a 16-bit PCM WAV are (walks the RIFF chunks: ffmpeg writes a LIST chunk first). */
async function wavLayout(file: string): Promise<WavLayout> {
  const handle = await open(file, 'r');
  try {
    const head = Buffer.alloc(4096);
    const { bytesRead } = await handle.read(head, 0, head.length, 0);
    if (
      bytesRead < 12 ||
      head.toString('latin1', 0, 4) !== 'RIFF' ||
      head.toString('latin1', 8, 12) !== 'WAVE'
    ) {
      throw invalid(`${file} is not a WAV file`);
    }
    let offset = 12;
    let format: { channels: number; sampleRate: number; bits: number; tag: number } | undefined;
    while (offset + 8 <= bytesRead) {
      const id = head.toString('latin1', offset, offset + 4);
      const size = head.readUInt32LE(offset + 4);
      if (id === 'fmt ') {
        format = {
          tag: head.readUInt16LE(offset + 8),
          channels: head.readUInt16LE(offset + 10),
          sampleRate: head.readUInt32LE(offset + 12),
          bits: head.readUInt16LE(offset + 22),
        };
      } else if (id === 'data') {
        if (format?.bits !== 16 || (format.tag !== 1 && format.tag !== 0xfffe)) {
          throw invalid(`${file} is not 16-bit PCM`);
        }
        const fileBytes = (await stat(file)).size;
        // A streamed WAV may state a size of 0 or 0xffffffff: the data then runs to the end of the file.
        const dataBytes =
          size === 0 || size === 0xffffffff ? fileBytes - offset - 8 : Math.min(size, fileBytes - offset - 8);
        return {
          sampleRate: format.sampleRate,
          channels: format.channels,
          dataOffset: offset + 8,
          dataBytes,
        };
      }
      offset += 8 + size + (size % 2);
    }
    throw invalid(`${file} has no data chunk in its first 4 KiB`);
  } finally {
    await handle.close();
  }
}

/** Interleaved 16-bit samples of `bytes` (copied when the buffer is not 2-byte aligned). */
function int16View(bytes: Buffer): Int16Array {
  const aligned = bytes.byteOffset % 2 === 0 ? bytes : Buffer.from(bytes);
  return new Int16Array(aligned.buffer, aligned.byteOffset, Math.floor(aligned.length / 2));
}

function wavHeader(sampleRate: number, channels: number, dataBytes: number): Buffer {
  const header = Buffer.alloc(44);
  header.write('RIFF', 0, 'latin1');
  header.writeUInt32LE(36 + dataBytes, 4);
  header.write('WAVEfmt ', 8, 'latin1');
  header.writeUInt32LE(16, 16);
  header.writeUInt16LE(1, 20);
  header.writeUInt16LE(channels, 22);
  header.writeUInt32LE(sampleRate, 24);
  header.writeUInt32LE(sampleRate * channels * 2, 28);
  header.writeUInt16LE(channels * 2, 32);
  header.writeUInt16LE(16, 34);
  header.write('data', 36, 'latin1');
  header.writeUInt32LE(dataBytes, 40);
  return header;
}

/** Scales the first (`edge` 'in') or last ('out') `frames` frames of interleaved samples by a linear ramp. */
function fade(samples: Int16Array, channels: number, frames: number, edge: 'in' | 'out'): void {
  const total = Math.floor(samples.length / channels);
  const count = Math.min(frames, total);
  for (let frame = 0; frame < count; frame++) {
    const gain = frame / count;
    const index = edge === 'in' ? frame : total - 1 - frame;
    for (let channel = 0; channel < channels; channel++) {
      const at = index * channels + channel;
      samples[at] = Math.round((samples[at] ?? 0) * gain);
    }
  }
}

export interface RetimedAudio {
  /** 16-bit PCM WAV, the input's rate and channels. */
  path: string;
  /** Sum of the spans' `outputMs` (to the sample). */
  durationMs: number;
}

/**
 * The WAV `wavPath` (prepareSource's `audioPath`) retimed by the same spans as the picture (see
 * `retimeVideo`; the same `maxSlowdown` gives the same factors). The result is exactly the sum of the
 * spans' `outputMs` long; sound the source lacks (it ends early) is silence.
 */
export async function retimeAudio(
  wavPath: string,
  spans: readonly RetimeSpan[],
  options: { workDir: string; maxSlowdown?: number; timeoutMs?: number },
): Promise<RetimedAudio> {
  let schedule: ReturnType<typeof retimeSchedule>;
  try {
    schedule = retimeSchedule(spans, options.maxSlowdown ?? AUDIO_RETIME_DEFAULTS.maxSlowdown);
  } catch (error) {
    throw new CompositionError('invalid_media', (error as Error).message, { cause: error });
  }
  if (schedule.some((span) => span.factor > 2)) throw invalid('audio is slowed at most 2x');
  const layout = await wavLayout(wavPath);
  const { sampleRate, channels } = layout;
  const frameBytes = channels * 2;
  const sampleAt = (ms: number) => Math.round((ms * sampleRate) / 1000);
  const last = schedule.at(-1);
  const totalFrames = last ? sampleAt(last.outputStartMs + last.outputMs) : 0;
  const fadeFrames = sampleAt(AUDIO_RETIME_DEFAULTS.holdFadeMs);
  const out = path.join(options.workDir, 'retimed-audio.wav');
  const input = await open(wavPath, 'r');
  const output = await open(out, 'w');
  try {
    await output.write(wavHeader(sampleRate, channels, totalFrames * frameBytes));
    let previousHeld = false;
    for (const [index, span] of schedule.entries()) {
      const pieceFrames =
        (schedule[index + 1] ? sampleAt(schedule[index + 1]?.outputStartMs ?? 0) : totalFrames) -
        sampleAt(span.outputStartMs);
      const fromFrame = sampleAt(span.sourceStartMs);
      const sourceFrames = sampleAt(span.sourceEndMs) - fromFrame;
      let piece: Int16Array;
      if (span.factor === 1) {
        const bytes = Buffer.alloc(Math.max(0, sourceFrames) * frameBytes);
        const available = Math.max(0, Math.min(bytes.length, layout.dataBytes - fromFrame * frameBytes));
        if (available > 0) await input.read(bytes, 0, available, layout.dataOffset + fromFrame * frameBytes);
        piece = int16View(bytes);
      } else {
        const stretchedFrames = Math.min(pieceFrames, Math.round(sourceFrames * span.factor));
        piece = (
          await stretchSpan(wavPath, span.sourceStartMs, span.sourceEndMs, span.factor, layout, options)
        ).subarray(0, stretchedFrames * channels);
      }
      const held = span.holdMs > 0;
      if (previousHeld) fade(piece, channels, fadeFrames, 'in');
      const full = new Int16Array(pieceFrames * channels);
      full.set(piece.subarray(0, Math.min(piece.length, full.length)));
      if (held) fade(full.subarray(0, Math.min(piece.length, full.length)), channels, fadeFrames, 'out');
      await output.write(Buffer.from(full.buffer, full.byteOffset, full.byteLength));
      previousHeld = held;
    }
  } finally {
    await input.close();
    await output.close();
  }
  return { path: out, durationMs: (totalFrames * 1000) / sampleRate };
}

/** One span of the WAV slowed by `factor` (pitch kept), as interleaved 16-bit samples. */
async function stretchSpan(
  wavPath: string,
  startMs: number,
  endMs: number,
  factor: number,
  layout: WavLayout,
  options: { workDir: string; timeoutMs?: number },
): Promise<Int16Array> {
  const ffmpeg = ffmpegPath();
  await ensureExecutable(ffmpeg);
  const out = path.join(options.workDir, `stretch-${startMs}.s16`);
  try {
    await runProcess(
      ffmpeg,
      [
        ...['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'error', '-y'],
        ...[
          '-ss',
          String(startMs / 1000),
          '-t',
          String((endMs - startMs + AUDIO_RETIME_DEFAULTS.stretchOverreadMs) / 1000),
        ],
        ...['-i', fileInput(wavPath)],
        ...[
          '-af',
          `atempo=${(1 / factor).toFixed(6)}`,
          '-ac',
          String(layout.channels),
          '-ar',
          String(layout.sampleRate),
        ],
        ...['-c:a', 'pcm_s16le', '-f', 's16le', fileInput(out)],
      ],
      { timeoutMs: options.timeoutMs ?? AUDIO_RETIME_DEFAULTS.stretchTimeoutMs },
    );
    return int16View(await readFile(out));
  } catch (error) {
    throw error instanceof CompositionError ? error : compositionFailureOf(error);
  } finally {
    await rm(out, { force: true });
  }
}
