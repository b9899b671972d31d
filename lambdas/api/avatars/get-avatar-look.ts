import { getAvatarLook } from '../../avatars/avatars.js';
import { NotFoundError } from '../../core/errors.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { lookIdPath } from './schemas.js';

export const handler = apiHandler('AvatarLooksGet', { path: lookIdPath }, async ({ path, principal }) => {
  const look = await getAvatarLook(principal.workspaceId, path.look_id);
  if (!look) throw new NotFoundError(`Avatar look ${path.look_id} not found.`, 'avatar_not_found', 'look_id');
  return respond.ok(look);
});
