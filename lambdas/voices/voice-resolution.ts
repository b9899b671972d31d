/**
 * The one place a `voice_id` becomes something a speech engine can speak: a stock voice, or a voice
 * the workspace owns (designed or cloned). Video renders (when they start) and text to speech use it.
 */
import { getWorkspace } from '../accounts/workspaces.js';
import { engineVoiceOf, findStockVoice, voiceCatalogEngine } from '../catalog/stock-voices.js';
import { config } from '../core/config.js';
import { JobFailure } from '../core/errors.js';
import { getVoiceRecord, VOICE_STATUS } from './workspace-voices.js';

export const VOICE_RESOLUTION_FAILURE = {
  /** No such voice, in the stock catalog or the workspace. */
  notFound: 'voice_not_found',
  /**
   * The voice exists but cannot speak here: blocked by the workspace's administrator, a failed clone,
   * or no voice on this deployment's engine.
   */
  notUsable: 'voice_not_usable',
  /** A clone still being made. */
  notReady: 'voice_not_ready',
} as const;
export type VoiceResolutionFailure = (typeof VOICE_RESOLUTION_FAILURE)[keyof typeof VOICE_RESOLUTION_FAILURE];

export class VoiceResolutionError extends JobFailure<VoiceResolutionFailure> {}

export interface ResolvedVoice {
  voiceId: string;
  name: string;
  /** BCP-47 tag. */
  language: string;
  type: 'public' | 'private';
  /** Speech engine the settings are for. */
  engine: string;
  engineVoiceId: string;
  /** The voice's own speed multiplier (1 for stock voices); a request's speed multiplies it. */
  speed: number;
  /** The voice's own pitch offset (0 for stock voices); a request's pitch is added. */
  pitch: number;
}

/**
 * The voice `voiceId` of `workspaceId` on speech engine `engineName` (this deployment's by default).
 * @throws VoiceResolutionError naming why it cannot speak
 */
export async function resolveVoice(
  workspaceId: string,
  voiceId: string,
  engineName: string = config().speechEngine,
): Promise<ResolvedVoice> {
  const workspace = await getWorkspace(workspaceId);
  if (workspace?.restrictions?.blocked_voices?.includes(voiceId)) {
    throw new VoiceResolutionError(
      VOICE_RESOLUTION_FAILURE.notUsable,
      `Voice ${voiceId} is blocked for this workspace by its administrator; choose another voice (GET /v3/voices).`,
    );
  }
  const stock = findStockVoice(voiceId);
  if (stock) {
    const engineVoiceId = engineVoiceOf(stock, engineName);
    if (!engineVoiceId) {
      throw new VoiceResolutionError(
        VOICE_RESOLUTION_FAILURE.notUsable,
        `Voice ${voiceId} is not available on this deployment's speech engine (${engineName}); choose another voice.`,
      );
    }
    return {
      voiceId,
      name: stock.name,
      language: stock.language,
      type: 'public',
      engine: engineName,
      engineVoiceId,
      speed: 1,
      pitch: 0,
    };
  }
  const own = await getVoiceRecord(workspaceId, voiceId, true);
  if (!own) {
    throw new VoiceResolutionError(
      VOICE_RESOLUTION_FAILURE.notFound,
      `Voice ${voiceId} does not exist or was deleted; pick a voice from GET /v3/voices.`,
    );
  }
  if (own.status === VOICE_STATUS.processing) {
    throw new VoiceResolutionError(
      VOICE_RESOLUTION_FAILURE.notReady,
      `Voice ${voiceId} is still being cloned; poll GET /v3/voices/${voiceId} until its status is complete.`,
    );
  }
  if (own.status === VOICE_STATUS.failed) {
    throw new VoiceResolutionError(
      VOICE_RESOLUTION_FAILURE.notUsable,
      `Voice ${voiceId} could not be cloned (${own.failure_message ?? 'no reason recorded'}); clone it again or choose another voice.`,
    );
  }
  const catalog = voiceCatalogEngine(engineName);
  const settings = Object.hasOwn(own.engine_voices, catalog) ? own.engine_voices[catalog] : undefined;
  if (!settings) {
    throw new VoiceResolutionError(
      VOICE_RESOLUTION_FAILURE.notUsable,
      `Voice ${voiceId} has no voice on this deployment's speech engine (${engineName}); choose another voice.`,
    );
  }
  return {
    voiceId,
    name: own.name,
    language: own.language,
    type: 'private',
    engine: engineName,
    engineVoiceId: settings.voice_id,
    speed: settings.speed,
    pitch: settings.pitch,
  };
}

/** A request's speed and pitch on top of a voice's own, kept within what every engine takes. */
export function combinedSettings(
  voice: Pick<ResolvedVoice, 'speed' | 'pitch'>,
  request: { speed?: number | undefined; pitch?: number | undefined },
): { speed: number; pitch: number } {
  const speed = Math.min(2, Math.max(0.5, (request.speed ?? 1) * voice.speed));
  const pitch = Math.min(50, Math.max(-50, (request.pitch ?? 0) + voice.pitch));
  return { speed: Math.round(speed * 1000) / 1000, pitch };
}
