/**
 * The translation test double (`TRANSLATION_ENGINE=test-double`, tests only: see `TEST_DOUBLE_ENGINE` in
 * core/config.ts). It translates nothing: each segment comes back prefixed with the target language
 * (`[es] Hello`), glossary terms masked and restored as Apertium's are, and the glossary enforced like
 * every engine's. Deterministic, instant, and obviously not a translation.
 */
import { TEST_DOUBLE_ENGINE } from '../../core/config.js';
import {
  enforceGlossary,
  maskGlossaryTerms,
  type TranslationEngine,
  type TranslationRequest,
  type TranslationResult,
  validateTranslationRequest,
} from './translation-engine.js';

class TestDoubleTranslationEngine implements TranslationEngine {
  readonly name = TEST_DOUBLE_ENGINE;

  async translate(request: TranslationRequest): Promise<TranslationResult> {
    validateTranslationRequest(request);
    const translated = request.segments.map((segment) => {
      const { masked, restore } = maskGlossaryTerms(segment, request.glossary);
      return restore(`[${request.targetLanguage}] ${masked}`);
    });
    const { segments, violations } = enforceGlossary(request.segments, translated, request.glossary);
    return { engine: this.name, segments, glossaryViolations: violations };
  }
}

export function createTestDoubleTranslationEngine(): TranslationEngine {
  return new TestDoubleTranslationEngine();
}
