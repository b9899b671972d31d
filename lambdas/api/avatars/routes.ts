/** Avatars: this area's rows of the route table (lambdas/api/routes.ts), with the endpoints that serve them. */

import { z } from 'zod';
import { consentPageTarget, requestConsent } from '../../avatars/avatar-consent.js';
import { type CreatedAvatar, createAvatar, createLooks } from '../../avatars/avatar-creation.js';
import { deleteGroup, deleteLook, renameLook, updateGroup } from '../../avatars/avatar-management.js';
import { getGroupRecord, looksOfGroup } from '../../avatars/avatar-records.js';
import { getAvatarGroup, getAvatarLook, listAvatarGroups, listAvatarLooks } from '../../avatars/avatars.js';
import {
  CONSENT_PAGE_HEADERS,
  consentFormPage,
  refusedConsentPage,
  submitFromConsentPage,
  submittedConsentPage,
} from '../../avatars/consent-page.js';
import { privateGroupView, privateLookView } from '../../avatars/workspace-avatars.js';
import { config } from '../../core/config.js';
import { NotFoundError, ServiceError } from '../../core/errors.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { parseSingleFileUpload } from '../pipeline/multipart.js';
import { areaRoutes, paidCreate, row } from '../route-rows.js';
import {
  avatarGroupBody,
  avatarGroupListBody,
  avatarLookBody,
  avatarLookListBody,
  consentBody,
  consentResponseBody,
  createAvatarBody,
  createdAvatarBody,
  createdLooksBody,
  createLooksBody,
  deletedBody,
  groupIdPath,
  listAvatarGroupsQuery,
  listAvatarLooksQuery,
  lookIdPath,
  updateGroupBody,
  updateLookBody,
} from './schemas.js';

async function createdViews({ group, looks }: CreatedAvatar) {
  return {
    group: await privateGroupView(group, looks),
    looks: await Promise.all(looks.map((look) => privateLookView(look, group))),
  };
}

const avatarCreate = endpoint(
  { body: createAvatarBody },
  async ({ body, principal }) => {
    const created = await createAvatar(principal.workspaceId, body);
    const { group, looks } = await createdViews(created);
    const look = looks[0] as (typeof looks)[number];
    return respond.accepted({
      avatar_id: look.id,
      avatar_group_id: group.id,
      avatar_group: group,
      avatar_item: look,
    });
  },
  { successStatus: 202, response: createdAvatarBody },
);

const avatarLooksCreate = endpoint(
  { body: createLooksBody },
  async ({ body, principal }) => {
    const created = await createLooks(principal.workspaceId, body);
    const { looks } = await createdViews(created);
    return respond.accepted({
      group_id: created.group.group_id,
      look_ids: looks.map((look) => look.id),
      looks,
    });
  },
  { successStatus: 202, response: createdLooksBody },
);

const avatarLooksUpdate = endpoint(
  { path: lookIdPath, body: updateLookBody },
  async ({ path, body, principal }) => {
    const look = await renameLook(principal.workspaceId, path.look_id, body.name.trim());
    return respond.ok(
      await privateLookView(look, await getGroupRecord(principal.workspaceId, look.group_id)),
    );
  },
  { response: avatarLookBody },
);

const avatarLooksDelete = endpoint(
  { path: lookIdPath },
  async ({ path, principal }) => {
    await deleteLook(principal.workspaceId, path.look_id);
    return respond.ok({ id: path.look_id });
  },
  { response: deletedBody },
);

const avatarUpdate = endpoint(
  { path: groupIdPath, body: updateGroupBody },
  async ({ path, body, principal }) => {
    const group = await updateGroup(principal.workspaceId, path.group_id, {
      name: body.name?.trim(),
      default_voice_id: body.default_voice_id,
    });
    return respond.ok(
      await privateGroupView(group, await looksOfGroup(principal.workspaceId, group.group_id)),
    );
  },
  { response: avatarGroupBody },
);

const avatarDelete = endpoint(
  { path: groupIdPath },
  async ({ path, principal }) => {
    await deleteGroup(principal.workspaceId, path.group_id);
    return respond.ok({ id: path.group_id });
  },
  { response: deletedBody },
);

