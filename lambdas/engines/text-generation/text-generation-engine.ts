/**
 * The text generation capability (docs/architecture.md, "Engines"): scripts, plans, clip titles. One
 * interface, interchangeable engines chosen by configuration (`TEXT_GENERATION_ENGINE`) and recorded on
 * the job by `name`:
 * - `local`: a deterministic planner (wink-nlp and its English model, MIT): sentence splitting,
 *   keywords and three extractive tasks (`summarize`, `title`, `script`). It is NOT a language model:
 *   it never follows the prompt's instructions, it only rearranges the prompt's own sentences, and it
 *   says so (`invalid_input`) when asked for anything else; local-planner-engine.ts;
 * - `openai`: an OpenAI-compatible chat completions server, openai-text-generation-engine.ts;
 * - `bedrock`: Amazon Bedrock Runtime `Converse`, bedrock-text-generation-engine.ts.
 * With nothing configured, every call fails with `engine_unavailable` naming the settings.
 *
 * Units: `maxTokens` counts the model's tokens (the local planner takes 3/4 of it as a word budget).
 * With `json`, the answer must be JSON that the zod schema accepts: `result.json` is the parsed value
 * (LLM engines are asked for a JSON object matching the schema's JSON Schema, and their answer checked).
 */
import { z } from 'zod';
import { JobFailure } from '../../core/errors.js';

/** What the local planner can do (LLM engines ignore `task`: they follow `system` and `prompt`). */
export const LOCAL_PLANNER_TASKS = {
  /** The prompt's most central sentences, in their order. */
  summarize: 'summarize',
  /** A short title from the prompt's most central sentence. */
  title: 'title',
  /** The prompt's sentences grouped into scenes of a narration script. */
  script: 'script',
} as const;
export type LocalPlannerTask = (typeof LOCAL_PLANNER_TASKS)[keyof typeof LOCAL_PLANNER_TASKS];

export interface TextGenerationRequest<T = unknown> {
  /** Instructions to the model (LLM engines). */
  system?: string;
  /** The request, or for the local planner the source text it works from. Not empty. */
  prompt: string;
  /** Longest answer, in tokens, 1 to `MAX_GENERATION_TOKENS`. @default 1024 */
  maxTokens?: number;
  /** When given, the answer must be JSON accepted by this schema; it is `result.json`. */
  json?: z.ZodType<T>;
  /** The local planner's task (required by it; LLM engines ignore it). */
  task?: LocalPlannerTask;
}

export interface TextGenerationResult<T = unknown> {
  /** The engine that wrote it (`TextGenerationEngine.name`), for the job's record. */
  engine: string;
  /** The model that wrote it, when there is one. */
  model?: string;
  /** The answer as text (with `json`, the JSON text). */
  text: string;
  /** The parsed answer, when `json` was given. */
  json?: T;
  /** Whether the answer was cut at `maxTokens`. */
  truncated: boolean;
  /** Tokens read and written, when the engine reports them. */
  usage?: { inputTokens?: number; outputTokens?: number };
}

export interface TextGenerationEngine {
  /** Engine name recorded on jobs, e.g. `bedrock`. */
  readonly name: string;
  generate<T = unknown>(request: TextGenerationRequest<T>): Promise<TextGenerationResult<T>>;
}

/**
 * Why text could not be generated; job code copies it to the job's `failure_code`.
 * - `invalid_input`: the request is wrong, or asks the engine for what it cannot do.
 * - `engine_unavailable`: no engine is configured, or it cannot be reached or used now.
 * - `text_generation_failed`: the engine ran and failed, or its answer is not what was asked for.
 */
export const TEXT_GENERATION_FAILURE_CODES = {
  invalidInput: 'invalid_input',
  engineUnavailable: 'engine_unavailable',
  textGenerationFailed: 'text_generation_failed',
} as const;
export type TextGenerationFailureCode =
  (typeof TEXT_GENERATION_FAILURE_CODES)[keyof typeof TEXT_GENERATION_FAILURE_CODES];

export class TextGenerationError extends JobFailure<TextGenerationFailureCode> {}

export const DEFAULT_GENERATION_TOKENS = 1024;
export const MAX_GENERATION_TOKENS = 32_768;
export const MAX_PROMPT_LENGTH = 100_000;

/** Checks the request the same way for every engine; returns the token budget. */
export function validateGenerationRequest(request: TextGenerationRequest<unknown>): number {
  if (typeof request.prompt !== 'string' || request.prompt.trim() === '') {
    throw new TextGenerationError('invalid_input', 'The prompt is empty.');
  }
  if (request.prompt.length + (request.system?.length ?? 0) > MAX_PROMPT_LENGTH) {
    throw new TextGenerationError(
      'invalid_input',
      `The prompt and instructions are longer than ${MAX_PROMPT_LENGTH} characters.`,
    );
  }
  const maxTokens = request.maxTokens ?? DEFAULT_GENERATION_TOKENS;
  if (!Number.isInteger(maxTokens) || maxTokens < 1 || maxTokens > MAX_GENERATION_TOKENS) {
    throw new TextGenerationError(
      'invalid_input',
      `maxTokens must be a whole number from 1 to ${MAX_GENERATION_TOKENS}.`,
    );
  }
  return maxTokens;
}

/** The instruction LLM engines add for a JSON answer: the schema's JSON Schema. */
export function jsonAnswerInstruction(schema: z.ZodType<unknown>): string {
  let described = '';
  try {
    described = JSON.stringify(z.toJSONSchema(schema));
  } catch {
    // A schema JSON Schema cannot express (transforms): the parse afterwards still checks the answer.
  }
  return `Answer with only one JSON object, no prose and no code fence${described ? `, matching this JSON Schema: ${described}` : ''}.`;
}

/** The answer parsed and checked against the schema; anything else is `text_generation_failed`. */
export function parseJsonAnswer<T>(text: string, schema: z.ZodType<T>, engine: string): T {
  const unfenced = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  let value: unknown;
  try {
    value = JSON.parse(unfenced);
  } catch (error) {
    throw new TextGenerationError('text_generation_failed', `The ${engine} engine's answer is not JSON.`, {
      cause: error,
    });
  }
  const parsed = schema.safeParse(value);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new TextGenerationError(
      'text_generation_failed',
      `The ${engine} engine's answer does not match the schema${issue ? ` (${issue.path.join('.') || 'value'}: ${issue.message})` : ''}.`,
    );
  }
  return parsed.data;
}
