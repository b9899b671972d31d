/**
 * Voices a workspace owns (designed with `POST /v3/voices`, cloned with `POST /v3/voices/clone`).
 * Not built yet, so a workspace owns none. `voices.ts` already reads this source ahead of the stock
 * catalog (the `private` type), so building them means filling in this function with a table query
 * (`queryPage` of `core/repository.ts`) that applies the filter.
 */
import { emptySource, type PageSource } from '../catalog/catalog-pages.js';
import type { VoiceFilter, VoiceView } from './voice-views.js';

export function workspaceVoices(_workspaceId: string, _filter: VoiceFilter): PageSource<VoiceView> {
  return emptySource();
}
