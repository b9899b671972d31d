/**
 * Which parts of a video make clips, pure: the transcript's words are grouped into sentences, topic
 * boundaries are found between them, every run of whole sentences whose length fits a requested
 * duration is a candidate, each candidate is scored, and the best ones that do not overlap are kept.
 *
 * The score (0 to 100, the API's `virality_score`) is a weighted sum of features that each say
 * something a viewer of a short notices, each from 0 to 1:
 * - `hook` (0.25): the first sentence is what decides whether a viewer stays. Questions, direct
 *   address and hook phrases ("you", "why", "imagine", "here's"), numbers and brevity score high.
 * - `relevance` (0.20): density and coverage of the `prompt`'s keywords in the clip's content words;
 *   without a prompt, of the whole video's main keywords (a clip about what the video is about).
 * - `pace` (0.15): speech rate near conversational broadcast pace (2.3 to 3.3 words a second), less
 *   dead air.
 * - `energy` (0.15): how loud the clip's speech is against the whole video's (a speaker who gets
 *   animated gets louder).
 * - `completeness` (0.15): the clip starts and ends on topic boundaries (it can be understood alone)
 *   rather than crossing them.
 * - `sentiment` (0.10): the strength of the feeling in the words, either way (wink-nlp's lexicon).
 * When a text engine judges the candidates (a language model), its 0-100 judgement is averaged with
 * this score half and half.
 *
 * Clip bounds lie between words: a clip starts before its first word and after the word before it,
 * and ends after its last word and before the next one (half the silence each way, at most 200 ms
 * before and 400 ms after), so no word is cut and neighbouring clips never share a moment.
 */
import { contentTerms, sentiment } from '../engines/text-generation/local-planner.js';

export const DURATION_TYPES = ['30', '60', '180', 'long'] as const;
export type DurationType = (typeof DURATION_TYPES)[number];

/**
 * How long a clip of each requested duration may be. `30`: a short with one point, at least 5 s;
 * `60` and `180` up to their seconds; `long`: the hosted API's "more than 180 s", at most 10 minutes.
 */
export const DURATION_RANGES: Readonly<Record<DurationType, { minMs: number; maxMs: number }>> = {
  '30': { minMs: 5_000, maxMs: 30_000 },
  '60': { minMs: 30_000, maxMs: 60_000 },
  '180': { minMs: 60_000, maxMs: 180_000 },
  long: { minMs: 180_000, maxMs: 600_000 },
};

/** Most clips of one requested duration. */
export const MAX_CLIPS_PER_DURATION = 3;

export const FEATURE_WEIGHTS = {
  hook: 0.25,
  relevance: 0.2,
  pace: 0.15,
  energy: 0.15,
  completeness: 0.15,
  sentiment: 0.1,
} as const;
export type ClipFeatures = { [Name in keyof typeof FEATURE_WEIGHTS]: number };

export interface PlannerWord {
  /** As written, punctuation included: a sentence ends at a word ending in `.`, `!`, `?` or `…`. */
  word: string;
  startMs: number;
  endMs: number;
}

export interface Sentence {
  text: string;
  /** Indices of its first and last word. */
  first: number;
  last: number;
  startMs: number;
  endMs: number;
}

export interface PlanInput {
  words: readonly PlannerWord[];
  /** The source's length; no clip ends after it. */
  sourceMs: number;
  durationTypes: readonly DurationType[];
  /** The caller's editorial guidance, if any. */
  prompt?: string | null;
  /** Loudness (dBFS) of the speech of each sentence, when the source has audio. */
  sentenceLoudnessDb?: readonly number[];
}

export interface ClipCandidate {
  durationType: DurationType;
  /** Sentence indices. */
  firstSentence: number;
  lastSentence: number;
  startMs: number;
  endMs: number;
  text: string;
  features: ClipFeatures;
  /** 0 to 100. */
  score: number;
}

