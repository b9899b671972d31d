/**
 * The process's translation engine, chosen by configuration (`TRANSLATION_ENGINE`, see
 * `modelEnginesConfig` in core/config.ts): `openai`, `translate`, `apertium`, `none` (the default:
 * every call fails with `engine_unavailable` naming the settings) or `test-double` (tests only). Job
 * code records the engine's `name` on the job.
 */
import { modelEnginesConfig, type TranslationEngineName, UNCONFIGURED_ENGINE } from '../../core/config.js';
import { onProcessReset } from '../../core/process-state.js';
import { createAmazonTranslateEngine } from './amazon-translate-engine.js';
import { createApertiumEngine } from './apertium-engine.js';
import { createOpenAiTranslationEngine } from './openai-translation-engine.js';
import { createTestDoubleTranslationEngine } from './test-double-translation-engine.js';
import { type TranslationEngine, TranslationError } from './translation-engine.js';

export * from './translation-engine.js';

/** What a deployer reads when translation is asked for and none is configured. */
export const TRANSLATION_NOT_CONFIGURED =
  "Translation is not configured: set TRANSLATION_ENGINE=openai with TRANSLATION_BASE_URL (an OpenAI-compatible chat server; CDK option translation: { engine: 'openai', baseUrl }), TRANSLATION_ENGINE=apertium where the apertium binary and its language pairs are installed, or deploy with translation: { engine: 'translate' } (Amazon Translate). Nothing was charged.";

function failingEngine(name: string, message: string): TranslationEngine {
  return {
    name,
    async translate() {
      throw new TranslationError('engine_unavailable', message);
    },
  };
}

/** A new engine of that name, with its settings from the configuration. */
export function createTranslationEngine(
  name: TranslationEngineName = modelEnginesConfig().translation.engine,
): TranslationEngine {
  const settings = modelEnginesConfig().translation;
  switch (name) {
    case 'openai':
      return settings.baseUrl
        ? createOpenAiTranslationEngine(settings)
        : failingEngine(
            name,
            'Translation is set to an OpenAI-compatible server (TRANSLATION_ENGINE=openai) but TRANSLATION_BASE_URL is empty (CDK option translation.baseUrl). Nothing was charged.',
          );
    case 'translate':
      return createAmazonTranslateEngine();
    case 'apertium':
      return createApertiumEngine({ path: settings.apertiumPath, timeoutMs: settings.apertiumTimeoutMs });
    case 'test-double':
      return createTestDoubleTranslationEngine();
    case UNCONFIGURED_ENGINE:
      return failingEngine(UNCONFIGURED_ENGINE, TRANSLATION_NOT_CONFIGURED);
    default:
      throw new Error(`unknown translation engine ${String(name satisfies never)}`);
  }
}

let shared: TranslationEngine | undefined;

/** The process's translation engine, created on first use from the configuration and kept. */
export function translationEngine(): TranslationEngine {
  shared ??= createTranslationEngine();
  return shared;
}

/** Forgets the process's engine (tests, and the local stack after it changes settings). */
export function resetTranslationEngine(): void {
  shared = undefined;
}
onProcessReset(resetTranslationEngine);
