/** The API shape of a voice (`GET /v3/voices`, designed voices) and how stock voices become it. */
import type { StockVoice } from '../catalog/stock-voices.js';
import { presignMediaDownload } from '../media/media-store.js';

export const VOICE_TYPES = ['public', 'private'] as const;
export type VoiceType = (typeof VOICE_TYPES)[number];

export const VOICE_GENDERS = ['male', 'female'] as const;

export interface VoiceView {
  voice_id: string;
  name: string;
  /** BCP-47 tag, e.g. `en-US`. */
  language: string;
  gender: string;
  type: VoiceType;
  /** Whether the voice honours pauses written into a script. */
  support_pause: boolean;
  /** Whether `voice_settings.locale` can change the voice's accent. */
  support_locale: boolean;
  preview_audio_url?: string;
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

export async function stockVoiceView(voice: StockVoice): Promise<VoiceView> {
  return {
    voice_id: voice.voiceId,
    name: voice.name,
    language: voice.language,
    gender: voice.gender,
    type: 'public',
    // Scripts are spoken as plain text today (no pause markup), and each stock voice has one accent.
    support_pause: false,
    support_locale: false,
    preview_audio_url: await presignMediaDownload(voice.previewKey, {
      contentType: 'audio/wav',
      fileName: `${voice.voiceId}.wav`,
    }),
  };
}