const SENTENCE_END = /[.!?…。！？]["'”’)\]]*$/u;
/** A silence this long between two words ends a sentence even without punctuation (recognizers omit it). */
const SENTENCE_PAUSE_MS = 1200;
const MAX_LEAD_MS = 200;
const MAX_TAIL_MS = 400;

export function sentencesOf(words: readonly PlannerWord[]): Sentence[] {
  const sentences: Sentence[] = [];
  let first = 0;
  words.forEach((word, index) => {
    const next = words[index + 1];
    const ends =
      !next || SENTENCE_END.test(word.word.trim()) || next.startMs - word.endMs >= SENTENCE_PAUSE_MS;
    if (!ends) return;
    const run = words.slice(first, index + 1);
    sentences.push({
      text: run.map((item) => item.word.trim()).join(' '),
      first,
      last: index,
      startMs: (words[first] as PlannerWord).startMs,
      endMs: word.endMs,
    });
    first = index + 1;
  });
  return sentences;
}

/** Bag-of-words cosine similarity of two term lists. */
function cosine(a: readonly string[], b: readonly string[]): number {
  const count = (terms: readonly string[]) => {
    const map = new Map<string, number>();
    for (const term of terms) map.set(term, (map.get(term) ?? 0) + 1);
    return map;
  };
  const [x, y] = [count(a), count(b)];
  let dot = 0;
  for (const [term, value] of x) dot += value * (y.get(term) ?? 0);
  const norm = (map: Map<string, number>) => Math.sqrt([...map.values()].reduce((sum, v) => sum + v * v, 0));
  const denominator = norm(x) * norm(y);
  return denominator === 0 ? 0 : dot / denominator;
}

/**
 * Topic boundaries, TextTiling-like: gap `i` (before sentence `i`) is a boundary when the words of the
 * two sentences before it and the two after it have little in common (a local minimum of their
 * similarity, below the mean by half a standard deviation), or when the speaker pauses for long.
 * Returns the set of sentence indices that start a topic (0 always does).
 */
export function topicStarts(sentences: readonly Sentence[], terms: readonly string[][]): Set<number> {
  const starts = new Set<number>([0]);
  const window = 2;
  const similarity: number[] = [];
  for (let gap = 1; gap < sentences.length; gap++) {
    const before = terms.slice(Math.max(0, gap - window), gap).flat();
    const after = terms.slice(gap, gap + window).flat();
    similarity.push(cosine(before, after));
  }
  if (similarity.length === 0) return starts;
  const mean = similarity.reduce((sum, value) => sum + value, 0) / similarity.length;
  const deviation = Math.sqrt(
    similarity.reduce((sum, value) => sum + (value - mean) ** 2, 0) / similarity.length,
  );
  similarity.forEach((value, index) => {
    const gap = index + 1;
    const localMinimum = value <= (similarity[index - 1] ?? 1) && value <= (similarity[index + 1] ?? 1);
    const pause = (sentences[gap] as Sentence).startMs - (sentences[gap - 1] as Sentence).endMs;
    if ((localMinimum && value < mean - deviation / 2) || pause >= 2 * SENTENCE_PAUSE_MS) starts.add(gap);
  });
  return starts;
}

const HOOK_OPENERS =
  /^(you|your|why|how|what|imagine|here's|here is|this is|stop|never|nobody|everyone|the secret|the truth|did you|have you|do you|what if|listen|look)\b/i;

/** How strongly a first sentence makes a viewer stay, 0 to 1. */
export function hookStrength(sentence: string): number {
  const text = sentence.trim();
  const wordCount = text.split(/\s+/).filter(Boolean).length;
  let score = 0;
  if (/\?["'”’)\]]*$/.test(text)) score += 0.35;
  if (HOOK_OPENERS.test(text)) score += 0.3;
  else if (/\b(you|your)\b/i.test(text)) score += 0.15;
  if (/\d/.test(text)) score += 0.15;
  if (/!["'”’)\]]*$/.test(text)) score += 0.1;
  score += wordCount <= 12 ? 0.2 : wordCount <= 20 ? 0.1 : 0;
  return Math.min(1, score);
}

/** Speech rate near 2.3 to 3.3 words a second scores 1, falling to 0 at 1 and 5; less dead air. */
export function paceScore(wordCount: number, speechMs: number, spanMs: number): number {
  if (spanMs <= 0 || wordCount === 0) return 0;
  const rate = wordCount / (Math.max(1, speechMs) / 1000);
  const rateScore =
    rate < 2.3 ? Math.max(0, (rate - 1) / 1.3) : rate > 3.3 ? Math.max(0, (5 - rate) / 1.7) : 1;
  const silence = 1 - Math.min(1, speechMs / spanMs);
  return clamp01(rateScore * (1 - Math.max(0, silence - 0.15)));
}

/** Density and coverage of the focus keywords among a clip's content words. */
export function relevanceScore(clipTerms: readonly string[], focus: ReadonlySet<string>): number {
  if (focus.size === 0 || clipTerms.length === 0) return 0;
  const hits = clipTerms.filter((term) => focus.has(term));
  const density = Math.min(1, (3 * hits.length) / clipTerms.length);
  const coverage = new Set(hits).size / focus.size;
  return clamp01(0.5 * density + 0.5 * coverage);
}

const clamp01 = (value: number) => (Number.isFinite(value) ? Math.min(1, Math.max(0, value)) : 0);

/** The weighted score, 0 to 100, of a candidate's features and, when given, a judge's 0-100 score. */
export function scoreOf(features: ClipFeatures, judgement?: number): number {
  const weighted = (Object.keys(FEATURE_WEIGHTS) as (keyof ClipFeatures)[]).reduce(
    (sum, name) => sum + FEATURE_WEIGHTS[name] * clamp01(features[name]),
    0,
  );
  const featureScore = 100 * weighted;
  const blended =
    judgement === undefined ? featureScore : 0.5 * featureScore + 0.5 * Math.min(100, Math.max(0, judgement));
  return Math.round(blended);
}

/** The most frequent content words of a text. */
function topTerms(terms: readonly string[], limit: number): string[] {
  const counts = new Map<string, number>();
  for (const term of terms) counts.set(term, (counts.get(term) ?? 0) + 1);
  return [...counts]
    .sort(([, a], [, b]) => b - a)
    .slice(0, limit)
    .map(([term]) => term);
}

/** Every candidate of every requested duration, scored, best first (ties: earlier, then shorter). */
export function candidateClips(input: PlanInput): ClipCandidate[] {
  const { words } = input;
  const sentences = sentencesOf(words);
  if (sentences.length === 0) return [];
  const terms = sentences.map((sentence) => contentTerms(sentence.text));
  const feelings = sentences.map((sentence) => sentiment(sentence.text));
  const starts = topicStarts(sentences, terms);
  const promptTerms = input.prompt ? contentTerms(input.prompt) : [];
  const focus = new Set(promptTerms.length > 0 ? promptTerms : topTerms(terms.flat(), 8));
  const loudness = input.sentenceLoudnessDb;
  const speechWeighted = (from: number, to: number) => {
    let sum = 0;
    let ms = 0;
    for (let index = from; index <= to; index++) {
      const sentence = sentences[index] as Sentence;
      const length = Math.max(1, sentence.endMs - sentence.startMs);
      sum += (loudness?.[index] ?? 0) * length;
      ms += length;
    }
    return sum / ms;
  };
  const sourceDb = loudness && loudness.length > 0 ? speechWeighted(0, sentences.length - 1) : 0;

  const boundsOf = (first: Sentence, last: Sentence) => {
    const previous = words[first.first - 1];
    const next = words[last.last + 1];
    const lead = Math.min(MAX_LEAD_MS, previous ? (first.startMs - previous.endMs) / 2 : first.startMs);
    const tail = Math.min(MAX_TAIL_MS, next ? (next.startMs - last.endMs) / 2 : input.sourceMs - last.endMs);
    return {
      startMs: Math.max(0, Math.round(first.startMs - Math.max(0, lead))),
      endMs: Math.min(input.sourceMs, Math.round(last.endMs + Math.max(0, tail))),
    };
  };

  const candidates: ClipCandidate[] = [];
  for (const durationType of input.durationTypes) {
    const range = DURATION_RANGES[durationType];
    for (let from = 0; from < sentences.length; from++) {
      for (let to = from; to < sentences.length; to++) {
        const bounds = boundsOf(sentences[from] as Sentence, sentences[to] as Sentence);
        const spanMs = bounds.endMs - bounds.startMs;
        if (spanMs > range.maxMs) break;
        if (spanMs < range.minMs) continue;
        const clipSentences = sentences.slice(from, to + 1);
        const clipWords = words.slice(
          (sentences[from] as Sentence).first,
          (sentences[to] as Sentence).last + 1,
        );
        const speechMs = clipWords.reduce((sum, word) => sum + Math.max(0, word.endMs - word.startMs), 0);
        let crossed = 0;
        for (let index = from + 1; index <= to; index++) if (starts.has(index)) crossed++;
        const endsTopic = to === sentences.length - 1 || starts.has(to + 1);
        const features: ClipFeatures = {
          hook: hookStrength((sentences[from] as Sentence).text),
          relevance: relevanceScore(terms.slice(from, to + 1).flat(), focus),
          pace: paceScore(clipWords.length, speechMs, spanMs),
          energy:
            loudness && loudness.length > 0 ? clamp01(0.5 + (speechWeighted(from, to) - sourceDb) / 12) : 0.5,
          completeness: clamp01((starts.has(from) ? 0.5 : 0) + (endsTopic ? 0.5 : 0) - 0.25 * crossed),
          sentiment: clamp01(
            1.5 *
              Math.abs(
                feelings.slice(from, to + 1).reduce((sum, value) => sum + value, 0) / clipSentences.length,
              ),
          ),
        };
        candidates.push({
          durationType,
          firstSentence: from,
          lastSentence: to,
          ...bounds,
          text: clipSentences.map((sentence) => sentence.text).join(' '),
          features,
          score: scoreOf(features),
        });
      }
    }
  }
  return candidates.sort(byRank);
}

function byRank(a: ClipCandidate, b: ClipCandidate): number {
  return b.score - a.score || a.startMs - b.startMs || a.endMs - b.endMs;
}

/**
 * The clips to make: per requested duration, the best candidates that do not overlap each other, at
 * most `MAX_CLIPS_PER_DURATION`; all of them best first.
 */
export function selectClips(candidates: readonly ClipCandidate[]): ClipCandidate[] {
  const chosen: ClipCandidate[] = [];
  for (const candidate of [...candidates].sort(byRank)) {
    const same = chosen.filter((clip) => clip.durationType === candidate.durationType);
    if (same.length >= MAX_CLIPS_PER_DURATION) continue;
    if (same.some((clip) => clip.startMs < candidate.endMs && candidate.startMs < clip.endMs)) continue;
    chosen.push(candidate);
  }
  return chosen.sort(byRank);
}

/** A candidate re-scored with a judge's 0-100 opinion of it. */
export function withJudgement(candidate: ClipCandidate, judgement: number): ClipCandidate {
  return { ...candidate, score: scoreOf(candidate.features, judgement) };
}
