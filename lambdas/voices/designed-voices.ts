/**
 * `POST /v3/voices`: the batch of designed voices a description ranks highest (voice-design.ts),
 * each stored as the workspace's own voice (type `private`) so that it is listed by `GET /v3/voices`
 * and speaks at once in `POST /v3/voices/speech` and `POST /v3/videos`.
 *
 * A designed voice's id names its stock voice and style (`dv-en-us-olivia-warm`), so the same prompt
 * and seed return the same voices, and designing again never duplicates one: a voice the workspace
 * already has is returned as it is. Designed voices take no clone slot; `DELETE /v3/voices/{voice_id}`
 * removes one like any own voice (a later design may bring it back).
 */
import { voiceCatalogEngine } from '../catalog/stock-voices.js';
import { nowSeconds } from '../core/ids.js';
import { logger } from '../core/observability.js';
import { speechEngine } from '../engines/speech/index.js';
import { putMediaObject } from '../media/media-store.js';
import { type DesignQuery, designBatch, styledEngineVoices } from './voice-design.js';
import { voiceMediaKeys } from './voice-media.js';
import { combinedSettings } from './voice-resolution.js';
import { ownVoiceView, type VoiceView } from './voice-views.js';
import {
  putDesignedVoice,
  setVoicePreview,
  VOICE_KINDS,
  VOICE_STATUS,
  type VoiceRecord,
} from './workspace-voices.js';

/**
 * Speaks `text` with a voice's settings on this deployment's engine and stores it as the voice's
 * preview. Returns the key, or null when the engine cannot speak it (the voice is kept, without a
 * preview, and the reason is logged).
 */
export async function storeVoicePreview(record: VoiceRecord, text: string): Promise<string | null> {
  const engine = speechEngine();
  const settings = record.engine_voices[voiceCatalogEngine(engine.name)];
  if (!settings) return null;
  try {
    const preview = await engine.synthesize({
      text,
      voiceId: settings.voice_id,
      ...combinedSettings(settings, {}),
    });
    const key = voiceMediaKeys.preview(record.workspace_id, record.voice_id);
    await putMediaObject(record.workspace_id, key, preview.audio, 'audio/wav');
    return key;
  } catch (error) {
    logger.warn('A voice preview could not be made', {
      voiceId: record.voice_id,
      errorName: (error as Error).name,
      errorMessage: (error as Error).message,
    });
    return null;
  }
}

export interface DesignResult {
  voices: VoiceView[];
  seed: number;
}

export async function designVoices(workspaceId: string, query: DesignQuery): Promise<DesignResult> {
  const seed = query.seed ?? 0;
  const batch = designBatch({ ...query, engine: speechEngine().name });
  const voices = await Promise.all(
    batch.map(async (candidate) => {
      const record: VoiceRecord = {
        voice_id: candidate.voiceId,
        workspace_id: workspaceId,
        kind: VOICE_KINDS.designed,
        name: candidate.name,
        language: candidate.voice.language,
        gender: candidate.voice.gender,
        status: VOICE_STATUS.complete,
        created_at: nowSeconds(),
        base_voice_id: candidate.voice.voiceId,
        engine_voices: styledEngineVoices(candidate.voice, candidate.style.semitones, candidate.style.speed),
        preview_key: null,
        failure_code: null,
        failure_message: null,
        holds_slot: false,
        design_style: candidate.style.id,
      };
      const { voice } = await putDesignedVoice(record);
      if (!voice.preview_key) {
        const previewKey = await storeVoicePreview(voice, candidate.voice.previewText);
        if (previewKey && (await setVoicePreview(workspaceId, voice.voice_id, previewKey))) {
          voice.preview_key = previewKey;
        }
      }
      return ownVoiceView(voice);
    }),
  );
  return { voices, seed };
}
