import { createFolder } from '../../folders/folders.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { createFolderBody } from './schemas.js';

export const handler = apiHandler(
  'FolderCreate',
  { body: createFolderBody },
  async ({ body, principal }) => {
    const folder = await createFolder(principal.workspaceId, principal.username, {
      name: body.name,
      parent_id: body.parent_id,
      type: body.type,
    });
    return respond.created(folder);
  },
  { successStatus: 201 },
);
