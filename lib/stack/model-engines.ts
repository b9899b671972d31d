/**
 * The model capabilities in the deployed stack (speech recognition, translation, text generation,
 * image and video generation; lambdas/engines/): what a function that uses one needs, from the deploy
 * options (`ModelEngineOptions`, service-options.ts).
 *
 * No route or job uses these engines yet, so no function gets them. A job step that does names the
 * capability's grant in its deployment's `access` (`MODEL_ENGINE_GRANTS`, beside `jobMedia`) and gets
 * `modelEngineEnvironment(options.modelEngines, [capability])` in its environment: the grant is what
 * its engine calls (lib/access/grant-policies.ts: nothing when the capability is off), the environment
 * what lambdas/core/config.ts reads (`modelEnginesConfig`). Without them, the capability's calls fail
 * the job with `engine_unavailable`, naming the option to set.
 */
import { GRANTS, type Grant } from '../../lambdas/core/grants.js';
import type { ModelCapability, ModelEngineOptions } from './service-options.js';

/** The grant each capability's engines need. */
export const MODEL_ENGINE_GRANTS = {
  speechRecognition: GRANTS.recognizeSpeech,
  translation: GRANTS.translateText,
  textGeneration: GRANTS.generateText,
  mediaGeneration: GRANTS.generateMedia,
} as const satisfies Record<ModelCapability, Grant>;

/** The prefix of each capability's environment variables (lambdas/core/config.ts). */
const VARIABLE_PREFIX: Readonly<Record<ModelCapability, string>> = {
  speechRecognition: 'SPEECH_RECOGNITION',
  translation: 'TRANSLATION',
  textGeneration: 'TEXT_GENERATION',
  mediaGeneration: 'MEDIA_GENERATION',
};

/** The environment variables of the capabilities a function uses; empty options are left out (the runtime defaults apply). */
export function modelEngineEnvironment(
  engines: ModelEngineOptions,
  capabilities: readonly ModelCapability[],
): Record<string, string> {
  const environment: Record<string, string> = {};
  for (const capability of capabilities) {
    const prefix = VARIABLE_PREFIX[capability];
    const option = engines[capability];
    const variables: Record<string, string> = {
      [`${prefix}_ENGINE`]: option.engine,
      [`${prefix}_BASE_URL`]: option.baseUrl,
      [`${prefix}_MODEL`]: option.model,
      [`${prefix}_API_KEY_SECRET`]: option.apiKeySecret,
      [`${prefix}_IMAGE_MODEL`]: option.imageModel,
      [`${prefix}_VIDEO_MODEL`]: option.videoModel,
    };
    for (const [name, value] of Object.entries(variables)) if (value) environment[name] = value;
  }
  return environment;
}
