/**
 * Which `like`, `you know` and `I mean` of recognised English speech are disfluent: discourse markers
 * a speaker drops in while thinking ("it was, like, huge"), not the verb, the preposition or the
 * clause they also are ("I like it", "looks like rain", "you know the answer", "I mean it"). None of
 * the recognition engines configured here marks disfluencies (Whisper and Amazon Transcribe give
 * words and times only), so filler-word removal marks them itself, before it picks its cuts, with
 * rules a reader can check against any transcript:
 *
 * 1. The phrase stands apart on both sides: before it and after it there is a pause of at least
 *    `pauseMs` (the recogniser's word times), a comma or other break the recogniser wrote, a filler
 *    sound (`um`, `uh`), or the start or end of the speech. A marker is said between pauses or
 *    commas; the verb and the preposition run on into their object ("I like it").
 * 2. Its neighbours do not make it a word of the sentence:
 *    - `like` after a word that takes it as a verb or a preposition (`I`, `would`, `looks`, `feel`,
 *      `something`, `just`…) is kept even between pauses, unless the recogniser wrote a comma between
 *      them ("I, like, love it"): a hesitation inside "I… like… it" is not a marker;
 *    - `you know` and `I mean` followed by what they would govern (`what`, `that`, `how`, `the`,
 *      `it`…) are kept, unless the recogniser wrote a comma after them ("you know, it works"): a
 *      pause in "you know… what matters" is more often thinking than a marker.
 *
 * A word the engine already marked (`disfluent` set either way) keeps the engine's judgement. The
 * rules err towards keeping: a marker kept costs a filler left in, a word cut costs the meaning.
 * Only English has such phrases here (`DISFLUENT_ONLY` in filler-words.ts); other languages' words
 * come back as they were.
 */
import type { RecognizedWord } from '../engines/recognition/index.js';
import { primaryLanguage } from '../engines/translation/translation-engine.js';
import { DISFLUENT_ONLY, type FillerVocabulary, fillerForm } from './filler-words.js';

/** A pause at least this long (between the recogniser's word times) sets a phrase apart. */
export const DISFLUENCY_PAUSE_MS = 150;

/** Words after which `like` is a verb ("I like") or a preposition ("looks like", "something like"). */
const LIKE_GOVERNORS: ReadonlySet<string> = new Set([
  ...['i', 'you', 'we', 'they', 'he', 'she', 'it', 'who', 'people', 'dont', 'doesnt', 'didnt'],
  ...['would', 'wouldnt', 'do', 'does', 'did', 'really', 'also', 'still', 'just', 'not', 'to'],
  ...['look', 'looks', 'looked', 'looking', 'sound', 'sounds', 'sounded', 'feel', 'feels', 'felt'],
  ...['seem', 'seems', 'seemed', 'taste', 'tastes', 'smell', 'smells', 'act', 'acts', 'acted'],
  ...['more', 'much', 'something', 'anything', 'nothing', 'things', 'stuff', 'exactly', 'most'],
]);

/** Words after `you know` / `I mean` that make them a clause: "you know what", "I mean it". */
const CLAUSE_CONTINUATIONS: ReadonlySet<string> = new Set([
  ...['what', 'that', 'how', 'why', 'where', 'who', 'when', 'whether', 'if', 'which'],
  ...['the', 'a', 'an', 'this', 'these', 'those', 'it', 'him', 'her', 'them', 'me', 'us', 'to'],
]);

/** A break the recogniser wrote: a comma, dash, ellipsis, or the end of a sentence. */
const BREAK_AFTER = /[,;:.!?…—–-]["'»”)]*$/u;

/** The phrases that may be disfluent in `language` (comparable forms, word by word). */
function phrasesOf(language: string | null): string[][] {
  return (DISFLUENT_ONLY[language ? primaryLanguage(language) : 'en'] ?? []).map((phrase) =>
    phrase.split(/\s+/).map(fillerForm),
  );
}

/** What marked the disfluencies of speech in `language`, for a job's `engines`. */
export function disfluencyRules(language: string | null): string {
  return phrasesOf(language).length > 0
    ? `pause_and_context_rules (like, you know, I mean: set apart by ${DISFLUENCY_PAUSE_MS} ms pauses or commas, not governed by their neighbours)`
    : `none (no disfluent-only phrases for ${language})`;
}

export interface DisfluencyOptions {
  /** @default DISFLUENCY_PAUSE_MS */
  pauseMs?: number;
}

/**
 * `words` with `disfluent: true` on each word of a `like`, `you know` or `I mean` that the rules find
 * disfluent (English, `language` a BCP-47 tag; null is taken as English). Returns new word objects
 * only where one is marked; the order and every other field stay.
 */
export function markDisfluencies(
  words: readonly RecognizedWord[],
  language: string | null,
  fillerSounds: FillerVocabulary['always'],
  options: DisfluencyOptions = {},
): RecognizedWord[] {
  const pauseMs = options.pauseMs ?? DISFLUENCY_PAUSE_MS;
  const phrases = phrasesOf(language);
  const marked = [...words];
  if (phrases.length === 0) return marked;
  const forms = words.map((word) => fillerForm(word.word));
  const isFillerSound = (index: number) => fillerSounds.has(forms[index] ?? '');

  /** Whether the gap between word `left` and the next one breaks the speech. */
  const breaksAfter = (left: number): boolean => {
    const word = words[left];
    const next = words[left + 1];
    if (!word || !next) return true; // the start or the end of the speech
    return next.startMs - word.endMs >= pauseMs || BREAK_AFTER.test(word.word);
  };
  const apartBefore = (start: number) => start === 0 || breaksAfter(start - 1) || isFillerSound(start - 1);
  const apartAfter = (end: number) => breaksAfter(end) || isFillerSound(end + 1);

  for (const phrase of phrases) {
    for (let start = 0; start + phrase.length <= words.length; start++) {
      const end = start + phrase.length - 1;
      if (!phrase.every((part, offset) => forms[start + offset] === part)) continue;
      // The engine's own judgement stands.
      if (words.slice(start, end + 1).some((word) => word.disfluent !== undefined)) continue;
      if (!apartBefore(start) || !apartAfter(end)) continue;
      const previous = forms[start - 1];
      const following = forms[end + 1];
      const isLike = phrase.length === 1;
      const writtenBreakBefore = start > 0 && BREAK_AFTER.test((words[start - 1] as RecognizedWord).word);
      if (isLike && previous !== undefined && LIKE_GOVERNORS.has(previous) && !writtenBreakBefore) continue;
      const writtenBreakAfter = BREAK_AFTER.test((words[end] as RecognizedWord).word);
      if (!isLike && following !== undefined && CLAUSE_CONTINUATIONS.has(following) && !writtenBreakAfter)
        continue;
      for (let index = start; index <= end; index++) {
        marked[index] = { ...(words[index] as RecognizedWord), disfluent: true };
      }
    }
  }
  return marked;
}
