/**
 * `translate`: Amazon Translate (deployed engine). One TranslateText call per segment (two at a time),
 * in order. The glossary becomes an Amazon Translate custom terminology: a CSV whose header names the
 * source and target languages, one row per forced term (`source,target`) and per do-not-translate term
 * (`term,term`). It is named after a hash of that CSV (`vcs-glossary-<sha256 prefix>`), so the same
 * glossary for the same languages is imported once and reused by every later call (GetTerminology
 * finds it; ImportTerminology only when it does not); the process also remembers the names it has seen.
 * The glossary is enforced afterwards as for every engine (translation-engine.ts): Translate applies a
 * terminology only where its term appears as such.
 *
 * Errors: an unsupported pair → `language_pair_unsupported`; text or terminology Translate refuses →
 * `invalid_input`; throttling, limits, access and credentials → `engine_unavailable`; anything else →
 * `translation_failed`.
 */
import { createHash } from 'node:crypto';
import {
  GetTerminologyCommand,
  ImportTerminologyCommand,
  TranslateClient,
  TranslateTextCommand,
} from '@aws-sdk/client-translate';
import pLimit from 'p-limit';
import { configuredClient } from '../../core/aws-clients.js';
import {
  enforceGlossary,
  type Glossary,
  type TranslationEngine,
  TranslationError,
  type TranslationFailureCode,
  type TranslationRequest,
  type TranslationResult,
  validateTranslationRequest,
} from './translation-engine.js';

export const AMAZON_TRANSLATE_ENGINE = 'translate';
/** Segments translated at the same time. */
const CONCURRENCY = 2;

export interface AmazonTranslateEngineOptions {
  /** @default a configured `TranslateClient`, created on first use */
  client?: TranslateClient;
}

const csvField = (value: string) => (/[",\r\n]/.test(value) ? `"${value.replaceAll('"', '""')}"` : value);

/** The custom terminology of a glossary for a language pair, as Amazon Translate's CSV; undefined when empty. */
export function terminologyCsv(
  glossary: Glossary | undefined,
  source: string,
  target: string,
): string | undefined {
  const rows = [
    ...(glossary?.terms ?? []).map(({ source: term, target: translation }) => [term, translation]),
    ...(glossary?.doNotTranslate ?? []).map((term) => [term, term]),
  ].filter(([term]) => term);
  if (rows.length === 0) return undefined;
  return [[source, target], ...rows]
    .map((row) => row.map((field) => csvField(field as string)).join(','))
    .join('\n');
}

/** The terminology's name: the same glossary and languages always give the same name. */
export function terminologyName(csv: string): string {
  return `vcs-glossary-${createHash('sha256').update(csv).digest('hex').slice(0, 32)}`;
}

const errorName = (error: unknown) => (error as { name?: string }).name ?? '';
const describe = (error: unknown) =>
  error instanceof Error ? `${error.name}: ${error.message}` : String(error);

function codeOf(error: unknown): TranslationFailureCode {
  const name = errorName(error);
  if (name === 'UnsupportedLanguagePairException') return 'language_pair_unsupported';
  if (/TextSizeLimitExceeded|InvalidRequest|InvalidParameterValue|DetectedLanguageLowConfidence/.test(name))
    return 'invalid_input';
  if (
    /Throttl|LimitExceeded|TooManyRequests|ServiceUnavailable|AccessDenied|Credential|ExpiredToken|Unrecognized/i.test(
      name,
    )
  ) {
    return 'engine_unavailable';
  }
  return 'translation_failed';
}

class AmazonTranslateEngine implements TranslationEngine {
  readonly name = AMAZON_TRANSLATE_ENGINE;
  private client: TranslateClient | undefined;
  /** Terminologies known to exist in the account: imported or found by this process. */
  private readonly terminologies = new Set<string>();

  constructor(options: AmazonTranslateEngineOptions = {}) {
    this.client = options.client;
  }

  private translateClient(): TranslateClient {
    this.client ??= configuredClient(new TranslateClient({}));
    return this.client;
  }

  async translate(request: TranslationRequest): Promise<TranslationResult> {
    validateTranslationRequest(request);
    const csv = terminologyCsv(request.glossary, request.sourceLanguage, request.targetLanguage);
    const terminology = csv ? await this.ensureTerminology(csv) : undefined;
    const translated = await pLimit(CONCURRENCY).map(request.segments, (segment) =>
      this.translateSegment(request, segment, terminology),
    );
    const { segments, violations } = enforceGlossary(request.segments, translated, request.glossary);
    return { engine: this.name, segments, glossaryViolations: violations };
  }

  private async translateSegment(
    request: TranslationRequest,
    text: string,
    terminology: string | undefined,
  ): Promise<string> {
    // Translate refuses empty text; an empty segment translates to itself.
    if (text.trim() === '') return text;
    try {
      const answer = await this.translateClient().send(
        new TranslateTextCommand({
          Text: text,
          SourceLanguageCode: request.sourceLanguage,
          TargetLanguageCode: request.targetLanguage,
          ...(terminology ? { TerminologyNames: [terminology] } : {}),
        }),
      );
      return answer.TranslatedText ?? '';
    } catch (error) {
      const code = codeOf(error);
      throw new TranslationError(
        code,
        code === 'language_pair_unsupported'
          ? `Amazon Translate cannot translate from ${request.sourceLanguage} to ${request.targetLanguage} (${describe(error)})`
          : `Amazon Translate did not translate the text (${describe(error)})`,
        { cause: error },
      );
    }
  }

  /** The glossary's terminology, imported unless it already exists. */
  private async ensureTerminology(csv: string): Promise<string> {
    const name = terminologyName(csv);
    if (this.terminologies.has(name)) return name;
    try {
      await this.translateClient().send(new GetTerminologyCommand({ Name: name }));
    } catch (error) {
      if (errorName(error) !== 'ResourceNotFoundException') {
        throw new TranslationError(
          codeOf(error),
          `Amazon Translate could not look up the glossary's terminology (${describe(error)})`,
          {
            cause: error,
          },
        );
      }
      try {
        await this.translateClient().send(
          new ImportTerminologyCommand({
            Name: name,
            MergeStrategy: 'OVERWRITE',
            Description: 'Glossary of the Video Creation Service (named after a hash of its content)',
            TerminologyData: { File: new TextEncoder().encode(csv), Format: 'CSV', Directionality: 'UNI' },
          }),
        );
      } catch (importError) {
        throw new TranslationError(
          codeOf(importError),
          `Amazon Translate refused the glossary as a terminology (${describe(importError)})`,
          {
            cause: importError,
          },
        );
      }
    }
    this.terminologies.add(name);
    return name;
  }
}

/** A new Amazon Translate engine; its client is created on first use. */
export function createAmazonTranslateEngine(options?: AmazonTranslateEngineOptions): TranslationEngine {
  return new AmazonTranslateEngine(options);
}
