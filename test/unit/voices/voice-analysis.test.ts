import { mkdtemp, rm, writeFile } from 'node:fs/promises';
import { tmpdir } from 'node:os';
import { join } from 'node:path';
import { afterAll, beforeAll, describe, expect, it } from 'vitest';
import { encodeWavPcm16 } from '../../../lambdas/engines/speech/wav.js';
import {
  ANALYSIS_SAMPLE_RATE,
  analysePcm,
  analyseRecording,
  deriveVoice,
  ESPEAK_VARIANT_PITCH_HZ,
  espeakOffsetFor,
  espeakPitchHz,
  type RecordingAnalysis,
  VoiceDerivationError,
} from '../../../lambdas/voices/voice-analysis.js';

/**
 * A crude voiced "speech": a harmonic-rich tone at `f0` whose loudness rises and falls `syllablesPerSecond`
 * times a second (one vowel each), with a pause of silence in the middle.
 */
function syntheticSpeech(f0: number, syllablesPerSecond: number, seconds = 4): Float32Array {
  const rate = ANALYSIS_SAMPLE_RATE;
  const samples = new Float32Array(Math.round(seconds * rate));
  for (let i = 0; i < samples.length; i++) {
    const t = i / rate;
    if (t > seconds / 2 - 0.2 && t < seconds / 2 + 0.2) continue; // a 400 ms pause
    let tone = 0;
    for (let harmonic = 1; harmonic <= 8; harmonic++)
      tone += Math.sin(2 * Math.PI * f0 * harmonic * t) / harmonic;
    const envelope = 0.5 - 0.5 * Math.cos(2 * Math.PI * syllablesPerSecond * t);
    samples[i] = 0.25 * tone * envelope ** 2;
  }
  return samples;
}

const measured = (overrides: Partial<RecordingAnalysis>): RecordingAnalysis => ({
  pitchHz: 120,
  pitchLowHz: 100,
  pitchHighHz: 140,
  speakingRate: 4.7,
  loudnessDb: -20,
  durationSeconds: 5,
  speechSeconds: 4,
  voicedSeconds: 3,
  syllables: 19,
  likelyGender: 'male',
  usable: true,
  ...overrides,
});

describe('analysePcm', () => {
  it('measures the pitch, the syllable rate and the loudness of voiced sound', () => {
    const low = analysePcm(syntheticSpeech(110, 4));
    expect(low.usable).toBe(true);
    expect(low.pitchHz).toBeGreaterThan(105);
    expect(low.pitchHz).toBeLessThan(115);
    expect(low.likelyGender).toBe('male');
    expect(low.speakingRate).toBeGreaterThan(3.3);
    expect(low.speakingRate).toBeLessThan(4.7);
    expect(low.loudnessDb).toBeLessThan(0);
    expect(low.loudnessDb).toBeGreaterThan(-40);
    expect(low.speechSeconds).toBeLessThan(low.durationSeconds);

    const high = analysePcm(syntheticSpeech(230, 6));
    expect(high.pitchHz).toBeGreaterThan(220);
    expect(high.pitchHz).toBeLessThan(240);
    expect(high.likelyGender).toBe('female');
    expect(high.speakingRate).toBeGreaterThan(low.speakingRate);
  });

  it('refuses silence, noise and recordings that are too short', () => {
    const silence = analysePcm(new Float32Array(ANALYSIS_SAMPLE_RATE * 3));
    expect(silence.usable).toBe(false);
    expect(silence.reason).toMatch(/too quiet/);

    let state = 12345;
    const noise = new Float32Array(ANALYSIS_SAMPLE_RATE * 3).map(() => {
      state = (state * 1103515245 + 12345) % 2 ** 31;
      return (state / 2 ** 31 - 0.5) * 0.5;
    });
    const noisy = analysePcm(noise);
    expect(noisy.usable).toBe(false);
    expect(noisy.reason).toMatch(/No voice could be measured/);

    const short = analysePcm(syntheticSpeech(120, 4, 0.6));
    expect(short.usable).toBe(false);
    expect(short.reason).toMatch(/at least 1 s is needed/);
  });
});

