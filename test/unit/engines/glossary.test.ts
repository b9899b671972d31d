/**
 * The glossary rules every translation engine shares (translation-engine.ts): terms masked for engines
 * that cannot be told about them come back as the glossary says, forced terms left untranslated are
 * substituted, and whatever still does not hold is reported, never hidden.
 */
import fc from 'fast-check';
import { describe, expect, it } from 'vitest';
import {
  enforceGlossary,
  maskGlossaryTerms,
  validateTranslationRequest,
} from '../../../lambdas/engines/translation/translation-engine.js';

const word = fc.stringMatching(/^[a-z]{2,8}$/);
const term = fc.stringMatching(/^[A-Z][a-z]{2,8}( [A-Z][a-z]{2,8})?$/);

describe('glossary enforcement', () => {
  it('restores every masked term exactly, whatever the text around it', () => {
    fc.assert(
      fc.property(
        fc.array(fc.oneof(word, term), { minLength: 1, maxLength: 12 }),
        fc.uniqueArray(term, { maxLength: 3 }),
        (parts, keep) => {
          const text = parts.join(' ');
          const { masked, restore } = maskGlossaryTerms(text, { doNotTranslate: keep });
          for (const kept of keep)
            expect(new RegExp(`(?<![A-Za-z])${kept}(?![A-Za-z])`).test(masked)).toBe(false);
          expect(restore(masked)).toBe(text);
        },
      ),
    );
  });

  it('reports a do-not-translate term that a translation lost, and a forced term it could not place', () => {
    const { segments, violations } = enforceGlossary(
      ['Acme makes the dashboard.', 'Use the dashboard.', 'Nothing here.'],
      ['Acmé fabrica el tablero.', 'Usa el dashboard.', 'Nada aquí.'],
      { doNotTranslate: ['Acme'], terms: [{ source: 'dashboard', target: 'panel' }] },
    );
    expect(segments).toEqual(['Acmé fabrica el tablero.', 'Usa el panel.', 'Nada aquí.']);
    expect(violations).toEqual([
      { segment: 0, kind: 'forced_term', term: 'dashboard', expected: 'panel' },
      { segment: 0, kind: 'do_not_translate', term: 'Acme', expected: 'Acme' },
    ]);
  });

  it('matches whole words only: a term inside a longer word is not the term', () => {
    const { segments, violations } = enforceGlossary(['Acmes and Acme'], ['Acmes y Acme'], {
      doNotTranslate: ['Acm'],
    });
    expect(segments).toEqual(['Acmes y Acme']);
    expect(violations).toEqual([]);
  });

  it('refuses requests every engine would refuse, with the reason', () => {
    expect(() =>
      validateTranslationRequest({ segments: [], sourceLanguage: 'en', targetLanguage: 'es' }),
    ).toThrow('Nothing to translate: give at least one segment.');
    expect(() =>
      validateTranslationRequest({ segments: ['x'], sourceLanguage: 'english', targetLanguage: 'es!' }),
    ).toThrow('targetLanguage must be a BCP-47 language tag such as "en" or "pt-BR".');
  });
});
