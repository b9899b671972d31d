/**
 * The new soundtrack of a dubbed video: the translated speech clips at their times over what is kept of
 * the original soundtrack. What happens to the original's music, effects and old voice, and why, is
 * described in dubbing.ts; this module does it.
 *
 * Steps: each clip is decoded to mono PCM at the soundtrack's rate (one ffmpeg run per clip, a few at a
 * time); the clips are written, sample-exact, into one or more lanes of silence and speech (JavaScript,
 * streaming: a second lane only where clips overlap); with `enhanceSpeech` the summed speech is
 * filtered and measured in one ffmpeg run; a last ffmpeg run levels the speech, ducks (or drops) the
 * original and adds the two.
 */
import { createWriteStream } from 'node:fs';
import { readFile, rm, stat, writeFile } from 'node:fs/promises';
import path from 'node:path';
import { finished } from 'node:stream/promises';
import pLimit from 'p-limit';
import { CompositionError } from './composition-engine.js';
import {
  duckDepthPieces,
  duckedOnlyGainExpression,
  duckGainExpression,
  gainOfDb,
  mergeIntervals,
  type PlacedClip,
  speechLanes,
} from './dub-timeline.js';
import { compositionFailureOf, ensureExecutable, ffmpegPath, runProcess } from './ffmpeg-binaries.js';
import { fileInput, probeMedia } from './probe.js';

/**
 * What happens to the original soundtrack (`disable_music_track` chooses `remove`; otherwise `duck`,
 * or `duck_centre_cut` for stereo sources whose dialogue is mixed in the centre).
 */
export const ORIGINAL_AUDIO = {
  /** Kept at its own level between the new lines; under each new line lowered by `duckDb`. */
  duck: 'duck',
  /**
   * As `duck`, plus, under each new line, the original's side signal (L − R) / 2 on both channels at
   * `centreCutDb`: what is panned off-centre (most music beds' width, ambience) stays clearly audible
   * while whatever is exactly in the centre (a dialogue track mixed mono to the middle) cancels. Mono
   * sources have no side signal: for them this is `duck`. See dubbing.ts for the measurements and limits.
   */
  duckCentreCut: 'duck_centre_cut',
  /** Dropped entirely: the soundtrack is the new speech alone (silence between lines). */
  remove: 'remove',
} as const;
export type OriginalAudioHandling = (typeof ORIGINAL_AUDIO)[keyof typeof ORIGINAL_AUDIO];

export const SOUNDTRACK_DEFAULTS = {
  /** Level of the original under new speech: -24 dB puts the old voice far below the new one. */
  duckDb: -24,
  /** Level of the side signal under new speech in `duck_centre_cut`. */
  centreCutDb: -3,
  /** The duck eases in before each line and out after it over this long (raised cosine: no click). */
  fadeMs: 120,
  /** Lines closer than this share one duck, so the music does not swell in a breath between them. */
  bridgeMs: 600,
  /** Loudness of the speech with `enhanceSpeech` (EBU R128 integrated, LUFS). */
  loudnessTargetLufs: -16,
  /** The speech is never raised so far that its true peak would pass this (dBTP). */
  truePeakLimitDb: -1.5,
  /** `enhanceSpeech` high-pass: rumble and handling noise below this go (Hz). */
  highPassHz: 80,
  /** `enhanceSpeech` `afftdn` noise reduction in dB (ffmpeg's default 12 is gentle on speech). */
  denoiseDb: 12,
  /**
   * `afftdn`'s starting noise floor estimate in dBFS; it then follows the measured floor (`tn=1`).
   * Measured on a line over white hiss at -45 dBFS RMS: a fixed -50 dB floor took the hiss down only
   * 1.5 dB, a tracked one 8.5 dB, with the 600 Hz voice unchanged to 0.01 dB.
   */
  denoiseFloorDb: -50,
  sampleRate: 48_000,
  /**
   * Samples per gain update of the duck: 64 at 48 kHz steps the gain every 1.3 ms, smooth to the ear.
   * Measured: ducking an hour of 48 kHz audio under 600 lines takes 18 s of one core (256: 5.5 s).
   */
  gainStepSamples: 64,
  /** Clips decoded at once. */
  decodeConcurrency: 2,
  /** Each clip's decode is killed after this long. */
  decodeTimeoutMs: 60_000,
  /** The speech analysis and the final mix are each killed after this long. */
  mixTimeoutMs: 15 * 60_000,
} as const;

export interface SpeechClip {
  /** Where the clip starts on the soundtrack (ms from its start); it is placed exactly there. */
  startMs: number;
  /** Any audio ffmpeg reads (its first audio stream; mixed down to mono). */
  path: string;
}

