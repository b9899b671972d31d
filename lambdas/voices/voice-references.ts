/**
 * Which templates use a voice. A voice a template uses cannot be deleted (403 `resource_access_denied`),
 * so that the template keeps rendering.
 *
 * A template writes one reference item per voice it speaks with (`templateVoiceReferenceKey`: its
 * scripts' voices and its voice variables' defaults) and deletes it when it stops using the voice or
 * is deleted (lambdas/templates/templates.ts calls `syncTemplateVoiceReferences`).
 */
import { deleteExistingItem, putItem, queryPage, type StoredItem } from '../core/repository.js';
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

/**
 * Moves the template's reference items from the voices of `before` to those of `after`: writes the
 * ones `after` adds, deletes the ones it drops. Both writes are idempotent.
 */
export async function syncTemplateVoiceReferences(
  workspaceId: string,
  templateId: string,
  before: ReadonlySet<string>,
  after: ReadonlySet<string>,
): Promise<void> {
  const added = [...after].filter((voiceId) => !before.has(voiceId));
  const dropped = [...before].filter((voiceId) => !after.has(voiceId));
  await Promise.all([
    ...added.map((voiceId) =>
      putItem({
        ...templateVoiceReferenceKey(workspaceId, voiceId, templateId),
        template_id: templateId,
        voice_id: voiceId,
      }),
    ),
    ...dropped.map((voiceId) =>
      deleteExistingItem(templateVoiceReferenceKey(workspaceId, voiceId, templateId)),
    ),
  ]);
}
