/**
 * Cutting the source, retiming its picture and muxing the dub, checked on a 160x90 25 fps source that
 * shows one colour per second (red, green, blue, white): which colour a frame shows says which source
 * time it came from.
 */
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { isCompositionError } from '../../../../lambdas/engines/composition/composition-engine.js';
import {
  encodeAudioFile,
  muxContainer,
  muxDub,
  type PreparedSource,
  prepareSource,
  retimeVideo,
} from '../../../../lambdas/engines/composition/dubbing.js';
import { probeMedia } from '../../../../lambdas/engines/composition/probe.js';
import { ffmpeg, meanColor, nearestColor, regionFrames, scratchDir } from './media-fixtures.js';

const FPS = 25;
const COLOURS = ['red', 'green', 'blue', 'white'] as const;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let source: string;
let audioOnly: string;
let tone: string;

async function failure(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!isCompositionError(error)) throw new Error(`expected a CompositionError, got ${String(error)}`);
  return error;
}

/** The colour of every frame of `video` (a small central patch). */
async function frameColours(video: string): Promise<string[]> {
  const frames = await regionFrames(video, { left: 72, top: 37, width: 16, height: 16 }, scratch.dir);
  return frames.map((data) =>
    nearestColor(meanColor({ data, width: 16 }, { left: 0, top: 0, width: 16, height: 16 })),
  );
}

/** How many consecutive frames show each colour, in order: `[['red', 25], ['green', 25], …]`. */
function runs(colours: readonly string[]): [string, number][] {
  const result: [string, number][] = [];
  for (const colour of colours) {
    const last = result.at(-1);
    if (last && last[0] === colour) last[1]++;
    else result.push([colour, 1]);
  }
  return result;
}

async function durationMs(file: string): Promise<number> {
  return (await probeMedia(file)).durationSeconds * 1000;
}

beforeAll(async () => {
  scratch = await scratchDir('dub-video');
  source = path.join(scratch.dir, 'source.mp4');
  // lavfi's `green` is #008000; `lime` is the full green nearestColor calls green.
  const colours = ['red', 'lime', 'blue', 'white']
    .map((colour, index) => `color=c=${colour}:s=160x90:r=${FPS}:d=1[c${index}]`)
    .join(';');
  await ffmpeg([
    ...['-f', 'lavfi', '-i', 'sine=frequency=440:sample_rate=44100:duration=4'],
    ...['-filter_complex', `${colours};[c0][c1][c2][c3]concat=n=4:v=1:a=0,format=yuv420p[v]`],
    ...['-map', '[v]', '-map', '0:a', '-ac', '2', '-c:a', 'aac', '-c:v', 'libx264', '-preset', 'ultrafast'],
    source,
  ]);
  audioOnly = path.join(scratch.dir, 'podcast.m4a');
  await ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=300:duration=2', '-c:a', 'aac', audioOnly]);
  tone = path.join(scratch.dir, 'tone-4.5s.wav');
  await ffmpeg(['-f', 'lavfi', '-i', 'sine=frequency=500:sample_rate=48000:duration=4.5', tone]);
}, 60_000);

afterAll(async () => {
  await scratch.remove();
});

describe('prepareSource', () => {
  it('leaves an uncut source as it is and extracts its soundtrack', async () => {
    const prepared = await prepareSource(source, { workDir: path.join(scratch.dir, 'whole') });
    expect(prepared).toMatchObject({
      videoPath: source,
      cut: false,
      durationMs: expect.closeTo(4000, -2),
      width: 160,
      height: 90,
      fps: FPS,
      hasVideo: true,
      hasAudio: true,
      codecs: { video: 'h264', audio: 'aac' },
      audioChannels: 2,
      audioSampleRate: 44100,
    });
    expect(prepared.codecs.container).toContain('mp4');
    const audio = await probeMedia(prepared.audioPath as string);
    expect(audio.streams[0]).toMatchObject({ codec: 'pcm_s16le', channels: 2, sampleRate: 48000 });
    expect(audio.durationSeconds).toBeCloseTo(4, 1);
  });

  it('cuts frame-accurately: picture and sound of exactly the asked range', async () => {
    const prepared = await prepareSource(source, {
      startMs: 1000,
      endMs: 3000,
      workDir: path.join(scratch.dir, 'cut'),
    });
    expect(prepared).toMatchObject({ cut: true, startMs: 1000, endMs: 3000, durationMs: 2000 });
    expect(runs(await frameColours(prepared.videoPath as string))).toEqual([
      ['green', 25],
      ['blue', 25],
    ]);
    expect(await durationMs(prepared.audioPath as string)).toBeCloseTo(2000, -1);
    // Not on a keyframe or a second boundary: 1.52 s to 2.48 s is 13 green frames then 12 blue ones.
    const odd = await prepareSource(source, {
      startMs: 1480,
      endMs: 2480,
      workDir: path.join(scratch.dir, 'odd'),
    });
    expect(runs(await frameColours(odd.videoPath as string))).toEqual([
      ['green', 13],
      ['blue', 12],
    ]);
  });

  it('clamps an end past the source to its end', async () => {
    const prepared = await prepareSource(source, {
      startMs: 3000,
      endMs: 9000,
      workDir: path.join(scratch.dir, 'tail'),
    });
    expect(prepared.endMs).toBeCloseTo(4000, -2);
    expect(runs(await frameColours(prepared.videoPath as string))).toEqual([['white', 25]]);
  });

  it('accepts an audio-only source: no picture to dub, only sound', async () => {
    const prepared = await prepareSource(audioOnly, { workDir: path.join(scratch.dir, 'audio-only') });
    expect(prepared).toMatchObject({ videoPath: null, hasVideo: false, hasAudio: true, width: 0, height: 0 });
    expect(await durationMs(prepared.audioPath as string)).toBeCloseTo(2000, -2);
  });

  it('refuses a cut it cannot make, with an invalid_media reason', async () => {
    const workDir = path.join(scratch.dir, 'refused');
    const cases: [Parameters<typeof prepareSource>[1], RegExp][] = [
      [{ startMs: 5000, workDir }, /beyond the end/],
      [{ startMs: 2000, endMs: 2000, workDir }, /after start_time/],
      [{ startMs: 2000, endMs: 1000, workDir }, /after start_time/],
      [{ startMs: 1000, endMs: 1010, workDir }, /shorter than one frame/],
      [{ startMs: -1, workDir }, /start_time/],
    ];
    for (const [options, reason] of cases) {
      const error = await failure(prepareSource(source, options));
      expect(error.failureCode).toBe('invalid_media');
      expect(error.message).toMatch(reason);
    }
    const empty = path.join(scratch.dir, 'empty.wav');
    await ffmpeg(['-f', 'lavfi', '-i', 'anullsrc', '-t', '0', empty]);
    expect((await failure(prepareSource(empty, { workDir }))).failureCode).toBe('invalid_media');
  });
});

