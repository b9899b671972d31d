/**
 * The translation capability (docs/architecture.md, "Engines"): segments of text (captions, scenes'
 * scripts) from one language to another, in order, one translation per segment, with a glossary.
 * One interface, interchangeable engines chosen by configuration (`TRANSLATION_ENGINE`) and recorded on
 * the job by `name`:
 * - `openai`: an OpenAI-compatible chat completions server, openai-translation-engine.ts;
 * - `translate`: Amazon Translate, the glossary as custom terminology, amazon-translate-engine.ts;
 * - `apertium`: the `apertium` binary when it is installed with the language pair, apertium-engine.ts.
 * No npm package ships translation weights: with nothing configured, every call fails with
 * `engine_unavailable` naming the settings.
 *
 * The glossary is enforced the same way whatever the engine (`enforceGlossary`): a do-not-translate term
 * found in a source segment must appear verbatim in its translation; a forced term's translation must
 * appear where its source term does, and a translation that kept the source term untranslated has it
 * substituted. What still does not hold is reported (`glossaryViolations`), never hidden.
 *
 * Languages are BCP-47 tags (`en`, `pt-BR`); engines use the primary subtag where they need to.
 */
import { JobFailure } from '../../core/errors.js';

export interface GlossaryTerm {
  /** The term as it appears in the source language. */
  source: string;
  /** How it must be translated. */
  target: string;
}

export interface Glossary {
  /** Terms kept verbatim (brand and product names). */
  doNotTranslate?: readonly string[];
  /** Terms translated exactly so. */
  terms?: readonly GlossaryTerm[];
}

export interface TranslationRequest {
  /** The texts, in order; 1 to `MAX_TRANSLATION_SEGMENTS`, each at most `MAX_SEGMENT_LENGTH` characters. */
  segments: readonly string[];
  /** BCP-47 tag of the segments' language. */
  sourceLanguage: string;
  /** BCP-47 tag of the language to translate into. */
  targetLanguage: string;
  glossary?: Glossary;
}

export const GLOSSARY_VIOLATION_KINDS = {
  /** A do-not-translate term of the source is missing from the translation. */
  doNotTranslate: 'do_not_translate',
  /** A forced term's translation is missing from the translation. */
  forcedTerm: 'forced_term',
} as const;
export type GlossaryViolationKind = (typeof GLOSSARY_VIOLATION_KINDS)[keyof typeof GLOSSARY_VIOLATION_KINDS];

export interface GlossaryViolation {
  /** Index of the segment. */
  segment: number;
  kind: GlossaryViolationKind;
  /** The glossary's source term. */
  term: string;
  /** What the translation should have contained. */
  expected: string;
}

export interface TranslationResult {
  /** The engine that translated (`TranslationEngine.name`), for the job's record. */
  engine: string;
  /** One translation per request segment, in the same order. */
  segments: string[];
  /** Where the glossary does not hold, after enforcement; empty when it holds everywhere. */
  glossaryViolations: GlossaryViolation[];
}

export interface TranslationEngine {
  /** Engine name recorded on jobs, e.g. `translate`. */
  readonly name: string;
  translate(request: TranslationRequest): Promise<TranslationResult>;
}

/**
 * Why a translation could not be done; job code copies it to the job's `failure_code`.
 * - `invalid_input`: the request is wrong (no segments, too long, a refused request).
 * - `language_pair_unsupported`: the engine cannot translate between these languages.
 * - `engine_unavailable`: no engine is configured, or it cannot run here or now.
 * - `translation_failed`: the engine ran and failed, or answered with the wrong number of segments.
 */
export const TRANSLATION_FAILURE_CODES = {
  invalidInput: 'invalid_input',
  languagePairUnsupported: 'language_pair_unsupported',
  engineUnavailable: 'engine_unavailable',
  translationFailed: 'translation_failed',
} as const;
export type TranslationFailureCode =
  (typeof TRANSLATION_FAILURE_CODES)[keyof typeof TRANSLATION_FAILURE_CODES];

export class TranslationError extends JobFailure<TranslationFailureCode> {}

export const MAX_TRANSLATION_SEGMENTS = 1000;
/** Amazon Translate's limit per request (10,000 bytes) bounds what every engine takes, so engines agree. */
export const MAX_SEGMENT_LENGTH = 5000;

