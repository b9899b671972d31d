import { z } from 'zod';
import { GLOSSARY_LIMITS } from '../../brand/brand-glossaries.js';
import { limitParam, tokenParam, userText } from '../../core/validation.js';
import { dataEnvelope, listEnvelope } from '../pipeline/response-envelopes.js';

export const glossaryIdPath = z.strictObject({ brand_glossary_id: z.string().min(1) });

export const listGlossariesQuery = z.strictObject({ limit: limitParam(100, 10), token: tokenParam });

/** A term, a pronunciation or a translation: words on one line. */
const glossaryText = userText(
  z
    .string()
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(GLOSSARY_LIMITS.text, { error: `must be at most ${GLOSSARY_LIMITS.text} characters` }),
);

const entries = <Entry extends z.ZodType>(entry: Entry) =>
  z
    .array(entry)
    .max(GLOSSARY_LIMITS.entries, { error: `must hold at most ${GLOSSARY_LIMITS.entries} entries` });

const rules = {
  terms: entries(
    z.strictObject({
      term: glossaryText,
      pronunciation: glossaryText.meta({
        description:
          'How the term is said, written as it sounds in the script’s language (`win` for “Nguyen”).',
      }),
    }),
  ).meta({
    description: 'Pronunciations, applied by every speech engine to videos, templates and translations.',
  }),
  do_not_translate_terms: entries(z.strictObject({ term: glossaryText })).meta({
    description: 'Terms kept verbatim by translation.',
  }),
  forced_translations: entries(z.strictObject({ term: glossaryText, translation: glossaryText })).meta({
    description: 'Terms whose translation is inserted verbatim.',
  }),
};

const glossaryName = userText(
  z
    .string()
    .trim()
    .min(1, { error: 'must not be empty' })
    .max(GLOSSARY_LIMITS.name, { error: `must be at most ${GLOSSARY_LIMITS.name} characters` }),
);

export const createGlossaryBody = z.strictObject({
  name: glossaryName,
  terms: rules.terms.optional(),
  do_not_translate_terms: rules.do_not_translate_terms.optional(),
  forced_translations: rules.forced_translations.optional(),
});

/** A given list replaces the stored one, an empty list clears it, an omitted one is kept. */
export const updateGlossaryBody = z.strictObject({
  name: glossaryName.optional(),
  terms: rules.terms.optional(),
  do_not_translate_terms: rules.do_not_translate_terms.optional(),
  forced_translations: rules.forced_translations.optional(),
});

const isoTimestamp = z.iso.datetime().meta({ description: 'ISO 8601 UTC' });

const glossarySummary = z.object({
  brand_glossary_id: z.string(),
  name: z.string(),
  created_at: isoTimestamp,
  updated_at: isoTimestamp,
});

export const glossaryResponse = glossarySummary.extend({
  terms: z.array(z.object({ term: z.string(), pronunciation: z.string() })),
  do_not_translate_terms: z.array(z.object({ term: z.string() })),
  forced_translations: z.array(z.object({ term: z.string(), translation: z.string() })),
});

export const glossaryBody = dataEnvelope(glossaryResponse);
export const glossaryListBody = listEnvelope(glossarySummary);
export const glossaryDeletedBody = dataEnvelope(z.object({ brand_glossary_id: z.string() }));
