import { listAvatarGroups } from '../../avatars/avatars.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';
import { listAvatarGroupsQuery } from './schemas.js';

export const handler = apiHandler(
  'AvatarList',
  { query: listAvatarGroupsQuery },
  async ({ query, principal }) => {
    const page = await listAvatarGroups(principal.workspaceId, {
      ownership: query.ownership,
      limit: query.limit,
      token: query.token,
    });
    return respond.list(page.items, page.nextToken);
  },
);
