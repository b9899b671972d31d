/** Folders: this area's rows of the route table (lambdas/api/routes.ts), with the endpoints that serve them. */
import { NotFoundError } from '../../core/errors.js';
import { createFolder, getFolder, listFolders } from '../../folders/folders.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { areaRoutes, create, row } from '../route-rows.js';
import { createFolderBody, folderBody, folderIdPath, folderListBody, listFoldersQuery } from './schemas.js';

const folderList = endpoint(
  { query: listFoldersQuery },
  async ({ query, principal }) => {
    const page = await listFolders(principal.workspaceId, {
      parentId: query.parent_id,
      type: query.type,
      limit: query.limit,
      token: query.token,
    });
    return respond.list(page.items, page.nextToken);
  },
  { response: folderListBody },
);

const folderCreate = endpoint(
  { body: createFolderBody },
  async ({ body, principal }) => {
    const folder = await createFolder(principal.workspaceId, principal.username, {
      name: body.name,
      parent_id: body.parent_id,
      type: body.type,
    });
    return respond.created(folder);
  },
  { successStatus: 201, response: folderBody },
);

const folderGet = endpoint(
  { path: folderIdPath },
  async ({ path, principal }) => {
    const folder = await getFolder(principal.workspaceId, path.folder_id);
    if (!folder) throw new NotFoundError(`Folder ${path.folder_id} not found.`, 'not_found', 'folder_id');
    return respond.ok(folder);
  },
  { response: folderBody },
);

export const AREA_ROUTES = areaRoutes('folders', [
  row('GET', '/v3/folders', 'FolderList', 'List folders', ['folders:read'], 'read', { endpoint: folderList }),
  row('POST', '/v3/folders', 'FolderCreate', 'Create a folder', ['folders:write'], 'write', {
    ...create,
    endpoint: folderCreate,
  }),
  row('GET', '/v3/folders/{folder_id}', 'FolderGet', 'Get a folder', ['folders:read'], 'read', {
    endpoint: folderGet,
  }),
]);