const avatarConsentCreate = endpoint(
  { path: groupIdPath, body: consentBody },
  async ({ path, body, principal, baseUrl }) => {
    const consent = await requestConsent(principal.workspaceId, path.group_id, body, baseUrl);
    return respond.ok({
      avatar_group: await privateGroupView(
        consent.group,
        await looksOfGroup(principal.workspaceId, path.group_id),
      ),
      ...(consent.url ? { url: consent.url } : {}),
    });
  },
  { response: consentResponseBody },
);

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

/** An unknown or expired consent link: the API's own 404 (the page is only served for a live token). */
const unknownConsentLink = () =>
  new NotFoundError(
    'This consent link is unknown or has expired (links work for 7 days); ask for a new one.',
    'not_found',
    'token',
  );

const consentTokenPath = z.strictObject({ token: z.string().min(1).max(128) });
const html = (status: number, body: string) => ({
  ...respond.raw('text/html; charset=utf-8', body, status),
  headers: { ...CONSENT_PAGE_HEADERS },
});

/** The consent page a consent request's `url` opens (no credentials: the token is the secret). */
const consentPageGet = endpoint({ path: consentTokenPath }, async ({ path }) => {
  const target = await consentPageTarget(path.token);
  if (!target) throw unknownConsentLink();
  return html(200, consentFormPage(target.group, config().maxMultipartUploadBytes));
});

/** The consent page's form: the video, submitted for review; then the requester's `reroute_url`. */
const consentPagePost = endpoint({ path: consentTokenPath }, async ({ path, rawBody, headers }) => {
  const target = await consentPageTarget(path.token);
  if (!target) throw unknownConsentLink();
  try {
    const maxBytes = config().maxMultipartUploadBytes;
    const { file } = await parseSingleFileUpload(
      rawBody,
      headers['content-type'],
      'consent_video',
      maxBytes,
      () =>
        new ServiceError(
          413,
          'payload_too_large',
          'The video is too large for this page; record a shorter one.',
        ),
    );
    await submitFromConsentPage(target.group, file);
  } catch (error) {
    if (error instanceof ServiceError && error.status < 500)
      return html(error.status, refusedConsentPage(error.message));
    throw error;
  }
  if (target.rerouteUrl) return { status: 303, body: undefined, headers: { Location: target.rerouteUrl } };
  return html(200, submittedConsentPage());
});

export const AREA_ROUTES = areaRoutes('avatars', [
  row('GET', '/v3/avatars', 'AvatarList', 'List avatar groups', ['avatars:read'], 'read', {
    endpoint: avatarList,
  }),
  row('POST', '/v3/avatars', 'AvatarCreate', 'Create an avatar', ['avatars:write'], 'heavy', {
    ...paidCreate,
    endpoint: avatarCreate,
  }),
  row('GET', '/v3/avatars/looks', 'AvatarLooksList', 'List avatar looks', ['avatars:read'], 'read', {
    endpoint: avatarLooksList,
  }),
  row('POST', '/v3/avatars/looks', 'AvatarLooksCreate', 'Generate looks', ['avatars:write'], 'heavy', {
    ...paidCreate,
    endpoint: avatarLooksCreate,
  }),
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
    { endpoint: avatarLooksUpdate },
  ),
  row(
    'DELETE',
    '/v3/avatars/looks/{look_id}',
    'AvatarLooksDelete',
    'Delete a look',
    ['avatars:write'],
    'write',
    { endpoint: avatarLooksDelete },
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
    { endpoint: avatarUpdate },
  ),
  row(
    'DELETE',
    '/v3/avatars/{group_id}',
    'AvatarDelete',
    'Delete an avatar group',
    ['avatars:write'],
    'write',
    { endpoint: avatarDelete },
  ),
  row(
    'POST',
    '/v3/avatars/{group_id}/consent',
    'AvatarConsentCreate',
    'Submit avatar consent',
    ['avatars:write'],
    'write',
    { endpoint: avatarConsentCreate },
  ),
  row(
    'GET',
    '/v3/avatar-consent/{token}',
    'AvatarConsentPageGet',
    'The consent page of a digital twin (HTML)',
    [],
    'read',
    {
      endpoint: consentPageGet,
      auth: 'none',
    },
  ),
  row(
    'POST',
    '/v3/avatar-consent/{token}',
    'AvatarConsentPageSubmit',
    'Submit a consent video from the consent page',
    [],
    'write',
    {
      endpoint: consentPagePost,
      auth: 'none',
    },
  ),
]);
