/**
 * Folders: containers that receive outputs. `asset` folders belong to the app: they are flat and
 * cannot be created or nested over the API. A folder id from another workspace is never found.
 */
import { InvalidParameterError } from '../core/errors.js';
import { ID_PATTERN, newId, nowSeconds } from '../core/ids.js';
import { getItem, putNewItem, queryPage } from '../core/repository.js';
import { keys, RESOURCE_TYPES } from '../core/table-schema.js';

export const FOLDER_TYPES = ['mixed', 'video', 'video_translate', 'asset'] as const;
export type FolderType = (typeof FOLDER_TYPES)[number];
/** The types a client may create. */
export const CREATABLE_FOLDER_TYPES = ['mixed', 'video', 'video_translate'] as const;

export interface Folder {
  folder_id: string;
  name: string;
  parent_id: string | null;
  type: FolderType;
  is_trash: boolean;
  creator_username: string;
  created_at: number;
  updated_at: number;
}

type FolderItem = Folder & { pk: string; sk: string; gsi1pk: string; gsi1sk: string };

const folderKey = (workspaceId: string, folderId: string) =>
  keys.resource(workspaceId, RESOURCE_TYPES.folder, folderId);

/** GSI1 groups a folder's children, so listing them is one exact query. */
const childrenPartition = (workspaceId: string, parentId: string | null) =>
  `WS#${workspaceId}#FOLDER_CHILDREN#${parentId ?? 'ROOT'}`;

function toFolder(item: FolderItem): Folder {
  const { pk: _pk, sk: _sk, gsi1pk: _gsi1pk, gsi1sk: _gsi1sk, ...folder } = item;
  return folder;
}

export async function getFolder(workspaceId: string, folderId: string): Promise<Folder | undefined> {
  if (!ID_PATTERN.test(folderId)) return undefined;
  const item = await getItem<FolderItem>(folderKey(workspaceId, folderId));
  return item ? toFolder(item) : undefined;
}

/**
 * For every create that accepts `folder_id`: the folder must exist in the caller's workspace and be
 * able to hold outputs of `kind`. Answers 400 naming `param` otherwise.
 */
export async function requireUsableFolder(
  workspaceId: string,
  folderId: string,
  param: string,
  kind: Exclude<FolderType, 'mixed'>,
): Promise<Folder> {
  const folder = await getFolder(workspaceId, folderId);
  if (!folder) throw new InvalidParameterError(`Folder ${folderId} does not exist in this workspace.`, param);
  if (folder.type !== 'mixed' && folder.type !== kind) {
    throw new InvalidParameterError(
      `Folder ${folderId} holds ${folder.type} items and cannot receive ${kind} outputs.`,
      param,
    );
  }
  return folder;
}

export interface NewFolder {
  name: string;
  parent_id?: string | undefined;
  type?: (typeof CREATABLE_FOLDER_TYPES)[number] | undefined;
}

export async function createFolder(
  workspaceId: string,
  creatorUsername: string,
  input: NewFolder,
): Promise<Folder> {
  let type = input.type;
  if (input.parent_id !== undefined) {
    const parent = await getFolder(workspaceId, input.parent_id);
    if (!parent)
      throw new InvalidParameterError(
        `Parent folder ${input.parent_id} does not exist in this workspace.`,
        'parent_id',
      );
    if (parent.type === 'asset') {
      throw new InvalidParameterError('Asset folders are flat: nothing can be nested in them.', 'parent_id');
    }
    if (parent.is_trash)
      throw new InvalidParameterError(`Parent folder ${input.parent_id} is in the trash.`, 'parent_id');
    // A typed folder holds only its own type; a child inherits the parent's type when none is given.
    if (parent.type !== 'mixed') {
      if (type !== undefined && type !== parent.type) {
        throw new InvalidParameterError(
          `A folder inside a ${parent.type} folder must also be of type ${parent.type}.`,
          'type',
        );
      }
      type = parent.type;
    }
  }
  const now = nowSeconds();
  const folder: Folder = {
    folder_id: newId(),
    name: input.name,
    parent_id: input.parent_id ?? null,
    type: type ?? 'mixed',
    is_trash: false,
    creator_username: creatorUsername,
    created_at: now,
    updated_at: now,
  };
  const created = await putNewItem({
    ...folderKey(workspaceId, folder.folder_id),
    gsi1pk: childrenPartition(workspaceId, folder.parent_id),
    gsi1sk: `${RESOURCE_TYPES.folder}#${folder.folder_id}`,
    ...folder,
  });
  if (!created) throw new Error(`Folder id collision: ${folder.folder_id}`);
  return folder;
}

export interface FolderListFilter {
  parentId?: string | undefined;
  type?: FolderType | undefined;
  limit: number;
  token?: string | undefined;
}

export async function listFolders(workspaceId: string, filter: FolderListFilter) {
  const byParent = filter.parentId !== undefined;
  const page = await queryPage<FolderItem>({
    partition: byParent
      ? childrenPartition(workspaceId, filter.parentId ?? null)
      : keys.workspacePartition(workspaceId),
    ...(byParent ? { index: 'gsi1' as const } : {}),
    sortKeyPrefix: `${RESOURCE_TYPES.folder}#`,
    limit: filter.limit,
    token: filter.token,
    binding: `${workspaceId}:FolderList:${filter.parentId ?? ''}:${filter.type ?? ''}`,
    ...(filter.type ? { keep: (item: Record<string, unknown>) => item.type === filter.type } : {}),
  });
  return { items: page.items.map(toFolder), nextToken: page.nextToken };
}
