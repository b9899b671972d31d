import { afterEach, beforeEach, describe, expect, it, vi } from 'vitest';
import { config, resetConfig } from '../../../lambdas/core/config.js';
import {
  createSpeechEngine,
  resetSpeechEngine,
  SpeechEngineError,
  speechEngine,
} from '../../../lambdas/engines/speech/index.js';

beforeEach(() => {
  vi.stubEnv('TABLE_NAME', 'table');
  resetConfig();
});

afterEach(async () => {
  await resetSpeechEngine();
  vi.unstubAllEnvs();
  resetConfig();
});

describe('speech engine selection', () => {
  it('uses the eSpeak engine by default', () => {
    vi.stubEnv('SPEECH_ENGINE', undefined);
    expect(config().speechEngine).toBe('espeak');
    expect(speechEngine().name).toBe('espeak');
  });

  it('uses Amazon Polly when SPEECH_ENGINE is polly, and keeps one engine per process', () => {
    vi.stubEnv('SPEECH_ENGINE', 'polly');
    const engine = speechEngine();
    expect(engine.name).toBe('polly');
    expect(speechEngine()).toBe(engine);
  });

  it('makes a new engine after a reset, from the configuration of that time', async () => {
    vi.stubEnv('SPEECH_ENGINE', 'espeak');
    const first = speechEngine();
    await resetSpeechEngine();
    vi.stubEnv('SPEECH_ENGINE', 'polly');
    resetConfig();
    const second = speechEngine();
    expect(second).not.toBe(first);
    expect(second.name).toBe('polly');
    expect(createSpeechEngine('espeak').name).toBe('espeak');
  });

  it('refuses an unknown engine when the configuration loads', () => {
    vi.stubEnv('SPEECH_ENGINE', 'festival');
    expect(() => config()).toThrow(
      'Environment variable SPEECH_ENGINE must be one of espeak, polly, test-double, got "festival"',
    );
    expect(() => speechEngine()).toThrow(/SPEECH_ENGINE/);
  });

  it('reads the Polly engine preference, and refuses an unknown engine type', () => {
    expect(config().pollyEngines).toEqual(['neural', 'standard']);
    vi.stubEnv('POLLY_ENGINES', ' long-form, neural ,long-form');
    resetConfig();
    expect(config().pollyEngines).toEqual(['long-form', 'neural']);
    // Generative voices give no speech marks: no word timings, so not an engine this service can use.
    vi.stubEnv('POLLY_ENGINES', 'neural,generative');
    resetConfig();
    expect(() => config()).toThrow(
      'Environment variable POLLY_ENGINES must be one of standard, neural, long-form, got "generative"',
    );
  });

  it('re-exports the engine interface', () => {
    expect(new SpeechEngineError('invalid_input', 'x').failureCode).toBe('invalid_input');
  });
});