export interface DubSoundtrackRequest {
  /** The source's soundtrack (prepareSource's `audioPath`), or null when it has none. */
  originalAudioPath: string | null;
  /** Length of the (possibly retimed) video the soundtrack is for. */
  durationMs: number;
  speech: readonly SpeechClip[];
  original: OriginalAudioHandling;
  /**
   * Scratch directory (exists, writable): `soundtrack.wav` and its filter graph are written inside it;
   * the intermediates (decoded clips, speech lanes, the enhanced speech) are removed when it is done.
   */
  workDir: string;
  /** @default SOUNDTRACK_DEFAULTS.duckDb */
  duckDb?: number;
  /** @default SOUNDTRACK_DEFAULTS.centreCutDb */
  centreCutDb?: number;
  /** @default SOUNDTRACK_DEFAULTS.fadeMs */
  fadeMs?: number;
  /** @default SOUNDTRACK_DEFAULTS.bridgeMs (raised to 2 × fadeMs when smaller) */
  bridgeMs?: number;
  /**
   * `enable_speech_enhancement`: on the NEW speech only, a high-pass, FFT de-noising (`afftdn`) and one
   * gain that brings it to `loudnessTarget`. @default false
   */
  enhanceSpeech?: boolean;
  /**
   * Integrated loudness of the speech in LUFS. Given (or with `enhanceSpeech`, which defaults it to
   * SOUNDTRACK_DEFAULTS.loudnessTargetLufs), the speech gets the one gain that reaches it, lowered when
   * its true peak would pass SOUNDTRACK_DEFAULTS.truePeakLimitDb; without it the clips keep their level.
   */
  loudnessTarget?: number;
  /** @default SOUNDTRACK_DEFAULTS.sampleRate */
  sampleRate?: number;
  /** @default SOUNDTRACK_DEFAULTS.mixTimeoutMs */
  timeoutMs?: number;
}

/** A clip that ends after `durationMs`: it is in the soundtrack whole, which is longer for it. */
export interface SpeechOverrun {
  /** Index in the request's `speech`. */
  index: number;
  startMs: number;
  endMs: number;
  pastEndMs: number;
}

export interface DubSoundtrack {
  /**
   * 16-bit PCM WAV at `sampleRate`. The sum is not limited (ffmpeg 4.1's `alimiter` delays what it
   * passes by its attack time, which would move the speech): it stays below full scale in practice
   * because under a line the original is 24 dB down and enhanced speech peaks at -1.5 dBTP, but
   * overlapping loud clips can clip.
   */
  path: string;
  /** Its length: `durationMs`, or the end of the last clip when one runs past it (see `overruns`). */
  durationMs: number;
  /** 2 when the original is stereo or more (downmixed to stereo) and kept, else 1. */
  channels: 1 | 2;
  sampleRate: number;
  /** Clips running past `durationMs`, in request order; empty when all fit. */
  overruns: SpeechOverrun[];
  /** Each clip's placement in the soundtrack (ms), in request order: where it was put and how long it is. */
  placements: { startMs: number; endMs: number }[];
  /** With a loudness target: the speech's loudness before and the gain applied (dB). */
  speechLevel?: { measuredLufs: number; measuredTruePeakDb: number; gainDb: number };
}

function invalid(message: string): CompositionError {
  return new CompositionError('invalid_media', message);
}

const FFMPEG_QUIET = ['-hide_banner', '-nostdin', '-nostats', '-loglevel', 'error', '-y'] as const;

async function ffmpegRun(args: readonly string[], timeoutMs: number, cwd?: string) {
  const ffmpeg = ffmpegPath();
  await ensureExecutable(ffmpeg);
  try {
    return await runProcess(ffmpeg, args, { timeoutMs, ...(cwd ? { cwd } : {}) });
  } catch (error) {
    throw compositionFailureOf(error);
  }
}

/** Decodes a clip to raw mono s16le at `sampleRate`; its sample count is exact (the file's bytes / 2). */
async function decodeClip(clip: SpeechClip, index: number, sampleRate: number, out: string) {
  const info = await probeMedia(clip.path);
  if (!info.streams.some((stream) => stream.type === 'audio')) {
    throw invalid(`speech clip ${index + 1} (${clip.path}) has no audio stream`);
  }
  await ffmpegRun(
    [
      ...FFMPEG_QUIET,
      '-i',
      fileInput(clip.path),
      '-map',
      '0:a:0',
      '-ac',
      '1',
      '-ar',
      String(sampleRate),
      '-c:a',
      'pcm_s16le',
      '-f',
      's16le',
      fileInput(out),
    ],
    SOUNDTRACK_DEFAULTS.decodeTimeoutMs,
  );
  return { path: out, samples: Math.floor((await stat(out)).size / 2) };
}

