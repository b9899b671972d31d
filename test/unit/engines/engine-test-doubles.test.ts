import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { config, resetConfig } from '../../../lambdas/core/config.js';
import { resetProcessState } from '../../../lambdas/core/process-state.js';
import { compositionEngine } from '../../../lambdas/engines/composition/index.js';
import { resetSpeechEngine, speechEngine } from '../../../lambdas/engines/speech/index.js';
import { voiceAnalyser } from '../../../lambdas/voices/voice-analysers.js';

beforeEach(() => {
  vi.stubEnv('TABLE_NAME', 'table');
  resetConfig();
});

afterEach(async () => {
  await resetSpeechEngine();
  vi.unstubAllEnvs();
  resetConfig();
});

describe('engine test doubles', () => {
  it('are not used unless configured: the reference engines are the defaults', () => {
    vi.stubEnv('SPEECH_ENGINE', undefined);
    vi.stubEnv('COMPOSITION_ENGINE', undefined);
    vi.stubEnv('VOICE_ANALYSIS_ENGINE', undefined);
    expect(speechEngine().name).toBe('espeak');
    expect(compositionEngine().name).toBe('ffmpeg');
    expect(voiceAnalyser().name).toBe('yin');
  });

  it.each(['SPEECH_ENGINE', 'COMPOSITION_ENGINE', 'VOICE_ANALYSIS_ENGINE'])(
    'are refused by %s without ALLOW_TEST_DOUBLE_ENGINES=true',
    (variable) => {
      vi.stubEnv(variable, 'test-double');
      for (const allow of [undefined, '', 'false', '0', 'No']) {
        vi.stubEnv('ALLOW_TEST_DOUBLE_ENGINES', allow);
        resetConfig();
        expect(() => config()).toThrow(
          `Environment variable ${variable} is "test-double", an engine for tests only: set ALLOW_TEST_DOUBLE_ENGINES=true to use it`,
        );
      }
    },
  );

  it('are chosen, and recorded by name, with the test flag', () => {
    vi.stubEnv('ALLOW_TEST_DOUBLE_ENGINES', 'true');
    vi.stubEnv('SPEECH_ENGINE', 'test-double');
    vi.stubEnv('COMPOSITION_ENGINE', 'test-double');
    vi.stubEnv('VOICE_ANALYSIS_ENGINE', 'test-double');
    expect(speechEngine().name).toBe('test-double');
    expect(compositionEngine().name).toBe('test-double');
    expect(voiceAnalyser().name).toBe('test-double');
  });

  it('refuses an unknown composition engine', () => {
    vi.stubEnv('COMPOSITION_ENGINE', 'remotion');
    expect(() => compositionEngine()).toThrow(
      'Environment variable COMPOSITION_ENGINE must be one of ffmpeg, test-double, got "remotion"',
    );
  });

  it('are replaced by the reference engines after a process reset with the test settings gone', async () => {
    vi.stubEnv('ALLOW_TEST_DOUBLE_ENGINES', 'true');
    vi.stubEnv('SPEECH_ENGINE', 'test-double');
    expect(speechEngine().name).toBe('test-double');
    vi.stubEnv('SPEECH_ENGINE', undefined);
    await resetProcessState();
    expect(speechEngine().name).toBe('espeak');
  });
});
