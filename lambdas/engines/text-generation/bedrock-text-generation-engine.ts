/**
 * `bedrock`: text generation by Amazon Bedrock Runtime `Converse` (deployed engine) with the configured
 * model (`TEXT_GENERATION_MODEL`, a model id or inference profile, default `amazon.nova-lite-v1:0`):
 * `system` as the system block (plus, with `json`, the schema instruction), the prompt as the one user
 * message, `inferenceConfig.maxTokens`. The answer is the text blocks of the output message;
 * `stopReason: max_tokens` means it was cut (`truncated`), and a guardrail or content filter that
 * intervened fails the request (`invalid_input`: the prompt was refused). IAM authorizes Converse as
 * `bedrock:InvokeModel` on the model.
 *
 * Errors (bedrock-runtime.ts): ValidationException → `invalid_input`; model access not granted, unknown
 * model, throttling, quotas, credentials → `engine_unavailable`; model errors and timeouts →
 * `text_generation_failed`.
 */
import {
  type BedrockRuntimeClient,
  ConverseCommand,
  type ConverseCommandOutput,
} from '@aws-sdk/client-bedrock-runtime';
import {
  type BedrockFailure,
  bedrockFailureOf,
  bedrockRuntimeClient,
  describeBedrockError,
} from '../bedrock-runtime.js';
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

export const BEDROCK_TEXT_GENERATION_ENGINE = 'bedrock';

export interface BedrockTextGenerationOptions {
  /** Model id, ARN or inference profile id. */
  modelId: string;
  /** @default the process's Bedrock Runtime client */
  client?: BedrockRuntimeClient;
}

const FAILURE_CODES: Readonly<Record<BedrockFailure, TextGenerationFailureCode>> = {
  unavailable: 'engine_unavailable',
  invalid_input: 'invalid_input',
  failed: 'text_generation_failed',
};

class BedrockTextGenerationEngine implements TextGenerationEngine {
  readonly name = BEDROCK_TEXT_GENERATION_ENGINE;

  constructor(private readonly options: BedrockTextGenerationOptions) {}

  async generate<T = unknown>(request: TextGenerationRequest<T>): Promise<TextGenerationResult<T>> {
    const maxTokens = validateGenerationRequest(request);
    const system = [request.system, request.json ? jsonAnswerInstruction(request.json) : undefined].filter(
      (text): text is string => Boolean(text),
    );
    let output: ConverseCommandOutput;
    try {
      output = await (this.options.client ?? bedrockRuntimeClient()).send(
        new ConverseCommand({
          modelId: this.options.modelId,
          ...(system.length ? { system: system.map((text) => ({ text })) } : {}),
          messages: [{ role: 'user', content: [{ text: request.prompt }] }],
          inferenceConfig: { maxTokens },
        }),
      );
    } catch (error) {
      throw new TextGenerationError(
        FAILURE_CODES[bedrockFailureOf(error)],
        `Amazon Bedrock did not generate the text with ${this.options.modelId} (${describeBedrockError(error)})`,
        { cause: error },
      );
    }
    if (output.stopReason === 'guardrail_intervened' || output.stopReason === 'content_filtered') {
      throw new TextGenerationError(
        'invalid_input',
        `Amazon Bedrock refused the prompt: its ${output.stopReason === 'content_filtered' ? 'content filter' : 'guardrail'} intervened.`,
      );
    }
    const text = (output.output?.message?.content ?? [])
      .map((block) => ('text' in block && typeof block.text === 'string' ? block.text : ''))
      .join('');
    const truncated = output.stopReason === 'max_tokens';
    const result: TextGenerationResult<T> = {
      engine: this.name,
      model: this.options.modelId,
      text,
      truncated,
      usage: { inputTokens: output.usage?.inputTokens, outputTokens: output.usage?.outputTokens },
    };
    if (!request.json) return result;
    if (truncated) {
      throw new TextGenerationError(
        'text_generation_failed',
        `Text generation failed: the JSON answer was cut at ${maxTokens} tokens; give a larger maxTokens.`,
      );
    }
    return { ...result, json: parseJsonAnswer(text, request.json, this.name) };
  }
}

/** A Bedrock Converse engine for the model. */
export function createBedrockTextGenerationEngine(
  options: BedrockTextGenerationOptions,
): TextGenerationEngine {
  return new BedrockTextGenerationEngine(options);
}
