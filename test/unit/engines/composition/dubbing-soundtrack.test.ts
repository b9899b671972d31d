/**
 * The dubbed soundtrack, measured as a listener would hear it: tone levels per interval (Goertzel on
 * decoded PCM), where the new speech starts, how the duck eases, loudness after enhancement.
 *
 * Synthetic sources: a stereo "original" of a centred 300 Hz "voice" (L = R) and a 1000 Hz "music" tone
 * panned L = 0.25, R = 0.075; the new "speech" is a 600 Hz tone.
 */
import { readdir } from 'node:fs/promises';
import path from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { decodeMonoPcm16 } from '../../../../lambdas/engines/composition/audio-decode.js';
import { isCompositionError } from '../../../../lambdas/engines/composition/composition-engine.js';
import { retimeAudio } from '../../../../lambdas/engines/composition/dub-audio-retime.js';
import {
  type DubSoundtrack,
  dubSoundtrack,
  ORIGINAL_AUDIO,
} from '../../../../lambdas/engines/composition/dub-soundtrack.js';
import { probeMedia } from '../../../../lambdas/engines/composition/probe.js';
import { ffmpeg, scratchDir } from './media-fixtures.js';

const RATE = 48_000;
let scratch: Awaited<ReturnType<typeof scratchDir>>;
let original: string;
let delayedVoiceOriginal: string;
let clipA: string;
let clipB: string;
let noisyClip: string;

/** Amplitude of the `frequency` component of `samples` (full scale 1) between two times (Goertzel). */
function toneAmplitude(samples: Int16Array, frequency: number, fromS: number, toS: number): number {
  const from = Math.round(fromS * RATE);
  const to = Math.round(toS * RATE);
  const omega = (2 * Math.PI * frequency) / RATE;
  let re = 0;
  let im = 0;
  for (let index = from; index < to; index++) {
    const value = (samples[index] ?? 0) / 32768;
    re += value * Math.cos(omega * index);
    im -= value * Math.sin(omega * index);
  }
  return (2 * Math.hypot(re, im)) / (to - from);
}

function db(ratio: number): number {
  return 20 * Math.log10(ratio);
}

function rmsDb(samples: Int16Array, fromS: number, toS: number): number {
  let sum = 0;
  const from = Math.round(fromS * RATE);
  const to = Math.round(toS * RATE);
  for (let index = from; index < to; index++) sum += ((samples[index] ?? 0) / 32768) ** 2;
  return 10 * Math.log10(sum / (to - from) + 1e-20);
}

const decode = (file: string, audioFilter?: string) =>
  decodeMonoPcm16(file, { sampleRate: RATE, workDir: scratch.dir, ...(audioFilter ? { audioFilter } : {}) });

async function failure(promise: Promise<unknown>) {
  const error = await promise.then(
    () => undefined,
    (reason: unknown) => reason,
  );
  if (!isCompositionError(error)) throw new Error(`expected a CompositionError, got ${String(error)}`);
  return error;
}

