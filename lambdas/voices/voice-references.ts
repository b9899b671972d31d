/**
 * Which templates use a voice. A voice a template uses cannot be deleted (403 `resource_access_denied`),
 * so that the template keeps rendering.
 *
 * Templates are not built yet. When they are, a template that binds a voice writes one reference item
 * per voice (`templateVoiceReferenceKey`) and deletes it when it stops using the voice; this module
 * already reads those items, so voice deletion needs no change then.
 */
import { queryPage, type StoredItem } from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';

/** The item recording that template `templateId` uses voice `voiceId`. */
export const templateVoiceReferenceKey = (workspaceId: string, voiceId: string, templateId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.templateVoiceReference, `${voiceId}#${templateId}`);

/** The ids of templates of the workspace that use the voice (at most `limit` of them). */
export async function templatesUsingVoice(
  workspaceId: string,
  voiceId: string,
  limit = 5,
): Promise<string[]> {
  const prefix = `${RESOURCE_TYPES.templateVoiceReference}#${voiceId}#`;
  const page = await queryPage<StoredItem>({
    partition: keys.workspacePartition(workspaceId),
    sortKeyPrefix: prefix,
    limit,
    binding: `${workspaceId}:TemplateVoiceReferences:${voiceId}`,
    newestFirst: false,
  });
  return page.items.map((item) => item.sk.slice(prefix.length));
}
