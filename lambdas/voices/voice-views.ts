/** The API shapes of a voice (`GET /v3/voices`, designs, `GET /v3/voices/{voice_id}`) from stock voices and own ones. */
import type { StockVoice } from '../catalog/stock-voices.js';
import { presignMediaDownload } from '../media/media-store.js';
import type { VoiceRecord } from './workspace-voices.js';

export const VOICE_TYPES = ['public', 'private'] as const;
export type VoiceType = (typeof VOICE_TYPES)[number];

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

/** The view of a voice the workspace owns (lists, designs). Only complete voices are shown this way. */
export async function ownVoiceView(record: VoiceRecord): Promise<VoiceView> {
  return {
    voice_id: record.voice_id,
    name: record.name,
    language: record.language,
    gender: record.gender ?? 'unknown',
    type: 'private',
    support_pause: false,
    support_locale: false,
    ...(record.preview_key
      ? {
          preview_audio_url: await presignMediaDownload(record.preview_key, {
            contentType: 'audio/wav',
            fileName: `${record.voice_id}.wav`,
          }),
        }
      : {}),
  };
}

/** `GET /v3/voices/{voice_id}`: the reference's fields; `status` only for clones. */
export interface VoiceDetailView {
  voice_id: string;
  name: string;
  language: string;
  gender?: string;
  type: VoiceType;
  support_pause: boolean;
  support_locale: boolean;
  support_interactive_avatar: boolean;
  preview_audio_url?: string;
  created_at?: number;
  status?: 'processing' | 'complete' | 'failed';
  failure_message?: string;
  /** Beyond the reference: why a clone failed, as a code (`invalid_audio`, ...). */
  failure_code?: string;
}

export async function stockVoiceDetailView(voice: StockVoice): Promise<VoiceDetailView> {
  return { ...(await stockVoiceView(voice)), support_interactive_avatar: false };
}

export async function ownVoiceDetailView(record: VoiceRecord): Promise<VoiceDetailView> {
  const complete = record.status === 'complete';
  return {
    voice_id: record.voice_id,
    name: record.name,
    language: record.language,
    ...(record.gender ? { gender: record.gender } : {}),
    type: 'private',
    support_pause: false,
    support_locale: false,
    support_interactive_avatar: false,
    ...(complete && record.preview_key
      ? {
          preview_audio_url: await presignMediaDownload(record.preview_key, {
            contentType: 'audio/wav',
            fileName: `${record.voice_id}.wav`,
          }),
        }
      : {}),
    created_at: record.created_at,
    ...(record.kind === 'clone' ? { status: record.status } : {}),
    ...(record.status === 'failed'
      ? {
          failure_message: record.failure_message ?? 'The clone failed.',
          failure_code: record.failure_code ?? 'internal_error',
        }
      : {}),
  };
}
