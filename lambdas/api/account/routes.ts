/** Account and key inspection: this area's rows of the route table (lambdas/api/routes.ts), with the endpoints that serve them. */
import { accountView } from '../../accounts/account-view.js';
import { getWorkspace } from '../../accounts/workspaces.js';
import { UnauthorizedError } from '../../core/errors.js';
import { endpoint } from '../pipeline/endpoint.js';
import { respond } from '../pipeline/http.js';
import { areaRoutes, row } from '../route-rows.js';
import { accountBody, apiKeySelfBody } from './schemas.js';

const userMeGet = endpoint(
  {},
  async ({ principal }) => {
    const workspace = await getWorkspace(principal.workspaceId);
    // Deleted after the credential was authenticated (cached): the key no longer reaches a workspace.
    if (!workspace)
      throw new UnauthorizedError(
        'The workspace of this key no longer exists.',
        'api_key_owner_workspace_access_revoked',
      );
    return respond.ok(accountView(workspace));
  },
  { response: accountBody },
);

const apiKeySelfGet = endpoint(
  {},
  async ({ principal }) =>
    respond.ok({
      key_id: principal.credentialId,
      name: principal.name,
      auth_type: principal.authType,
      workspace_id: principal.workspaceId,
      scope_mode: principal.scopeMode,
      scopes: principal.scopes,
      expires_at: principal.expiresAt,
    }),
  { response: apiKeySelfBody },
);

export const AREA_ROUTES = areaRoutes('account', [
  row('GET', '/v3/users/me', 'UserMeGet', 'Account info with billing and credits', ['account:read'], 'read', {
    endpoint: userMeGet,
  }),
  row('GET', '/v3/api_keys/self', 'ApiKeySelfGet', 'Describe the calling API key', [], 'read', {
    endpoint: apiKeySelfGet,
  }),
]);