beforeAll(async () => {
  scratch = await scratchDir('dub-soundtrack');
  original = path.join(scratch.dir, 'original.wav');
  await ffmpeg([
    ...['-f', 'lavfi', '-i'],
    `aevalsrc=0.25*sin(2*PI*300*t)+0.25*sin(2*PI*1000*t)|0.25*sin(2*PI*300*t)+0.075*sin(2*PI*1000*t):s=${RATE}:d=3`,
    original,
  ]);
  // The same mix with the voice 0.5 ms later on the right: a voice recorded with two microphones.
  delayedVoiceOriginal = path.join(scratch.dir, 'original-delayed-voice.wav');
  await ffmpeg([
    ...['-f', 'lavfi', '-i'],
    `aevalsrc=0.25*sin(2*PI*300*t)+0.25*sin(2*PI*1000*t)|0.25*sin(2*PI*300*(t-0.0005))+0.075*sin(2*PI*1000*t):s=${RATE}:d=3`,
    delayedVoiceOriginal,
  ]);
  clipA = path.join(scratch.dir, 'clip-a.wav');
  await ffmpeg(['-f', 'lavfi', '-i', 'aevalsrc=0.3*sin(2*PI*600*t):s=24000:d=0.8', clipA]);
  clipB = path.join(scratch.dir, 'clip-b.wav');
  await ffmpeg(['-f', 'lavfi', '-i', 'aevalsrc=0.3*sin(2*PI*600*t):s=24000:d=0.5', clipB]);
  // A line recorded badly: 0.5 s of hiss only, then a quiet 600 Hz "voice" over 40 Hz rumble and hiss.
  noisyClip = path.join(scratch.dir, 'noisy-clip.wav');
  await ffmpeg([
    ...[
      '-f',
      'lavfi',
      '-i',
      "aevalsrc='if(gte(t,0.5),0.05*sin(2*PI*600*t)+0.05*sin(2*PI*40*t),0)':s=24000:d=2",
    ],
    ...['-f', 'lavfi', '-i', 'anoisesrc=color=white:amplitude=0.01:sample_rate=24000:seed=7:duration=2'],
    ...['-filter_complex', '[0][1]amix=inputs=2,volume=2'],
    noisyClip,
  ]);
}, 60_000);

afterAll(async () => {
  await scratch.remove();
});

describe('dubSoundtrack, ducking the original', () => {
  let result: DubSoundtrack;
  let mix: Int16Array;
  let source: Int16Array;

  beforeAll(async () => {
    result = await dubSoundtrack({
      originalAudioPath: original,
      durationMs: 3000,
      speech: [
        { startMs: 1000, path: clipA },
        { startMs: 2700, path: clipB },
      ],
      original: ORIGINAL_AUDIO.duck,
      workDir: scratch.dir,
    });
    mix = await decode(result.path);
    source = await decode(original);
  }, 60_000);

  it('keeps every clip whole, lengthening the soundtrack for one that runs past the end and reporting it', async () => {
    expect(result.overruns).toEqual([{ index: 1, startMs: 2700, endMs: 3200, pastEndMs: 200 }]);
    expect(result.durationMs).toBe(3200);
    const info = await probeMedia(result.path);
    expect(info.durationSeconds).toBeCloseTo(3.2, 2);
    expect(info.streams[0]).toMatchObject({ codec: 'pcm_s16le', channels: 2, sampleRate: RATE });
    // The overrunning clip's tail is there, at its level.
    expect(toneAmplitude(mix, 600, 3.05, 3.15)).toBeGreaterThan(0.25);
    // Only the soundtrack is left behind: no decoded clips or lanes.
    expect((await readdir(scratch.dir)).filter((name) => name.startsWith('speech-'))).toEqual([]);
  });

  it('leaves the original untouched between lines and lowers voice and music 24 dB under a line', () => {
    for (const frequency of [300, 1000]) {
      const before = db(toneAmplitude(mix, frequency, 0.2, 0.7) / toneAmplitude(source, frequency, 0.2, 0.7));
      const under = db(
        toneAmplitude(mix, frequency, 1.05, 1.75) / toneAmplitude(source, frequency, 1.05, 1.75),
      );
      const between = db(
        toneAmplitude(mix, frequency, 2.0, 2.5) / toneAmplitude(source, frequency, 2.0, 2.5),
      );
      expect(Math.abs(before)).toBeLessThan(0.2);
      expect(under).toBeGreaterThan(-25.5);
      expect(under).toBeLessThan(-22.5);
      expect(Math.abs(between)).toBeLessThan(0.2);
    }
  });

  it('starts the new speech exactly at its time, at its own level', () => {
    // 600 Hz in 5 ms blocks: silent before 1.000 s, at full level right after it.
    expect(toneAmplitude(mix, 600, 0.99, 0.999)).toBeLessThan(0.01);
    expect(toneAmplitude(mix, 600, 1.001, 1.011)).toBeGreaterThan(0.2);
    expect(toneAmplitude(mix, 600, 1.1, 1.7)).toBeCloseTo(0.3, 1);
    expect(toneAmplitude(mix, 600, 1.81, 1.9)).toBeLessThan(0.01);
  });

  it('eases the duck down before the line starts, without a jump', () => {
    // The music's level in 10 ms blocks over the 120 ms before the line: steadily falling, never by
    // more than 6 dB from one block to the next (a hard switch drops 24 dB at once), already at the
    // floor when the line starts.
    const levels: number[] = [];
    for (let time = 0.86; time < 1.0; time += 0.01) {
      levels.push(
        db(toneAmplitude(mix, 1000, time, time + 0.01) / toneAmplitude(source, 1000, time, time + 0.01)),
      );
    }
    for (let index = 1; index < levels.length; index++) {
      expect(levels[index]).toBeLessThanOrEqual((levels[index - 1] as number) + 0.3);
      expect((levels[index - 1] as number) - (levels[index] as number)).toBeLessThan(6);
    }
    expect(levels[0]).toBeGreaterThan(-0.5);
    expect(db(toneAmplitude(mix, 1000, 1.0, 1.01) / toneAmplitude(source, 1000, 1.0, 1.01))).toBeLessThan(
      -22.5,
    );
  });
});

