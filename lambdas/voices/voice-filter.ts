/** Which voices a list asks for: by language (tag, primary language or name), gender and engine. */
import { SPEECH_ENGINE_NAMES } from '../core/config.js';

export const VOICE_GENDERS = ['male', 'female'] as const;

/**
 * Engine names of the hosted provider that its clients send to `GET /v3/voices?engine=`: `starfish`
 * (its own speech engine, "the voices the TTS endpoint speaks"), `elevenlabs` and `fish` (third-party
 * engines). This deployment speaks every voice with its one speech engine, so each of them means
 * "the voices this deployment's engine speaks" rather than an empty list or a 400.
 */
export const HOSTED_VOICE_ENGINES = ['starfish', 'elevenlabs', 'fish'] as const;

/** What `engine` of the voice list accepts: this project's engine names, then the hosted provider's. */
export const VOICE_LIST_ENGINES = [...SPEECH_ENGINE_NAMES, ...HOSTED_VOICE_ENGINES] as const;
export type VoiceListEngine = (typeof VOICE_LIST_ENGINES)[number];

/**
 * The speech engine whose voices an `engine` filter keeps: one of ours as named, a hosted provider's
 * name as the deployment's engine.
 */
export function speechEngineFor(engine: VoiceListEngine, deploymentEngine: string): string {
  return (HOSTED_VOICE_ENGINES as readonly string[]).includes(engine) ? deploymentEngine : engine;
}

export interface VoiceFilter {
  /** A BCP-47 tag (`en-US`), a primary language (`en`) or an English language name (`English`). */
  language?: string | undefined;
  gender?: (typeof VOICE_GENDERS)[number] | undefined;
  /** Only voices that this speech engine can speak. */
  engine?: string | undefined;
}

/**
 * Whether a voice of `language` (`en-US`, named `English (United States)`) passes the filter:
 * the tag itself, its primary language, or the language's name, in any case.
 */
export function languageMatches(filter: string, language: string, languageName: string): boolean {
  const wanted = filter.trim().toLowerCase();
  const tag = language.toLowerCase();
  const name = languageName.toLowerCase();
  return wanted === tag || tag.startsWith(`${wanted}-`) || wanted === name || name.startsWith(`${wanted} (`);
}
