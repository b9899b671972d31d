/**
 * Reading avatars: the workspace's own (`private`) followed by the stock catalog (`public`), as one
 * paged list per kind. Ids are unique across both: stock ids are readable slugs (`maya-office`),
 * workspace ids are 32 hexadecimal characters.
 */
import { arraySource, type Page, type PageSource, pageAcrossSources } from '../catalog/catalog-pages.js';
import {
  findStockAvatarGroup,
  findStockLook,
  STOCK_AVATAR_GROUPS,
  STOCK_LOOKS,
} from '../catalog/stock-avatars.js';
import {
  type AvatarGroupView,
  type AvatarLookFilter,
  type AvatarLookView,
  type AvatarOwnership,
  stockGroupView,
  stockLookView,
} from './avatar-views.js';
import {
  getWorkspaceAvatarGroup,
  getWorkspaceAvatarLook,
  workspaceAvatarGroups,
  workspaceAvatarLooks,
} from './workspace-avatars.js';

export interface ListOptions {
  /** `public` (stock) or `private` (the workspace's own); both when undefined. */
  ownership?: AvatarOwnership | undefined;
  limit: number;
  token?: string | undefined;
}

/** The sources of a list, private first: what you made yourself comes before the stock library. */
function sourcesFor<V>(
  ownership: AvatarOwnership | undefined,
  own: () => PageSource<V>,
  stock: () => PageSource<V>,
): PageSource<V>[] {
  if (ownership === 'private') return [own()];
  if (ownership === 'public') return [stock()];
  return [own(), stock()];
}

export function listAvatarGroups(workspaceId: string, options: ListOptions): Promise<Page<AvatarGroupView>> {
  const sources = sourcesFor(
    options.ownership,
    () => workspaceAvatarGroups(workspaceId),
    () => arraySource(STOCK_AVATAR_GROUPS, stockGroupView),
  );
  const binding = `${workspaceId}:AvatarList:${options.ownership ?? ''}`;
  return pageAcrossSources(binding, sources, options.limit, options.token);
}

export async function getAvatarGroup(
  workspaceId: string,
  groupId: string,
): Promise<AvatarGroupView | undefined> {
  const stock = findStockAvatarGroup(groupId);
  if (stock) return stockGroupView(stock);
  return getWorkspaceAvatarGroup(workspaceId, groupId);
}

export function listAvatarLooks(
  workspaceId: string,
  options: ListOptions & AvatarLookFilter,
): Promise<Page<AvatarLookView>> {
  const filter: AvatarLookFilter = { groupId: options.groupId, avatarType: options.avatarType };
  const stockLooks = STOCK_LOOKS.filter(
    (look) =>
      (filter.groupId === undefined || look.groupId === filter.groupId) &&
      (filter.avatarType === undefined || filter.avatarType === 'studio_avatar'),
  );
  const sources = sourcesFor(
    options.ownership,
    () => workspaceAvatarLooks(workspaceId, filter),
    () => arraySource(stockLooks, stockLookView),
  );
  const binding = `${workspaceId}:AvatarLooksList:${JSON.stringify([options.ownership, filter.avatarType, filter.groupId])}`;
  return pageAcrossSources(binding, sources, options.limit, options.token);
}

export async function getAvatarLook(
  workspaceId: string,
  lookId: string,
): Promise<AvatarLookView | undefined> {
  const stock = findStockLook(lookId);
  if (stock) return stockLookView(stock);
  return getWorkspaceAvatarLook(workspaceId, lookId);
}
