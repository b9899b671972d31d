/**
 * Decoding any audio (or a video's first audio stream) to mono 16-bit PCM with the npm ffmpeg, for the
 * code that measures sound in JavaScript: voice analysis, and the mouth movements of recordings nobody
 * here synthesized (visemes.ts, `visemesFromAudio`).
 */
import { mkdtemp, readFile, rm } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { ensureExecutable, ffmpegPath, runProcess } from './ffmpeg-binaries.js';
import { fileInput } from './probe.js';

export interface DecodeOptions {
  sampleRate: number;
  /** Only the first this-many seconds. @default all */
  maxSeconds?: number;
  /** An ffmpeg audio filter chain applied before resampling (e.g. a denoiser). @default none */
  audioFilter?: string;
  /** The ffmpeg run is killed after this long. @default 60 s */
  timeoutMs?: number;
  /** Where the scratch file goes. @default the OS temp dir */
  workDir?: string;
}

/**
 * The file's first audio stream as mono samples. Throws what `runProcess` and `ensureExecutable` throw
 * (ffmpeg missing, the file undecodable or without audio): callers word the failure for their users.
 */
export async function decodeMonoPcm16(path: string, options: DecodeOptions): Promise<Int16Array> {
  const ffmpeg = ffmpegPath();
  await ensureExecutable(ffmpeg);
  const dir = await mkdtemp(join(options.workDir ?? tmpdir(), 'decode-'));
  const out = join(dir, 'audio.pcm');
  try {
    await runProcess(
      ffmpeg,
      [
        '-nostdin',
        '-v',
        'error',
        '-i',
        fileInput(path),
        '-map',
        '0:a:0',
        ...(options.maxSeconds !== undefined ? ['-t', String(options.maxSeconds)] : []),
        ...(options.audioFilter ? ['-af', options.audioFilter] : []),
        '-ac',
        '1',
        '-ar',
        String(options.sampleRate),
        '-f',
        's16le',
        '-c:a',
        'pcm_s16le',
        '-y',
        fileInput(out),
      ],
      { timeoutMs: options.timeoutMs ?? 60_000 },
    );
    const bytes = await readFile(out);
    const samples = new Int16Array(Math.floor(bytes.byteLength / 2));
    for (let index = 0; index < samples.length; index++) samples[index] = bytes.readInt16LE(index * 2);
    return samples;
  } finally {
    await rm(dir, { recursive: true, force: true });
  }
}
