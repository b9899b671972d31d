import { beforeAll, describe, expect, it } from 'vitest';
import { resetConfig } from '../../../lambdas/core/config.js';
import { JobFailure } from '../../../lambdas/core/errors.js';
import type { ModelVoiceRecord } from '../../../lambdas/model-audio/model-voices.js';
import { engineSettingsFor, shiftedPitch } from '../../../lambdas/model-audio/text-to-speech.js';
import { planTtsRequest, ttsBody } from '../../../lambdas/model-audio/tts-request.js';
import {
  combineAnalyses,
  learnableSpeaker,
  MIN_PROFESSIONAL_SPEECH_SECONDS,
  voiceSettingsFor,
} from '../../../lambdas/model-audio/voice-training.js';
import { failureReasonOf } from '../../../lambdas/model-audio/voice-training-job.js';
import type { RecordingAnalysis } from '../../../lambdas/voices/voice-analysis.js';
import { espeakPitchHz } from '../../../lambdas/voices/voice-analysis.js';

const measured = (overrides: Partial<RecordingAnalysis> = {}): RecordingAnalysis => ({
  pitchHz: 120,
  pitchLowHz: 100,
  pitchHighHz: 150,
  speakingRate: 4.7,
  loudnessDb: -20,
  durationSeconds: 20,
  speechSeconds: 18,
  voicedSeconds: 12,
  syllables: 80,
  likelyGender: 'male',
  usable: true,
  ...overrides,
});

const voice = (overrides: Partial<ModelVoiceRecord> = {}) =>
  ({ mode: 'professional', gender: null, similarity: 'max', ...overrides }) as ModelVoiceRecord;

function failureCode(run: () => unknown): string {
  try {
    run();
  } catch (error) {
    expect(error).toBeInstanceOf(JobFailure);
    return (error as JobFailure).failureCode;
  }
  throw new Error('expected a JobFailure');
}

describe('what training learns from recordings', () => {
  it('combines recordings by speaking time, pitches on a log scale', () => {
    const combined = combineAnalyses([
      measured({ pitchHz: 100, speakingRate: 4, speechSeconds: 10 }),
      measured({ pitchHz: 200, speakingRate: 6, speechSeconds: 10 }),
    ]);
    expect(combined.pitchHz).toBeCloseTo(141.4, 0);
    expect(combined.speakingRate).toBe(5);
    expect(combined.speechSeconds).toBe(20);
  });

  it('refuses an unusable recording as INVALID_AUDIO, with its reason', () => {
    const unusable = measured({ usable: false, reason: 'The recording is too quiet to measure.' });
    expect(failureCode(() => learnableSpeaker(voice({ mode: 'instant' }), [unusable]))).toBe('invalid_audio');
    expect(() => learnableSpeaker(voice(), [measured(), unusable])).toThrow(/audio\[1\].*too quiet/);
  });

  it('needs enough speech for a professional voice, not for an instant one', () => {
    const short = measured({ speechSeconds: MIN_PROFESSIONAL_SPEECH_SECONDS - 1 });
    expect(failureCode(() => learnableSpeaker(voice(), [short]))).toBe('insufficient_audio');
    expect(learnableSpeaker(voice({ mode: 'instant' }), [short]).usable).toBe(true);
    expect(learnableSpeaker(voice(), [measured(), measured()]).speechSeconds).toBe(36);
  });

  it('refuses professional recordings of different speakers', () => {
    expect(
      failureCode(() => learnableSpeaker(voice(), [measured({ pitchHz: 110 }), measured({ pitchHz: 230 })])),
    ).toBe('invalid_audio');
  });

  it('follows the speaker as far as similarity asks', () => {
    const speaker = measured({ pitchHz: 140, speakingRate: 6 });
    const all = voiceSettingsFor(speaker, voice({ similarity: 'max' }), 'en-US', 'espeak');
    const half = voiceSettingsFor(speaker, voice({ similarity: 'medium' }), 'en-US', 'espeak');
    expect(all.engine_voice_id).toMatch(/^espeak-en-us-m\d$/);
    expect(Math.abs(half.pitch)).toBeLessThanOrEqual(Math.abs(all.pitch));
    expect(half.speed - 1).toBeCloseTo((all.speed - 1) / 2, 1);
    expect(all.language_tag).toBe('en-US');
  });

  it('maps workflow failure codes to the reference failure reasons', () => {
    expect(failureReasonOf('invalid_audio')).toBe('INVALID_AUDIO');
    expect(failureReasonOf('insufficient_audio')).toBe('INSUFFICIENT_AUDIO');
    expect(failureReasonOf('training_failed')).toBe('TRAINING_FAILED');
    expect(failureReasonOf('something_new')).toBe('INTERNAL_ERROR');
  });
});

describe('how a trained voice speaks a request', () => {
  beforeAll(() => {
    // The settings follow the deployment's engine (configuration): the default, eSpeak.
    process.env.TABLE_NAME ??= 'unit-tests';
    delete process.env.SPEECH_ENGINE;
    resetConfig();
  });

  const trained = {
    ...voice(),
    language: 'en',
    language_tag: 'en-US',
    analysis: {
      pitch_hz: 120,
      pitch_low_hz: 100,
      pitch_high_hz: 150,
      speaking_rate: 4.7,
      loudness_db: -20,
      speech_seconds: 40,
      voiced_seconds: 30,
      likely_gender: 'male',
    },
    settings: {
      engine: 'espeak',
      engine_voice_id: 'espeak-en-us-m1',
      speed: 1.1,
      pitch: 4,
      gender: 'male',
      language_tag: 'en-US',
      base_voice_id: 'en-us-ethan',
    },
  } as ModelVoiceRecord;
  const plan = (extra: Record<string, unknown>) =>
    planTtsRequest(ttsBody.parse({ voice_id: 'v', text: 'Hi.', ...extra }), 'professional');

  it('moves pitch by semitones on the engine calibrated scale', () => {
    const up = shiftedPitch({ engine: 'espeak', engine_voice_id: 'espeak-en-us-m1' }, 0, 3);
    const ratio = espeakPitchHz('m1', up) / espeakPitchHz('m1', 0);
    expect(12 * Math.log2(ratio)).toBeCloseTo(3, 0);
    expect(shiftedPitch({ engine: 'polly', engine_voice_id: 'Joanna' }, 0, 6)).toBe(50);
    expect(shiftedPitch({ engine: 'polly', engine_voice_id: 'Joanna' }, 10, 0)).toBe(10);
  });

  it("multiplies the voice's speed, keeps its language, and re-derives for another", () => {
    const same = engineSettingsFor(trained, plan({ speed: 1.5 }));
    expect(same).toMatchObject({ engineVoiceId: 'espeak-en-us-m1', speed: 1.65, language: 'en' });
    const spanish = engineSettingsFor(trained, plan({}), 'es');
    expect(spanish.engineVoiceId).toMatch(/^espeak-es-m\d$/);
    expect(spanish.language).toBe('es');
  });
});
