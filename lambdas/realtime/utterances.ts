/**
 * How streamed text becomes utterances: text arrives in deltas (an LLM's tokens), and speech may start
 * as soon as a sentence is complete, long before the whole text is in. A sentence ends at `.`, `!`,
 * `?` or `…` (and their CJK forms) followed by white space, or at a line break; whatever is left when
 * the text is `final` is the last utterance. A full stop needs the space after it, so `3.5` split over
 * two deltas is not cut in two.
 */
const SENTENCE_END = /[.!?…。！？]+["'”’)\]]*\s+|\n+/gu;

/** Splits `buffer` into the complete sentences it holds and the unfinished rest. */
export function takeSentences(buffer: string, final: boolean): { utterances: string[]; rest: string } {
  const utterances: string[] = [];
  let start = 0;
  for (const match of buffer.matchAll(SENTENCE_END)) {
    const end = (match.index ?? 0) + match[0].length;
    const sentence = buffer.slice(start, end).trim();
    if (sentence) utterances.push(sentence);
    start = end;
  }
  const rest = buffer.slice(start);
  if (final) {
    const last = rest.trim();
    if (last) utterances.push(last);
    return { utterances, rest: '' };
  }
  return { utterances, rest };
}
