/**
 * The hosted API's `/v1` routes: this area's rows of the route table (lambdas/api/routes.ts). User info
 * and folder creation are served by the `/v3` implementation with their own `/v1` request and answer
 * shapes (docs/reference-notes/v1-user-and-folders.md), marked deprecated (with `Deprecation` and
 * `Sunset` headers, api/pipeline/deprecation.ts); errors keep the service's envelope, `param` naming
 * the `/v1` field. The brand-voice routes were removed: they answer 410 naming the replacement.
 */
import { accountView, callerWorkspace } from '../../accounts/account-view.js';
import { InvalidParameterError, ServiceError } from '../../core/errors.js';
import { createFolder } from '../../folders/folders.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { areaRoutes, create, row } from '../route-rows.js';
import { v1CreateFolderBody, v1FolderBody, v1UserBody } from './v1-schemas.js';

const v1UserMe = endpoint(
  {},
  async ({ principal }) => {
    const { username, email, first_name, last_name } = accountView(
      await callerWorkspace(principal.workspaceId),
    );
    return respond.okV1({ username, email, first_name, last_name });
  },
  { response: v1UserBody },
);

/** The `/v3` folder type of a `/v1` `project_type`, or a 400 naming it. */
function folderTypeOf(projectType: string | undefined) {
  switch (projectType) {
    case undefined:
    case 'mixed':
    case 'video':
    case 'video_translate':
      return projectType;
    default:
      throw new InvalidParameterError(
        `\`project_type\` ${projectType} folders are not created over the API here; use mixed, video or video_translate.`,
        'project_type',
      );
  }
}

const v1FolderCreate = endpoint(
  { body: v1CreateFolderBody },
  async ({ body, principal }) => {
    let folder: Awaited<ReturnType<typeof createFolder>>;
    try {
      folder = await createFolder(principal.workspaceId, principal.username, {
        name: body.name,
        parent_id: body.parent_id,
        type: folderTypeOf(body.project_type),
      });
    } catch (error) {
      // The `/v3` field `type` is `project_type` in the request the client sent.
      if (error instanceof ServiceError && error.param === 'type') {
        throw new ServiceError(error.status, error.code, error.message.replace(/\btype\b/g, 'project_type'), {
          param: 'project_type',
          cause: error,
        });
      }
      throw error;
    }
    return respond.okV1({
      id: folder.folder_id,
      folder_id: folder.folder_id,
      name: folder.name,
      parent_id: folder.parent_id,
      project_type: folder.type,
      is_trash: folder.is_trash,
      creator_username: folder.creator_username,
      created_ts: folder.created_at,
      updated_ts: folder.updated_at,
    });
  },
  { response: v1FolderBody },
);

export const AREA_ROUTES = areaRoutes('legacy', [
  row('GET', '/v1/user/me', 'LegacyUserMeGet', 'Current user info (legacy /v1)', ['account:read'], 'read', {
    endpoint: v1UserMe,
    deprecated: { replacement: 'GET /v3/users/me' },
  }),
  row(
    'POST',
    '/v1/folders/create',
    'LegacyFolderCreate',
    'Create a folder (legacy /v1)',
    ['folders:write'],
    'write',
    {
      ...create,
      endpoint: v1FolderCreate,
      deprecated: { replacement: 'POST /v3/folders (`project_type` → `type`)' },
    },
  ),
  // Removed on 2026-10-31: the /v1 brand-voice routes. They answer 410 naming the replacement.
  row('GET', '/v1/brand_voice/list', 'LegacyBrandVoiceList', 'Removed: list brand voices', [], 'read', {
    removed: { replacement: 'GET /v3/brand-glossaries' },
  }),
  row(
    'POST',
    '/v1/brand_voice/{brand_voice_id}',
    'LegacyBrandVoiceUpdate',
    'Removed: update a brand voice',
    [],
    'write',
    {
      removed: {
        replacement:
          'PATCH /v3/brand-glossaries/{brand_glossary_id} (vocabulary → terms, blacklist → do_not_translate_terms, whitelist → forced_translations)',
      },
    },
  ),
]);
