/**
 * Which recognized words are fillers. Each language has its list of sounds that are never words
 * (`um`, `uh`, `äh`, `euh`…): these are always cut. Words that are also real words (`like`, `you
 * know`) are cut only where they are marked disfluent (`RecognizedWord.disfluent`): by the recognition
 * engine when it says so, else by the pause-and-context rules of disfluency.ts. A request may give its
 * own list (`filler_words`), which replaces the language's.
 *
 * Words are compared lower-cased, without punctuation, with repeated letters collapsed, so `Umm,`,
 * `um` and `UM.` are the same filler, as are `hmm` and `hmmm`.
 */
import type { RecognizedWord } from '../engines/recognition/index.js';
import { primaryLanguage } from '../engines/translation/translation-engine.js';

/** Sounds that are not words, by primary language subtag. */
export const FILLER_WORDS: Readonly<Record<string, readonly string[]>> = {
  en: ['um', 'uh', 'er', 'erm', 'ah', 'hmm', 'uhm', 'mm', 'eh'],
  es: ['eh', 'em', 'ehm', 'mm', 'hmm'],
  fr: ['euh', 'heu', 'hum', 'hmm', 'bah'],
  de: ['äh', 'ähm', 'öh', 'öhm', 'hm', 'hmm'],
  it: ['ehm', 'eh', 'uhm', 'mm'],
  pt: ['hã', 'ãh', 'hum', 'éh', 'ahn'],
  nl: ['eh', 'ehm', 'uh', 'uhm', 'hmm'],
};

/** Words and phrases that are fillers only where the engine says they were disfluent. */
export const DISFLUENT_ONLY: Readonly<Record<string, readonly string[]>> = {
  en: ['like', 'you know', 'i mean'],
};

/** The comparable form of a word: lower case, letters only, repeated letters once (`Umm,` → `um`). */
export function fillerForm(word: string): string {
  return word
    .toLowerCase()
    .normalize('NFC')
    .replace(/[^\p{L}\s]/gu, '')
    .replace(/(\p{L})\1+/gu, '$1')
    .trim();
}

export interface FillerVocabulary {
  /** Always cut (comparable forms). */
  always: ReadonlySet<string>;
  /** Cut where every word of the phrase is marked disfluent (comparable forms, word by word). */
  disfluentPhrases: readonly (readonly string[])[];
}

/** The fillers of a language (a BCP-47 tag; English when unknown), or the request's own list. */
export function fillerVocabulary(
  language: string | null,
  requested: readonly string[] | null,
): FillerVocabulary {
  const primary = language ? primaryLanguage(language) : 'en';
  const always = requested ?? FILLER_WORDS[primary] ?? FILLER_WORDS.en ?? [];
  return {
    always: new Set(always.map(fillerForm).filter(Boolean)),
    disfluentPhrases: (DISFLUENT_ONLY[primary] ?? []).map((phrase) => phrase.split(/\s+/).map(fillerForm)),
  };
}

/** The indexes of the filler words among `words` (in order). */
export function fillerWordIndexes(
  words: readonly Pick<RecognizedWord, 'word' | 'disfluent'>[],
  vocabulary: FillerVocabulary,
): number[] {
  const forms = words.map((word) => fillerForm(word.word));
  const fillers = new Set<number>();
  forms.forEach((form, index) => {
    if (vocabulary.always.has(form)) fillers.add(index);
  });
  for (const phrase of vocabulary.disfluentPhrases) {
    for (let start = 0; start + phrase.length <= words.length; start++) {
      const matches = phrase.every(
        (part, offset) => forms[start + offset] === part && words[start + offset]?.disfluent === true,
      );
      if (matches) for (let offset = 0; offset < phrase.length; offset++) fillers.add(start + offset);
    }
  }
  return [...fillers].sort((a, b) => a - b);
}