describe('retimeVideo', () => {
  it('slows one span and copies the others: durations add up and each frame lands where expected', async () => {
    const workDir = path.join(scratch.dir, 'retime-slow');
    const retimed = await retimeVideo(
      source,
      [
        { sourceStartMs: 0, sourceEndMs: 2000, outputMs: 2000 },
        { sourceStartMs: 2000, sourceEndMs: 3000, outputMs: 1400 },
        { sourceStartMs: 3000, sourceEndMs: 4000, outputMs: 1000 },
      ],
      { fps: FPS, workDir },
    );
    expect(retimed.durationMs).toBe(4400);
    expect(await durationMs(retimed.path)).toBeCloseTo(4400, -2);
    // Blue (source 2-3 s) now lasts 1.4 s: 35 frames instead of 25.
    expect(runs(await frameColours(retimed.path))).toEqual([
      ['red', 25],
      ['green', 25],
      ['blue', 35],
      ['white', 25],
    ]);
    expect(retimed.schedule.map(({ factor, holdMs }) => ({ factor, holdMs }))).toEqual([
      { factor: 1, holdMs: 0 },
      { factor: 1.4, holdMs: 0 },
      { factor: 1, holdMs: 0 },
    ]);
  });

  it('slows by at most 1.5x and holds the last frame for the rest', async () => {
    const workDir = path.join(scratch.dir, 'retime-hold');
    const retimed = await retimeVideo(
      source,
      [
        { sourceStartMs: 0, sourceEndMs: 1000, outputMs: 1000 },
        // Two seconds for one: 1.5 s slowed, then 0.5 s on green's last frame.
        { sourceStartMs: 1000, sourceEndMs: 2000, outputMs: 2000 },
        { sourceStartMs: 2000, sourceEndMs: 4000, outputMs: 2000 },
      ],
      { fps: FPS, workDir },
    );
    expect(retimed.schedule[1]).toMatchObject({ factor: 1.5, holdMs: 500 });
    expect(await durationMs(retimed.path)).toBeCloseTo(5000, -2);
    expect(runs(await frameColours(retimed.path))).toEqual([
      ['red', 25],
      ['green', 50],
      ['blue', 25],
      ['white', 25],
    ]);
  });

  it('refuses spans that leave gaps or would speed the picture up', async () => {
    const workDir = scratch.dir;
    const gap = await failure(
      retimeVideo(source, [{ sourceStartMs: 500, sourceEndMs: 1000, outputMs: 500 }], { fps: FPS, workDir }),
    );
    expect(gap.message).toMatch(/span 1 must start/);
    const faster = await failure(
      retimeVideo(source, [{ sourceStartMs: 0, sourceEndMs: 1000, outputMs: 800 }], { fps: FPS, workDir }),
    );
    expect(faster.message).toMatch(/shorter than its source/);
  });
});