describe('dubSoundtrack, other treatments of the original', () => {
  it('removes the original entirely: silence between lines, only the new speech', async () => {
    const result = await dubSoundtrack({
      originalAudioPath: original,
      durationMs: 3000,
      speech: [{ startMs: 1000, path: clipA }],
      original: ORIGINAL_AUDIO.remove,
      workDir: scratch.dir,
    });
    expect(result.channels).toBe(1);
    expect(result.durationMs).toBe(3000);
    const mix = await decode(result.path);
    expect(rmsDb(mix, 0, 0.99)).toBeLessThan(-90);
    expect(rmsDb(mix, 1.81, 3)).toBeLessThan(-90);
    expect(toneAmplitude(mix, 600, 1.1, 1.7)).toBeCloseTo(0.3, 1);
  }, 30_000);

  it('centre cut: under a line a centred voice stays 24 dB down while side-panned music keeps far more', async () => {
    const request = {
      durationMs: 3000,
      speech: [{ startMs: 1000, path: clipA }],
      workDir: scratch.dir,
    };
    const ducked = await decode(
      (await dubSoundtrack({ ...request, originalAudioPath: original, original: ORIGINAL_AUDIO.duck })).path,
    );
    const centreCut = await decode(
      (
        await dubSoundtrack({
          ...request,
          originalAudioPath: original,
          original: ORIGINAL_AUDIO.duckCentreCut,
        })
      ).path,
    );
    const source = await decode(original);
    const under = (mix: Int16Array, frequency: number) =>
      db(toneAmplitude(mix, frequency, 1.05, 1.75) / toneAmplitude(source, frequency, 1.05, 1.75));
    const figures = {
      duckVoice: under(ducked, 300),
      duckMusic: under(ducked, 1000),
      centreCutVoice: under(centreCut, 300),
      centreCutMusic: under(centreCut, 1000),
    };
    console.info('centre cut under a line (dB vs the original, mono downmix):', figures);
    expect(figures.duckVoice).toBeLessThan(-22.5);
    expect(figures.centreCutVoice).toBeLessThan(-22.5);
    expect(figures.duckMusic).toBeLessThan(-22.5);
    expect(figures.centreCutMusic).toBeGreaterThan(-10);
    // Between lines both are the original.
    expect(
      Math.abs(db(toneAmplitude(centreCut, 1000, 0.2, 0.7) / toneAmplitude(source, 1000, 0.2, 0.7))),
    ).toBeLessThan(0.2);
  }, 60_000);

  it('centre cut: a voice only 0.5 ms later on one channel leaks through the cut', async () => {
    const centreCut = await decode(
      (
        await dubSoundtrack({
          durationMs: 3000,
          speech: [{ startMs: 1000, path: clipA }],
          workDir: scratch.dir,
          originalAudioPath: delayedVoiceOriginal,
          original: ORIGINAL_AUDIO.duckCentreCut,
        })
      ).path,
    );
    const source = await decode(delayedVoiceOriginal);
    const voiceUnder = db(toneAmplitude(centreCut, 300, 1.05, 1.75) / toneAmplitude(source, 300, 1.05, 1.75));
    console.info('centre cut, voice delayed 0.5 ms on one channel, under a line:', voiceUnder, 'dB');
    expect(voiceUnder).toBeGreaterThan(-15);
  }, 30_000);

  it('sums overlapping clips instead of cutting either', async () => {
    const result = await dubSoundtrack({
      originalAudioPath: null,
      durationMs: 2000,
      speech: [
        { startMs: 200, path: clipA },
        { startMs: 600, path: clipB },
      ],
      original: ORIGINAL_AUDIO.duck,
      workDir: scratch.dir,
    });
    const mix = await decode(result.path);
    // Alone, then both (in phase: the 600 Hz tones align at 0.4 s = 240 periods), then B alone.
    expect(toneAmplitude(mix, 600, 0.25, 0.55)).toBeCloseTo(0.3, 1);
    expect(toneAmplitude(mix, 600, 0.65, 0.95)).toBeCloseTo(0.6, 1);
    expect(toneAmplitude(mix, 600, 1.02, 1.08)).toBeCloseTo(0.3, 1);
    expect(rmsDb(mix, 1.12, 2)).toBeLessThan(-90);
    expect(result.placements).toEqual([
      { startMs: 200, endMs: 1000 },
      { startMs: 600, endMs: 1100 },
    ]);
  }, 30_000);

  it('enhances the new speech: rumble and hiss down, loudness at the target, timing kept', async () => {
    const request = {
      originalAudioPath: null,
      durationMs: 3000,
      speech: [{ startMs: 500, path: noisyClip }],
      original: ORIGINAL_AUDIO.remove,
      workDir: scratch.dir,
    };
    const plain = await decode((await dubSoundtrack(request)).path);
    const enhancedResult = await dubSoundtrack({ ...request, enhanceSpeech: true });
    const enhanced = await decode(enhancedResult.path);
    const voice = (mix: Int16Array) => toneAmplitude(mix, 600, 1.2, 2.4);
    const relative = (mix: Int16Array) => ({
      rumble: db(toneAmplitude(mix, 40, 1.2, 2.4) / voice(mix)),
      hiss: rmsDb(mix, 0.6, 0.95) - db(voice(mix)),
    });
    const before = relative(plain);
    const after = relative(enhanced);
    // The loudness of the speech in the soundtrack, by ffmpeg's EBU R128 meter.
    const check = await dubSoundtrack({
      ...request,
      originalAudioPath: null,
      loudnessTarget: -16,
      speech: [{ startMs: 500, path: enhancedResult.path }],
    });
    console.info('speech enhancement:', {
      before,
      after,
      speechLevel: enhancedResult.speechLevel,
      recheck: check.speechLevel,
    });
    expect(after.rumble).toBeLessThan(before.rumble - 8);
    // afftdn follows the noise floor from the line's start: 5 dB less hiss in its first half second.
    expect(after.hiss).toBeLessThan(before.hiss - 4);
    expect(check.speechLevel?.measuredLufs).toBeGreaterThan(-17);
    expect(check.speechLevel?.measuredLufs).toBeLessThan(-15);
    // The voice starts where it did (no filter latency): silent hiss-free lead-in, voice at 1.0 s.
    expect(toneAmplitude(enhanced, 600, 1.002, 1.022)).toBeGreaterThan(0.5 * voice(enhanced));
    expect(toneAmplitude(enhanced, 600, 0.97, 0.995)).toBeLessThan(0.1 * voice(enhanced));
  }, 60_000);

  it('refuses a request it cannot make, naming the fault', async () => {
    const base = {
      originalAudioPath: null,
      durationMs: 1000,
      speech: [{ startMs: 0, path: clipA }],
      original: ORIGINAL_AUDIO.duck,
      workDir: scratch.dir,
    };
    expect((await failure(dubSoundtrack({ ...base, durationMs: 0 }))).message).toMatch(/durationMs/);
    expect(
      (await failure(dubSoundtrack({ ...base, speech: [{ startMs: -5, path: clipA }] }))).failureCode,
    ).toBe('invalid_media');
    expect((await failure(dubSoundtrack({ ...base, duckDb: 6 }))).message).toMatch(/duckDb/);
    const missing = await failure(
      dubSoundtrack({ ...base, speech: [{ startMs: 0, path: path.join(scratch.dir, 'nope.wav') }] }),
    );
    expect(missing.failureCode).toBe('invalid_media');
  });
});