/** Checks the request the same way for every engine. */
export function validateTranslationRequest(request: TranslationRequest): void {
  if (!Array.isArray(request.segments) || request.segments.length === 0) {
    throw new TranslationError('invalid_input', 'Nothing to translate: give at least one segment.');
  }
  if (request.segments.length > MAX_TRANSLATION_SEGMENTS) {
    throw new TranslationError(
      'invalid_input',
      `${request.segments.length} segments were given; at most ${MAX_TRANSLATION_SEGMENTS} are translated at once.`,
    );
  }
  request.segments.forEach((segment, index) => {
    if (typeof segment !== 'string' || segment.length > MAX_SEGMENT_LENGTH) {
      throw new TranslationError(
        'invalid_input',
        `Segment ${index} must be text of at most ${MAX_SEGMENT_LENGTH} characters.`,
      );
    }
  });
  for (const [field, tag] of [
    ['sourceLanguage', request.sourceLanguage],
    ['targetLanguage', request.targetLanguage],
  ] as const) {
    if (typeof tag !== 'string' || !/^[A-Za-z]{2,8}(-[A-Za-z0-9]{1,8})*$/.test(tag)) {
      throw new TranslationError(
        'invalid_input',
        `${field} must be a BCP-47 language tag such as "en" or "pt-BR".`,
      );
    }
  }
}

/** The primary language subtag, lower case: `pt-BR` → `pt`. */
export const primaryLanguage = (tag: string) => (tag.split('-')[0] ?? tag).toLowerCase();

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Matches the term as a whole word (or words): not inside a longer word. */
function termPattern(term: string): RegExp {
  return new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(term)}(?![\\p{L}\\p{N}])`, 'gu');
}

const containsTerm = (text: string, term: string) => term.length > 0 && termPattern(term).test(text);

/**
 * Holds translations to the glossary (see the module comment): substitutes forced terms left in the
 * source language, and reports every term that is still not as the glossary says.
 */
export function enforceGlossary(
  sources: readonly string[],
  translations: readonly string[],
  glossary: Glossary | undefined,
): { segments: string[]; violations: GlossaryViolation[] } {
  const violations: GlossaryViolation[] = [];
  const segments = translations.map((translation, segment) => {
    const source = sources[segment] ?? '';
    let text = translation;
    for (const { source: term, target } of glossary?.terms ?? []) {
      if (!containsTerm(source, term) || containsTerm(text, target)) continue;
      if (containsTerm(text, term)) text = text.replace(termPattern(term), target);
      else violations.push({ segment, kind: GLOSSARY_VIOLATION_KINDS.forcedTerm, term, expected: target });
    }
    for (const term of glossary?.doNotTranslate ?? []) {
      if (containsTerm(source, term) && !containsTerm(text, term)) {
        violations.push({ segment, kind: GLOSSARY_VIOLATION_KINDS.doNotTranslate, term, expected: term });
      }
    }
    return text;
  });
  return { segments, violations };
}

/** A placeholder no language translates: upper-case letters and digits that read as an unknown name. */
const placeholder = (index: number) => `ZXQG${index}QXZ`;

/**
 * For engines that cannot be told about a glossary (Apertium): each glossary term of the text is replaced
 * by a placeholder the engine passes through as an unknown word, and `restore` puts back the term (a
 * do-not-translate term) or its forced translation. A placeholder the engine lost shows as a violation.
 */
export function maskGlossaryTerms(
  text: string,
  glossary: Glossary | undefined,
): { masked: string; restore: (translated: string) => string } {
  const replacements: string[] = [];
  let masked = text;
  const entries: [string, string][] = [
    ...(glossary?.terms ?? []).map(({ source, target }) => [source, target] as [string, string]),
    ...(glossary?.doNotTranslate ?? []).map((term) => [term, term] as [string, string]),
  ];
  // Longer terms first, so "Acme Cloud" is masked before "Acme".
  entries.sort(([a], [b]) => b.length - a.length);
  for (const [term, replacement] of entries) {
    if (!term || !containsTerm(masked, term)) continue;
    const token = placeholder(replacements.length);
    replacements.push(replacement);
    masked = masked.replace(termPattern(term), token);
  }
  return {
    masked,
    restore: (translated) =>
      replacements.reduce(
        (result, replacement, index) => result.replaceAll(placeholder(index), replacement),
        translated,
      ),
  };
}
