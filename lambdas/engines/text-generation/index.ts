/**
 * The process's text generation engine, chosen by configuration (`TEXT_GENERATION_ENGINE`, see
 * `modelEnginesConfig` in core/config.ts): `local` (the deterministic planner, not an LLM), `openai`,
 * `bedrock`, `none` (the default: every call fails with `engine_unavailable` naming the settings) or
 * `test-double` (tests only). Job code records the engine's `name` on the job.
 */
import { modelEnginesConfig, type TextGenerationEngineName, UNCONFIGURED_ENGINE } from '../../core/config.js';
import { onProcessReset } from '../../core/process-state.js';
import { createBedrockTextGenerationEngine } from './bedrock-text-generation-engine.js';
import { createLocalPlannerEngine } from './local-planner-engine.js';
import { createOpenAiTextGenerationEngine } from './openai-text-generation-engine.js';
import { createTestDoubleTextGenerationEngine } from './test-double-text-generation-engine.js';
import { type TextGenerationEngine, TextGenerationError } from './text-generation-engine.js';

export {
  contentTerms,
  countWords,
  keywords,
  rankSentences,
  sentiment,
  splitSentences,
} from './local-planner.js';
export * from './text-generation-engine.js';

/** What a deployer reads when text generation is asked for and none is configured. */
export const TEXT_GENERATION_NOT_CONFIGURED =
  "Text generation is not configured: set TEXT_GENERATION_ENGINE=openai with TEXT_GENERATION_BASE_URL (an OpenAI-compatible chat server; CDK option textGeneration: { engine: 'openai', baseUrl }), deploy with textGeneration: { engine: 'bedrock' } (Amazon Bedrock), or set TEXT_GENERATION_ENGINE=local (textGeneration: { engine: 'local' }) for the deterministic extractive planner, which is not a language model. Nothing was charged.";

function failingEngine(name: string, message: string): TextGenerationEngine {
  return {
    name,
    async generate() {
      throw new TextGenerationError('engine_unavailable', message);
    },
  };
}

/** A new engine of that name, with its settings from the configuration. */
export function createTextGenerationEngine(
  name: TextGenerationEngineName = modelEnginesConfig().textGeneration.engine,
): TextGenerationEngine {
  const settings = modelEnginesConfig().textGeneration;
  switch (name) {
    case 'local':
      return createLocalPlannerEngine();
    case 'openai':
      return settings.baseUrl
        ? createOpenAiTextGenerationEngine(settings)
        : failingEngine(
            name,
            'Text generation is set to an OpenAI-compatible server (TEXT_GENERATION_ENGINE=openai) but TEXT_GENERATION_BASE_URL is empty (CDK option textGeneration.baseUrl). Nothing was charged.',
          );
    case 'bedrock':
      return createBedrockTextGenerationEngine({ modelId: settings.model });
    case 'test-double':
      return createTestDoubleTextGenerationEngine();
    case UNCONFIGURED_ENGINE:
      return failingEngine(UNCONFIGURED_ENGINE, TEXT_GENERATION_NOT_CONFIGURED);
    default:
      throw new Error(`unknown text generation engine ${String(name satisfies never)}`);
  }
}

let shared: TextGenerationEngine | undefined;

/** The process's text generation engine, created on first use from the configuration and kept. */
export function textGenerationEngine(): TextGenerationEngine {
  shared ??= createTextGenerationEngine();
  return shared;
}

/** Forgets the process's engine (tests, and the local stack after it changes settings). */
export function resetTextGenerationEngine(): void {
  shared = undefined;
}
onProcessReset(resetTextGenerationEngine);
