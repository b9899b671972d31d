/**
 * The text generation test double (`TEXT_GENERATION_ENGINE=test-double`, tests only: see
 * `TEST_DOUBLE_ENGINE` in core/config.ts). With a task it runs the local planner's; otherwise it answers
 * `test-double: <the prompt's first 200 characters>`, and to a JSON request `{}` when the schema accepts
 * it (after its defaults), failing like an engine whose answer does not match otherwise. Instant and
 * deterministic.
 */
import { TEST_DOUBLE_ENGINE } from '../../core/config.js';
import { createLocalPlannerEngine } from './local-planner-engine.js';
import {
  type TextGenerationEngine,
  TextGenerationError,
  type TextGenerationRequest,
  type TextGenerationResult,
  validateGenerationRequest,
} from './text-generation-engine.js';

class TestDoubleTextGenerationEngine implements TextGenerationEngine {
  readonly name = TEST_DOUBLE_ENGINE;
  private readonly planner = createLocalPlannerEngine();

  async generate<T = unknown>(request: TextGenerationRequest<T>): Promise<TextGenerationResult<T>> {
    validateGenerationRequest(request);
    if (request.task) return { ...(await this.planner.generate(request)), engine: this.name };
    const text = `test-double: ${request.prompt.trim().slice(0, 200)}`;
    if (!request.json) return { engine: this.name, text, truncated: false };
    const parsed = request.json.safeParse({});
    if (!parsed.success) {
      throw new TextGenerationError(
        'text_generation_failed',
        'The test double answers {} to JSON requests; the schema refuses it.',
      );
    }
    return { engine: this.name, text: '{}', json: parsed.data, truncated: false };
  }
}

export function createTestDoubleTextGenerationEngine(): TextGenerationEngine {
  return new TestDoubleTextGenerationEngine();
}
