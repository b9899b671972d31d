/** The account document of `GET /v3/users/me` (and `/v1/user/me`), and the workspace of the caller. */
import { UnauthorizedError } from '../core/errors.js';
import { getWorkspace, type Workspace } from './workspaces.js';

export function accountView(workspace: Workspace) {
  const billing =
    workspace.billing_type === 'wallet'
      ? {
          wallet: {
            currency: workspace.wallet_currency,
            remaining_balance: workspace.wallet_balance,
            auto_reload: { enabled: false },
          },
        }
      : workspace.billing_type === 'usage_based'
        ? {
            usage_based: {
              included_credits: workspace.included_credits,
              remaining_credits: workspace.remaining_credits,
            },
          }
        : {
            subscription: {
              plan: workspace.plan,
              credits: {
                // No reset date: this service does not renew credits on a schedule; admins set them.
                premium_credits: { remaining: workspace.remaining_credits },
              },
            },
          };
  return {
    username: workspace.owner.username,
    email: workspace.owner.email,
    first_name: workspace.owner.first_name,
    last_name: workspace.owner.last_name,
    workspace_id: workspace.workspace_id,
    workspace_name: workspace.name,
    billing_type: workspace.billing_type,
    ...billing,
    included_credits: workspace.included_credits,
    remaining_credits: workspace.remaining_credits,
  };
}

/** The caller's workspace, read now (`consistent`: a balance just moved must show). */
export async function callerWorkspace(workspaceId: string, consistent = false): Promise<Workspace> {
  const workspace = await getWorkspace(workspaceId, consistent);
  // Deleted after the credential was authenticated (cached): the key no longer reaches a workspace.
  if (!workspace)
    throw new UnauthorizedError(
      'The workspace of this key no longer exists.',
      'api_key_owner_workspace_access_revoked',
    );
  return workspace;
}
