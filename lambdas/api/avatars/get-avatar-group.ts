import { getAvatarGroup } from '../../avatars/avatars.js';
import { NotFoundError } from '../../core/errors.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { groupIdPath } from './schemas.js';

export const handler = apiHandler('AvatarGet', { path: groupIdPath }, async ({ path, principal }) => {
  const group = await getAvatarGroup(principal.workspaceId, path.group_id);
  if (!group)
    throw new NotFoundError(`Avatar group ${path.group_id} not found.`, 'avatar_not_found', 'group_id');
  return respond.ok(group);
});