describe('retimeAudio', () => {
  let clock: string;

  beforeAll(async () => {
    // One tone per second: 300, 500, 700, 900 Hz.
    clock = path.join(scratch.dir, 'tone-clock.wav');
    await ffmpeg([
      ...[300, 500, 700, 900].flatMap((frequency) => [
        '-f',
        'lavfi',
        '-i',
        `sine=frequency=${frequency}:sample_rate=${RATE}:duration=1`,
      ]),
      ...['-filter_complex', '[0][1][2][3]concat=n=4:v=0:a=1'],
      clock,
    ]);
  }, 30_000);

  const present = (samples: Int16Array, frequency: number, fromS: number, toS: number) =>
    toneAmplitude(samples, frequency, fromS, toS) > 0.05;

  it('slows a span like the picture: each tone lasts as long as its picture', async () => {
    const retimed = await retimeAudio(
      clock,
      [
        { sourceStartMs: 0, sourceEndMs: 2000, outputMs: 2000 },
        { sourceStartMs: 2000, sourceEndMs: 3000, outputMs: 1400 },
        { sourceStartMs: 3000, sourceEndMs: 4000, outputMs: 1000 },
      ],
      { workDir: scratch.dir },
    );
    expect(retimed.durationMs).toBe(4400);
    expect((await probeMedia(retimed.path)).durationSeconds).toBeCloseTo(4.4, 3);
    const samples = await decode(retimed.path);
    expect(present(samples, 500, 1.05, 1.95)).toBe(true);
    // 700 Hz, pitch kept, now from 2.0 s to 3.4 s; 900 Hz after it.
    expect(present(samples, 700, 2.05, 3.35)).toBe(true);
    expect(present(samples, 900, 2.05, 3.35)).toBe(false);
    expect(present(samples, 900, 3.45, 4.35)).toBe(true);
    expect(present(samples, 700, 3.45, 4.35)).toBe(false);
  });

  it('holds: the stretch, then silence faded in and out, then the next span', async () => {
    const retimed = await retimeAudio(
      clock,
      [
        { sourceStartMs: 0, sourceEndMs: 1000, outputMs: 1000 },
        { sourceStartMs: 1000, sourceEndMs: 2000, outputMs: 2000 },
        { sourceStartMs: 2000, sourceEndMs: 4000, outputMs: 2000 },
      ],
      { workDir: scratch.dir },
    );
    expect(retimed.durationMs).toBe(5000);
    const samples = await decode(retimed.path);
    expect(present(samples, 500, 1.05, 2.45)).toBe(true);
    expect(rmsDb(samples, 2.52, 2.98)).toBeLessThan(-90);
    expect(present(samples, 700, 3.05, 3.95)).toBe(true);
    // No click where the sound stops and starts again: no sample-to-sample step larger than the
    // tone's own steepest (2π·700/48000 of its 0.125 amplitude, with margin).
    let largestStep = 0;
    for (let index = Math.round(2.4 * RATE); index < Math.round(3.1 * RATE); index++) {
      largestStep = Math.max(
        largestStep,
        Math.abs((samples[index] ?? 0) - (samples[index - 1] ?? 0)) / 32768,
      );
    }
    expect(largestStep).toBeLessThan(0.02);
  });
});
