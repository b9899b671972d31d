/**
 * The eSpeak engine's pure parts (no worker, no package): preparing text for eSpeak, turning its
 * events into word timings, and its voice catalog and id scheme.
 */

import type { EspeakEvent, EspeakLanguageVoice, EspeakVariant } from './espeak-protocol.js';
import { alignScriptWords, type EngineWordTime } from './script-words.js';
import type { EngineVoice, WordTiming } from './speech-engine.js';

// ---------------------------------------------------------------------------------------------------
// Text

export interface PreparedText {
  /** What eSpeak reads: SSML is always on in the WASM build, so `&`, `<`, `>` are escaped. */
  text: string;
  /**
   * For each code point of `text`, the UTF-16 offset in the original text it comes from, plus one
   * final entry: the original's length. eSpeak reports 1-based code point positions of `text`.
   */
  originalOffsets: number[];
}

const ENTITIES: Record<string, string> = { '&': '&amp;', '<': '&lt;', '>': '&gt;' };

/** C0 controls other than tab and line breaks, and DEL. */
function isControl(char: string): boolean {
  const code = char.codePointAt(0) ?? 0;
  return (code < 0x20 && char !== '\t' && char !== '\n' && char !== '\r') || code === 0x7f;
}

/**
 * Escapes the markup characters and replaces control characters (NUL ends eSpeak's C string) with
 * spaces, remembering where each character came from.
 */
export function prepareEspeakText(original: string): PreparedText {
  let text = '';
  const originalOffsets: number[] = [];
  let offset = 0;
  for (const char of original) {
    const replacement = ENTITIES[char] ?? (isControl(char) ? ' ' : char);
    text += replacement;
    for (const _ of replacement) originalOffsets.push(offset);
    offset += char.length;
  }
  originalOffsets.push(original.length);
  return { text, originalOffsets };
}

// ---------------------------------------------------------------------------------------------------
// Word timings

/** A phoneme event with an empty or `_` id is a pause: the word before it has ended. */
const isPause = (event: EspeakEvent) =>
  event.id === '' || event.id === undefined || String(event.id).startsWith('_');

/**
 * Word timings from eSpeak's events, one for every word of the original text (script-words.ts).
 *
 * eSpeak's word events are its own boundaries, at the exact sample position in ms, but they are not one
 * per word of the text: it folds short function words into the word before them ("I am" is one event
 * at "I" whose phonemes include "am"; "for the", "in the" likewise) and spells a number or symbol as
 * several words ("2026" is four events). So each event only times the text it points at: it starts at
 * the event and ends at the first pause after its last phoneme, or where the next event starts, or at
 * the end of the audio; `alignScriptWords` then gives every script word its time, sharing an event's
 * span among the words eSpeak spoke under it.
 */
export function espeakWordTimings(
  events: readonly EspeakEvent[],
  original: string,
  prepared: PreparedText,
  durationMs: number,
): WordTiming[] {
  const times: (EngineWordTime & { open: boolean })[] = [];
  const offsets = prepared.originalOffsets;
  const toOriginal = (codePoint: number) =>
    offsets[Math.max(0, Math.min(codePoint, offsets.length - 1))] ?? 0;
  const clamp = (ms: number) => Math.max(0, Math.min(Math.round(ms), durationMs));
  let current: (EngineWordTime & { open: boolean }) | undefined;
  const close = (atMs: number) => {
    if (current?.open) {
      current.endMs = Math.max(current.startMs, clamp(atMs));
      current.open = false;
    }
  };

  for (const event of events) {
    if (event.type === 'word') {
      close(event.audio_position);
      current = {
        textOffset: toOriginal(event.text_position - 1),
        startMs: clamp(event.audio_position),
        endMs: clamp(event.audio_position),
        open: true,
      };
      times.push(current);
    } else if (event.type === 'phoneme') {
      if (!current) continue;
      if (isPause(event)) close(event.audio_position);
      else current.open = true; // more sound of the same word after a pause inside it
    } else if (event.type === 'end') {
      close(event.audio_position);
    }
  }
  close(durationMs);
  return alignScriptWords(original, times, durationMs);
}

// ---------------------------------------------------------------------------------------------------
// Voices

/**
 * The variants offered with every language: eSpeak's four first male and four first female variants.
 * Each changes timbre and pitch; all eSpeak variants are in `voices/!v` of its data.
 */
export const DEFAULT_ESPEAK_VARIANTS = ['m1', 'm2', 'm3', 'm4', 'f1', 'f2', 'f3', 'f4'] as const;

export const ESPEAK_ENGINE_NAME = 'espeak';

/** An engine voice and what eSpeak needs to use it. */
export interface EspeakVoiceEntry {
  voice: EngineVoice;
  /** The argument of `set_voice`: `<identifier>+<variant>`. */
  espeakVoice: string;
}

/** `en-us` → `en-US`, `en-gb-x-rp` → `en-GB-x-rp`, `sr-latn` → `sr-Latn`. */
export function toBcp47(code: string): string {
  const parts = code.split('-');
  let privateUse = false;
  return parts
    .map((part, index) => {
      if (index === 0 || privateUse) return part.toLowerCase();
      if (part.toLowerCase() === 'x') {
        privateUse = true;
        return 'x';
      }
      if (/^[a-z]{2}$/i.test(part)) return part.toUpperCase();
      if (/^[a-z]{4}$/i.test(part)) return part[0]?.toUpperCase() + part.slice(1).toLowerCase();
      return part.toLowerCase();
    })
    .join('-');
}

const slug = (value: string) =>
  value
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, '-')
    .replace(/^-+|-+$/g, '');

/**
 * The voice id scheme: `espeak-<language>-<variant>`, where `<language>` is the eSpeak voice's main
 * language code in lower case (`en-us`, `en-gb-x-rp`, `cmn`) and `<variant>` the variant file (`m1`,
 * `f2`): `espeak-en-us-m1`. When two eSpeak voices share a main language code (Cantonese and Cantonese
 * written as Jyutping), the later one in eSpeak's list uses its identifier's file name instead
 * (`espeak-yue-latn-jyutping-f1`). Ids depend only on the bundled eSpeak data, so they are stable for a
 * given package version.
 */
export function espeakVoiceCatalog(
  languageVoices: readonly EspeakLanguageVoice[],
  variants: readonly EspeakVariant[],
): EspeakVoiceEntry[] {
  const entries: EspeakVoiceEntry[] = [];
  const usedCodes = new Set<string>();
  for (const languageVoice of languageVoices) {
    const language = languageVoice.languages[0]?.name ?? languageVoice.identifier.split('/').pop() ?? '';
    let code = slug(language);
    if (!code || usedCodes.has(code)) code = slug(languageVoice.identifier.split('/').pop() ?? '');
    if (!code || usedCodes.has(code)) continue;
    usedCodes.add(code);
    for (const variant of variants) {
      const numbered = /^[mf](\d+)$/.exec(variant.file);
      const label =
        numbered && variant.gender !== 'unknown'
          ? `${variant.gender === 'male' ? 'Male' : 'Female'} ${numbered[1]}`
          : variant.name;
      entries.push({
        voice: {
          id: `espeak-${code}-${slug(variant.file)}`,
          engine: ESPEAK_ENGINE_NAME,
          name: `${languageVoice.name} · ${label}`,
          language: toBcp47(language),
          languageName: languageVoice.name,
          gender: variant.gender,
        },
        espeakVoice: `${languageVoice.identifier}+${variant.file}`,
      });
    }
  }
  return entries;
}
