/**
 * Voices as the API sees them: the list (the workspace's own `private` voices, newest first, then the
 * stock `public` voices this deployment's speech engine speaks), one voice, and deleting one.
 */
import { arraySource, type Page, type PageSource, pageAcrossSources } from '../catalog/catalog-pages.js';
import {
  availableStockVoices,
  engineVoiceOf,
  findStockVoice,
  voiceCatalogEngine,
} from '../catalog/stock-voices.js';
import { config } from '../core/config.js';
import { ForbiddenError, NotFoundError } from '../core/errors.js';
import { deleteMediaObject } from '../media/media-store.js';
import { languageMatches, speechEngineFor, type VoiceFilter, type VoiceListEngine } from './voice-filter.js';
import { voiceMediaKeys } from './voice-media.js';
import { templatesUsingVoice } from './voice-references.js';
import {
  ownVoiceDetailView,
  ownVoiceView,
  stockVoiceDetailView,
  stockVoiceView,
  type VoiceDetailView,
  type VoiceType,
  type VoiceView,
} from './voice-views.js';
import { deleteVoiceRecord, getVoiceRecord, workspaceVoices } from './workspace-voices.js';

export interface ListVoicesOptions extends Omit<VoiceFilter, 'engine'> {
  /** Both when omitted (the API defaults it to `public`). */
  type?: VoiceType | undefined;
  /** One of ours, or a hosted provider's name meaning this deployment's engine (voice-filter.ts). */
  engine?: VoiceListEngine | undefined;
  limit: number;
  token?: string | undefined;
}

export function listVoices(workspaceId: string, options: ListVoicesOptions): Promise<Page<VoiceView>> {
  // Own voices keep their settings under the catalog's engine names (the test double speaks eSpeak's).
  const engine =
    options.engine === undefined
      ? undefined
      : voiceCatalogEngine(speechEngineFor(options.engine, config().speechEngine));
  const filter: VoiceFilter = { language: options.language, gender: options.gender, engine };
  const stock = availableStockVoices().filter(
    (voice) =>
      (filter.language === undefined ||
        languageMatches(filter.language, voice.language, voice.languageName)) &&
      (filter.gender === undefined || voice.gender === filter.gender) &&
      (filter.engine === undefined || engineVoiceOf(voice, filter.engine) !== undefined),
  );
  const sources: PageSource<VoiceView>[] = [];
  if (options.type !== 'public') sources.push(workspaceVoices(workspaceId, filter, ownVoiceView));
  if (options.type !== 'private') sources.push(arraySource(stock, stockVoiceView));
  const binding = `${workspaceId}:VoiceList:${JSON.stringify([options.type, filter.language, filter.gender, filter.engine])}`;
  return pageAcrossSources(binding, sources, options.limit, options.token);
}

export const voiceNotFound = (voiceId: string) =>
  new NotFoundError(`Voice ${voiceId} does not exist or was deleted.`, 'voice_not_found', 'voice_id');

/** `GET /v3/voices/{voice_id}`: a stock voice (on this deployment's engine) or an own one, clones with their status. */
export async function getVoiceDetail(workspaceId: string, voiceId: string): Promise<VoiceDetailView> {
  const stock = findStockVoice(voiceId);
  if (stock && availableStockVoices().includes(stock)) return stockVoiceDetailView(stock);
  const own = await getVoiceRecord(workspaceId, voiceId);
  if (!own) throw voiceNotFound(voiceId);
  return ownVoiceDetailView(own);
}

/**
 * `DELETE /v3/voices/{voice_id}`: removes an own voice, its preview and (a clone still being made)
 * its recording, and frees its clone slot.
 * @throws 403 `forbidden` for stock voices, 403 `resource_access_denied` when a template uses the voice,
 * 404 `voice_not_found` for unknown or already deleted voices
 */
export async function deleteVoice(workspaceId: string, voiceId: string): Promise<void> {
  if (findStockVoice(voiceId)) {
    throw new ForbiddenError(
      `Voice ${voiceId} is a stock voice of the service: it is not yours to delete.`,
      'forbidden',
      { param: 'voice_id' },
    );
  }
  const own = await getVoiceRecord(workspaceId, voiceId);
  if (!own) throw voiceNotFound(voiceId);
  const templates = await templatesUsingVoice(workspaceId, voiceId);
  if (templates.length > 0) {
    throw new ForbiddenError(
      `Voice ${voiceId} is used by template${templates.length > 1 ? 's' : ''} ${templates.join(', ')}; change ${templates.length > 1 ? 'them' : 'it'} to another voice first.`,
      'resource_access_denied',
      { param: 'voice_id' },
    );
  }
  const deleted = await deleteVoiceRecord(workspaceId, voiceId);
  if (!deleted) throw voiceNotFound(voiceId);
  await deleteMediaObject(voiceMediaKeys.preview(workspaceId, voiceId));
  if (deleted.source_key && deleted.source_owned) await deleteMediaObject(deleted.source_key);
}
