/** Avatars: this area's rows of the route table (lambdas/api/routes.ts), with the endpoints that serve them. */
import { getAvatarGroup, getAvatarLook, listAvatarGroups, listAvatarLooks } from '../../avatars/avatars.js';
import { NotFoundError } from '../../core/errors.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { areaRoutes, paidCreate, row } from '../route-rows.js';
import {
  avatarGroupBody,
  avatarGroupListBody,
  avatarLookBody,
  avatarLookListBody,
  groupIdPath,
  listAvatarGroupsQuery,
  listAvatarLooksQuery,
  lookIdPath,
} from './schemas.js';

const avatarList = endpoint(
  { query: listAvatarGroupsQuery },
  async ({ query, principal }) => {
    const page = await listAvatarGroups(principal.workspaceId, {
      ownership: query.ownership,
      limit: query.limit,
      token: query.token,
    });
    return respond.list(page.items, page.nextToken);
  },
  { response: avatarGroupListBody },
);

const avatarLooksList = endpoint(
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
  { response: avatarLookListBody },
);

const avatarLooksGet = endpoint(
  { path: lookIdPath },
  async ({ path, principal }) => {
    const look = await getAvatarLook(principal.workspaceId, path.look_id);
    if (!look)
      throw new NotFoundError(`Avatar look ${path.look_id} not found.`, 'avatar_not_found', 'look_id');
    return respond.ok(look);
  },
  { response: avatarLookBody },
);

const avatarGet = endpoint(
  { path: groupIdPath },
  async ({ path, principal }) => {
    const group = await getAvatarGroup(principal.workspaceId, path.group_id);
    if (!group)
      throw new NotFoundError(`Avatar group ${path.group_id} not found.`, 'avatar_not_found', 'group_id');
    return respond.ok(group);
  },
  { response: avatarGroupBody },
);

export const AREA_ROUTES = areaRoutes('avatars', [
  row('GET', '/v3/avatars', 'AvatarList', 'List avatar groups', ['avatars:read'], 'read', {
    endpoint: avatarList,
  }),
  row('POST', '/v3/avatars', 'AvatarCreate', 'Create an avatar', ['avatars:write'], 'heavy', paidCreate),
  row('GET', '/v3/avatars/looks', 'AvatarLooksList', 'List avatar looks', ['avatars:read'], 'read', {
    endpoint: avatarLooksList,
  }),
  row(
    'POST',
    '/v3/avatars/looks',
    'AvatarLooksCreate',
    'Generate looks',
    ['avatars:write'],
    'heavy',
    paidCreate,
  ),
  row('GET', '/v3/avatars/looks/{look_id}', 'AvatarLooksGet', 'Get a look', ['avatars:read'], 'status', {
    endpoint: avatarLooksGet,
  }),
  row(
    'PATCH',
    '/v3/avatars/looks/{look_id}',
    'AvatarLooksUpdate',
    'Update a look',
    ['avatars:write'],
    'write',
  ),
  row(
    'DELETE',
    '/v3/avatars/looks/{look_id}',
    'AvatarLooksDelete',
    'Delete a look',
    ['avatars:write'],
    'write',
  ),
  row('GET', '/v3/avatars/{group_id}', 'AvatarGet', 'Get an avatar group', ['avatars:read'], 'status', {
    endpoint: avatarGet,
  }),
  row(
    'PATCH',
    '/v3/avatars/{group_id}',
    'AvatarUpdate',
    'Update an avatar group',
    ['avatars:write'],
    'write',
  ),
  row(
    'DELETE',
    '/v3/avatars/{group_id}',
    'AvatarDelete',
    'Delete an avatar group',
    ['avatars:write'],
    'write',
  ),
  row(
    'POST',
    '/v3/avatars/{group_id}/consent',
    'AvatarConsentCreate',
    'Submit avatar consent',
    ['avatars:write'],
    'write',
  ),
]);
