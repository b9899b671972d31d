import { NotFoundError } from '../../core/errors.js';
import { getFolder } from '../../folders/folders.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { folderIdPath } from './schemas.js';

export const handler = apiHandler('FolderGet', { path: folderIdPath }, async ({ path, principal }) => {
  const folder = await getFolder(principal.workspaceId, path.folder_id);
  if (!folder) throw new NotFoundError(`Folder ${path.folder_id} not found.`, 'not_found', 'folder_id');
  return respond.ok(folder);
});
