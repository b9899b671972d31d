/**
 * Viseme tracks: which mouth shape a presenter shows at each moment of a speech audio. Pure: no engine,
 * no I/O. Every `SynthesisResult` carries one (`visemes`); presenters are drawn from it per frame.
 *
 * Where tracks come from:
 * - eSpeak NG reports a phoneme event (IPA, with its audio position) for every phoneme it speaks:
 *   `visemesFromPhonemes` maps them through `IPA_VISEMES`.
 * - Amazon Polly returns `viseme` speech marks: `visemesFromPollyMarks` maps them through `POLLY_VISEMES`.
 * - Audio nobody here synthesized (uploaded recordings): `visemesFromAudio` opens the mouth with the
 *   loudness of the speech band, so pauses close it.
 * - Words without phonemes (the test double): `visemesFromWords` spreads the shapes of a word's letters
 *   over its span.
 *
 * Every track is normalised (`normalizeVisemeCues`): ordered, non-overlapping, covering exactly
 * `[0, durationMs]` in integer milliseconds, `rest` wherever nothing was said, equal neighbours merged,
 * each cue at least 1 ms long.
 */

/** The mouth shapes a presenter can show. */
export const VISEMES = {
  /** Lips pressed together: m, b, p. Also short silences inside speech (stop closures). */
  closed: 'closed',
  /** Relaxed, lips together or barely apart: nothing is being said. */
  rest: 'rest',
  /** Jaw slightly dropped: most consonants (t, d, n, l, k, g, h, th), neutral vowels (ə, ʌ, ɛ). */
  open_small: 'open_small',
  /** Jaw dropped wide: open vowels (a, ɑ, æ). */
  open_wide: 'open_wide',
  /** Lips rounded and pushed forward: o, u, w, and English sh/ch/j/r. */
  rounded: 'rounded',
  /** Lips spread, teeth close: e, i, and s, z, y. */
  spread: 'spread',
  /** Lower lip under the upper teeth: f, v. */
  lip_teeth: 'lip_teeth',
} as const;

export type Viseme = (typeof VISEMES)[keyof typeof VISEMES];

export interface VisemeCue {
  /** Integer milliseconds from the first sample of the audio. */
  startMs: number;
  endMs: number;
  viseme: Viseme;
}

// ---------------------------------------------------------------------------------------------------
// Normalisation

/**
 * The cues as a track of `[0, durationMs]` (rounded to whole milliseconds): cues are clamped to the
 * audio and rounded; a cue that overlaps the one before it starts where that one ends (the earlier
 * cue wins); gaps become `rest`; equal neighbours merge; empty and non-finite cues are dropped.
 * The result is ordered, gap-free and non-overlapping, each cue at least 1 ms; empty only when the
 * duration is under 1 ms.
 */
export function normalizeVisemeCues(cues: readonly VisemeCue[], durationMs: number): VisemeCue[] {
  const total = Number.isFinite(durationMs) ? Math.max(0, Math.round(durationMs)) : 0;
  if (total === 0) return [];
  const sorted = cues
    .map((cue, index) => ({ cue, index }))
    .filter(({ cue }) => Number.isFinite(cue.startMs) && Number.isFinite(cue.endMs))
    .map(({ cue, index }) => ({
      startMs: Math.min(total, Math.max(0, Math.round(cue.startMs))),
      endMs: Math.min(total, Math.max(0, Math.round(cue.endMs))),
      viseme: cue.viseme,
      index,
    }))
    .sort((a, b) => a.startMs - b.startMs || a.index - b.index);
  const track: VisemeCue[] = [];
  const push = (startMs: number, endMs: number, viseme: Viseme) => {
    if (endMs <= startMs) return;
    const previous = track.at(-1);
    if (previous && previous.viseme === viseme && previous.endMs === startMs) previous.endMs = endMs;
    else track.push({ startMs, endMs, viseme });
  };
  let cursor = 0;
  for (const cue of sorted) {
    const startMs = Math.max(cue.startMs, cursor);
    if (cue.endMs <= startMs) continue;
    push(cursor, startMs, VISEMES.rest);
    push(startMs, cue.endMs, cue.viseme);
    cursor = cue.endMs;
  }
  push(cursor, total, VISEMES.rest);
  return track;
}