const ZEROS = Buffer.alloc(1 << 16);

/** Writes a lane (raw mono s16le, `totalSamples` long): silence with each clip copied in at its start. */
async function writeLane(
  file: string,
  lane: readonly PlacedClip[],
  clipFiles: readonly { path: string }[],
  totalSamples: number,
) {
  const out = createWriteStream(file);
  const write = (chunk: Buffer) =>
    new Promise<void>((resolve, reject) => out.write(chunk, (error) => (error ? reject(error) : resolve())));
  const silence = async (samples: number) => {
    let bytes = samples * 2;
    while (bytes > 0) {
      const take = Math.min(bytes, ZEROS.length);
      await write(ZEROS.subarray(0, take));
      bytes -= take;
    }
  };
  let position = 0;
  for (const clip of lane) {
    await silence(clip.startSample - position);
    await write(await readFile((clipFiles[clip.index] as { path: string }).path));
    position = clip.startSample + clip.samples;
  }
  await silence(totalSamples - position);
  out.end();
  await finished(out);
}

interface LoudnessMeasurement {
  input_i?: string;
  input_tp?: string;
}

/** The last JSON object ffmpeg's `loudnorm` printed to stderr. */
function loudnormMeasurement(stderr: string): { lufs: number; truePeakDb: number } | undefined {
  const start = stderr.lastIndexOf('{');
  const end = stderr.lastIndexOf('}');
  if (start < 0 || end < start) return undefined;
  try {
    const json = JSON.parse(stderr.slice(start, end + 1)) as LoudnessMeasurement;
    const lufs = Number(json.input_i);
    const truePeakDb = Number(json.input_tp);
    return Number.isFinite(lufs) && Number.isFinite(truePeakDb) ? { lufs, truePeakDb } : undefined;
  } catch {
    return undefined;
  }
}

function checkRequest(request: DubSoundtrackRequest): void {
  if (typeof request.workDir !== 'string' || request.workDir === '') throw invalid('workDir is missing');
  if (!Number.isFinite(request.durationMs) || request.durationMs <= 0) {
    throw invalid('durationMs must be a positive number of milliseconds');
  }
  if (!Object.values(ORIGINAL_AUDIO).includes(request.original)) {
    throw invalid(`original must be one of ${Object.values(ORIGINAL_AUDIO).join(', ')}`);
  }
  request.speech.forEach((clip, index) => {
    if (!Number.isFinite(clip.startMs) || clip.startMs < 0) {
      throw invalid(`speech clip ${index + 1} startMs must be 0 or more`);
    }
    if (typeof clip.path !== 'string' || clip.path === '')
      throw invalid(`speech clip ${index + 1} path is missing`);
  });
  for (const [name, value] of [
    ['duckDb', request.duckDb],
    ['centreCutDb', request.centreCutDb],
  ] as const) {
    if (value !== undefined && !(Number.isFinite(value) && value <= 0))
      throw invalid(`${name} must be 0 or less`);
  }
  for (const [name, value] of [
    ['fadeMs', request.fadeMs],
    ['bridgeMs', request.bridgeMs],
  ] as const) {
    if (value !== undefined && !(Number.isFinite(value) && value >= 0))
      throw invalid(`${name} must be 0 or more`);
  }
  if (
    request.loudnessTarget !== undefined &&
    !(request.loudnessTarget >= -70 && request.loudnessTarget <= -5)
  ) {
    throw invalid('loudnessTarget must be from -70 to -5 LUFS');
  }
}

/**
 * Builds the dubbed soundtrack (see dubbing.ts for what happens to the original). Every clip is placed
 * at its `startMs`, whole and unshifted; one that runs past `durationMs` lengthens the soundtrack and is
 * listed in `overruns`. Overlapping clips are both heard (summed). Fails with `invalid_media` for a bad
 * request or a clip without audio, `composition_failed` when ffmpeg fails.
 */
