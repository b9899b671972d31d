/**
 * The chat completions protocol (`POST <base>/chat/completions`), shared by the translation and text
 * generation engines: the request body with the client's model, and the first choice's text.
 */
import type { JobFailure } from '../../core/errors.js';
import type { OpenAiCompatibleClient } from './openai-compatible-client.js';

export interface ChatMessage {
  role: 'system' | 'user' | 'assistant';
  content: string;
}

export interface ChatCompletionRequest {
  messages: ChatMessage[];
  max_tokens?: number;
  temperature?: number;
  response_format?: { type: 'json_object' | 'text' };
}

interface ChatCompletionAnswer {
  choices?: { message?: { content?: unknown }; finish_reason?: unknown }[];
  usage?: { prompt_tokens?: unknown; completion_tokens?: unknown };
}

export interface ChatCompletion {
  text: string;
  /** `length` when the answer was cut at `max_tokens`. */
  finishReason: string | undefined;
  inputTokens: number | undefined;
  outputTokens: number | undefined;
}

/** Sends the request with the client's model; an answer without a first choice's text is `malformed`. */
export async function chatCompletion(
  client: OpenAiCompatibleClient,
  request: ChatCompletionRequest,
  malformed: (message: string) => JobFailure,
): Promise<ChatCompletion> {
  const answer = (await client.postJson('/chat/completions', {
    model: client.model,
    ...request,
  })) as ChatCompletionAnswer;
  const choice = answer?.choices?.[0];
  const content = choice?.message?.content;
  if (typeof content !== 'string')
    throw malformed('the server answered without a message (choices[0].message.content)');
  const count = (value: unknown) => (typeof value === 'number' ? value : undefined);
  return {
    text: content,
    finishReason: typeof choice?.finish_reason === 'string' ? choice.finish_reason : undefined,
    inputTokens: count(answer.usage?.prompt_tokens),
    outputTokens: count(answer.usage?.completion_tokens),
  };
}

/** The first choice's text. */
export async function chatCompletionText(
  client: OpenAiCompatibleClient,
  request: ChatCompletionRequest,
  malformed: (message: string) => JobFailure,
): Promise<string> {
  return (await chatCompletion(client, request, malformed)).text;
}