/** The shape shown at `timeMs` of a normalised track (`rest` outside it). */
export function visemeAt(track: readonly VisemeCue[], timeMs: number): Viseme {
  let low = 0;
  let high = track.length - 1;
  while (low <= high) {
    const middle = (low + high) >> 1;
    const cue = track[middle] as VisemeCue;
    if (timeMs < cue.startMs) high = middle - 1;
    else if (timeMs >= cue.endMs) low = middle + 1;
    else return cue.viseme;
  }
  return VISEMES.rest;
}

// ---------------------------------------------------------------------------------------------------
// Phonemes (eSpeak NG)

const { closed, rest, open_small, open_wide, rounded, spread, lip_teeth } = VISEMES;

/**
 * IPA symbols (as eSpeak NG reports phonemes with IPA output) and eSpeak's own ASCII phoneme mnemonics
 * (`@`, `3:`, `A:`, `I`, `O:`, `U`, `V`, `S`, `Z`, `T`, `D`, `N`: the upper-case ones never occur in
 * IPA, and the lower-case ones mean the same in both) → the mouth shape they are seen as. Consonants
 * made with the tongue only look like a slightly open jaw; English postalveolars (ʃ ʒ tʃ dʒ) and ɹ are
 * spoken with rounded, protruded lips. Stress, length and other modifier marks are ignored.
 */
export const IPA_VISEMES: Readonly<Record<string, Viseme>> = {
  // Bilabials: lips closed.
  p: closed,
  b: closed,
  m: closed,
  ʙ: closed,
  // Labiodentals: lower lip to upper teeth.
  f: lip_teeth,
  v: lip_teeth,
  ɱ: lip_teeth,
  ʋ: lip_teeth,
  // Rounded vowels and labial approximants.
  o: rounded,
  u: rounded,
  w: rounded,
  ʍ: rounded,
  ɥ: rounded,
  ɔ: rounded,
  ʊ: rounded,
  ɵ: rounded,
  ø: rounded,
  œ: rounded,
  y: rounded,
  ʏ: rounded,
  ɞ: rounded,
  O: rounded,
  U: rounded,
  // Postalveolars and the English r: protruded lips.
  ʃ: rounded,
  ʒ: rounded,
  ɹ: rounded,
  S: rounded,
  Z: rounded,
  // Close and close-mid front vowels, palatal approximant, sibilants: spread lips.
  i: spread,
  ɪ: spread,
  e: spread,
  ɨ: spread,
  ɯ: spread,
  ɘ: spread,
  j: spread,
  s: spread,
  z: spread,
  ɕ: spread,
  ʑ: spread,
  ç: spread,
  I: spread,
  // Open vowels: jaw wide.
  a: open_wide,
  ɑ: open_wide,
  æ: open_wide,
  ɒ: open_wide,
  ɶ: open_wide,
  A: open_wide,
  // Mid and central vowels: jaw slightly open.
  ə: open_small,
  ɐ: open_small,
  ɛ: open_small,
  ɜ: open_small,
  ɚ: open_small,
  ɝ: open_small,
  ʌ: open_small,
  ɤ: open_small,
  '@': open_small,
  '3': open_small,
  E: open_small,
  V: open_small,
  // Tongue consonants: the jaw slightly open, lips neutral.
  t: open_small,
  d: open_small,
  n: open_small,
  l: open_small,
  r: open_small,
  ɾ: open_small,
  ɫ: open_small,
  ɬ: open_small,
  ɮ: open_small,
  ʈ: open_small,
  ɖ: open_small,
  ɳ: open_small,
  ɭ: open_small,
  ɽ: open_small,
  ɲ: open_small,
  ʎ: open_small,
  θ: open_small,
  ð: open_small,
  k: open_small,
  g: open_small,
  ɡ: open_small,
  ŋ: open_small,
  x: open_small,
  ɣ: open_small,
  c: open_small,
  ɟ: open_small,
  q: open_small,
  ɢ: open_small,
  ʁ: open_small,
  χ: open_small,
  ʀ: open_small,
  ħ: open_small,
  ʕ: open_small,
  h: open_small,
  ɦ: open_small,
  ʔ: open_small,
  ʂ: open_small,
  ʐ: open_small,
  T: open_small,
  D: open_small,
  N: open_small,
};

