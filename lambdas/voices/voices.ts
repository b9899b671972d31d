/**
 * Listing voices: the workspace's own (`private`) followed by the stock voices (`public`) that this
 * deployment's speech engine speaks.
 */
import { arraySource, type Page, type PageSource, pageAcrossSources } from '../catalog/catalog-pages.js';
import { availableStockVoices, engineVoiceOf } from '../catalog/stock-voices.js';
import {
  languageMatches,
  stockVoiceView,
  type VoiceFilter,
  type VoiceType,
  type VoiceView,
} from './voice-views.js';
import { workspaceVoices } from './workspace-voices.js';

export interface ListVoicesOptions extends VoiceFilter {
  type?: VoiceType | undefined;
  limit: number;
  token?: string | undefined;
}

export function listVoices(workspaceId: string, options: ListVoicesOptions): Promise<Page<VoiceView>> {
  const filter: VoiceFilter = { language: options.language, gender: options.gender, engine: options.engine };
  const stock = availableStockVoices().filter(
    (voice) =>
      (filter.language === undefined ||
        languageMatches(filter.language, voice.language, voice.languageName)) &&
      (filter.gender === undefined || voice.gender === filter.gender) &&
      (filter.engine === undefined || engineVoiceOf(voice, filter.engine) !== undefined),
  );
  const sources: PageSource<VoiceView>[] = [];
  if (options.type !== 'public') sources.push(workspaceVoices(workspaceId, filter));
  if (options.type !== 'private') sources.push(arraySource(stock, stockVoiceView));
  const binding = `${workspaceId}:VoiceList:${JSON.stringify([options.type, filter.language, filter.gender, filter.engine])}`;
  return pageAcrossSources(binding, sources, options.limit, options.token);
}
