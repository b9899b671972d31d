/**
 * The local planner's language tools: sentences and keywords of English text with wink-nlp and its
 * lite English model (MIT, shipped in the npm package: no download). Deterministic: the same text always
 * gives the same sentences, keywords and ranking (ties go to what comes first). It reads text; it does
 * not understand or write any.
 */

import model from 'wink-eng-lite-web-model';
import winkNLP, { type ItemSentence, type ItemToken, type WinkMethods } from 'wink-nlp';

let nlp: WinkMethods | undefined;

/** The model loads once per process, on first use (about 5 ms, no I/O beyond the package). */
function language(): WinkMethods {
  nlp ??= winkNLP(model);
  return nlp;
}

/** The text's sentences, as written (abbreviations such as "Dr." and "U.S." do not end one). */
export function splitSentences(text: string): string[] {
  return language()
    .readDoc(text)
    .sentences()
    .out()
    .map((sentence) => sentence.trim())
    .filter(Boolean);
}

/** Parts of speech whose words can name what a text is about. */
const CONTENT_POS = new Set(['NOUN', 'PROPN', 'ADJ']);

interface SentenceAnalysis {
  text: string;
  /** Normalized content words of the sentence. */
  terms: string[];
  wordCount: number;
}

function analyse(text: string): SentenceAnalysis[] {
  const nlpInstance = language();
  const its = nlpInstance.its;
  const analyses: SentenceAnalysis[] = [];
  nlpInstance
    .readDoc(text)
    .sentences()
    .each((sentence: ItemSentence) => {
      const terms: string[] = [];
      let wordCount = 0;
      sentence.tokens().each((token: ItemToken) => {
        if (token.out(its.type) !== 'word') return;
        wordCount++;
        if (token.out(its.stopWordFlag) || !CONTENT_POS.has(token.out(its.pos))) return;
        terms.push(token.out(its.normal).replace(/\.$/, ''));
      });
      const written = sentence.out().trim();
      if (written) analyses.push({ text: written, terms, wordCount });
    });
  return analyses;
}

/** The text's most frequent content words (nouns, proper nouns, adjectives), most frequent first. */
export function keywords(text: string, limit = 8): string[] {
  const counts = new Map<string, number>();
  for (const { terms } of analyse(text))
    for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  // Map order is first appearance, and the sort is stable: ties keep it.
  return [...counts]
    .sort(([, a], [, b]) => b - a)
    .slice(0, limit)
    .map(([term]) => term);
}

export interface RankedSentence {
  text: string;
  /** Position in the text. */
  index: number;
  wordCount: number;
  score: number;
}

/**
 * Sentences ranked by how central they are: the frequencies of their content words in the whole
 * text, over the square root of their length (so long sentences do not win by length alone). Most
 * central first; ties in text order.
 */
export function rankSentences(text: string): RankedSentence[] {
  const sentences = analyse(text);
  const frequency = new Map<string, number>();
  for (const { terms } of sentences)
    for (const term of terms) frequency.set(term, (frequency.get(term) ?? 0) + 1);
  return sentences
    .map(({ text: written, terms, wordCount }, index) => ({
      text: written,
      index,
      wordCount,
      score:
        terms.reduce((sum, term) => sum + (frequency.get(term) ?? 0), 0) / Math.sqrt(Math.max(1, wordCount)),
    }))
    .sort((a, b) => b.score - a.score || a.index - b.index);
}

/** Counts words as the planner's budgets do: runs of letters or digits. */
export const countWords = (text: string) =>
  text.match(/[\p{L}\p{N}]+(?:['’.-][\p{L}\p{N}]+)*/gu)?.length ?? 0;

/** The text's content words (nouns, proper nouns, adjectives; no stop words), normalized, in order. */
export function contentTerms(text: string): string[] {
  return analyse(text).flatMap(({ terms }) => terms);
}

/**
 * The text's sentiment, from -1 (negative) to 1 (positive): wink-nlp's lexicon of emotionally
 * loaded words and emoticons, with negation handled ("not good" is negative).
 */
export function sentiment(text: string): number {
  const nlpInstance = language();
  return Number(nlpInstance.readDoc(text).out(nlpInstance.its.sentiment)) || 0;
}