/** A consonant cluster in one phoneme (affricates: tʃ, ts, pf) shows its most visible shape. */
const VISIBILITY: readonly Viseme[] = [closed, lip_teeth, rounded, spread, open_wide, open_small];
const VOWEL_SYMBOLS = new Set([...'aeiouyæɑɒɶəɐɛɜɚɝʌɤɔʊɵøœʏɞɪɨɯɘ@3AEIOUV']);

/**
 * The shapes of one phoneme, in order: one for a consonant (its most visible), one per vowel symbol of
 * a vowel or diphthong (`aɪ` → open_wide, spread); `[]` for a pause (an empty phoneme). A phoneme none
 * of whose symbols is known is still something said: open_small.
 */
export function phonemeVisemes(phoneme: string): Viseme[] {
  const symbols = [...phoneme.normalize('NFD')].filter(
    (symbol) => !/[\p{M}\p{Lm}\p{Sk}ː'ˈˌ,:‿]/u.test(symbol),
  );
  if (symbols.length === 0) return phoneme.trim() === '' ? [] : [open_small];
  const known = symbols.filter((symbol) => IPA_VISEMES[symbol] !== undefined);
  if (known.length === 0) return [open_small];
  const vowels = known.filter((symbol) => VOWEL_SYMBOLS.has(symbol));
  if (vowels.length === 0) {
    const shapes = new Set(known.map((symbol) => IPA_VISEMES[symbol] as Viseme));
    return [VISIBILITY.find((shape) => shapes.has(shape)) ?? open_small];
  }
  const shapes: Viseme[] = [];
  for (const symbol of known) {
    const shape = IPA_VISEMES[symbol] as Viseme;
    if (shapes.at(-1) !== shape) shapes.push(shape);
  }
  return shapes;
}

export interface TimedPhoneme {
  /** IPA or eSpeak mnemonic; empty for a pause. */
  phoneme: string;
  /** When the phoneme starts, in ms from the start of the audio. */
  startMs: number;
}

/**
 * A track from phonemes in time order, each lasting until the next one starts (the last until
 * `durationMs`). A pause is `rest`; a diphthong's span is shared equally by its shapes.
 */
export function visemesFromPhonemes(phonemes: readonly TimedPhoneme[], durationMs: number): VisemeCue[] {
  const ordered = [...phonemes].sort((a, b) => a.startMs - b.startMs);
  const cues: VisemeCue[] = [];
  ordered.forEach((phoneme, index) => {
    const startMs = phoneme.startMs;
    const endMs = ordered[index + 1]?.startMs ?? durationMs;
    const shapes = phonemeVisemes(phoneme.phoneme);
    if (shapes.length === 0) {
      cues.push({ startMs, endMs, viseme: rest });
      return;
    }
    const share = (endMs - startMs) / shapes.length;
    shapes.forEach((viseme, part) => {
      cues.push({ startMs: startMs + part * share, endMs: startMs + (part + 1) * share, viseme });
    });
  });
  return normalizeVisemeCues(cues, durationMs);
}

// ---------------------------------------------------------------------------------------------------
// Amazon Polly

/**
 * Polly's viseme speech-mark codes (its documented viseme table for English) → our shapes:
 * `p` (p b m) closed; `f` (f v) lip_teeth; `u` (u ʊ w), `o` (oʊ), `O` (ɔ ɔɪ), `S` (ʃ ʒ tʃ dʒ) and
 * `r` (ɹ) rounded; `i` (i ɪ j), `e` (eɪ) and `s` (s z) spread; `a` (a æ aɪ aʊ ɑ) open_wide;
 * `@` (ə ɚ ʌ), `E` (ɛ ɝ), `t` (t d n l), `T` (θ ð) and `k` (k g ŋ h) open_small; `sil` rest.
 * An unknown code is something said: open_small.
 */
export const POLLY_VISEMES: Readonly<Record<string, Viseme>> = {
  p: closed,
  f: lip_teeth,
  u: rounded,
  o: rounded,
  O: rounded,
  S: rounded,
  r: rounded,
  i: spread,
  e: spread,
  s: spread,
  a: open_wide,
  '@': open_small,
  E: open_small,
  t: open_small,
  T: open_small,
  k: open_small,
  sil: rest,
};

/** One Polly viseme mark: `time` in ms from the start of its audio, `value` a viseme code. */
export interface PollyVisemeMark {
  time: number;
  value: string;
}

/** Cues (not normalised) from Polly viseme marks; each lasts until the next mark, the last until `endMs`. */
export function pollyVisemeCues(marks: readonly PollyVisemeMark[], endMs: number): VisemeCue[] {
  const ordered = [...marks].sort((a, b) => a.time - b.time);
  return ordered.map((mark, index) => ({
    startMs: mark.time,
    endMs: Math.max(mark.time, ordered[index + 1]?.time ?? endMs),
    viseme: POLLY_VISEMES[mark.value] ?? open_small,
  }));
}

// ---------------------------------------------------------------------------------------------------
// Letters (no phonemes known)

/** Latin letters → shapes, for words whose phonemes nobody reported (see `visemesFromWords`). */
const LETTER_VISEMES: Readonly<Record<string, Viseme>> = {
  m: closed,
  b: closed,
  p: closed,
  f: lip_teeth,
  v: lip_teeth,
  o: rounded,
  u: rounded,
  w: rounded,
  q: rounded,
  e: spread,
  i: spread,
  y: spread,
  s: spread,
  z: spread,
  a: open_wide,
};

/**
 * A track from word timings alone: each word's span shared equally by its letters (digits and other
 * scripts' letters open_small), equal neighbours merged; `rest` between words.
 */
export function visemesFromWords(
  words: readonly { word: string; startMs: number; endMs: number }[],
  durationMs: number,
): VisemeCue[] {
  const cues: VisemeCue[] = [];
  for (const word of words) {
    const letters = [...word.word.normalize('NFD').toLowerCase()].filter((char) =>
      /[\p{L}\p{N}]/u.test(char),
    );
    if (letters.length === 0) {
      cues.push({ startMs: word.startMs, endMs: word.endMs, viseme: open_small });
      continue;
    }
    const share = (word.endMs - word.startMs) / letters.length;
    letters.forEach((letter, index) => {
      cues.push({
        startMs: word.startMs + index * share,
        endMs: word.startMs + (index + 1) * share,
        viseme: LETTER_VISEMES[letter] ?? open_small,
      });
    });
  }
  return normalizeVisemeCues(cues, durationMs);
}

// ---------------------------------------------------------------------------------------------------
// Audio

export interface AudioVisemeOptions {
  /** Frame length (and hop) in ms. @default 20 */
  frameMs?: number;
  /** Speech band, Hz: a 2nd-order high-pass at the low edge, a 2nd-order low-pass at the high edge. @default [300, 3400] */
  bandHz?: readonly [number, number];
  /**
   * The loudness reference is this percentile of the band level (dB) of the frames above
   * `floorDb`: robust to a few clicks and to long pauses. @default 0.9
   */
  referencePercentile?: number;
  /** Frames quieter than this (dB re full scale, band level) are silence whatever the reference. @default -55 */
  floorDb?: number;
  /** A closed mouth opens when its frame is this loud relative to the reference (dB). @default -26 */
  openDb?: number;
  /** An open mouth closes when its frame falls below this (dB, below `openDb`: hysteresis). @default -32 */
  closeDb?: number;
  /** open_small becomes open_wide at this level (dB). @default -7 */
  wideDb?: number;
  /** open_wide falls back to open_small below this (dB, below `wideDb`). @default -11 */
  narrowDb?: number;
  /**
   * A silence at least this long is a pause: `rest`; a shorter one is a closure inside speech:
   * `closed`. @default 250
   */
  pauseMs?: number;
}

const DEFAULT_AUDIO_OPTIONS: Required<AudioVisemeOptions> = {
  frameMs: 20,
  bandHz: [300, 3400],
  referencePercentile: 0.9,
  floorDb: -55,
  openDb: -26,
  closeDb: -32,
  wideDb: -7,
  narrowDb: -11,
  pauseMs: 250,
};

/** A 2nd-order Butterworth section (RBJ cookbook), applied in place. */
function biquad(signal: Float64Array, sampleRate: number, cutoffHz: number, type: 'low' | 'high'): void {
  const w0 = (2 * Math.PI * Math.min(cutoffHz, sampleRate * 0.45)) / sampleRate;
  const alpha = Math.sin(w0) / (2 * Math.SQRT1_2);
  const cos = Math.cos(w0);
  const a0 = 1 + alpha;
  const b1 = type === 'low' ? 1 - cos : -(1 + cos);
  const b0 = type === 'low' ? b1 / 2 : -b1 / 2;
  const [nb0, nb1, nb2, na1, na2] = [b0 / a0, b1 / a0, b0 / a0, (-2 * cos) / a0, (1 - alpha) / a0];
  let x1 = 0;
  let x2 = 0;
  let y1 = 0;
  let y2 = 0;
  for (let i = 0; i < signal.length; i++) {
    const x = signal[i] as number;
    const y = nb0 * x + nb1 * x1 + nb2 * x2 - na1 * y1 - na2 * y2;
    x2 = x1;
    x1 = x;
    y2 = y1;
    y1 = y;
    signal[i] = y;
  }
}

/** Band level (dB re full scale) of each frame. */
export function speechBandLevels(
  samples: Int16Array,
  sampleRate: number,
  options: Pick<AudioVisemeOptions, 'frameMs' | 'bandHz'> = {},
): Float64Array {
  const frameMs = options.frameMs ?? DEFAULT_AUDIO_OPTIONS.frameMs;
  const [lowHz, highHz] = options.bandHz ?? DEFAULT_AUDIO_OPTIONS.bandHz;
  const signal = Float64Array.from(samples, (sample) => sample / 32_768);
  biquad(signal, sampleRate, lowHz, 'high');
  biquad(signal, sampleRate, highHz, 'low');
  const frame = Math.max(1, Math.round((frameMs * sampleRate) / 1000));
  const levels = new Float64Array(Math.ceil(signal.length / frame));
  for (let f = 0; f < levels.length; f++) {
    let sum = 0;
    const end = Math.min(signal.length, (f + 1) * frame);
    for (let i = f * frame; i < end; i++) sum += (signal[i] as number) ** 2;
    levels[f] = 10 * Math.log10(sum / Math.max(1, end - f * frame) + 1e-12);
  }
  return levels;
}

/**
 * A track from the audio alone, for speech we did not synthesize: the speech-band level of each frame
 * relative to a robust loudness reference (a high percentile of the non-silent frames) opens the
 * mouth, with hysteresis so it does not flutter: closed → open_small above `openDb`, back below
 * `closeDb`; open_small → open_wide above `wideDb`, back below `narrowDb`. Silences shorter than
 * `pauseMs` are `closed`, longer ones `rest`. Audio without any frame above `floorDb` is all `rest`.
 */
export function visemesFromAudio(
  samples: Int16Array,
  sampleRate: number,
  options: AudioVisemeOptions = {},
): VisemeCue[] {
  const settings = { ...DEFAULT_AUDIO_OPTIONS, ...options };
  const durationMs = Math.round((samples.length * 1000) / sampleRate);
  const levels = speechBandLevels(samples, sampleRate, settings);
  const frameMs = (Math.max(1, Math.round((settings.frameMs * sampleRate) / 1000)) * 1000) / sampleRate;
  const audible = [...levels].filter((level) => level >= settings.floorDb).sort((a, b) => a - b);
  if (audible.length === 0) return normalizeVisemeCues([], durationMs);
  const percentile = Math.min(1, Math.max(0, settings.referencePercentile));
  const reference = audible[Math.min(audible.length - 1, Math.floor(percentile * audible.length))] as number;

  type Opening = typeof closed | typeof open_small | typeof open_wide;
  const openings: Opening[] = [];
  let state: Opening = closed;
  for (const level of levels) {
    const relative = level - reference;
    const silent = level < settings.floorDb;
    if (state === closed) {
      if (!silent && relative >= settings.openDb)
        state = relative >= settings.wideDb ? open_wide : open_small;
    } else if (silent || relative < settings.closeDb) state = closed;
    else if (state === open_small && relative >= settings.wideDb) state = open_wide;
    else if (state === open_wide && relative < settings.narrowDb) state = open_small;
    openings.push(state);
  }

  const cues: VisemeCue[] = [];
  let runStart = 0;
  for (let f = 1; f <= openings.length; f++) {
    if (f < openings.length && openings[f] === openings[runStart]) continue;
    const startMs = runStart * frameMs;
    const endMs = Math.min(durationMs, f * frameMs);
    const opening = openings[runStart] as Opening;
    const viseme = opening === closed && endMs - startMs >= settings.pauseMs ? rest : opening;
    cues.push({ startMs, endMs: f === openings.length ? durationMs : endMs, viseme });
    runStart = f;
  }
  return normalizeVisemeCues(cues, durationMs);
}
