import { listFolders } from '../../folders/folders.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { listFoldersQuery } from './schemas.js';

export const handler = apiHandler('FolderList', { query: listFoldersQuery }, async ({ query, principal }) => {
  const page = await listFolders(principal.workspaceId, {
    parentId: query.parent_id,
    type: query.type,
    limit: query.limit,
    token: query.token,
  });
  return respond.list(page.items, page.nextToken);
});
