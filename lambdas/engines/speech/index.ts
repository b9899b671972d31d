/**
 * The process's speech engine, chosen by configuration (`SPEECH_ENGINE`, see core/config.ts):
 * `espeak` (the reference engine, the default), `polly` (Amazon Polly, with the engine types of
 * `POLLY_ENGINES`) or `test-double` (tests only). Job code calls `speechEngine()` and records its
 * `name` on the job. Every engine says a request's `pronunciations` the same way (pronunciations.ts).
 *
 * Both engines are imported statically, so every bundle that uses this module carries both (and the
 * eSpeak worker beside it, see lib/stack/handler-bundles.ts): the choice is made at run time.
 */
import { config, type PollyEngineType, type SpeechEngineName } from '../../core/config.js';
import { onProcessReset } from '../../core/process-state.js';
import { createEspeakEngine } from './espeak-engine.js';
import { createPollyEngine } from './polly-engine.js';
import { withPronunciations } from './pronunciations.js';
import type { SpeechEngine } from './speech-engine.js';
import { createTestDoubleSpeechEngine } from './test-double-speech-engine.js';

export * from './speech-engine.js';

/** A new engine of that name, with its settings from the configuration. */
export function createSpeechEngine(name: SpeechEngineName = config().speechEngine): SpeechEngine {
  switch (name) {
    case 'espeak':
      return withPronunciations(createEspeakEngine());
    case 'polly':
      return createPollySpeechEngine(config().pollyEngines);
    case 'test-double':
      return withPronunciations(createTestDoubleSpeechEngine());
    default:
      throw new Error(`unknown speech engine ${String(name satisfies never)}`);
  }
}

/** A Polly engine limited to these engine types (a request's `settings.model_id`), as the factory makes engines. */
export function createPollySpeechEngine(types: readonly PollyEngineType[]): SpeechEngine {
  return withPronunciations(createPollyEngine({ engines: types }));
}

let shared: SpeechEngine | undefined;

/** The process's speech engine, created on first use from the configuration and kept. */
export function speechEngine(): SpeechEngine {
  shared ??= createSpeechEngine();
  return shared;
}

/** Closes and forgets the process's engine (tests, and the local stack after it changes settings). */
export async function resetSpeechEngine(): Promise<void> {
  const engine = shared;
  shared = undefined;
  await engine?.close();
}
onProcessReset(resetSpeechEngine);