describe('analyseRecording', () => {
  let dir: string;
  beforeAll(async () => {
    dir = await mkdtemp(join(tmpdir(), 'voice-analysis-test-'));
  });
  afterAll(async () => {
    await rm(dir, { recursive: true, force: true });
  });

  it('decodes a file with ffmpeg and measures it', async () => {
    const pcm = syntheticSpeech(140, 4, 3);
    const file = join(dir, 'tone.wav');
    await writeFile(
      file,
      encodeWavPcm16(
        Int16Array.from(pcm, (sample) => Math.round(sample * 32767)),
        ANALYSIS_SAMPLE_RATE,
      ),
    );
    for (const denoise of [false, true]) {
      const analysis = await analyseRecording(file, { denoise });
      expect(analysis.usable).toBe(true);
      expect(analysis.durationSeconds).toBeCloseTo(3, 1);
      expect(analysis.pitchHz).toBeGreaterThan(130);
      expect(analysis.pitchHz).toBeLessThan(150);
    }
  });

  it('reports a file that is not audio as unusable, without throwing', async () => {
    const file = join(dir, 'not-audio.wav');
    await writeFile(file, 'this is not a recording');
    const analysis = await analyseRecording(file);
    expect(analysis.usable).toBe(false);
    expect(analysis.reason).toMatch(/cannot be decoded|no audio/);
    expect(analysis.reason).not.toContain(dir);
  });
});

describe('deriveVoice', () => {
  it('interpolates the eSpeak calibration and inverts it', () => {
    for (const [variant, points] of Object.entries(ESPEAK_VARIANT_PITCH_HZ)) {
      expect(espeakPitchHz(variant, 0)).toBeCloseTo(points[2] as number, 5);
      expect(espeakPitchHz(variant, -50)).toBeCloseTo(points[0] as number, 5);
      for (let offset = -49; offset <= 50; offset++) {
        expect(espeakPitchHz(variant, offset)).toBeGreaterThan(espeakPitchHz(variant, offset - 1));
      }
      expect(espeakOffsetFor(variant, points[3] as number)).toBe(25);
    }
  });

  it('picks a voice of the speaker gender and language, moved to their pitch and pace', () => {
    const deep = deriveVoice(measured({ pitchHz: 80, speakingRate: 3.5 }), { language: 'en-GB' });
    expect(deep.engineVoiceId).toMatch(/^espeak-en-gb-m\d$/);
    expect(deep.gender).toBe('male');
    expect(deep.baseVoiceId).toBe('en-gb-oliver');
    expect(deep.pitch).toBeLessThan(0);
    expect(deep.speed).toBeLessThan(1);
    expect(Math.abs(deep.expectedPitchHz - 80)).toBeLessThan(2);

    const bright = deriveVoice(measured({ pitchHz: 300, speakingRate: 6, likelyGender: 'female' }), {
      language: 'es',
    });
    expect(bright.engineVoiceId).toMatch(/^espeak-es-f\d$/);
    expect(bright.language).toBe('es-ES');
    expect(bright.pitch).toBeGreaterThan(0);
    expect(bright.speed).toBeGreaterThan(1);

    // The gender given wins over the pitch's suggestion; the pitch still follows the speaker.
    const given = deriveVoice(measured({ pitchHz: 150 }), { gender: 'female' });
    expect(given.engineVoiceId).toMatch(/^espeak-en-us-f\d$/);
    expect(given.expectedPitchHz).toBeLessThan(160);
  });

  it('is deterministic and keeps settings in range', () => {
    const analysis = measured({ pitchHz: 20_000, speakingRate: 40 });
    const derived = deriveVoice(analysis);
    expect(derived).toEqual(deriveVoice(analysis));
    expect(derived.pitch).toBe(50);
    expect(derived.speed).toBe(2);
    expect(deriveVoice(measured({ pitchHz: 0, speakingRate: 0 })).speed).toBe(1);
  });

  it('derives Polly settings in semitone steps', () => {
    const polly = deriveVoice(measured({ pitchHz: 115 * 2 ** (3 / 12) }), {
      engine: 'polly',
      language: 'en-US',
    });
    expect(polly.engineVoiceId).toBe('Matthew');
    expect(polly.pitch).toBe(25);
    // Polly has no male Hindi voice: the female one, pitched down as far as it goes.
    const hindi = deriveVoice(measured({ pitchHz: 100 }), { engine: 'polly', language: 'hi-IN' });
    expect(hindi.engineVoiceId).toBe('Kajal');
    expect(hindi.gender).toBe('male');
    expect(hindi.pitch).toBe(-50);
  });

  it('refuses a language the engine has no voice for', () => {
    expect(() => deriveVoice(measured({}), { language: 'tlh' })).toThrow(VoiceDerivationError);
  });
});