export async function dubSoundtrack(request: DubSoundtrackRequest): Promise<DubSoundtrack> {
  checkRequest(request);
  const sampleRate = request.sampleRate ?? SOUNDTRACK_DEFAULTS.sampleRate;
  const timeoutMs = request.timeoutMs ?? SOUNDTRACK_DEFAULTS.mixTimeoutMs;
  const fadeMs = request.fadeMs ?? SOUNDTRACK_DEFAULTS.fadeMs;
  const bridgeMs = Math.max(request.bridgeMs ?? SOUNDTRACK_DEFAULTS.bridgeMs, 2 * fadeMs);
  const workDir = request.workDir;

  // Intermediates (decoded clips, lanes, the enhanced speech) can be hundreds of MB for a long video.
  const scratchFiles: string[] = [];
  try {
    const clipFiles = await pLimit(SOUNDTRACK_DEFAULTS.decodeConcurrency).map(
      request.speech,
      (clip, index) => {
        const file = path.join(workDir, `speech-clip-${index}.s16`);
        scratchFiles.push(file);
        return decodeClip(clip, index, sampleRate, file);
      },
    );
    const placed: PlacedClip[] = request.speech.map((clip, index) => ({
      index,
      startSample: Math.round((clip.startMs * sampleRate) / 1000),
      samples: (clipFiles[index] as { samples: number }).samples,
    }));
    const placements = placed.map((clip) => ({
      startMs: (clip.startSample * 1000) / sampleRate,
      endMs: ((clip.startSample + clip.samples) * 1000) / sampleRate,
    }));
    const overruns: SpeechOverrun[] = placements.flatMap((placement, index) =>
      placement.endMs > request.durationMs
        ? [{ index, ...placement, pastEndMs: placement.endMs - request.durationMs }]
        : [],
    );
    const durationSamples = Math.round((request.durationMs * sampleRate) / 1000);
    const totalSamples = Math.max(durationSamples, ...placed.map((clip) => clip.startSample + clip.samples));

    const lanes = speechLanes(placed);
    const laneFiles = await Promise.all(
      (lanes.length > 0 ? lanes : [[]]).map(async (lane, index) => {
        const file = path.join(workDir, `speech-lane-${index}.s16`);
        scratchFiles.push(file);
        await writeLane(file, lane, clipFiles, totalSamples);
        return file;
      }),
    );
    const rawInput = (file: string, format: 's16le' | 'f32le') => [
      '-f',
      format,
      '-ar',
      String(sampleRate),
      '-ac',
      '1',
      '-i',
      fileInput(file),
    ];
    // The lanes added sample by sample (amerge + pan sums exactly; amix would scale each input by 1/n).
    const sampleFormat = `aformat=sample_fmts=flt:sample_rates=${sampleRate}`;
    const sumLanes = (labels: string[]) =>
      labels.length === 1
        ? `${labels[0]}anull`
        : `${labels.map((label, index) => `${label}${sampleFormat}:channel_layouts=mono[lane${index}]`).join(';')};${labels.map((_, index) => `[lane${index}]`).join('')}amerge=inputs=${labels.length},pan=mono|c0=${labels.map((_, index) => `c${index}`).join('+')}`;
    const exactLength = `atrim=end_sample=${totalSamples},apad=whole_len=${totalSamples}`;

    // Speech: summed lanes, optionally enhanced, and with a loudness target measured for one gain.
    const loudnessTarget =
      request.loudnessTarget ?? (request.enhanceSpeech ? SOUNDTRACK_DEFAULTS.loudnessTargetLufs : undefined);
    let speechInput = laneFiles.flatMap((file) => rawInput(file, 's16le'));
    let speechChain = sumLanes(laneFiles.map((_, index) => `[${index}:a]`));
    let speechLevel: DubSoundtrack['speechLevel'];
    if (request.enhanceSpeech || loudnessTarget !== undefined) {
      const speechFile = path.join(workDir, 'speech.f32');
      scratchFiles.push(speechFile);
      const enhance = request.enhanceSpeech
        ? `,highpass=f=${SOUNDTRACK_DEFAULTS.highPassHz},afftdn=nr=${SOUNDTRACK_DEFAULTS.denoiseDb}:nf=${SOUNDTRACK_DEFAULTS.denoiseFloorDb}:tn=1`
        : '';
      const graph = `${speechChain}${enhance},${exactLength},asplit[speech][measure];[measure]loudnorm=print_format=json[measured]`;
      const { stderr } = await ffmpegRun(
        [
          '-hide_banner',
          '-nostdin',
          '-nostats',
          // loudnorm prints its measurement at the info level.
          '-loglevel',
          'info',
          '-y',
          ...speechInput,
          '-filter_complex',
          graph,
          '-map',
          '[speech]',
          '-c:a',
          'pcm_f32le',
          '-f',
          'f32le',
          fileInput(speechFile),
          '-map',
          '[measured]',
          '-f',
          'null',
          '-',
        ],
        timeoutMs,
      );
      speechInput = rawInput(speechFile, 'f32le');
      speechChain = '[0:a]anull';
      const measured = loudnormMeasurement(stderr);
      // Silence (no clips, or silent ones) measures -inf: there is nothing to level.
      if (loudnessTarget !== undefined && measured) {
        const gainDb = Math.min(
          loudnessTarget - measured.lufs,
          SOUNDTRACK_DEFAULTS.truePeakLimitDb - measured.truePeakDb,
        );
        speechLevel = { measuredLufs: measured.lufs, measuredTruePeakDb: measured.truePeakDb, gainDb };
        speechChain += `,volume=${gainDb.toFixed(2)}dB`;
      }
    }

    // The original: probed for its channels, cut or padded to the soundtrack's length, then ducked.
    const keepOriginal = request.original !== ORIGINAL_AUDIO.remove && request.originalAudioPath !== null;
    let channels: 1 | 2 = 1;
    const graph: string[] = [];
    const inputs = [...speechInput];
    const originalInput = speechInput.filter((arg) => arg === '-i').length;
    if (keepOriginal) {
      const info = await probeMedia(request.originalAudioPath as string);
      const audio = info.streams.find((stream) => stream.type === 'audio');
      if (!audio) throw invalid(`${request.originalAudioPath} has no audio stream`);
      channels = (audio.channels ?? 1) >= 2 ? 2 : 1;
      inputs.push('-i', fileInput(request.originalAudioPath as string));
      const layout = channels === 2 ? 'stereo' : 'mono';
      const intervals = mergeIntervals(placements, bridgeMs);
      const depth = duckDepthPieces(intervals, fadeMs);
      const duckGain = gainOfDb(request.duckDb ?? SOUNDTRACK_DEFAULTS.duckDb);
      const prepared = `[${originalInput}:a]aresample=${sampleRate},aformat=sample_fmts=fltp:channel_layouts=${layout},${exactLength},asetnsamples=n=${SOUNDTRACK_DEFAULTS.gainStepSamples}:p=0`;
      if (request.original === ORIGINAL_AUDIO.duckCentreCut && channels === 2) {
        const sideGain = gainOfDb(request.centreCutDb ?? SOUNDTRACK_DEFAULTS.centreCutDb);
        graph.push(
          `${prepared},asplit[full][centrecut]`,
          `[full]volume=eval=frame:volume='${duckGainExpression(depth, duckGain)}',${sampleFormat}:channel_layouts=stereo[fullducked]`,
          // (L − R) / 2 on both channels: mono-compatible (on a phone speaker it does not cancel itself).
          `[centrecut]pan=stereo|c0=0.5*c0-0.5*c1|c1=0.5*c0-0.5*c1,volume=eval=frame:volume='${duckedOnlyGainExpression(depth, sideGain)}',${sampleFormat}:channel_layouts=stereo[side]`,
          '[fullducked][side]amerge=inputs=2,pan=stereo|c0=c0+c2|c1=c1+c3[original]',
        );
      } else {
        graph.push(`${prepared},volume=eval=frame:volume='${duckGainExpression(depth, duckGain)}'[original]`);
      }
      graph.push(`[original]${sampleFormat}:channel_layouts=${layout}[originalformatted]`);
    }
    graph.push(`${speechChain},${sampleFormat}:channel_layouts=mono,${exactLength}[speechtrack]`);
    if (keepOriginal) {
      graph.push(
        channels === 2
          ? '[originalformatted][speechtrack]amerge=inputs=2,pan=stereo|c0=c0+c2|c1=c1+c2[mix]'
          : '[originalformatted][speechtrack]amerge=inputs=2,pan=mono|c0=c0+c1[mix]',
      );
    } else {
      graph.push('[speechtrack]anull[mix]');
    }
    const scriptName = 'soundtrack-graph.txt';
    await writeFile(path.join(workDir, scriptName), graph.join(';\n'));
    const out = path.join(workDir, 'soundtrack.wav');
    await ffmpegRun(
      [
        ...FFMPEG_QUIET,
        ...inputs,
        '-filter_complex_script',
        scriptName,
        '-map',
        '[mix]',
        '-c:a',
        'pcm_s16le',
        '-ar',
        String(sampleRate),
        fileInput(out),
      ],
      timeoutMs,
      workDir,
    );
    return {
      path: out,
      durationMs: (totalSamples * 1000) / sampleRate,
      channels,
      sampleRate,
      overruns,
      placements,
      ...(speechLevel ? { speechLevel } : {}),
    };
  } finally {
    await Promise.all(scratchFiles.map((file) => rm(file, { force: true })));
  }
}
