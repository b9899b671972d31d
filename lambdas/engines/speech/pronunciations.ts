/**
 * Pronunciations (a brand glossary's `terms`) for every speech engine, the same way: each term found in
 * the text (whole words, ignoring case) is replaced by how it is said before the engine hears it, the
 * way an SSML `<sub alias>` or a lexicon's alias works. One mechanism rather than one per engine
 * (eSpeak dictionaries, Polly lexicons) because a pronunciation written as it sounds is what every
 * engine reads the same way, and because the caller's words must come back unchanged: the engine times
 * the respelled text, and those times are mapped back onto the script (`alignScriptWords`), so word
 * timings and captions show `Nguyen`, never `win`.
 */
import { alignScriptWords } from './script-words.js';
import type { Pronunciation, SpeechEngine, SynthesisRequest } from './speech-engine.js';

/** A text as the engine should hear it, and the way back from its offsets to the script's. */
export interface RespelledText {
  spoken: string;
  /** The script offset of a spoken offset: inside a respelled term, the term's start. */
  scriptOffset(spokenOffset: number): number;
  /** How many terms were respelled. */
  replacements: number;
}

interface Replacement {
  start: number;
  end: number;
  pronunciation: string;
}

const escapeRegExp = (text: string) => text.replace(/[.*+?^${}()|[\]\\]/g, '\\$&');

/** Where `term` stands as whole words in `text`: not inside a longer word, ignoring case. */
function occurrences(text: string, term: string): { start: number; end: number }[] {
  const pattern = new RegExp(`(?<![\\p{L}\\p{N}])${escapeRegExp(term)}(?![\\p{L}\\p{N}])`, 'giu');
  return [...text.matchAll(pattern)].map((match) => ({
    start: match.index,
    end: match.index + match[0].length,
  }));
}

/**
 * The text with every term respelled. Longer terms win over the shorter ones inside them (`Acme Cloud`
 * before `Acme`); a term never replaces text another replacement already took.
 */
export function respell(text: string, pronunciations: readonly Pronunciation[]): RespelledText {
  const byLength = [...pronunciations].sort((a, b) => b.term.length - a.term.length);
  const chosen: Replacement[] = [];
  for (const { term, pronunciation } of byLength) {
    if (term.trim().length === 0) continue;
    for (const found of occurrences(text, term)) {
      if (chosen.some((taken) => found.start < taken.end && taken.start < found.end)) continue;
      chosen.push({ ...found, pronunciation });
    }
  }
  chosen.sort((a, b) => a.start - b.start);

  // Spans of the spoken text and where each came from: copied text maps offset by offset, a
  // pronunciation maps to its term's start.
  const spans: { spokenStart: number; spokenEnd: number; scriptStart: number; copied: boolean }[] = [];
  let spoken = '';
  let cursor = 0;
  for (const replacement of chosen) {
    spans.push({
      spokenStart: spoken.length,
      spokenEnd: spoken.length + replacement.start - cursor,
      scriptStart: cursor,
      copied: true,
    });
    spoken += text.slice(cursor, replacement.start);
    spans.push({
      spokenStart: spoken.length,
      spokenEnd: spoken.length + replacement.pronunciation.length,
      scriptStart: replacement.start,
      copied: false,
    });
    spoken += replacement.pronunciation;
    cursor = replacement.end;
  }
  spans.push({
    spokenStart: spoken.length,
    spokenEnd: spoken.length + text.length - cursor,
    scriptStart: cursor,
    copied: true,
  });
  spoken += text.slice(cursor);

  return {
    spoken,
    replacements: chosen.length,
    scriptOffset(spokenOffset) {
      const span = spans.find((candidate) => spokenOffset < candidate.spokenEnd) ?? spans[spans.length - 1];
      if (!span) return spokenOffset;
      return span.copied ? span.scriptStart + Math.max(0, spokenOffset - span.spokenStart) : span.scriptStart;
    },
  };
}

/**
 * `engine`, saying each request's `pronunciations`: the engine hears the respelled text, and the
 * result's words are the request's own words, timed from what the engine said.
 */
export function withPronunciations(engine: SpeechEngine): SpeechEngine {
  return {
    name: engine.name,
    voices: () => engine.voices(),
    close: () => engine.close(),
    async synthesize(request: SynthesisRequest) {
      const { pronunciations, ...plain } = request;
      if (!pronunciations?.length) return engine.synthesize(plain);
      const respelled = respell(request.text, pronunciations);
      if (respelled.replacements === 0) return engine.synthesize(plain);
      const result = await engine.synthesize({ ...plain, text: respelled.spoken });
      const times = result.words.map((word) => ({
        textOffset: respelled.scriptOffset(word.textOffset),
        startMs: word.startMs,
        endMs: word.endMs,
      }));
      return { ...result, words: alignScriptWords(request.text, times, result.durationMs) };
    },
  };
}
