/**
 * `openai`: translation by an OpenAI-compatible chat completions server (`POST <base>/chat/completions`).
 * One request per call: the system message says the languages, the glossary and the answer's shape (a
 * JSON object `{"segments": [...]}` with exactly one string per input segment, in order); the user
 * message is the segments as JSON; `response_format: {"type": "json_object"}` and temperature 0. The
 * answer is checked (a JSON object, the same number of strings) and the glossary enforced afterwards
 * (translation-engine.ts), because a model may not follow it.
 */
import type { ModelServerConfig } from '../../core/config.js';
import { chatCompletionText } from '../openai-compatible/chat-completions.js';
import {
  type ModelServerFailure,
  modelServerClient,
  type OpenAiCompatibleClient,
} from '../openai-compatible/index.js';
import {
  enforceGlossary,
  type TranslationEngine,
  TranslationError,
  type TranslationFailureCode,
  type TranslationRequest,
  type TranslationResult,
  validateTranslationRequest,
} from './translation-engine.js';

export const OPENAI_TRANSLATION_ENGINE = 'openai';

const FAILURE_CODES: Readonly<Record<ModelServerFailure, TranslationFailureCode>> = {
  unavailable: 'engine_unavailable',
  invalid_input: 'invalid_input',
  failed: 'translation_failed',
};

/** The system message: languages, glossary, and the exact shape of the answer. */
export function translationInstructions(request: TranslationRequest): string {
  const lines = [
    `You are a translation engine. Translate each segment from ${request.sourceLanguage} to ${request.targetLanguage}.`,
    `The user message is a JSON object {"segments": [...]} with ${request.segments.length} segment(s).`,
    `Answer with only a JSON object {"segments": [...]} holding exactly ${request.segments.length} string(s): the translations, in the same order, one per segment. Do not merge, split, skip or explain segments.`,
  ];
  const keep = request.glossary?.doNotTranslate ?? [];
  if (keep.length)
    lines.push(
      `Keep these terms exactly as written, untranslated: ${keep.map((term) => JSON.stringify(term)).join(', ')}.`,
    );
  const terms = request.glossary?.terms ?? [];
  if (terms.length) {
    lines.push(
      `Always translate these terms exactly so: ${terms.map(({ source, target }) => `${JSON.stringify(source)} → ${JSON.stringify(target)}`).join('; ')}.`,
    );
  }
  return lines.join('\n');
}

class OpenAiTranslationEngine implements TranslationEngine {
  readonly name = OPENAI_TRANSLATION_ENGINE;
  private readonly client: OpenAiCompatibleClient;

  constructor(server: ModelServerConfig) {
    this.client = modelServerClient(server, {
      capability: 'Translation',
      prefix: 'TRANSLATION',
      failure: (kind, message, cause) => new TranslationError(FAILURE_CODES[kind], message, { cause }),
    });
  }

  async translate(request: TranslationRequest): Promise<TranslationResult> {
    validateTranslationRequest(request);
    const text = await chatCompletionText(
      this.client,
      {
        messages: [
          { role: 'system', content: translationInstructions(request) },
          { role: 'user', content: JSON.stringify({ segments: request.segments }) },
        ],
        temperature: 0,
        response_format: { type: 'json_object' },
      },
      (message) => new TranslationError('translation_failed', `Translation failed: ${message}`),
    );
    const translated = parseSegments(text);
    if (!translated) {
      throw new TranslationError(
        'translation_failed',
        'Translation failed: the model did not answer with a JSON object {"segments": [strings]}.',
      );
    }
    if (translated.length !== request.segments.length) {
      throw new TranslationError(
        'translation_failed',
        `Translation failed: the model returned ${translated.length} segment(s) for ${request.segments.length}; segments cannot be matched to their translations.`,
      );
    }
    const { segments, violations } = enforceGlossary(request.segments, translated, request.glossary);
    return { engine: this.name, segments, glossaryViolations: violations };
  }
}

/** The answer's segments, or undefined when it is not `{"segments": [strings]}` (a fenced code block is accepted). */
export function parseSegments(text: string): string[] | undefined {
  const unfenced = text
    .trim()
    .replace(/^```(?:json)?\s*/i, '')
    .replace(/\s*```$/, '');
  try {
    const parsed = JSON.parse(unfenced) as { segments?: unknown };
    const segments = Array.isArray(parsed) ? parsed : parsed.segments;
    return Array.isArray(segments) && segments.every((segment) => typeof segment === 'string')
      ? (segments as string[])
      : undefined;
  } catch {
    return undefined;
  }
}

/** A translation engine for the configured OpenAI-compatible server. */
export function createOpenAiTranslationEngine(server: ModelServerConfig): TranslationEngine {
  return new OpenAiTranslationEngine(server);
}
