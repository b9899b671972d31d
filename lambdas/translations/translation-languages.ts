/**
 * The languages a video can be translated into, in the hosted API's naming (`Spanish (Spain)`,
 * `English (United States)`): what this deployment can really do. A translation is spoken, so a
 * target needs a voice of the deployment's speech engine (the stock voice catalogue per engine); it is
 * written by the translation engine, so with Amazon Translate the target must also be one Translate
 * writes. An OpenAI-compatible server writes any language; with no translation engine every spoken
 * language is listed, since subtitles given with `srt_role: output` need none (a request that does need
 * one fails its item `engine_unavailable`, naming the setting).
 */
import { availableStockVoices, type StockVoice } from '../catalog/stock-voices.js';
import { config, modelEnginesConfig } from '../core/config.js';
import { primaryLanguage } from '../engines/translation/translation-engine.js';

export interface NamedLanguage {
  /** As the API names it: `Spanish (Spain)`. */
  name: string;
  /** BCP-47: `es-ES`. */
  tag: string;
}

/**
 * Languages Amazon Translate writes (its documented target codes, primary subtags and the regional
 * variants it distinguishes).
 */
const AMAZON_TRANSLATE_TARGETS = new Set([
  'af',
  'sq',
  'am',
  'ar',
  'hy',
  'az',
  'bn',
  'bs',
  'bg',
  'ca',
  'zh',
  'zh-tw',
  'hr',
  'cs',
  'da',
  'fa-af',
  'nl',
  'en',
  'et',
  'fa',
  'tl',
  'fi',
  'fr',
  'fr-ca',
  'ka',
  'de',
  'el',
  'gu',
  'ht',
  'ha',
  'he',
  'hi',
  'hu',
  'is',
  'id',
  'ga',
  'it',
  'ja',
  'kn',
  'kk',
  'ko',
  'lv',
  'lt',
  'mk',
  'ms',
  'ml',
  'mt',
  'mr',
  'mn',
  'no',
  'ps',
  'pl',
  'pt',
  'pt-pt',
  'pa',
  'ro',
  'ru',
  'sr',
  'si',
  'sk',
  'sl',
  'so',
  'es',
  'es-mx',
  'sw',
  'sv',
  'ta',
  'te',
  'th',
  'tr',
  'uk',
  'ur',
  'uz',
  'vi',
  'cy',
]);

function translationWrites(tag: string): boolean {
  if (modelEnginesConfig().translation.engine !== 'translate') return true;
  const lower = tag.toLowerCase();
  return AMAZON_TRANSLATE_TARGETS.has(lower) || AMAZON_TRANSLATE_TARGETS.has(primaryLanguage(lower));
}

/** The languages of the deployment's voices, one entry per language, in catalogue order. */
function spokenLanguages(): NamedLanguage[] {
  const seen = new Map<string, NamedLanguage>();
  for (const voice of availableStockVoices(config().speechEngine)) {
    if (!seen.has(voice.languageName))
      seen.set(voice.languageName, { name: voice.languageName, tag: voice.language });
  }
  return [...seen.values()];
}

/** What `GET /v3/video-translations/languages` lists, sorted by name. */
export function targetLanguages(): NamedLanguage[] {
  return spokenLanguages()
    .filter((language) => translationWrites(language.tag))
    .sort((a, b) => a.name.localeCompare(b.name));
}

/** The target `name` names (exactly, ignoring case), when this deployment can translate into it. */
export function findTargetLanguage(name: string): NamedLanguage | undefined {
  const wanted = name.trim().toLowerCase();
  return targetLanguages().find((language) => language.name.toLowerCase() === wanted);
}

/**
 * A source language as a caller may name it: a listed name (`English (United States)`), a plain
 * language name (`English`: its first voice's language), or a BCP-47 tag (`en-US`, `en`).
 */
export function findSourceLanguage(name: string): NamedLanguage | undefined {
  const wanted = name.trim().toLowerCase();
  const voices: readonly StockVoice[] = availableStockVoices(config().speechEngine);
  const byName =
    voices.find((voice) => voice.languageName.toLowerCase() === wanted) ??
    voices.find((voice) => voice.languageName.toLowerCase().split(' (')[0] === wanted) ??
    voices.find((voice) => voice.language.toLowerCase() === wanted) ??
    voices.find((voice) => primaryLanguage(voice.language) === wanted);
  if (byName) return { name: byName.languageName, tag: byName.language };
  // A language the catalogue has no voice of is still a language the words can be in.
  return /^[a-z]{2,3}(-[a-z0-9]{2,8})*$/i.test(name.trim())
    ? { name: name.trim(), tag: name.trim() }
    : undefined;
}

/** The listed language of a tag (`es` → `Spanish (Spain)`), for naming a detected source language. */
export function languageOfTag(tag: string): NamedLanguage {
  const voices = availableStockVoices(config().speechEngine);
  const voice =
    voices.find((candidate) => candidate.language.toLowerCase() === tag.toLowerCase()) ??
    voices.find((candidate) => primaryLanguage(candidate.language) === primaryLanguage(tag));
  return voice ? { name: voice.languageName, tag: voice.language } : { name: tag, tag };
}
