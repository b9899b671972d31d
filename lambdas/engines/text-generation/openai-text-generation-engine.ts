/**
 * `openai`: text generation by an OpenAI-compatible chat completions server (`POST <base>/chat/completions`:
 * `model`, `messages` = the system message (plus, with `json`, the schema instruction) and the prompt as
 * the user's, `max_tokens`, and with `json` `response_format: {"type": "json_object"}`). The first
 * choice is the answer; `finish_reason: "length"` means it was cut (`truncated`), which fails a JSON answer.
 */
import type { ModelServerConfig } from '../../core/config.js';
import { type ChatMessage, chatCompletion } from '../openai-compatible/chat-completions.js';
import {
  type ModelServerFailure,
  modelServerClient,
  type OpenAiCompatibleClient,
} from '../openai-compatible/index.js';
import {
  jsonAnswerInstruction,
  parseJsonAnswer,
  type TextGenerationEngine,
  TextGenerationError,
  type TextGenerationFailureCode,
  type TextGenerationRequest,
  type TextGenerationResult,
  validateGenerationRequest,
} from './text-generation-engine.js';

export const OPENAI_TEXT_GENERATION_ENGINE = 'openai';

const FAILURE_CODES: Readonly<Record<ModelServerFailure, TextGenerationFailureCode>> = {
  unavailable: 'engine_unavailable',
  invalid_input: 'invalid_input',
  failed: 'text_generation_failed',
};

class OpenAiTextGenerationEngine implements TextGenerationEngine {
  readonly name = OPENAI_TEXT_GENERATION_ENGINE;
  private readonly client: OpenAiCompatibleClient;

  constructor(server: ModelServerConfig) {
    this.client = modelServerClient(server, {
      capability: 'Text generation',
      prefix: 'TEXT_GENERATION',
      failure: (kind, message, cause) => new TextGenerationError(FAILURE_CODES[kind], message, { cause }),
    });
  }

  async generate<T = unknown>(request: TextGenerationRequest<T>): Promise<TextGenerationResult<T>> {
    const maxTokens = validateGenerationRequest(request);
    const system = [request.system, request.json ? jsonAnswerInstruction(request.json) : undefined]
      .filter(Boolean)
      .join('\n\n');
    const messages: ChatMessage[] = [
      ...(system ? [{ role: 'system' as const, content: system }] : []),
      { role: 'user', content: request.prompt },
    ];
    const answer = await chatCompletion(
      this.client,
      {
        messages,
        max_tokens: maxTokens,
        ...(request.json ? { response_format: { type: 'json_object' as const } } : {}),
      },
      (message) => new TextGenerationError('text_generation_failed', `Text generation failed: ${message}`),
    );
    const truncated = answer.finishReason === 'length';
    const result: TextGenerationResult<T> = {
      engine: this.name,
      model: this.client.model,
      text: answer.text,
      truncated,
      usage: { inputTokens: answer.inputTokens, outputTokens: answer.outputTokens },
    };
    if (!request.json) return result;
    if (truncated) {
      throw new TextGenerationError(
        'text_generation_failed',
        `Text generation failed: the JSON answer was cut at ${maxTokens} tokens; give a larger maxTokens.`,
      );
    }
    return { ...result, json: parseJsonAnswer(answer.text, request.json, this.name) };
  }
}

/** A text generation engine for the configured OpenAI-compatible server. */
export function createOpenAiTextGenerationEngine(server: ModelServerConfig): TextGenerationEngine {
  return new OpenAiTextGenerationEngine(server);
}
