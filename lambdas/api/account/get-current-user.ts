import { accountView } from '../../accounts/account-view.js';
import { getWorkspace } from '../../accounts/workspaces.js';
import { UnauthorizedError } from '../../core/errors.js';
import { apiHandler } from '../pipeline/api-handler.js';
import { respond } from '../pipeline/http.js';

export const handler = apiHandler('UserMeGet', {}, async ({ principal }) => {
  const workspace = await getWorkspace(principal.workspaceId);
  // Deleted after the credential was authenticated (cached): the key no longer reaches a workspace.
  if (!workspace)
    throw new UnauthorizedError(
      'The workspace of this key no longer exists.',
      'api_key_owner_workspace_access_revoked',
    );
  return respond.ok(accountView(workspace));
});
