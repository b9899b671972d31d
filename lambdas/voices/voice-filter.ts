/** Which voices a list asks for: by language (tag, primary language or name), gender and engine. */

export const VOICE_GENDERS = ['male', 'female'] as const;

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