describe('muxDub and encodeAudioFile', () => {
  let prepared: PreparedSource;
  let soundtrack: string;

  beforeAll(async () => {
    prepared = await prepareSource(source, { workDir: path.join(scratch.dir, 'mux') });
    soundtrack = path.join(scratch.dir, 'soundtrack-4s.wav');
    await ffmpeg([
      '-f',
      'lavfi',
      '-i',
      'sine=frequency=500:sample_rate=48000:duration=4',
      '-ac',
      '2',
      soundtrack,
    ]);
  }, 60_000);

  it('copies the picture when it can (vfr) and encodes the new sound as AAC', async () => {
    const out = path.join(scratch.dir, 'dub-copy.mp4');
    const muxed = await muxDub({
      videoPath: prepared.videoPath,
      audioPath: soundtrack,
      outPath: out,
      format: 'mp4',
      fpsMode: 'vfr',
      keepSameFormat: false,
      sourceInfo: prepared,
    });
    expect(muxed).toMatchObject({
      container: 'mp4',
      videoCopied: true,
      videoCodec: 'h264',
      audioCodec: 'aac',
    });
    expect(muxed.durationMs).toBeCloseTo(4000, -2);
    const info = await probeMedia(out);
    expect(info.streams.map((stream) => stream.codec)).toEqual(['h264', 'aac']);
    expect(runs(await frameColours(out)).map(([colour]) => colour)).toEqual([...COLOURS]);
  });

  it('encodes at a constant rate for cfr', async () => {
    const out = path.join(scratch.dir, 'dub-cfr.mp4');
    const muxed = await muxDub({
      videoPath: prepared.videoPath,
      audioPath: soundtrack,
      outPath: out,
      format: 'mp4',
      fpsMode: 'cfr',
      keepSameFormat: false,
      sourceInfo: prepared,
    });
    expect(muxed.videoCopied).toBe(false);
    const video = (await probeMedia(out)).streams.find((stream) => stream.type === 'video');
    expect(video).toMatchObject({ codec: 'h264', frameRate: FPS });
    expect((await frameColours(out)).length).toBe(100);
  });

  it('holds the last frame while a line runs past the end of the picture', async () => {
    const out = path.join(scratch.dir, 'dub-hold.mp4');
    const muxed = await muxDub({
      videoPath: prepared.videoPath,
      audioPath: tone,
      outPath: out,
      format: 'mp4',
      fpsMode: 'passthrough',
      keepSameFormat: false,
      sourceInfo: prepared,
    });
    expect(muxed.videoCopied).toBe(false);
    expect(muxed.durationMs).toBeCloseTo(4500, -2);
    const colours = runs(await frameColours(out));
    expect(colours.at(-1)?.[0]).toBe('white');
    expect(colours.at(-1)?.[1]).toBeGreaterThanOrEqual(37);
  });

  it('writes webm as VP9 and Opus, and keeps the source format with keepSameFormat', async () => {
    const webm = path.join(scratch.dir, 'dub.webm');
    const muxed = await muxDub({
      videoPath: prepared.videoPath,
      audioPath: soundtrack,
      outPath: webm,
      format: 'webm',
      fpsMode: 'vfr',
      keepSameFormat: false,
      sourceInfo: prepared,
    });
    expect(muxed).toMatchObject({
      container: 'webm',
      videoCopied: false,
      videoCodec: 'vp9',
      audioCodec: 'opus',
    });
    expect((await probeMedia(webm)).streams.map((stream) => stream.codec)).toEqual(['vp9', 'opus']);
    // The webm dub, kept in its own format when it is dubbed again: VP9 copied, Opus.
    const webmSource = await prepareSource(webm, { workDir: path.join(scratch.dir, 'webm-source') });
    expect(muxContainer('mp4', true, webmSource)).toBe('webm');
    const again = await muxDub({
      videoPath: webmSource.videoPath,
      audioPath: soundtrack,
      outPath: path.join(scratch.dir, 'dub-again.webm'),
      format: 'mp4',
      fpsMode: 'passthrough',
      keepSameFormat: true,
      sourceInfo: webmSource,
    });
    expect(again).toMatchObject({
      container: 'webm',
      videoCopied: true,
      videoCodec: 'vp9',
      audioCodec: 'opus',
    });
  });

  it('writes an audio-only dub without a picture', async () => {
    const out = path.join(scratch.dir, 'dub-audio-only.mp4');
    const muxed = await muxDub({
      videoPath: null,
      audioPath: soundtrack,
      outPath: out,
      format: 'mp4',
      fpsMode: 'vfr',
      keepSameFormat: false,
      sourceInfo: prepared,
    });
    expect(muxed).toMatchObject({ videoCodec: null, audioCodec: 'aac' });
    expect((await probeMedia(out)).streams.map((stream) => stream.type)).toEqual(['audio']);
  });

  it('encodes the soundtrack alone as MP3 and M4A', async () => {
    const mp3 = await encodeAudioFile(soundtrack, path.join(scratch.dir, 'dub.mp3'), 'mp3');
    const m4a = await encodeAudioFile(soundtrack, path.join(scratch.dir, 'dub.m4a'), 'm4a');
    expect((await probeMedia(mp3.path)).streams[0]).toMatchObject({ codec: 'mp3', channels: 2 });
    expect((await probeMedia(m4a.path)).streams[0]).toMatchObject({ codec: 'aac', channels: 2 });
    expect(mp3.durationMs).toBeCloseTo(4000, -2);
    expect(m4a.durationMs).toBeCloseTo(4000, -2);
  });
});
