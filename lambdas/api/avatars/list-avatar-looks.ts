import { listAvatarLooks } from '../../avatars/avatars.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { listAvatarLooksQuery } from './schemas.js';

export const handler = apiHandler(
  'AvatarLooksList',
  { query: listAvatarLooksQuery },
  async ({ query, principal }) => {
    const page = await listAvatarLooks(principal.workspaceId, {
      groupId: query.group_id,
      avatarType: query.avatar_type,
      ownership: query.ownership,
      limit: query.limit,
      token: query.token,
    });
    return respond.list(page.items, page.nextToken);
  },
);
